// POST /api/v1/timers: the upsert, the closed taxonomy, ordering inside a batch, strict input,
// metering and the usage route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { b64, batch, cancel, claimRow, countRows, expireClaim, metered, row, sched, snapshot, UUID } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('schedule', () => {
  it('creates a pending timer and answers scheduled with txn, messageId and deliverAt', async () => {
    const res = await batch(tb, [
      sched('reminders', 'trial:acme:day7', { delayMs: 604_800_000, txn: 'trial-acme-day7-v1', partition: 'acme' }),
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [
        {
          ok: true,
          status: 'scheduled',
          queue: 'reminders',
          timerKey: 'trial:acme:day7',
          txn: 'trial-acme-day7-v1',
          messageId: expect.stringMatching(UUID),
          deliverAt: expect.stringMatching(INSTANT),
        },
      ],
    });
    const r = await row(tb, 'reminders', 'trial:acme:day7');
    expect(r).toMatchObject({
      partition: 'acme',
      txn: 'trial-acme-day7-v1',
      message_id: res.body.results[0].messageId,
      producer_sub: 'tester',
      attempts: 0,
    });
    expect(r!.payload.toString()).toBe('{"key":"trial:acme:day7"}');
  });

  it('computes deliverAt on PostgreSQL clock as now() + delayMs, rendered with microseconds', async () => {
    const before = (await tb.sql.query('SELECT now() AS t')).rows[0].t as Date;
    const res = await batch(tb, [sched('clock', 'k', { delayMs: 3_600_000 })]);
    const after = (await tb.sql.query('SELECT now() AS t')).rows[0].t as Date;
    const deliverAt = Date.parse(res.body.results[0].deliverAt);
    expect(deliverAt).toBeGreaterThanOrEqual(before.getTime() + 3_600_000 - 1);
    expect(deliverAt).toBeLessThanOrEqual(after.getTime() + 3_600_000 + 1);
    const r = (
      await tb.sql.query(
        `SELECT to_char(deliver_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS d FROM timers WHERE queue = 'clock'`,
      )
    ).rows[0];
    expect(res.body.results[0].deliverAt).toBe(r.d);
  });

  it('renders every deliverAt of a batch as PostgreSQL does, whatever its microseconds', async () => {
    const res = await batch(
      tb,
      Array.from({ length: 64 }, (_, i) => sched('render', `k${i}`, { delayMs: i * 1_000_003 + (i % 7) })),
    );
    const rows = (
      await tb.sql.query(
        `SELECT timer_key, to_char(deliver_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS d FROM timers WHERE queue = 'render'`,
      )
    ).rows;
    const byKey = new Map(rows.map((r) => [r.timer_key, r.d]));
    expect(byKey.size).toBe(64);
    for (const r of res.body.results) expect(r.deliverAt).toBe(byKey.get(r.timerKey));
  });

  it('stores keys, txns and partitions that an array literal must escape exactly as sent', async () => {
    // The upsert passes them as text[] parameters.
    const awkward = ['a"b', 'c\\d', '\\"', '{x,y}', 'NULL', ' padded ', "it's"];
    const res = await batch(
      tb,
      awkward.map((s, i) => sched('escapes', `${s}/${i}`, { txn: `${s}:${i}`, partition: s })),
    );
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(awkward.map(() => 'scheduled'));
    for (const [i, s] of awkward.entries()) {
      expect(await row(tb, 'escapes', `${s}/${i}`)).toMatchObject({ txn: `${s}:${i}`, partition: s });
    }
  });

  it('mints a txn when none is supplied, and the default partition is Default', async () => {
    const res = await batch(tb, [sched('mint', 'k')]);
    const { txn } = res.body.results[0];
    expect(txn).toMatch(UUID);
    expect(await row(tb, 'mint', 'k')).toMatchObject({ txn, partition: 'Default' });
  });

  it('creates the queue and partition on first use', async () => {
    await batch(tb, [sched('fresh-queue', 'k', { partition: 'p1' })]);
    const q = await tb.sql.query(`SELECT name FROM queues WHERE tenant = 'acme' AND name = 'fresh-queue'`);
    const p = await tb.sql.query(`SELECT name FROM partitions WHERE tenant = 'acme' AND queue = 'fresh-queue'`);
    expect(q.rows).toEqual([{ name: 'fresh-queue' }]);
    expect(p.rows).toEqual([{ name: 'p1' }]);
  });

  it('accepts a zero delay and an empty payload', async () => {
    const res = await batch(tb, [sched('edge', 'zero', { delayMs: 0, payload: '' })]);
    expect(res.body.results[0]).toMatchObject({ ok: true, status: 'scheduled' });
    expect((await row(tb, 'edge', 'zero'))!.payload.length).toBe(0);
  });

  it('wakes the sweeper with the earliest deliverAt of the batch, after commit', async () => {
    const seen: number[] = [];
    const off = tb.broker.services.notifier.onTimer((e) => seen.push(e.deliverAtMs));
    try {
      const res = await batch(tb, [
        sched('wake', 'late', { delayMs: 50_000 }),
        sched('wake', 'early', { delayMs: 5_000 }),
        cancel('wake', 'none'),
      ]);
      // Whole milliseconds, rounded up so that a woken sweeper finds the timer due.
      expect(seen).toHaveLength(1);
      expect(Number.isInteger(seen[0])).toBe(true);
      const micros = Number(res.body.results[1].deliverAt.slice(20, 26));
      expect(seen[0]).toBe(Date.parse(res.body.results[1].deliverAt) + (micros % 1000 === 0 ? 0 : 1));
    } finally {
      off();
    }
  });

  it('does not wake the sweeper for a batch that schedules nothing', async () => {
    const seen: number[] = [];
    const off = tb.broker.services.notifier.onTimer((e) => seen.push(e.deliverAtMs));
    try {
      await batch(tb, [cancel('wake', 'nothing')]);
      expect(seen).toEqual([]);
    } finally {
      off();
    }
  });
});

describe('upsert: schedule and reschedule are one operation', () => {
  it('replaces an unclaimed timer: new payload, deliverAt, messageId and txn, attempts and lastError reset, claim cleared', async () => {
    const first = (await batch(tb, [sched('up', 'k1', { txn: 'v1', delayMs: 1_000 })])).body.results[0];
    await expireClaim(tb, 'up', 'k1'); // in backoff after a failed fire: not claimed
    const second = await batch(tb, [sched('up', 'k1', { txn: 'v2', delayMs: 120_000, payload: b64('new'), partition: 'p2' })]);
    expect(second.body.results[0]).toMatchObject({ ok: true, status: 'rescheduled', txn: 'v2' });
    expect(second.body.results[0].messageId).not.toBe(first.messageId);
    expect(Date.parse(second.body.results[0].deliverAt)).toBeGreaterThan(Date.parse(first.deliverAt));
    const r = await row(tb, 'up', 'k1');
    expect(r).toMatchObject({
      txn: 'v2',
      partition: 'p2',
      attempts: 0,
      last_error: null,
      claim_token: null,
      claim_expires_at: null,
      message_id: second.body.results[0].messageId,
    });
    expect(r!.payload.toString()).toBe('new');
  });

  it('answers each op of a batch with the txn and messageId its own row holds, the keys out of their stored order', async () => {
    const keys = ['m3', 'm1', 'm2'];
    const res = await batch(tb, [sched('mint', 'm3'), sched('mint', 'm1', { txn: 'given' }), sched('mint', 'm2')]);
    expect(res.status).toBe(200);
    const results = res.body.results;
    expect(new Set(results.map((r: { messageId: string }) => r.messageId)).size).toBe(3);
    for (const [i, key] of keys.entries()) {
      const r = await row(tb, 'mint', key);
      expect(results[i]).toMatchObject({ timerKey: key, txn: r!.txn, messageId: r!.message_id });
    }
    expect(results[1].txn).toBe('given');
    expect(results[0].txn).toMatch(UUID);
    expect(results[0].txn).not.toBe(results[2].txn);
  });

  it('mints a new txn on a reschedule without one', async () => {
    await batch(tb, [sched('up', 'k2', { txn: 'original' })]);
    const res = await batch(tb, [sched('up', 'k2', { op: 'reschedule' })]);
    expect(res.body.results[0].status).toBe('rescheduled');
    expect(res.body.results[0].txn).not.toBe('original');
    expect(res.body.results[0].txn).toMatch(UUID);
  });

  it('a reschedule of a missing key creates it (scheduled)', async () => {
    const res = await batch(tb, [sched('up', 'never-seen', { op: 'reschedule' })]);
    expect(res.body.results[0]).toMatchObject({ ok: true, status: 'scheduled' });
    expect(await row(tb, 'up', 'never-seen')).toBeDefined();
  });

  it('a schedule on a claimed timer answers too_late with HTTP 200 and changes nothing', async () => {
    await batch(tb, [sched('up', 'claimed', { txn: 'will-fire' })]);
    await claimRow(tb, 'up', 'claimed');
    const before = await row(tb, 'up', 'claimed');
    const res = await batch(tb, [sched('up', 'claimed', { txn: 'too-late-v2', payload: b64('other') })]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([{ ok: false, status: 'too_late', queue: 'up', timerKey: 'claimed', txn: 'will-fire' }]);
    expect(await row(tb, 'up', 'claimed')).toEqual(before);
  });

  it('the same key twice in one batch applies in order: scheduled, then rescheduled', async () => {
    const res = await batch(tb, [sched('dup', 'k', { txn: 'a' }), sched('dup', 'k', { txn: 'b', payload: b64('second') })]);
    expect(res.body.results.map((r: any) => [r.status, r.txn])).toEqual([
      ['scheduled', 'a'],
      ['rescheduled', 'b'],
    ]);
    expect((await row(tb, 'dup', 'k'))!.payload.toString()).toBe('second');
  });
});

describe('cancel inside a batch', () => {
  it('cancels an unclaimed timer, echoing the supplied txn', async () => {
    await batch(tb, [sched('c', 'k1', { txn: 'row-txn' })]);
    const res = await batch(tb, [cancel('c', 'k1', 'my-txn')]);
    expect(res.body.results).toEqual([{ ok: true, status: 'cancelled', queue: 'c', timerKey: 'k1', txn: 'my-txn' }]);
    expect(await row(tb, 'c', 'k1')).toBeUndefined();
  });

  it("answers the cancelled row's txn when none was supplied", async () => {
    await batch(tb, [sched('c', 'k2', { txn: 'row-txn-2' })]);
    const res = await batch(tb, [cancel('c', 'k2')]);
    expect(res.body.results[0]).toEqual({ ok: true, status: 'cancelled', queue: 'c', timerKey: 'k2', txn: 'row-txn-2' });
  });

  it('answers absent (ok false) for a missing key, echoing the txn or null', async () => {
    const res = await batch(tb, [cancel('c', 'missing', 't'), cancel('c', 'missing2')]);
    expect(res.body.results).toEqual([
      { ok: false, status: 'absent', queue: 'c', timerKey: 'missing', txn: 't' },
      { ok: false, status: 'absent', queue: 'c', timerKey: 'missing2', txn: null },
    ]);
  });

  it('answers too_late for a claimed timer and leaves it in place', async () => {
    await batch(tb, [sched('c', 'claimed', { txn: 'claimed-txn' })]);
    await claimRow(tb, 'c', 'claimed');
    const res = await batch(tb, [cancel('c', 'claimed')]);
    expect(res.body.results).toEqual([{ ok: false, status: 'too_late', queue: 'c', timerKey: 'claimed', txn: 'claimed-txn' }]);
    expect(await row(tb, 'c', 'claimed')).toBeDefined();
  });

  it('cancels a timer whose claim expired (backoff is not claimed)', async () => {
    await batch(tb, [sched('c', 'backoff')]);
    await expireClaim(tb, 'c', 'backoff');
    const res = await batch(tb, [cancel('c', 'backoff')]);
    expect(res.body.results[0].status).toBe('cancelled');
  });

  it('a schedule then a cancel of the same key answers scheduled, then cancelled, and leaves no row', async () => {
    const res = await batch(tb, [sched('order', 'k', { txn: 't1' }), cancel('order', 'k')]);
    expect(res.body.results.map((r: any) => r.status)).toEqual(['scheduled', 'cancelled']);
    expect(res.body.results[1].txn).toBe('t1');
    expect(await row(tb, 'order', 'k')).toBeUndefined();
  });

  it('a cancel then a schedule of the same key answers absent, then scheduled, and leaves the row', async () => {
    const res = await batch(tb, [cancel('order', 'k2'), sched('order', 'k2')]);
    expect(res.body.results.map((r: any) => r.status)).toEqual(['absent', 'scheduled']);
    expect(await row(tb, 'order', 'k2')).toBeDefined();
  });

  it('applies a mixed batch of distinct and repeated keys in order', async () => {
    await batch(tb, [sched('mix', 'b')]);
    const res = await batch(tb, [
      sched('mix', 'a'),
      cancel('mix', 'b'),
      cancel('mix', 'a'),
      sched('mix', 'b'),
      sched('mix', 'a', { op: 'reschedule' }),
      cancel('mix', 'c'),
      sched('mix', 'a'),
    ]);
    expect(res.body.results.map((r: any) => r.status)).toEqual([
      'scheduled',
      'cancelled',
      'cancelled',
      'scheduled',
      'scheduled',
      'absent',
      'rescheduled',
    ]);
    expect(res.body.results.map((r: any) => r.ok)).toEqual([true, true, true, true, true, false, true]);
    const keys = (await tb.sql.query(`SELECT timer_key FROM timers WHERE queue = 'mix' ORDER BY timer_key`)).rows.map((r) => r.timer_key);
    expect(keys).toEqual(['a', 'b']);
  });

  it('applies a long run alternating schedules and cancels on distinct keys (ordered-lock fallback)', async () => {
    await batch(
      tb,
      Array.from({ length: 20 }, (_, i) => sched('alt', `k${String(i).padStart(2, '0')}`)),
    );
    // Even keys are cancelled, odd keys rescheduled, and 20 new keys scheduled: far more kind
    // alternations in key order than the chunked path takes.
    const ops = Array.from({ length: 40 }, (_, i) => {
      const key = `k${String(i).padStart(2, '0')}`;
      return i < 20 && i % 2 === 0 ? cancel('alt', key) : sched('alt', key);
    });
    const res = await batch(tb, ops);
    expect(res.body.results.map((r: any) => r.status)).toEqual(
      ops.map((o, i) => (o.op === 'cancel' ? 'cancelled' : i < 20 ? 'rescheduled' : 'scheduled')),
    );
    expect((await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE queue = 'alt'`)).rows[0].n).toBe(30);
  });

  it('handles a full batch of 256 distinct schedules in one call', async () => {
    const ops = Array.from({ length: 256 }, (_, i) => sched('full', `k${i}`));
    const res = await batch(tb, ops);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(256);
    expect(res.body.results.every((r: any, i: number) => r.status === 'scheduled' && r.timerKey === `k${i}`)).toBe(true);
    expect((await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE queue = 'full'`)).rows[0].n).toBe(256);
  });
});

describe('strict input', () => {
  const valid = () => sched('strict', 'k');

  it.each(['producerSub', 'messageId', 'tenant', '_internal'])(
    'refuses a server-owned op field %s with 400 naming it, applying nothing',
    async (field) => {
      const before = await snapshot(tb);
      const res = await batch(tb, [valid(), { ...sched('strict', 'k2'), [field]: 'forged' }]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'server_owned_field', field: `operations.1.${field}` });
      expect(await snapshot(tb)).toBe(before);
    },
  );

  it('refuses a server-owned top-level field', async () => {
    const res = await api(tb, 'POST', '/api/v1/timers', { body: { operations: [valid()], tenant: 'other' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'server_owned_field', field: 'tenant' });
  });

  it('refuses an unknown field with 400 unknown_field naming it', async () => {
    const res = await batch(tb, [{ ...valid(), deliverAt: '2030-01-01T00:00:00Z' }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unknown_field', field: 'operations.0.deliverAt' });
  });

  it('refuses a payload field on a cancel', async () => {
    const res = await batch(tb, [{ ...cancel('strict', 'k'), payload: b64('x') }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unknown_field', field: 'operations.0.payload' });
  });

  it.each([
    ['an empty batch', [], 'operations'],
    ['a negative delay', [{ ...sched('s', 'k'), delayMs: -1 }], 'operations.0.delayMs'],
    ['a fractional delay', [{ ...sched('s', 'k'), delayMs: 1.5 }], 'operations.0.delayMs'],
    ['a payload that is not base64', [{ ...sched('s', 'k'), payload: 'not base64!' }], 'operations.0.payload'],
    ['an empty key', [sched('s', '')], 'operations.0.timerKey'],
    ['a control character in a key', [sched('s', 'a\nb')], 'operations.0.timerKey'],
    ['a dot segment in a key', [sched('s', 'a/../b')], 'operations.0.timerKey'],
    ["a '/' in a queue name", [sched('a/b', 'k')], 'operations.0.queue'],
  ])('refuses %s with 400 validation_failed naming the field', async (_what, operations, field) => {
    const res = await batch(tb, operations as unknown[]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field });
  });

  it('refuses an unknown op', async () => {
    const res = await batch(tb, [{ op: 'fire', queue: 'q', timerKey: 'k' }]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.field).toMatch(/^operations\.0/);
  });

  it('refuses 257 ops whole', async () => {
    const before = await countRows(tb);
    const res = await batch(
      tb,
      Array.from({ length: 257 }, (_, i) => sched('big', `k${i}`)),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'operations' });
    expect(await countRows(tb)).toBe(before);
  });

  it('refuses two timers of one batch sharing a txn in one queue and partition, naming the second', async () => {
    const before = await countRows(tb);
    const res = await batch(tb, [sched('twins', 'a', { txn: 'same' }), sched('twins', 'b', { txn: 'same' })]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'operations.1.txn' });
    expect(res.body.error).toMatch(/also the txn of timer "a"/);
    expect(await countRows(tb)).toBe(before);
    // Not a collision: the same key twice (an upsert), or the txn in another partition or queue.
    const fine = await batch(tb, [
      sched('twins', 'a', { txn: 'same' }),
      sched('twins', 'a', { txn: 'same' }),
      sched('twins', 'b', { txn: 'same', partition: 'p2' }),
      sched('twins-2', 'c', { txn: 'same' }),
    ]);
    expect(fine.body.results.map((r: any) => r.status)).toEqual(['scheduled', 'rescheduled', 'scheduled', 'scheduled']);
  });

  it('a 400 applies nothing even when the bad op comes last', async () => {
    const before = await snapshot(tb);
    const m = await metered(tb);
    const res = await batch(tb, [sched('s', 'first'), { ...sched('s', 'second'), delayMs: 'soon' }]);
    expect(res.status).toBe(400);
    expect(await snapshot(tb)).toBe(before);
    expect(await metered(tb)).toBe(m);
  });
});

describe('metering', () => {
  it('bills one message per scheduled or rescheduled op, zero for cancels and too_late', async () => {
    const t = await tb.token({ tenant: 'billing' });
    await batch(tb, [sched('m', 'claimed')], { token: t });
    await claimRow(tb, 'm', 'claimed', 'billing');
    const base = await metered(tb, 'billing');
    const res = await batch(
      tb,
      [sched('m', 'a'), sched('m', 'a', { op: 'reschedule' }), cancel('m', 'a'), cancel('m', 'nope'), sched('m', 'claimed')],
      { token: t },
    );
    expect(res.body.results.map((r: any) => r.status)).toEqual(['scheduled', 'rescheduled', 'cancelled', 'absent', 'too_late']);
    expect((await metered(tb, 'billing')) - base).toBe(2);
  });

  it("writes the period as YYYY-MM of PostgreSQL's now() in UTC and serves it on GET /api/v1/usage", async () => {
    const t = await tb.token({ tenant: 'usage-t' });
    await batch(tb, [sched('m', 'x'), sched('m', 'y')], { token: t });
    const period = (await tb.sql.query(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS p`)).rows[0].p;
    const stored = await tb.sql.query(`SELECT period, messages FROM usage_meter WHERE tenant = 'usage-t'`);
    expect(stored.rows).toEqual([{ period, messages: 2 }]);
    const res = await api(tb, 'GET', '/api/v1/usage', { token: t });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant: 'usage-t', period, messages: 2 });
    const explicit = await api(tb, 'GET', `/api/v1/usage?period=${period}`, { token: t });
    expect(explicit.body).toEqual({ tenant: 'usage-t', period, messages: 2 });
  });

  it('answers 0 for a period without usage and 400 for a malformed period', async () => {
    const t = await tb.token({ tenant: 'usage-t' });
    expect((await api(tb, 'GET', '/api/v1/usage?period=1999-01', { token: t })).body).toEqual({
      tenant: 'usage-t',
      period: '1999-01',
      messages: 0,
    });
    const bad = await api(tb, 'GET', '/api/v1/usage?period=2024-13', { token: t });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'period' });
  });

  it('usage is per tenant', async () => {
    const t = await tb.token({ tenant: 'usage-other' });
    expect((await api(tb, 'GET', '/api/v1/usage', { token: t })).body.messages).toBe(0);
  });
});

describe('metrics', () => {
  it('counts verdicts by status', async () => {
    await batch(tb, [sched('metrics', 'k'), cancel('metrics', 'k'), cancel('metrics', 'k')]);
    const text = await tb.broker.services.metrics.registry.getSingleMetricAsString('queen_timers_schedule_verdicts_total');
    expect(text).toMatch(/status="absent"} [1-9]/);
    expect(text).toMatch(/status="cancelled"} [1-9]/);
  });
});
