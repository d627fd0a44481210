// A primary failover loses nothing acknowledged. A cell of this machine's PostgreSQL 15 binaries
// (a primary and two synchronous standbys, 'ANY 1 (s1, s2)') behind three compiled brokers whose
// DATABASE_URL lists the three servers (test/helpers/failover.ts builds it). PostgreSQL only: the
// embedded database has no standby; skipped, saying why, where the binaries or root are missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onRealPostgres } from './helpers/broker.ts';
import { call, runFailover, scheduleOp, startCell, whyNoCell, type Cell } from './helpers/failover.ts';

const why = onRealPostgres ? whyNoCell() : 'needs PostgreSQL (DATABASE_URL); the embedded database has no standby';
if (why) console.warn(`test/failover.test.ts: skipped: ${why}`);

const TIMERS = 20_000;

/** "503 schedule ×12, 503 pop ×3": the errors by status and request. */
const summarize = (errors: { status: number; what: string; code?: string }[]) =>
  Object.entries(
    errors.reduce<Record<string, number>>((m, e) => {
      const k = `${e.status} ${e.what}${e.code ? ` ${e.code}` : ''}`;
      m[k] = (m[k] ?? 0) + 1;
      return m;
    }, {}),
  )
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ');

describe.skipIf(Boolean(why))(`a primary and two synchronous standbys behind three brokers${why ? ` — skipped: ${why}` : ''}`, () => {
  let cell: Cell;
  beforeAll(async () => {
    cell = await startCell();
  }, 300_000);
  afterAll(async () => {
    await cell?.close();
  }, 120_000);

  const schedule = (broker: number, key: string) =>
    call(cell.brokers[broker].base, cell.token, 'POST', '/api/v1/timers', { operations: [scheduleOp('frozen', key, 500)] }, 120_000);

  /** The primary's backends waiting for a standby to confirm their commit. */
  const waitingForStandby = async () =>
    (await cell.primary.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'SyncRep'`))[0].n;

  it('answers no schedule 2xx while both standbys are stopped, and 503 for a commit whose wait for them was cancelled', async () => {
    const [, s1, s2] = cell.nodes;
    await s1.signal('SIGSTOP');
    await s2.signal('SIGSTOP');
    let settled = false;
    try {
      const waiting = schedule(0, 'frozen-1').finally(() => (settled = true));
      // The commit is written on the primary and waits there for a standby's flush.
      await expect.poll(waitingForStandby, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
      expect(settled).toBe(false);

      // Cancelling the wait makes PostgreSQL report the commit as done, with a WARNING that it
      // may not have been replicated: the broker answers 503, not 2xx. (Cancelled until answered:
      // the first waiter seen may have been another commit than this request's.)
      await expect
        .poll(
          async () => {
            if (!settled) await cell.primary.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`);
            return settled;
          },
          { timeout: 60_000, interval: 250 },
        )
        .toBe(true);
      const cancelled = await waiting;
      expect(cancelled.status).toBe(503);
      expect(cancelled.body).toMatchObject({ ok: false, code: 'database_unavailable' });
      expect(cancelled.headers['retry-after']).toBe('1');

      // Another schedule waits the same way, and is acknowledged once a standby runs again.
      settled = false;
      const second = schedule(1, 'frozen-2').finally(() => (settled = true));
      await expect.poll(waitingForStandby, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
      expect(settled).toBe(false);
      await s1.signal('SIGCONT');
      expect((await second).status).toBe(200);
    } finally {
      await s1.signal('SIGCONT');
      await s2.signal('SIGCONT');
    }
    // The client retries the refused one with the same key and txn: one timer, fired once.
    const retried = await schedule(2, 'frozen-1');
    expect(retried.status).toBe(200);
    await expect
      .poll(
        async () =>
          (
            await cell.primary.query<{ t: string; n: number }>(
              `SELECT transaction_id AS t, count(*)::int AS n FROM messages WHERE queue = 'frozen' GROUP BY 1 ORDER BY 1`,
              'queen',
            )
          ).map((r) => `${r.t}:${r.n}`),
        { timeout: 60_000, interval: 200 },
      )
      .toEqual(['frozen-1:1', 'frozen-2:1']);
  }, 240_000);

  it(`loses, repeats and advances nothing acknowledged when the primary is killed under ${TIMERS} schedules and a standby promoted`, async () => {
    const r = await runFailover(cell, {
      timers: TIMERS,
      seconds: 25,
      batch: 25,
      queues: 2,
      killAt: 0.4,
      log: (l) => console.log(`failover: ${l}`),
    });
    console.log(
      `failover: kill → promoted ${r.promotedMs} ms, → other standby re-pointed ${r.repointedMs} ms, → first good schedule ${r.firstGoodScheduleMs} ms; ` +
        `${r.errors.length} errors (${summarize(r.errors)}), the last ${r.lastErrorMs} ms after the kill; schedules/s before ${r.schedulesPerSecondBefore}, after ${r.schedulesPerSecondAfter}`,
    );
    expect(r.acknowledged).toBe(TIMERS);
    // Every acknowledged schedule fired exactly once, none before its time, none dead-lettered.
    expect({ lost: r.lost, duplicated: r.duplicated, early: r.early, pending: r.pendingTimers, dead: r.deadLetters }).toEqual({
      lost: 0,
      duplicated: 0,
      early: 0,
      pending: 0,
      dead: 0,
    });
    expect(r.framesReceived).toBe(TIMERS);
    expect(r.redeliveredAfterAck).toBe(0);
    // The only errors: 503s, from the kill until the cell answered again.
    const outside = r.errors.filter(
      (e) => e.status !== 503 || e.atMs < 0 || e.atMs > Math.max(r.firstGoodScheduleMs, r.repointedMs) + 10_000,
    );
    expect(outside, JSON.stringify(outside.slice(0, 20))).toEqual([]);
    expect(r.firstGoodScheduleMs).toBeGreaterThan(0);
  }, 600_000);
});
