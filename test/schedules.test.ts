// Recurring schedules through their routes, with the sweeper driven pass by pass (sweepOnce):
// each occurrence becomes one ordinary timer, fires once, is metered once; a replace never fires
// the old definition after PUT answered; DELETE stops a schedule whatever the gates say; after a
// pause, the latest missed occurrence fires and the earlier ones are counted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sweeper } from '../src/sweeper/index.ts';
import { admin, api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { b64, claimRow, metered } from './helpers/timers.ts';

let tb: TestBroker;
let sweeper: Sweeper;
beforeAll(async () => {
  tb = await startTestBroker({ sweeper: 'driven' });
  sweeper = tb.sweeper!;
});
afterAll(() => tb?.close());
afterEach(async () => {
  await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: false, sweeperPaused: false } });
  await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', {
    body: { schedulePaused: false, horizonSeconds: null, maxPayloadBytes: null, maxPendingTimers: null },
  });
});

const EVERY_SECOND = '*/1 * * * * *';
/** Midnight UTC on the 1st of every month: never due by itself during a test (tests arrange next_at). */
const MONTHLY = '0 0 0 1 * *';
const put = (queue: string, key: string, body: Record<string, unknown>, token?: string) =>
  api(tb, 'PUT', `/api/v1/schedules/${queue}/${key}`, { body: { payload: b64('{"beat":1}'), ...body }, token });

/** The schedule's timers (its materialized occurrences), by key. */
async function timersOf(queue: string, key: string) {
  const r = await tb.sql.query(
    `SELECT timer_key, txn, deliver_at, claim_token IS NOT NULL AS claimed FROM timers
      WHERE tenant = 'acme' AND queue = $1 AND timer_key LIKE $2 ORDER BY timer_key`,
    [queue, `${key}@%`],
  );
  return r.rows as { timer_key: string; txn: string; deliver_at: Date; claimed: boolean }[];
}

async function framesOf(queue: string) {
  const r = await tb.sql.query(
    `SELECT transaction_id, timer_key, convert_from(payload, 'UTF8') AS payload FROM messages WHERE tenant = 'acme' AND queue = $1 ORDER BY seq`,
    [queue],
  );
  return r.rows as { transaction_id: string; timer_key: string; payload: string }[];
}

async function scheduleRow(queue: string, key: string) {
  const r = await tb.sql.query(`SELECT * FROM schedules WHERE tenant = 'acme' AND queue = $1 AND schedule_key = $2`, [queue, key]);
  return r.rows[0];
}

/**
 * Arranges the schedule's next occurrence at least `inMs` from now (on a whole second, PostgreSQL's
 * clock), to be materialized by the next pass: the tests' way to make an occurrence come without
 * the cron. Far enough ahead that the pass cannot also fire it (an occurrence already due is
 * materialized and fired by the same pass: a slow CI machine once did that to a 1 s margin);
 * dueNow() then makes its timer due.
 */
async function nextIn(queue: string, key: string, inMs: number) {
  await tb.sql.query(
    `UPDATE schedules SET next_at = date_trunc('second', now() + $3 * interval '1 ms') + interval '1 second',
                          materialize_at = now() - interval '1 ms'
      WHERE tenant = 'acme' AND queue = $1 AND schedule_key = $2`,
    [queue, key, inMs],
  );
}

/**
 * Makes a materialized occurrence's timer due now, as a sweeper would find it at its instant: its
 * key and txn (derived from the instant) stay, so the tests never wait on a wall clock.
 */
const dueNow = (queue: string, timerKey: string) =>
  tb.sql.query(`UPDATE timers SET deliver_at = now() WHERE tenant = 'acme' AND queue = $1 AND timer_key = $2`, [queue, timerKey]);

/** Waits (PostgreSQL's clock) until `at` has passed by `byMs`. */
const waitPast = (at: Date, byMs = 0) =>
  waitFor(async () => (await tb.sql.query(`SELECT now() >= $1::timestamptz + $2 * interval '1 ms' AS ok`, [at, byMs])).rows[0].ok, {
    timeout: 30_000,
    interval: 50,
  });

const instantOfKey = (timerKey: string) => new Date(timerKey.slice(timerKey.lastIndexOf('@') + 1));

describe('PUT, GET and LIST', () => {
  it('creates a schedule in its zone and answers it with its next occurrences; GET reads it; a miss is found:false', async () => {
    const res = await put('digest', 'acme/daily', { cron: '0 9 * * *', timezone: 'europe/rome', partition: 'acme' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      status: 'created',
      queue: 'digest',
      scheduleKey: 'acme/daily',
      cron: '0 9 * * *',
      timezone: 'Europe/Rome',
      partition: 'acme',
      producerSub: 'tester',
      revision: 1,
      lastAt: null,
      skipped: 0,
      withdrawn: [],
    });
    expect(res.body.nextOccurrences).toHaveLength(5);
    for (const n of res.body.nextOccurrences) expect(n.local).toMatch(/T09:00:00\+0[12]:00$/);
    expect(res.body.nextAt).toBe(res.body.nextOccurrences[0].at);
    const got = await api(tb, 'GET', '/api/v1/schedules/digest/acme/daily');
    expect(got.body).toMatchObject({ found: true, scheduleKey: 'acme/daily', payload: b64('{"beat":1}'), revision: 1 });
    expect(got.body.nextOccurrences[0]).toEqual(res.body.nextOccurrences[0]);
    expect((await api(tb, 'GET', '/api/v1/schedules/digest/acme/nope')).body).toEqual({ found: false });
    expect(await metered(tb)).toBe(0); // nothing is billed until an occurrence is materialized
    await api(tb, 'DELETE', '/api/v1/schedules/digest/acme/daily');
  });

  it('lists a queue by key in byte order with a keyset cursor and a clamped limit', async () => {
    for (const k of ['b', 'a', 'c/d']) expect((await put('listed', k, { cron: '0 0 * * *' })).status).toBe(200);
    const page = await api(tb, 'GET', '/api/v1/schedules/listed?limit=2');
    expect(page.body.rows.map((r: { scheduleKey: string }) => r.scheduleKey)).toEqual(['a', 'b']);
    expect(page.body).toMatchObject({ truncated: true, nextAfter: 'b' });
    expect(page.body.rows[0].payload).toBeUndefined();
    const rest = await api(tb, 'GET', '/api/v1/schedules/listed?after=b&limit=0');
    expect(rest.body).toMatchObject({ rows: [{ scheduleKey: 'c/d' }], truncated: false, nextAfter: 'c/d' });
    for (const k of ['a', 'b', 'c/d']) expect((await api(tb, 'DELETE', `/api/v1/schedules/listed/${k}`)).body.status).toBe('deleted');
  });

  it('refuses an invalid cron expression or zone with 400 naming the field, and stores nothing', async () => {
    const cron = await put('bad', 'k', { cron: '61 * * * *' });
    expect(cron.status).toBe(400);
    expect(cron.body).toMatchObject({ ok: false, code: 'validation_failed', field: 'cron' });
    expect(cron.body.error).toMatch(/^cron: not a cron expression/);
    const zone = await put('bad', 'k', { cron: '0 9 * * *', timezone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.body).toMatchObject({ code: 'validation_failed', field: 'timezone' });
    expect((await put('bad', 'k', { cron: '0 9 * * *', producerSub: 'x' })).body).toMatchObject({
      code: 'server_owned_field',
      field: 'producerSub',
    });
    expect((await put('bad', 'k', { cron: '0 9 * * *', delayMs: 5 })).body).toMatchObject({ code: 'unknown_field', field: 'delayMs' });
    expect((await put('bad', 'x'.repeat(1001), { cron: '0 9 * * *' })).body).toMatchObject({ field: 'scheduleKey' });
    expect(await scheduleRow('bad', 'k')).toBeUndefined();
  });

  it('needs produce to PUT and read to GET; DELETE takes any valid credential of the tenant', async () => {
    const noProduce = await tb.token({ grants: ['read', 'consume'] });
    expect((await put('grants', 'k', { cron: '0 9 * * *' }, noProduce)).body).toMatchObject({ code: 'grant_missing' });
    expect((await put('grants', 'k', { cron: '0 9 * * *' })).status).toBe(200);
    const consumeOnly = await tb.token({ grants: ['consume'] });
    expect((await api(tb, 'GET', '/api/v1/schedules/grants/k', { token: consumeOnly })).body).toMatchObject({ code: 'grant_missing' });
    expect((await api(tb, 'GET', '/api/v1/schedules/grants', { token: consumeOnly })).status).toBe(403);
    const del = await api(tb, 'DELETE', '/api/v1/schedules/grants/k', { token: consumeOnly });
    expect(del.body).toMatchObject({ ok: true, status: 'deleted' });
    expect((await api(tb, 'DELETE', '/api/v1/schedules/grants/k')).body).toMatchObject({ ok: false, status: 'absent', withdrawn: [] });
  });

  it('refuses at PUT what every occurrence would breach: the horizon (next occurrence too far) and the payload ceiling (403)', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { horizonSeconds: 3600, maxPayloadBytes: 8 } });
    const yearly = await put('plan', 'k', { cron: '0 0 0 1 1 *', payload: b64('{}') });
    expect(yearly.status).toBe(403);
    expect(yearly.body).toMatchObject({ code: 'horizon_exceeded', field: 'cron', horizonSeconds: 3600 });
    const big = await put('plan', 'k', { cron: EVERY_SECOND, payload: b64('{"too":"large"}') });
    expect(big.status).toBe(403);
    expect(big.body).toMatchObject({ code: 'payload_too_large_for_plan', field: 'payload' });
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxPendingTimers: 0 } });
    const quota = await put('plan', 'k', { cron: EVERY_SECOND, payload: b64('{}') });
    expect(quota.status).toBe(429);
    expect(quota.body).toMatchObject({ code: 'pending_quota_exceeded' });
    expect(await scheduleRow('plan', 'k')).toBeUndefined();
  });
});

describe('occurrences as timers', () => {
  it('materializes an occurrence as an ordinary timer, fires it once and meters it as one message', async () => {
    const before = await metered(tb);
    await put('beats', 'hb', { cron: MONTHLY });
    expect(await metered(tb)).toBe(before);
    const definition = (await scheduleRow('beats', 'hb')).definition;
    await nextIn('beats', 'hb', 20_000);
    await sweeper.sweepOnce();
    const [t] = await timersOf('beats', 'hb');
    const at = t.deliver_at.toISOString().slice(0, 19) + 'Z';
    expect(t).toMatchObject({ timer_key: `hb@${at}`, txn: `schedule:${definition}@${at}` });
    expect(await metered(tb)).toBe(before + 1);
    const peek = await api(tb, 'GET', `/api/v1/timers/beats/${t.timer_key}`);
    expect(peek.body).toMatchObject({ found: true, txn: t.txn, producerSub: 'tester', payload: b64('{"beat":1}') });

    await dueNow('beats', t.timer_key);
    await sweeper.sweepOnce();
    await waitFor(async () => (await framesOf('beats')).length === 1);
    expect(await framesOf('beats')).toEqual([{ transaction_id: t.txn, timer_key: t.timer_key, payload: '{"beat":1}' }]);
    expect(await timersOf('beats', 'hb')).toEqual([]); // the next occurrence is next month's
    const got = await api(tb, 'GET', '/api/v1/schedules/beats/hb');
    expect(got.body).toMatchObject({
      lastAt: t.deliver_at.toISOString().replace('Z', '000Z'),
      nextAt: expect.stringMatching(/-01T00:00:00\.000000Z$/),
    });
    expect(await metered(tb)).toBe(before + 1);
    await api(tb, 'DELETE', '/api/v1/schedules/beats/hb');
  });

  it('fires due timers while materialization fails, and materializes once it works again', async () => {
    await put('broken', 'b', { cron: MONTHLY });
    await nextIn('broken', 'b', 20_000);
    // Every write to the schedules table fails from here on: so does each materialization run.
    await tb.sql.query(`
      CREATE FUNCTION refuse_schedule_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'schedules are read-only in this test'; END $$;
      CREATE TRIGGER refuse_schedule_writes BEFORE UPDATE ON schedules FOR EACH ROW EXECUTE FUNCTION refuse_schedule_writes();`);
    const failures = async () => (await tb.broker.services.metrics.schedulesFailures.get()).values[0]?.value ?? 0;
    try {
      const failedBefore = await failures();
      const s = await api(tb, 'POST', '/api/v1/timers', {
        body: { operations: [{ op: 'schedule', queue: 'broken', timerKey: 'plain', delayMs: 0, payload: b64('{"plain":1}') }] },
      });
      expect(s.body.results[0].status).toBe('scheduled');
      expect(await sweeper.sweepOnce()).toMatchObject({ fired: 1 });
      expect(await failures()).toBe(failedBefore + 1);
      expect((await framesOf('broken')).map((f) => f.timer_key)).toEqual(['plain']);
      expect(await timersOf('broken', 'b')).toEqual([]);
    } finally {
      await tb.sql.query('DROP TRIGGER refuse_schedule_writes ON schedules; DROP FUNCTION refuse_schedule_writes();');
    }
    await sweeper.sweepOnce();
    expect(await timersOf('broken', 'b')).toHaveLength(1);
    await api(tb, 'DELETE', '/api/v1/schedules/broken/b');
  });

  it('keeps one occurrence ahead at a time: the next is materialized once the last is due', async () => {
    await put('ahead', 'a', { cron: EVERY_SECOND });
    await sweeper.sweepOnce();
    const row = await scheduleRow('ahead', 'a');
    expect(row.next_at.getTime() - row.last_at.getTime()).toBe(1000);
    expect(row.materialize_at).toEqual(row.last_at);
    expect((await timersOf('ahead', 'a')).length).toBeLessThanOrEqual(1);
    await api(tb, 'DELETE', '/api/v1/schedules/ahead/a');
  });

  it('a replace withdraws the old definition’s occurrences, claimed or not, and only the new definition fires', async () => {
    await put('replaced', 'r', { cron: MONTHLY, payload: b64('old') });
    await nextIn('replaced', 'r', 20_000);
    await sweeper.sweepOnce();
    const [old] = await timersOf('replaced', 'r');
    await claimRow(tb, 'replaced', old.timer_key); // in a sweeper's hands: a replace withdraws it all the same
    const res = await put('replaced', 'r', { cron: MONTHLY, payload: b64('new') });
    expect(res.body).toMatchObject({ status: 'replaced', revision: 2, withdrawn: [{ timerKey: old.timer_key, txn: old.txn }] });
    expect(await timersOf('replaced', 'r')).toEqual([]);
    await nextIn('replaced', 'r', 20_000);
    await sweeper.sweepOnce();
    const [fresh] = await timersOf('replaced', 'r');
    expect(fresh.txn).not.toBe(old.txn);
    await dueNow('replaced', fresh.timer_key);
    await sweeper.sweepOnce();
    await waitFor(async () => (await framesOf('replaced')).length > 0);
    expect((await framesOf('replaced')).map((f) => f.payload)).toEqual(['new']);
    await api(tb, 'DELETE', '/api/v1/schedules/replaced/r');
  });

  it('DELETE withdraws the pending occurrence and reports one a sweeper holds as tooLate', async () => {
    await put('deleted', 'd', { cron: MONTHLY });
    await nextIn('deleted', 'd', 20_000);
    await sweeper.sweepOnce();
    const [pending] = await timersOf('deleted', 'd');
    const res = await api(tb, 'DELETE', '/api/v1/schedules/deleted/d');
    expect(res.body).toEqual({
      ok: true,
      status: 'deleted',
      queue: 'deleted',
      scheduleKey: 'd',
      withdrawn: [{ timerKey: pending.timer_key, at: pending.deliver_at.toISOString().replace('Z', '000Z'), txn: pending.txn }],
      tooLate: [],
    });
    expect(await timersOf('deleted', 'd')).toEqual([]);

    await put('deleted', 'late', { cron: MONTHLY });
    await nextIn('deleted', 'late', 20_000);
    await sweeper.sweepOnce();
    const [held] = await timersOf('deleted', 'late');
    await claimRow(tb, 'deleted', held.timer_key);
    const late = await api(tb, 'DELETE', '/api/v1/schedules/deleted/late');
    expect(late.body).toMatchObject({ status: 'deleted', withdrawn: [], tooLate: [{ timerKey: held.timer_key, txn: held.txn }] });
  });
});

describe('stopping a schedule whatever the gates say', () => {
  it('DELETE under a cluster produce block stops it (PUT is refused; the admitted schedule kept materializing)', async () => {
    await put('blocked', 'b', { cron: MONTHLY });
    await nextIn('blocked', 'b', 20_000);
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } });
    await sweeper.sweepOnce();
    const [pending] = await timersOf('blocked', 'b');
    expect(pending).toBeDefined();
    expect((await put('blocked', 'b2', { cron: MONTHLY })).body).toMatchObject({ code: 'produce_blocked' });
    const res = await api(tb, 'DELETE', '/api/v1/schedules/blocked/b');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, status: 'deleted', withdrawn: [{ timerKey: pending.timer_key }], tooLate: [] });
    expect(await timersOf('blocked', 'b')).toEqual([]);
    expect(await scheduleRow('blocked', 'b')).toBeUndefined();
  });

  it('a paused tenant’s schedule materializes nothing until resumed, and DELETE under the pause stops one', async () => {
    await put('paused', 'p', { cron: EVERY_SECOND });
    await put('paused', 'gone', { cron: MONTHLY });
    await nextIn('paused', 'gone', 20_000);
    await sweeper.sweepOnce();
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { schedulePaused: true } });
    const [gone] = await timersOf('paused', 'gone');
    const del = await api(tb, 'DELETE', '/api/v1/schedules/paused/gone');
    expect(del.body).toMatchObject({ ok: true, status: 'deleted', withdrawn: [{ timerKey: gone.timer_key }] });

    const row = await scheduleRow('paused', 'p');
    await waitPast(row.next_at, 3500);
    await sweeper.sweepOnce(); // fires an occurrence already a timer; makes no new one
    expect(await timersOf('paused', 'p')).toEqual([]);
    expect((await scheduleRow('paused', 'p')).next_at).toEqual(row.next_at);
    const firedWhilePaused = (await framesOf('paused')).length;

    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { schedulePaused: false } });
    await sweeper.sweepOnce(); // the latest missed occurrence fires; the others are counted
    await waitFor(async () => (await framesOf('paused')).length === firedWhilePaused + 1);
    const after = await scheduleRow('paused', 'p');
    expect((await framesOf('paused')).at(-1)!.timer_key).toBe(`p@${after.last_at.toISOString().slice(0, 19)}Z`);
    expect(Number(after.skipped)).toBe((after.last_at.getTime() - row.next_at.getTime()) / 1000);
    expect(Number(after.skipped)).toBeGreaterThanOrEqual(3);
    expect((await framesOf('paused')).map((f) => f.timer_key)).not.toContain(gone.timer_key);
    await api(tb, 'DELETE', '/api/v1/schedules/paused/p');
  });

  it('after an operator’s sweeper pause, only the latest missed occurrence fires; the earlier ones are skipped and counted', async () => {
    await put('missed', 'm', { cron: EVERY_SECOND });
    await sweeper.sweepOnce();
    const before = await scheduleRow('missed', 'm');
    const pending = await timersOf('missed', 'm'); // materialized before the pause and not fired: missed too
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { sweeperPaused: true } });
    const fired = (await framesOf('missed')).length;
    await waitPast(before.next_at, 3500);
    await sweeper.sweepOnce();
    expect((await framesOf('missed')).length).toBe(fired); // paused: nothing fires, nothing is materialized
    expect((await scheduleRow('missed', 'm')).next_at).toEqual(before.next_at);

    const metric = async () => Number(/queen_schedules_skipped_total (\d+)/.exec(await tb.broker.services.metrics.registry.metrics())![1]);
    const skippedBefore = await metric();
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { sweeperPaused: false } });
    await sweeper.sweepOnce();
    await waitFor(async () => (await framesOf('missed')).length === fired + 1);
    const row = await scheduleRow('missed', 'm');
    const [latest] = (await framesOf('missed')).slice(fired);
    expect(latest).toEqual({
      transaction_id: expect.stringMatching(/^schedule:/),
      timer_key: `m@${row.last_at.toISOString().slice(0, 19)}Z`,
      payload: '{"beat":1}',
    });
    const missed = (row.last_at.getTime() - before.next_at.getTime()) / 1000 + pending.length;
    expect(missed).toBeGreaterThanOrEqual(3);
    expect(Number(row.skipped)).toBe(missed);
    expect((await metric()) - skippedBefore).toBe(missed);
    expect(pending.every((p) => instantOfKey(p.timer_key) < row.last_at)).toBe(true);
    expect(await timersOf('missed', 'm')).toEqual([]);
    await api(tb, 'DELETE', '/api/v1/schedules/missed/m');
  });
});
