// A schedule across three broker processes on one PostgreSQL, one of them SIGKILLed while the
// schedule runs (real PostgreSQL only, like test/sweeper-cluster.test.ts). Counted per occurrence,
// not by timing: every occurrence from the first to the last one materialized either has exactly
// one frame or was counted as skipped, and the frames include a run of five consecutive seconds.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, api, onRealPostgres, startTestBroker, waitFor } from './helpers/broker.ts';
import { spawnBroker, startCluster } from './helpers/procs.ts';
import { b64 } from './helpers/timers.ts';

/** The occurrence instant (seconds since the epoch) each frame of the queue stands for, in log order. */
async function occurrencesFired(sql: pg.Pool, queue: string): Promise<number[]> {
  const r = await sql.query(`SELECT timer_key FROM messages WHERE queue = $1 ORDER BY seq`, [queue]);
  return r.rows.map((x) => Date.parse(x.timer_key.slice(x.timer_key.lastIndexOf('@') + 1)) / 1000);
}

/** The longest run of consecutive seconds among the instants. */
function longestRun(seconds: number[]): number {
  const sorted = [...new Set(seconds)].sort((a, b) => a - b);
  let best = 0;
  let run = 0;
  sorted.forEach((s, i) => {
    run = i > 0 && s === sorted[i - 1] + 1 ? run + 1 : 1;
    best = Math.max(best, run);
  });
  return best;
}

describe.skipIf(!onRealPostgres)('schedules across brokers on real PostgreSQL', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it('an every-second schedule fires one frame per occurrence, none twice, across three brokers while one is SIGKILLed', async () => {
    // Three brokers, all sweepers connected; short leases, so a killed broker's claims come back within 3 s.
    const { url, sql, brokers, env } = await startCluster(cleanups);
    // The API through a broker of its own in this process (no sweeper): the schedule and its DELETE.
    const api0 = await startTestBroker({ databaseUrl: url });
    cleanups.push(() => api0.close());
    const put = await api(api0, 'PUT', '/api/v1/schedules/beats/hb', { body: { cron: '*/1 * * * * *', payload: b64('{"beat":1}') } });
    expect(put.status).toBe(200);

    await waitFor(async () => (await occurrencesFired(sql, 'beats')).length >= 3, { timeout: 30_000, interval: 50 });
    await brokers[0].kill('SIGKILL');
    const killedAt = Math.floor(Date.now() / 1000);
    brokers[0] = spawnBroker(url, env);
    // Five consecutive occurrences fired after the kill (each once), however slow the machine.
    await waitFor(async () => longestRun((await occurrencesFired(sql, 'beats')).filter((s) => s > killedAt)) >= 5, {
      timeout: 90_000,
      interval: 100,
    });

    // Stop the sweepers (the operator's pause), let what is in flight settle, and read the
    // schedule's books; then DELETE it (withdrawing what is pending) and resume.
    await admin(api0, 'PUT', '/api/v1/admin/cluster', { body: { sweeperPaused: true } });
    const books = async () =>
      JSON.stringify([
        (await sql.query(`SELECT last_at, skipped FROM schedules`)).rows,
        (await sql.query(`SELECT count(*) FROM messages`)).rows,
        (await sql.query(`SELECT timer_key, claim_token FROM timers ORDER BY 1`)).rows,
      ]);
    await waitFor(
      async () => {
        const before = await books();
        await new Promise((r) => setTimeout(r, 500));
        return before === (await books());
      },
      { timeout: 30_000 },
    );
    const [row] = (await sql.query(`SELECT last_at, skipped::int AS skipped FROM schedules`)).rows;
    const del = await api(api0, 'DELETE', '/api/v1/schedules/beats/hb');
    expect(del.body).toMatchObject({ ok: true, status: 'deleted' });
    await admin(api0, 'PUT', '/api/v1/admin/cluster', { body: { sweeperPaused: false } });
    // What a sweeper held at the DELETE still fires (tooLate); then nothing is left.
    await waitFor(async () => (await sql.query(`SELECT count(*)::int AS n FROM timers WHERE queue = 'beats'`)).rows[0].n === 0, {
      timeout: 30_000,
      interval: 100,
    });

    const fired = await occurrencesFired(sql, 'beats');
    // No occurrence twice. (Two frames of one txn cannot exist: the log's unique key refuses them.
    // What this catches is one occurrence materialized twice under two txns.)
    expect(new Set(fired).size).toBe(fired.length);
    // Every occurrence from the first to the last materialized fired exactly once, was skipped
    // by a catch-up (a stall longer than a second), or was withdrawn by the DELETE.
    const firstAt = Date.parse(put.body.nextOccurrences[0].at.slice(0, 19) + 'Z') / 1000;
    const lastAt = row.last_at.getTime() / 1000;
    expect(Math.min(...fired)).toBeGreaterThanOrEqual(firstAt);
    expect(fired.length + row.skipped + del.body.withdrawn.length).toBe(lastAt - firstAt + 1);
    expect(longestRun(fired)).toBeGreaterThanOrEqual(5);
    const dead = await sql.query('SELECT count(*)::int AS n FROM dead_letters');
    expect(dead.rows[0].n).toBe(0);
    for (const b of brokers.slice(1)) expect(b.proc.exitCode).toBeNull();
  });
});
