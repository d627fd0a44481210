// The hand-off window (QUEEN_SWEEPER_HANDOFF_MS): timers due within it are claimed ahead into the
// sweeper's wheel and fired at their instant on PostgreSQL's clock. Tests drive sweepOnce() and wait
// on PostgreSQL's clock itself, never on a deadline. Runs on embedded PGlite and on DATABASE_URL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSweeper, type Sweeper } from '../src/sweeper/index.ts';
import { claimWaitsForWheel } from '../src/sweeper/pass.ts';
import { api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { acceptQueue, fireThreadBackends, insertTimers, rejectQueue } from './helpers/timers.ts';

/** A window wide enough that the timers below are inside it, whatever the machine's speed. */
const WINDOW_MS = 60_000;
/**
 * How far out the timers below are due: a test's first pass must claim them before they are due,
 * and on a loaded machine (test files in parallel on two cores, the embedded database) a pass has
 * taken over a second; these tests then wait for PostgreSQL's clock to pass it.
 */
const DUE_IN_MS = 5_000;

let tb: TestBroker;
let sweeper: Sweeper | undefined;

beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_SWEEPER_HANDOFF_MS: String(WINDOW_MS) } });
});
afterAll(async () => {
  await sweeper?.stop();
  await tb?.close();
});
beforeEach(async () => {
  await sweeper?.stop();
  sweeper = undefined;
  await acceptQueue(tb.sql, 'q');
  await tb.sql.query('TRUNCATE timers, messages, dead_letters');
});

const frameCount = async () => (await tb.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;
const claimedCount = async () =>
  (await tb.sql.query('SELECT count(*)::int AS n FROM timers WHERE claim_expires_at > now()')).rows[0].n as number;
/** Waits until PostgreSQL's own clock has passed every pending timer's deliverAt. */
const untilAllDueOnPostgres = () =>
  waitFor(async () => (await tb.sql.query('SELECT coalesce(max(deliver_at) < clock_timestamp(), true) AS ok FROM timers')).rows[0].ok, {
    timeout: 30_000,
  });

/**
 * Passes until one fails: the wheel fires once its estimate of PostgreSQL's clock (off by up to half
 * a round trip) has passed the deliverAts, which may be a pass or two after PostgreSQL's has.
 */
const untilTheWheelFiresAndFails = () =>
  waitFor(async () => {
    try {
      await sweeper!.sweepOnce();
      return false;
    } catch (err) {
      return err;
    }
  });

describe('the hand-off window', () => {
  it('a cancel inside the window answers too_late, one outside answers cancelled; stop() hands the wheel back', async () => {
    sweeper = createSweeper(tb.broker.services);
    await insertTimers(tb.sql, { keyPrefix: 'in', dueInMs: WINDOW_MS / 2 });
    await insertTimers(tb.sql, { keyPrefix: 'out', dueInMs: 3_600_000 });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 1, fired: 0, failed: 0 });
    expect(await claimedCount()).toBe(1);

    const inside = await api(tb, 'DELETE', '/api/v1/timers/q/in1');
    expect(inside.body).toMatchObject({ ok: false, status: 'too_late' });
    const outside = await api(tb, 'DELETE', '/api/v1/timers/q/out1');
    expect(outside.body).toMatchObject({ ok: true, status: 'cancelled' });

    const gauge = await tb.broker.services.metrics.registry.getSingleMetricAsString('queen_timers_sweeper_handoff_window_ms');
    expect(gauge).toMatch(new RegExp(`^queen_timers_sweeper_handoff_window_ms ${WINDOW_MS}$`, 'm'));
    const wheel = await tb.broker.services.metrics.registry.getSingleMetricAsString('queen_timers_sweeper_wheel_timers');
    expect(wheel).toMatch(/^queen_timers_sweeper_wheel_timers 1$/m);

    await sweeper.stop();
    sweeper = undefined;
    expect((await tb.sql.query('SELECT timer_key, claim_token, claim_expires_at FROM timers')).rows).toEqual([
      { timer_key: 'in1', claim_token: null, claim_expires_at: null },
    ]);
    const released = await api(tb, 'DELETE', '/api/v1/timers/q/in1');
    expect(released.body).toMatchObject({ ok: true, status: 'cancelled' });
  });

  it('no frame is early when the broker clock runs ahead of PostgreSQL: the fire refuses, the wheel retries', async () => {
    let skewMs = 0;
    sweeper = createSweeper(tb.broker.services, { clock: () => Date.now() + skewMs });
    await insertTimers(tb.sql, { count: 3, dueInMs: DUE_IN_MS, stepMs: 10 });
    // Claimed into the wheel while the clocks agree (the estimate of the offset is ~0)...
    expect(await sweeper.sweepOnce()).toMatchObject({ claimed: 3, fired: 0 });
    // ...then the broker's clock jumps an hour ahead: the wheel believes the timers are due.
    skewMs = 3_600_000;
    expect(await sweeper.sweepOnce()).toMatchObject({ fired: 0, failed: 0 });
    expect(await frameCount()).toBe(0);
    expect(await claimedCount()).toBe(3); // still ours, back in the wheel
    // On PostgreSQL that fire left from the fire thread, as a looped broker's would: its
    // connections are the only ones that ran a transaction since the claim.
    if (!tb.broker.db.embedded) expect((await fireThreadBackends(tb.sql)).map((b) => b.query)).toContain('COMMIT');

    await untilAllDueOnPostgres();
    await waitFor(async () => {
      await sweeper!.sweepOnce();
      return (await frameCount()) === 3;
    });
    const { rows } = await tb.sql.query(
      `SELECT count(*) FILTER (WHERE created_at < deliver_at)::int AS early, count(*)::int AS n,
              count(*) FILTER (WHERE deliver_at < prev)::int AS out_of_order
         FROM (SELECT created_at, deliver_at, lag(deliver_at) OVER (ORDER BY seq) AS prev FROM messages) x`,
    );
    expect(rows[0]).toEqual({ early: 0, n: 3, out_of_order: 0 });
    expect((await tb.sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n).toBe(0);
  });

  it('a broker clock behind PostgreSQL is corrected by the measured offset: due timers fire, never early', async () => {
    sweeper = createSweeper(tb.broker.services, { clock: () => Date.now() - 3_600_000 });
    await insertTimers(tb.sql, { count: 20, dueInMs: DUE_IN_MS, spreadMs: 500 });
    expect(await sweeper.sweepOnce()).toMatchObject({ claimed: 20, fired: 0 });
    await untilAllDueOnPostgres();
    // The wheel's instants are on PostgreSQL's clock (offset estimated from the claim's round
    // trip, off by up to half of it), so an hour-slow local clock does not hold them back an hour.
    await waitFor(async () => {
      await sweeper!.sweepOnce();
      return (await frameCount()) === 20;
    });
    const { rows } = await tb.sql.query(
      `SELECT count(*) FILTER (WHERE created_at < deliver_at)::int AS early,
              count(*) FILTER (WHERE deliver_at < prev)::int AS out_of_order
         FROM (SELECT created_at, deliver_at, lag(deliver_at) OVER (ORDER BY seq) AS prev FROM messages) x`,
    );
    expect(rows[0]).toEqual({ early: 0, out_of_order: 0 });
  });

  it('a wheel batch failing with the database is held and fired by the next pass once the database is back', async () => {
    sweeper = createSweeper(tb.broker.services);
    await insertTimers(tb.sql, { count: 2, dueInMs: DUE_IN_MS });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 2, fired: 0, failed: 0 });
    await untilAllDueOnPostgres();
    await rejectQueue(tb.sql, 'q', '08006');
    await untilTheWheelFiresAndFails();
    await acceptQueue(tb.sql, 'q');
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 0, fired: 2, failed: 0 });
    expect(await frameCount()).toBe(2);
  });

  it('stop() releases claims it could not fire, so another broker takes them at once', async () => {
    sweeper = createSweeper(tb.broker.services);
    await insertTimers(tb.sql, { count: 3, dueInMs: DUE_IN_MS });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 0, failed: 0 });
    await untilAllDueOnPostgres();
    // 53000 (insufficient resources) is a failure of the database, not of a row: the batch is held.
    await rejectQueue(tb.sql, 'q', '53000');
    expect(String(await untilTheWheelFiresAndFails())).toMatch(/rejects frames/);
    expect(await claimedCount()).toBe(3);
    await sweeper.stop();
    expect((await tb.sql.query('SELECT attempts, claim_token FROM timers')).rows).toEqual([
      { attempts: 0, claim_token: null },
      { attempts: 0, claim_token: null },
      { attempts: 0, claim_token: null },
    ]);
    await acceptQueue(tb.sql, 'q');
    sweeper = createSweeper(tb.broker.services);
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 3, failed: 0 });
  });

  it("an operator's pause stops the wheel too: its claims are handed back and nothing fires until the pause is lifted", async () => {
    sweeper = createSweeper(tb.broker.services);
    await insertTimers(tb.sql, { count: 2, dueInMs: DUE_IN_MS });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 2, fired: 0, failed: 0 });
    await tb.broker.services.cluster.set({ sweeperPaused: true });
    try {
      await untilAllDueOnPostgres();
      // Passes until the wheel has tried its instant: the fire refuses and hands the claims back.
      await waitFor(async () => {
        await sweeper!.sweepOnce();
        return (await claimedCount()) === 0;
      });
      expect(await frameCount()).toBe(0);
      const cancelled = await api(tb, 'DELETE', '/api/v1/timers/q/k1');
      expect(cancelled.body).toMatchObject({ ok: true, status: 'cancelled' });
    } finally {
      await tb.broker.services.cluster.set({ sweeperPaused: false });
    }
    expect(await sweeper.sweepOnce()).toMatchObject({ fired: 1 });
    expect(await frameCount()).toBe(1);
  });

  it('timers scheduled into the window are claimed at once and fired by the loop at their instant', async () => {
    const looped = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_HANDOFF_MS: '5000', QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' } });
    try {
      const res = await api(looped, 'POST', '/api/v1/timers', {
        body: { operations: [{ op: 'schedule', queue: 'q', timerKey: 'w1', delayMs: 1_000, payload: 'e30=' }] },
      });
      expect(res.body.results[0]).toMatchObject({ ok: true });
      // The schedule's notification wakes the loop, whose claim takes the timer into the wheel.
      await waitFor(
        async () => (await looped.sql.query('SELECT count(*)::int AS n FROM timers WHERE claim_token IS NOT NULL')).rows[0].n === 1,
      );
      await waitFor(async () => (await looped.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n === 1);
      const { rows } = await looped.sql.query('SELECT created_at >= deliver_at AS on_time FROM messages');
      expect(rows[0].on_time).toBe(true);
    } finally {
      await looped.close();
    }
  });
});

describe('a claim beside the wheel (claimWaitsForWheel)', () => {
  // Arguments: ms to the wheel's next instant, how long claims take lately, ms to the next unclaimed instant.
  it('waits for a wheel instant that comes before a claim would be done', () => {
    expect(claimWaitsForWheel(3, 5, 80)).toBe(true);
    expect(claimWaitsForWheel(0, 5, 80)).toBe(true);
  });

  it('does not wait for an instant beyond the claim, nor on an empty wheel', () => {
    expect(claimWaitsForWheel(6, 5, 80)).toBe(false);
    expect(claimWaitsForWheel(Infinity, 5, 80)).toBe(false);
  });

  it('does not wait when the next timer to claim would then be claimed late', () => {
    // Waiting 3 ms, then a claim of up to 10 ms (twice the recent 5), and 1 ms to spare: 14 ms.
    expect(claimWaitsForWheel(3, 5, 14)).toBe(false);
    expect(claimWaitsForWheel(3, 5, 15)).toBe(true);
    // A claim already overdue (its next timer is due within the window): never waits.
    expect(claimWaitsForWheel(0, 1, -20)).toBe(false);
  });
});
