// The sweeper on a Citus cluster (a coordinator and two workers, test/helpers/citus.ts): three
// broker processes on the coordinator fire 20,000 timers of 200 tenants (scheduled through the
// routes of a fourth broker, which also serves the consumer), spread over every shard,
// while one broker is SIGKILLed and restarted and one worker restarts; a consumer pops and acks
// every frame meanwhile. Every timer must enter the log exactly once, none early, none
// dead-lettered, and every frame must reach the consumer. The claim and the fire run once per
// shard group (src/sweeper/shardGroups.ts), each a transaction on one worker. Skipped, saying why,
// where the cluster cannot be built (no root, no Citus).
import { afterAll, describe, expect, it } from 'vitest';
import { startCitus, whyNoCitus } from './helpers/citus.ts';
import { api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { spawnBroker, startCluster } from './helpers/procs.ts';
import { configure } from './helpers/log.ts';
import { batch, sched } from './helpers/timers.ts';

const TIMERS = 20_000;
const TENANTS = 200;

const why = whyNoCitus();
if (why) console.warn(`test/citus-sweeper.test.ts: skipped: ${why}`);

/** A tenant's consumer: pops batches of queue q in group g and acks them, until told to stop. */
async function consume(tb: TestBroker, tenants: string[], seen: Map<string, number>, stop: () => boolean): Promise<number> {
  const tokens = new Map<string, string>();
  for (const t of tenants) tokens.set(t, await tb.token({ tenant: t }));
  let failures = 0;
  while (!stop()) {
    let popped = 0;
    for (const tenant of tenants) {
      const token = tokens.get(tenant)!;
      try {
        const res = await api(tb, 'GET', '/api/v1/pop/queue/q?consumerGroup=g&batch=200', { token });
        if (res.status !== 200) {
          if (res.status !== 204) failures++;
          continue;
        }
        const frames: { transactionId: string; partitionId: string; leaseId: string }[] = res.body.messages;
        const acked = await api(tb, 'POST', '/api/v1/ack/batch', {
          token,
          body: {
            consumerGroup: 'g',
            acknowledgments: frames.map((f) => ({ transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId })),
          },
        });
        if (acked.status !== 200) {
          failures++;
          continue;
        }
        for (const [i, f] of frames.entries()) {
          if (acked.body[i]?.success !== false) seen.set(f.transactionId, (seen.get(f.transactionId) ?? 0) + 1);
        }
        popped += frames.length;
      } catch {
        failures++; // the worker holding this tenant's shard is restarting: next round
      }
    }
    if (popped === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return failures;
}

describe.skipIf(Boolean(why))(`the sweeper on a Citus cluster${why ? ` — skipped: ${why}` : ''}`, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  }, 120_000);

  it(`three brokers fire ${TIMERS} timers of ${TENANTS} tenants exactly once through a broker SIGKILL and a worker restart, and a consumer acks every frame`, async () => {
    const cluster = await startCitus();
    cleanups.push(() => cluster.close());
    // Three sweeping broker processes (short leases: a killed broker's window claims come back
    // within 3 s) and, in this process, a broker for the schedules and the consumer (no sweeper).
    const { sql, brokers, env } = await startCluster(cleanups, cluster.url);
    const consumerBroker = await startTestBroker({ databaseUrl: cluster.url });
    cleanups.push(() => consumerBroker.close());
    expect((await sql.query(`SELECT count(*)::int AS n FROM pg_dist_partition WHERE logicalrelid = 'timers'::regclass`)).rows[0].n).toBe(1);

    // 100 timers per tenant, scheduled through the routes, maturing over 6 s from 3 s on; txn-<i> names each one.
    const tenants = Array.from({ length: TENANTS }, (_, i) => `tenant-${i}`);
    for (const [t, tenant] of tenants.entries()) {
      const ops = Array.from({ length: TIMERS / TENANTS }, (_, j) => {
        const i = t * (TIMERS / TENANTS) + j + 1;
        return sched('q', `k${i}`, { txn: `txn-${i}`, partition: `p${i % 3}`, delayMs: 3000 + Math.floor(Math.random() * 6000) });
      });
      // A lease of 5 s: a pop whose ack was lost in the worker's restart hands its frames out again soon.
      const set = await configure(consumerBroker, 'q', { leaseTime: 5 }, await consumerBroker.token({ tenant }));
      expect(set.status).toBe(200);
      const r = await batch(consumerBroker, ops, { tenant });
      expect(r.body.results.filter((x: { status: string }) => x.status !== 'scheduled')).toEqual([]);
    }
    const spread = await sql.query(
      `SELECT count(DISTINCT get_shard_id_for_distribution_column('timers', t))::int AS used,
              (SELECT count(*)::int FROM pg_dist_shard WHERE logicalrelid = 'timers'::regclass) AS shards
         FROM unnest($1::text[]) AS t`,
      [tenants],
    );
    expect(spread.rows[0].used).toBe(spread.rows[0].shards);

    const seen = new Map<string, number>();
    let stopped = false;
    // Four consumers side by side, each over a quarter of the tenants.
    const consumer = Promise.all(
      [0, 1, 2, 3].map((i) =>
        consume(
          consumerBroker,
          tenants.filter((_, t) => t % 4 === i),
          seen,
          () => stopped,
        ),
      ),
    );
    const frames = async () => (await sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;

    // A quarter in: SIGKILL a broker mid-run and start another.
    const pending = async () => (await sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n as number;
    await waitFor(async () => (await frames()) >= TIMERS / 4, { timeout: 60_000, interval: 20 });
    await brokers[0].kill('SIGKILL');
    expect(await pending()).toBeGreaterThan(0);
    brokers[0] = spawnBroker(cluster.url, env);
    // Half in: restart a worker (in-flight transactions on its shards fail; committed ones stay).
    await waitFor(async () => (await frames()) >= TIMERS / 2, { timeout: 60_000, interval: 20 });
    expect(await pending()).toBeGreaterThan(0);
    await cluster.workers[0].stop('immediate');
    await cluster.workers[0].start();

    await waitFor(
      async () => {
        try {
          return (await sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n === 0;
        } catch {
          return false;
        }
      },
      { timeout: 120_000, interval: 100 },
    );
    await waitFor(() => seen.size === TIMERS, { timeout: 120_000, interval: 100 });
    stopped = true;
    await consumer;

    const r = (
      await sql.query(
        `SELECT (SELECT count(*) FROM timers)::int AS pending,
                (SELECT count(*) FROM messages)::int AS frames,
                (SELECT count(DISTINCT transaction_id) FROM messages)::int AS txns,
                (SELECT count(*) FROM messages WHERE transaction_id ~ '^txn-[0-9]+$'
                   AND substring(transaction_id from 5)::int BETWEEN 1 AND $1)::int AS expected,
                (SELECT count(*) FROM messages WHERE created_at < deliver_at)::int AS early,
                (SELECT count(*) FROM dead_letters)::int AS dead,
                (SELECT count(DISTINCT tenant) FROM messages)::int AS tenants`,
        [TIMERS],
      )
    ).rows[0];
    expect(r).toEqual({ pending: 0, frames: TIMERS, txns: TIMERS, expected: TIMERS, early: 0, dead: 0, tenants: TENANTS });
    // Every frame reached the consumer; one whose ack was lost in the worker's restart may have
    // come twice (delivery to consumers is at least once), but every one was acked.
    expect(seen.size).toBe(TIMERS);
    for (const b of brokers.slice(1)) expect(b.proc.exitCode).toBeNull();
  }, 600_000);
});
