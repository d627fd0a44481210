// Peek and list, tenant scoping, and catch-all keys written naturally — through inject() and
// through a real HTTP connection (inject may normalise a URL differently).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { b64, batch, claimRow, expireClaim, http, keyPath, sched } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true });
});
afterAll(() => tb?.close());

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('peek', () => {
  it('returns every field of a pending timer, payload base64 as stored', async () => {
    const s = (await batch(tb, [sched('peek', 'k', { txn: 't1', partition: 'p', payload: b64('hello') })])).body.results[0];
    const res = await api(tb, 'GET', keyPath('peek', 'k'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      found: true,
      queue: 'peek',
      timerKey: 'k',
      partition: 'p',
      deliverAt: s.deliverAt,
      txn: 't1',
      messageId: s.messageId,
      payload: b64('hello'),
      payloadZstd: false,
      encrypted: false,
      producerSub: 'tester',
      attempts: 0,
      lastError: null,
      claimed: false,
      createdAt: expect.stringMatching(INSTANT),
      updatedAt: expect.stringMatching(INSTANT),
    });
  });

  it('returns a large payload without line breaks', async () => {
    const payload = b64(randomBytes(3000)); // incompressible: stored as sent
    await batch(tb, [sched('peek', 'large', { payload })]);
    expect((await api(tb, 'GET', keyPath('peek', 'large'))).body.payload).toBe(payload);
  });

  it('says claimed while a lease is live, and not claimed in backoff (with attempts and lastError)', async () => {
    await batch(tb, [sched('peek', 'c')]);
    await claimRow(tb, 'peek', 'c');
    expect((await api(tb, 'GET', keyPath('peek', 'c'))).body.claimed).toBe(true);
    await expireClaim(tb, 'peek', 'c');
    expect((await api(tb, 'GET', keyPath('peek', 'c'))).body).toMatchObject({ claimed: false, attempts: 3, lastError: 'boom' });
  });

  it('a miss is 200 {found:false}', async () => {
    const res = await api(tb, 'GET', keyPath('peek', 'nope'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ found: false });
  });

  it('needs the read grant: a produce-only credential gets 403', async () => {
    const res = await api(tb, 'GET', keyPath('peek', 'k'), { token: await tb.token({ grants: ['produce'] }) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('grant_missing');
  });

  it('is refused by the boot flag', async () => {
    tb.broker.state.ready = false;
    try {
      expect((await api(tb, 'GET', keyPath('peek', 'k'))).status).toBe(503);
      expect((await api(tb, 'GET', '/api/v1/timers/peek')).status).toBe(503);
    } finally {
      tb.broker.state.ready = true;
    }
  });
});

describe('list', () => {
  const keys = ['b', 'a', 'B', 'a/b', 'é', 'Z', 'a b', '_', '0'];
  beforeAll(async () => {
    await batch(
      tb,
      keys.map((k) => sched('list', k)),
    );
  });
  const byteOrder = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

  it('lists timerKeys in byte order without payloads', async () => {
    const res = await api(tb, 'GET', '/api/v1/timers/list');
    expect(res.status).toBe(200);
    expect(res.body.rows.map((r: any) => r.timerKey)).toEqual(byteOrder);
    expect(res.body.truncated).toBe(false);
    expect(res.body.rows[0]).not.toHaveProperty('payload');
    expect(Object.keys(res.body.rows[0]).sort()).toEqual(
      [
        'queue',
        'timerKey',
        'partition',
        'deliverAt',
        'txn',
        'messageId',
        'payloadZstd',
        'encrypted',
        'producerSub',
        'attempts',
        'lastError',
        'claimed',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
  });

  it('pages with an exclusive keyset cursor until truncated is false', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const q: string = `/api/v1/timers/list?limit=2${after !== null ? `&after=${encodeURIComponent(after)}` : ''}`;
      const res = await api(tb, 'GET', q);
      seen.push(...res.body.rows.map((r: any) => r.timerKey));
      expect(res.body.nextAfter).toBe(res.body.rows.at(-1)?.timerKey ?? null);
      if (!res.body.truncated) break;
      expect(res.body.rows).toHaveLength(2);
      after = res.body.nextAfter;
    }
    expect(seen).toEqual(byteOrder);
  });

  it('says truncated only when more rows follow', async () => {
    const exact = await api(tb, 'GET', `/api/v1/timers/list?limit=${keys.length}`);
    expect(exact.body).toMatchObject({ truncated: false, nextAfter: byteOrder.at(-1) });
    const short = await api(tb, 'GET', `/api/v1/timers/list?limit=${keys.length - 1}`);
    expect(short.body).toMatchObject({ truncated: true, nextAfter: byteOrder.at(-2) });
  });

  it('an empty page answers rows [], truncated false, nextAfter null', async () => {
    expect((await api(tb, 'GET', '/api/v1/timers/list-empty')).body).toEqual({ rows: [], truncated: false, nextAfter: null });
    expect((await api(tb, 'GET', `/api/v1/timers/list?after=${encodeURIComponent('é')}`)).body).toEqual({
      rows: [],
      truncated: false,
      nextAfter: null,
    });
  });

  it.each([
    ['0', 1],
    ['-5', 1],
    ['2.7', 2],
    ['100000', 1000],
  ])('clamps limit=%s to %i instead of rejecting it', async (limit, expected) => {
    // 1001 rows in one queue to see the upper clamp.
    if (expected === 1000) {
      for (let i = 0; i < 4; i++)
        await batch(
          tb,
          Array.from({ length: 251 }, (_, j) => sched('list-many', `k${String(i * 251 + j).padStart(4, '0')}`)),
        );
    }
    const queue = expected === 1000 ? 'list-many' : 'list';
    const res = await api(tb, 'GET', `/api/v1/timers/${queue}?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(res.body.rows).toHaveLength(expected);
    expect(res.body.truncated).toBe(true);
  });

  it('defaults limit to 100', async () => {
    const res = await api(tb, 'GET', '/api/v1/timers/list-many');
    expect(res.body.rows).toHaveLength(100);
    expect(res.body.truncated).toBe(true);
  });

  it('refuses an unknown query parameter', async () => {
    const res = await api(tb, 'GET', '/api/v1/timers/list?sort=a');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unknown_field', field: 'sort' });
  });

  it('needs the read grant', async () => {
    expect((await api(tb, 'GET', '/api/v1/timers/list', { token: await tb.token({ grants: ['produce'] }) })).status).toBe(403);
  });
});

describe('reads and cancels are tenant-scoped', () => {
  beforeAll(async () => {
    await batch(tb, [sched('shared', 'secret', { txn: 'acme-txn' })]);
  });
  const other = () => tb.token({ tenant: 'globex' });

  it("another tenant's key is found:false on peek", async () => {
    expect((await api(tb, 'GET', keyPath('shared', 'secret'), { token: await other() })).body).toEqual({ found: false });
  });

  it('is invisible in list', async () => {
    expect((await api(tb, 'GET', '/api/v1/timers/shared', { token: await other() })).body.rows).toEqual([]);
  });

  it('is absent on cancel, by DELETE and in a batch, and stays pending', async () => {
    const token = await other();
    expect((await api(tb, 'DELETE', keyPath('shared', 'secret'), { token })).body).toEqual({
      ok: false,
      status: 'absent',
      queue: 'shared',
      timerKey: 'secret',
      txn: null,
    });
    expect((await batch(tb, [{ op: 'cancel', queue: 'shared', timerKey: 'secret' }], { token })).body.results[0].status).toBe('absent');
    expect((await api(tb, 'GET', keyPath('shared', 'secret'))).body.found).toBe(true);
  });

  it('a schedule of the same key by another tenant is its own timer', async () => {
    const res = await batch(tb, [sched('shared', 'secret')], { token: await other() });
    expect(res.body.results[0].status).toBe('scheduled');
    expect((await api(tb, 'GET', keyPath('shared', 'secret'))).body.txn).toBe('acme-txn');
  });
});

describe('catch-all keys written naturally', () => {
  const KEYS = [
    'tenant/42',
    'a/b/c',
    '50%off',
    '100%',
    'with space',
    'ünïcödé/日本',
    'trailing/',
    '/leading',
    'a//b',
    'emoji🎉',
    'q?',
    'h#x',
  ];
  /** What a client writes in the path: naturally, except the two URL delimiters. */
  const natural = (k: string) => k.replace(/\?/g, '%3F').replace(/#/g, '%23');

  for (const via of ['inject', 'http'] as const) {
    describe(`through ${via}`, () => {
      const call = async (method: 'GET' | 'DELETE', path: string) => (via === 'inject' ? api(tb, method, path) : http(tb, method, path));

      it.each(KEYS)('%s round-trips through schedule, peek, list and DELETE', async (key) => {
        const queue = `natural-${via}`;
        const s = await batch(tb, [sched(queue, key, { txn: 'tx' })]);
        expect(s.body.results[0]).toMatchObject({ status: 'scheduled', timerKey: key });
        const peek = await call('GET', keyPath(queue, natural(key)));
        expect(peek.status).toBe(200);
        expect(peek.body).toMatchObject({ found: true, timerKey: key });
        const listed = await call('GET', `/api/v1/timers/${queue}?limit=1000`);
        expect(listed.body.rows.map((r: any) => r.timerKey)).toContain(key);
        const del = await call('DELETE', `${keyPath(queue, natural(key))}?txn=tx`);
        expect(del.status).toBe(200);
        expect(del.body).toEqual({ ok: true, status: 'cancelled', queue, timerKey: key, txn: 'tx' });
        expect((await call('GET', keyPath(queue, natural(key)))).body).toEqual({ found: false });
      });
    });
  }

  it('a percent-encoded key decodes; %25 addresses a literal % before hex digits', async () => {
    await batch(tb, [sched('enc', 'a b/c'), sched('enc', '%41')]);
    expect((await http(tb, 'GET', '/api/v1/timers/enc/a%20b%2Fc')).body).toMatchObject({ found: true, timerKey: 'a b/c' });
    expect((await http(tb, 'GET', '/api/v1/timers/enc/%2541')).body).toMatchObject({ found: true, timerKey: '%41' });
  });

  it('GET /api/v1/timers/:queue/ (trailing slash, no key) is the list, not a peek of an empty key', async () => {
    const res = await http(tb, 'GET', '/api/v1/timers/list/');
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('rows');
  });
});
