// The dashboard's read routes: whoami, queues, overview, fire lag, forecast, the log views and the
// tenants list. Each answers only the caller's tenant, needs the read grant (whoami: any valid
// credential; tenants: the operator's admin grant), pages, and says whether a count is exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_CAP } from '../src/services/dashboard/counts.ts';
import { FORECAST_CAP } from '../src/services/dashboard/forecast.ts';
import { fireHistoryPruneDuty } from '../src/maintenance/fireHistory.ts';
import { createSweeper } from '../src/sweeper/index.ts';
import { shownOccurrences } from '../src/services/schedules/occurrences.ts';
import { LIST_BY_DELIVER_AT_SQL, prefixEnd } from '../src/services/timers/read.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, pop, push } from './helpers/log.ts';
import { batch, claimRow, insertTimers, sched } from './helpers/timers.ts';

let tb: TestBroker;
let globex: string;
beforeAll(async () => {
  tb = await startTestBroker();
  globex = await tb.token({ tenant: 'globex', sub: 'globex-user' });
});
afterAll(() => tb?.close());

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const exact = (value: number) => ({ value, basis: 'exact' });

/** Moves a timer's deliverAt to `seconds` from PostgreSQL's now (negative: overdue). */
const dueIn = (queue: string, key: string, seconds: number) =>
  tb.sql.query(`UPDATE timers SET deliver_at = now() + $3 * interval '1 second' WHERE tenant = 'acme' AND queue = $1 AND timer_key = $2`, [
    queue,
    key,
    seconds,
  ]);

describe('GET /api/v1/whoami', () => {
  it("answers the credential's tenant, subject and sorted grants; a tenant's admin grant is not the operator's", async () => {
    const res = await api(tb, 'GET', '/api/v1/whoami', { token: await tb.token({ grants: ['read', 'produce', 'admin'] }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant: 'acme', sub: 'tester', grants: ['admin', 'produce', 'read'], operator: false });
  });

  it('says operator for an admin credential of the operator tenant', async () => {
    const res = await api(tb, 'GET', '/api/v1/whoami', { token: await tb.operatorToken() });
    expect(res.body).toEqual({ tenant: tb.config.QUEEN_OPERATOR_TENANT, sub: 'operator', grants: ['admin'], operator: true });
  });

  it('needs no grant, but a credential: none is 401', async () => {
    expect((await api(tb, 'GET', '/api/v1/whoami', { token: await tb.token({ grants: [] }) })).body.grants).toEqual([]);
    const res = await api(tb, 'GET', '/api/v1/whoami', { token: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
  });
});

describe('GET /api/v1/queues', () => {
  beforeAll(async () => {
    await batch(tb, [sched('qa-b', 'k'), sched('qa-a', 'k'), sched('qa-c', 'k')]);
    await batch(tb, [sched('qa-z', 'k')], { token: globex });
  });

  it("lists the caller's queues in byte order, page by page", async () => {
    const seen: string[] = [];
    let after = 'qa-';
    for (;;) {
      const res = await api(tb, 'GET', `/api/v1/queues?limit=2&after=${after}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.rows.map((r: any) => r.queue).filter((q: string) => q.startsWith('qa-')));
      if (!res.body.truncated) break;
      after = res.body.nextAfter;
    }
    expect(seen).toEqual(['qa-a', 'qa-b', 'qa-c']);
    const one = (await api(tb, 'GET', '/api/v1/queues?after=qa-&limit=1')).body;
    expect(one).toEqual({
      rows: [{ queue: 'qa-a', encryptionEnabled: false, createdAt: expect.stringMatching(INSTANT) }],
      truncated: true,
      nextAfter: 'qa-a',
    });
  });

  it("never shows another tenant's queues", async () => {
    const theirs = (await api(tb, 'GET', '/api/v1/queues', { token: globex })).body.rows.map((r: any) => r.queue);
    expect(theirs).toEqual(['qa-z']);
  });
});

describe('GET /api/v1/overview', () => {
  beforeAll(async () => {
    // ov: one timer in each window, two overdue (one by more than 5 s, claimed), a DLQ row, a
    // consumer group two frames behind with a lease.
    await batch(tb, [
      sched('ov', 'soon'),
      sched('ov', 'hour'),
      sched('ov', 'day'),
      sched('ov', 'week'),
      sched('ov', 'late'),
      sched('ov', 'very-late'),
    ]);
    await dueIn('ov', 'soon', 30);
    await dueIn('ov', 'hour', 1800);
    await dueIn('ov', 'day', 43_200);
    await dueIn('ov', 'week', 7 * 86_400);
    await dueIn('ov', 'late', -1);
    await dueIn('ov', 'very-late', -60);
    await claimRow(tb, 'ov', 'very-late');
    await push(tb, [
      { queue: 'ov', payload: 'a', transactionId: 'f1' },
      { queue: 'ov', payload: 'b', transactionId: 'f2' },
      { queue: 'ov', payload: 'c', transactionId: 'f3' },
    ]);
    const [first] = (await pop(tb, '/api/v1/pop/queue/ov?consumerGroup=mailer&batch=1')).body.messages;
    await ack(tb, { transactionId: first.transactionId, partitionId: first.partitionId }, { status: 'dlq', consumerGroup: 'mailer' });
    await pop(tb, '/api/v1/pop/queue/ov?consumerGroup=mailer&batch=1');
  });

  it('counts one queue exactly: pending, windows, overdue, claimed, DLQ, log and lag', async () => {
    const res = await api(tb, 'GET', '/api/v1/overview?queue=ov');
    expect(res.status).toBe(200);
    expect(res.body.rows).toHaveLength(1);
    const row = res.body.rows[0];
    expect(row).toMatchObject({
      queue: 'ov',
      pending: exact(6),
      due: { nextMinute: exact(1), nextHour: exact(2), nextDay: exact(3) },
      overdue: exact(2),
      overdueOver5s: exact(1),
      claimed: exact(1),
      fired: { lastMinute: 0, lastHour: 0 },
      deadLetters: exact(1),
      log: { frames: exact(3), partitions: exact(1), groupsTruncated: false },
    });
    expect(row.oldestOverdueSeconds).toBeGreaterThanOrEqual(60);
    expect(row.log.groups).toEqual([
      {
        consumerGroup: 'mailer',
        framesBehind: exact(2),
        partitionsBehind: exact(1),
        oldestUnconsumedAt: expect.stringMatching(INSTANT),
        oldestUnconsumedAgeSeconds: expect.any(Number),
        leasesHeld: 1,
      },
    ]);
    expect(res.body.at).toMatch(INSTANT);
  });

  it('says in words what needs attention', async () => {
    const res = await api(tb, 'GET', '/api/v1/overview?queue=ov');
    expect(res.body.warnings).toEqual([
      { queue: 'ov', code: 'overdue', message: 'queue ov: 1 timer overdue by more than 5 s' },
      { queue: 'ov', code: 'dead_letters', message: 'queue ov: 1 in the dead-letter queue' },
    ]);
  });

  it('warns of a paused sweeper for the whole cell', async () => {
    await tb.broker.services.cluster.set({ sweeperPaused: true });
    try {
      const res = await api(tb, 'GET', '/api/v1/overview?queue=qa-a');
      expect(res.body.warnings).toEqual([
        { queue: null, code: 'sweeper_paused', message: 'the sweeper is paused cluster-wide: no timer fires until an operator resumes it' },
      ]);
    } finally {
      await tb.broker.services.cluster.set({ sweeperPaused: false });
    }
  });

  it('pages over the queues by name', async () => {
    const res = await api(tb, 'GET', '/api/v1/overview?after=qa-&limit=2');
    expect(res.body.rows.map((r: any) => r.queue)).toEqual(['qa-a', 'qa-b']);
    expect(res.body).toMatchObject({ truncated: true, nextAfter: 'qa-b' });
  });

  it(`past ${COUNT_CAP} timers says "at least" or "estimate", never a number it did not count`, async () => {
    await batch(tb, [sched('big', 'seed', { delayMs: 2 * 3_600_000 })]);
    await insertTimers(tb.sql, { queue: 'big', count: COUNT_CAP + 500, dueInMs: 10 * 60_000 });
    const row = (await api(tb, 'GET', '/api/v1/overview?queue=big')).body.rows[0];
    expect(['estimate', 'at_least']).toContain(row.pending.basis);
    expect(row.pending.value).toBeGreaterThanOrEqual(COUNT_CAP);
    expect(row.due).toEqual({
      nextMinute: exact(0),
      nextHour: { value: COUNT_CAP, basis: 'at_least' },
      nextDay: { value: COUNT_CAP, basis: 'at_least' },
    });
    expect(row.overdue).toEqual(exact(0));
  });
});

describe('GET /api/v1/fire-lag', () => {
  it('charts the fires of a sweep pass per minute, once the broker has added its counts', async () => {
    await batch(tb, [sched('lag', 'a'), sched('lag', 'b'), sched('lag-other', 'c')]);
    await tb.sql.query(
      `UPDATE timers SET deliver_at = now() - interval '3 seconds' WHERE tenant = 'acme' AND queue IN ('lag', 'lag-other')`,
    );
    const sweeper = createSweeper(tb.broker.services);
    // Every due timer of the database fires (acme's alone are due): at least these three.
    const fired = (await sweeper.sweepOnce()).fired;
    await sweeper.stop();
    expect(fired).toBeGreaterThanOrEqual(3);
    await tb.broker.services.fireHistory.flush(tb.sql);
    const res = await api(tb, 'GET', '/api/v1/fire-lag?queue=lag&minutes=5');
    expect(res.status).toBe(200);
    expect(res.body.bucketBoundsMs).toEqual([1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000]);
    expect(res.body.series).toHaveLength(5);
    const minutes = res.body.series.map((s: any) => s.minute);
    expect([...minutes].sort()).toEqual(minutes);
    // The fires' minute is the last, or the one before when a minute began since.
    const [active] = res.body.series.filter((s: any) => s.fired > 0);
    // Three seconds late: the 5,000 ms bucket holds both quantiles.
    expect(active).toEqual({ minute: expect.stringMatching(/:00\.000000Z$/), fired: 2, p50Ms: 5000, p99Ms: 5000, slowerThanLastBound: 0 });
    expect(res.body.series.slice(-2)).toContainEqual(active);
    expect(res.body.series[0]).toMatchObject({ fired: 0, p50Ms: null, p99Ms: null });
    const sum = (body: any) => body.series.reduce((n: number, s: any) => n + s.fired, 0);
    const all = (await api(tb, 'GET', '/api/v1/fire-lag?minutes=2')).body;
    expect(all.queue).toBeNull();
    expect(sum(all)).toBe(fired);
    expect(sum((await api(tb, 'GET', '/api/v1/fire-lag?minutes=2', { token: globex })).body)).toBe(0);
    expect((await api(tb, 'GET', '/api/v1/overview?queue=lag')).body.rows[0].fired.lastHour).toBe(2);
  });

  it('clamps minutes to 1..1440 instead of refusing them; a non-number is refused, naming the field', async () => {
    expect((await api(tb, 'GET', '/api/v1/fire-lag?minutes=5000')).body.series).toHaveLength(1440);
    expect((await api(tb, 'GET', '/api/v1/fire-lag?minutes=0')).body.series).toHaveLength(1);
    const res = await api(tb, 'GET', '/api/v1/fire-lag?minutes=ten');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'minutes' });
  });

  it('a flush adds to the minute another broker wrote, and the prune duty deletes minutes older than a day', async () => {
    const history = tb.broker.services.fireHistory;
    history.record('acme', 'merge', [0.0005]);
    await history.flush(tb.sql);
    history.record('acme', 'merge', [0.0005, 120]);
    await history.flush(tb.sql);
    const rows = (await tb.sql.query(`SELECT fired::int, buckets::int[] FROM fire_lag_minutes WHERE tenant = 'acme' AND queue = 'merge'`))
      .rows;
    expect(rows).toEqual([{ fired: 3, buckets: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }]);
    await tb.sql.query(`UPDATE fire_lag_minutes SET minute = minute - interval '25 hours' WHERE queue = 'merge'`);
    expect(await fireHistoryPruneDuty(tb.sql).run(undefined as never)).toBeGreaterThanOrEqual(1);
    expect((await tb.sql.query(`SELECT 1 FROM fire_lag_minutes WHERE queue = 'merge'`)).rows).toEqual([]);
  });
});

describe('GET /api/v1/forecast/{queue}', () => {
  it('counts the next hour by minute and the next 90 days by day, exactly below the cap', async () => {
    await batch(tb, [sched('fc', 'a'), sched('fc', 'b'), sched('fc', 'c'), sched('fc', 'd')]);
    // Mid-minute offsets keep each timer inside the minute the test names, whatever now() is.
    await tb.sql.query(
      `UPDATE timers SET deliver_at = date_trunc('minute', now()) + CASE timer_key
         WHEN 'a' THEN interval '5 minutes 30 seconds' WHEN 'b' THEN interval '5 minutes 31 seconds'
         WHEN 'c' THEN interval '3 days' ELSE interval '100 days' END
       WHERE tenant = 'acme' AND queue = 'fc'`,
    );
    const res = await api(tb, 'GET', '/api/v1/forecast/fc');
    expect(res.status).toBe(200);
    expect(res.body.byMinute).toHaveLength(60);
    expect(res.body.byDay).toHaveLength(90);
    // Minute 5 from the update's minute: 4 from the request's when a minute began between them.
    const minutes = res.body.byMinute.map((b: any) => b.count.value);
    expect(minutes.filter((n: number) => n > 0)).toEqual([2]);
    expect([4, 5]).toContain(minutes.indexOf(2));
    expect(res.body.byMinute.every((b: any) => b.count.basis === 'exact')).toBe(true);
    const days = res.body.byDay.filter((b: any) => b.count.value > 0);
    expect(days.map((b: any) => b.count)).toEqual([exact(2), exact(1)]);
    expect(res.body.byDay.every((b: any) => b.count.basis === 'exact')).toBe(true);
    expect(res.body.byDay[0].start).toMatch(/T00:00:00\.000000Z$/);
    expect((await api(tb, 'GET', '/api/v1/forecast/fc', { token: globex })).body.byDay.every((b: any) => b.count.value === 0)).toBe(true);
  });

  it(`past ${FORECAST_CAP} timers estimates the later days and says so`, async () => {
    await batch(tb, [sched('fc-big', 'seed', { delayMs: 86_400_000 * 2 })]);
    await insertTimers(tb.sql, { queue: 'fc-big', count: FORECAST_CAP + 1000, dueInMs: 60_000, stepMs: 60 });
    const days = (await api(tb, 'GET', '/api/v1/forecast/fc-big')).body.byDay;
    expect(days.some((b: any) => b.count.basis === 'estimate')).toBe(true);
    const firstEstimated = days.findIndex((b: any) => b.count.basis === 'estimate');
    expect(days.slice(0, firstEstimated).every((b: any) => b.count.basis === 'exact')).toBe(true);
  });
});

describe('GET /api/v1/timers/{queue}: order and prefix', () => {
  beforeAll(async () => {
    await batch(tb, [sched('ord', 'c/1'), sched('ord', 'a/1'), sched('ord', 'b/1'), sched('ord', 'a/2'), sched('ord', 'ab')]);
    await dueIn('ord', 'c/1', 10);
    await dueIn('ord', 'b/1', 20);
    await dueIn('ord', 'a/2', 30);
    await tb.sql.query(
      `UPDATE timers SET deliver_at = (SELECT deliver_at FROM timers WHERE queue = 'ord' AND timer_key = 'a/2') WHERE queue = 'ord' AND timer_key IN ('a/1', 'ab')`,
    );
  });

  it('pages by deliverAt, ties by key, with an opaque cursor', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const q = `/api/v1/timers/ord?order=deliverAt&limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const res = await api(tb, 'GET', q);
      expect(res.status).toBe(200);
      seen.push(...res.body.rows.map((r: any) => r.timerKey));
      if (!res.body.truncated) break;
      after = res.body.nextAfter;
    }
    expect(seen).toEqual(['c/1', 'b/1', 'a/1', 'a/2', 'ab']);
  });

  it('searches by key prefix in key order', async () => {
    const res = await api(tb, 'GET', '/api/v1/timers/ord?prefix=a');
    expect(res.body.rows.map((r: any) => r.timerKey)).toEqual(['a/1', 'a/2', 'ab']);
    const slash = await api(tb, 'GET', `/api/v1/timers/ord?prefix=${encodeURIComponent('a/')}&limit=1`);
    expect(slash.body).toMatchObject({ rows: [{ timerKey: 'a/1' }], truncated: true, nextAfter: 'a/1' });
    const next = await api(tb, 'GET', `/api/v1/timers/ord?prefix=${encodeURIComponent('a/')}&after=a/1`);
    expect(next.body).toMatchObject({ rows: [{ timerKey: 'a/2' }], truncated: false });
  });

  it('sorts by the deliverAt column, not by the text rendered under its name (which sorts the whole queue)', async () => {
    const plan = (await tb.sql.query(`EXPLAIN ${LIST_BY_DELIVER_AT_SQL}`, ['acme', 'ord', null, null, 101])).rows
      .map((r: any) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Sort Key: (timers\.)?deliver_at, (timers\.)?timer_key/);
    expect(plan).not.toMatch(/Sort Key: .*to_char/);
  });

  it('the prefix bound is the next string in byte order', () => {
    expect(prefixEnd('ab')).toBe('ac');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\u{d7ff}')).toBe('\u{e000}');
    expect(prefixEnd('\u{10ffff}')).toBeNull();
  });

  it('refuses prefix with order=deliverAt, and a cursor it did not give, naming the field', async () => {
    const both = await api(tb, 'GET', '/api/v1/timers/ord?order=deliverAt&prefix=a');
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ code: 'validation_failed', field: 'prefix' });
    const bad = await api(tb, 'GET', '/api/v1/timers/ord?order=deliverAt&after=a/1');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'after' });
  });
});

describe('the log views', () => {
  beforeAll(async () => {
    await push(tb, [
      { queue: 'lv', partition: 'p1', payload: { n: 1 }, transactionId: 'x1' },
      { queue: 'lv', partition: 'p1', payload: { n: 2 }, transactionId: 'x2' },
      { queue: 'lv', partition: 'p2', payload: { n: 3 }, transactionId: 'x3' },
    ]);
    await pop(tb, '/api/v1/pop/queue/lv/partition/p1?consumerGroup=g1&batch=1');
    await pop(tb, '/api/v1/pop/queue/lv/partition/p2?consumerGroup=g2&batch=1&autoAck=true');
  });

  it('lists partitions with their depth', async () => {
    const res = await api(tb, 'GET', '/api/v1/log/lv/partitions');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      rows: [
        { partition: 'p1', frames: exact(2), lastSeq: expect.any(Number), createdAt: expect.stringMatching(INSTANT) },
        { partition: 'p2', frames: exact(1), lastSeq: expect.any(Number), createdAt: expect.stringMatching(INSTANT) },
      ],
      truncated: false,
      nextAfter: 'p2',
    });
  });

  it('lists consumer groups with their lag and leases', async () => {
    const res = await api(tb, 'GET', '/api/v1/log/lv/groups?limit=1');
    expect(res.body).toMatchObject({
      rows: [{ consumerGroup: 'g1', framesBehind: exact(3), partitionsBehind: exact(2), leasesHeld: 1 }],
      truncated: true,
      nextAfter: 'g1',
    });
    const g2 = (await api(tb, 'GET', '/api/v1/log/lv/groups?after=g1')).body.rows;
    expect(g2).toMatchObject([{ consumerGroup: 'g2', framesBehind: exact(2), partitionsBehind: exact(1), leasesHeld: 0 }]);
  });

  it('lists the leases held, without their ids', async () => {
    const res = await api(tb, 'GET', '/api/v1/log/lv/leases');
    expect(res.body).toEqual({
      rows: [{ consumerGroup: 'g1', partition: 'p1', expiresAt: expect.stringMatching(INSTANT), batchEndSeq: expect.any(Number) }],
      truncated: false,
      nextAfter: JSON.stringify(['p1', 'g1']),
    });
    const bad = await api(tb, 'GET', '/api/v1/log/lv/leases?after=p1');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'after' });
  });

  it('browses a partition by seq, payloads as stored, and consumes nothing', async () => {
    const first = (await api(tb, 'GET', '/api/v1/log/lv/frames?partition=p1&limit=1')).body;
    expect(first.rows).toEqual([
      {
        seq: expect.any(Number),
        id: expect.any(String),
        transactionId: 'x1',
        createdAt: expect.stringMatching(INSTANT),
        producerSub: 'tester',
        timerKey: null,
        deliverAt: null,
        encrypted: false,
        bytes: 7,
        payload: Buffer.from('{"n":1}').toString('base64'),
      },
    ]);
    expect(first).toMatchObject({ truncated: true, nextAfter: String(first.rows[0].seq) });
    const second = (await api(tb, 'GET', `/api/v1/log/lv/frames?partition=p1&after=${first.nextAfter}`)).body;
    expect(second).toMatchObject({ rows: [{ transactionId: 'x2' }], truncated: false });
    expect((await api(tb, 'GET', '/api/v1/log/lv/groups')).body.rows[0].framesBehind).toEqual(exact(3));
  });
});

describe('GET /api/v1/admin/tenants', () => {
  it('pages the tenants with their plans, for the operator only', async () => {
    await api(tb, 'PUT', '/api/v1/admin/tenants/zz-two', { token: await tb.operatorToken(), body: { horizonSeconds: 3600 } });
    await api(tb, 'PUT', '/api/v1/admin/tenants/zz-one', { token: await tb.operatorToken(), body: {} });
    const res = await api(tb, 'GET', '/api/v1/admin/tenants?after=zz&limit=1', { token: await tb.operatorToken() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rows: [{ tenant: 'zz-one' }], truncated: true, nextAfter: 'zz-one' });
    const next = await api(tb, 'GET', '/api/v1/admin/tenants?after=zz-one', { token: await tb.operatorToken() });
    expect(next.body).toMatchObject({
      rows: [{ tenant: 'zz-two', horizonSeconds: 3600, overrides: { horizonSeconds: 3600 } }],
      truncated: false,
    });
    const tenantAdmin = await api(tb, 'GET', '/api/v1/admin/tenants');
    expect(tenantAdmin.status).toBe(403);
    expect(tenantAdmin.body.code).toBe('grant_missing');
  });
});

describe('isolation and grants', () => {
  const READ_ROUTES = [
    '/api/v1/queues',
    '/api/v1/overview',
    '/api/v1/overview?queue=ov',
    '/api/v1/fire-lag',
    '/api/v1/forecast/ov',
    '/api/v1/log/lv/partitions',
    '/api/v1/log/lv/groups',
    '/api/v1/log/lv/leases',
    '/api/v1/log/lv/frames?partition=p1',
    '/api/v1/timers/ord?order=deliverAt',
  ];

  it.each(READ_ROUTES)('%s needs the read grant: a produce-only credential gets 403', async (path) => {
    const res = await api(tb, 'GET', path, { token: await tb.token({ grants: ['produce', 'consume'] }) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('grant_missing');
  });

  it.each(READ_ROUTES)('%s is refused without a credential (401)', async (path) => {
    expect((await api(tb, 'GET', path, { token: null })).status).toBe(401);
  });

  it("another tenant sees nothing of acme's queues of the same names", async () => {
    const as = (path: string) => api(tb, 'GET', path, { token: globex }).then((r) => r.body);
    expect((await as('/api/v1/overview?queue=ov')).rows).toEqual([]);
    expect((await as('/api/v1/overview')).rows.map((r: any) => r.queue)).toEqual(['qa-z']);
    expect((await as('/api/v1/log/lv/partitions')).rows).toEqual([]);
    expect((await as('/api/v1/log/lv/groups')).rows).toEqual([]);
    expect((await as('/api/v1/log/lv/leases')).rows).toEqual([]);
    expect((await as('/api/v1/log/lv/frames?partition=p1')).rows).toEqual([]);
    expect((await as('/api/v1/timers/ord?order=deliverAt')).rows).toEqual([]);
    expect((await as('/api/v1/timers/ord?prefix=a')).rows).toEqual([]);
  });

  it('a tenant whose queue has the same name counts only its own rows', async () => {
    await batch(tb, [sched('ov', 'theirs')], { token: globex });
    const theirs = (await api(tb, 'GET', '/api/v1/overview?queue=ov', { token: globex })).body.rows[0];
    expect(theirs).toMatchObject({
      pending: exact(1),
      overdue: exact(0),
      claimed: exact(0),
      deadLetters: exact(0),
      log: { frames: exact(0), groups: [] },
    });
  });
});

describe('schedule occurrences with their DST shifts', () => {
  const at = (iso: string) => Date.parse(iso);

  it('flags a time the zone skips (fires at the shift) and the offset change after it', () => {
    const shown = shownOccurrences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, at('2027-03-26T12:00:00Z'), 3);
    expect(shown).toEqual([
      { at: '2027-03-27T01:30:00.000000Z', local: '2027-03-27T02:30:00+01:00', dstShift: null, offsetChanged: false },
      { at: '2027-03-28T01:00:00.000000Z', local: '2027-03-28T03:00:00+02:00', dstShift: 'skipped', offsetChanged: true },
      { at: '2027-03-29T00:30:00.000000Z', local: '2027-03-29T02:30:00+02:00', dstShift: null, offsetChanged: false },
    ]);
  });

  it('flags a time the zone repeats (fires the first time)', () => {
    const shown = shownOccurrences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, at('2027-10-30T12:00:00Z'), 2);
    expect(shown).toEqual([
      { at: '2027-10-31T00:30:00.000000Z', local: '2027-10-31T02:30:00+02:00', dstShift: 'repeated', offsetChanged: false },
      { at: '2027-11-01T01:30:00.000000Z', local: '2027-11-01T02:30:00+01:00', dstShift: null, offsetChanged: true },
    ]);
  });

  it('GET shows ?occurrences= of them (clamped to 1..100), each with dstShift and offsetChanged', async () => {
    const put = await api(tb, 'PUT', '/api/v1/schedules/sch/daily', {
      body: { cron: '0 9 * * *', timezone: 'Europe/Berlin', payload: Buffer.from('{}').toString('base64') },
    });
    expect(put.status).toBe(200);
    expect(put.body.nextOccurrences[0]).toEqual({
      at: expect.stringMatching(INSTANT),
      local: expect.any(String),
      dstShift: null,
      offsetChanged: expect.any(Boolean),
    });
    const got = await api(tb, 'GET', '/api/v1/schedules/sch/daily?occurrences=12');
    expect(got.body.nextOccurrences).toHaveLength(12);
    expect(got.body.lastAt).toBeNull();
    expect((await api(tb, 'GET', '/api/v1/schedules/sch/daily?occurrences=500')).body.nextOccurrences).toHaveLength(100);
  });
});
