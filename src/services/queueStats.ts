// Per-queue gauges for /metrics: pending timers, the age of the oldest overdue timer, and
// dead-letter depth, by (tenant, queue). Sampled every QUEEN_METRICS_QUEUE_INTERVAL_MS by every
// broker (each exports the cell's figures, like queen_timers_pending), never on a scrape.
//
// Cardinality is bounded: each gauge carries at most QUEEN_METRICS_QUEUES series, the queues with
// the largest values; the rest are left out (the cell-wide queen_timers_pending still counts
// them). The work is bounded too, whatever the tables hold:
//  - counts are exact while the table has at most EXACT_ROWS rows; above that they are estimates
//    from a 1 % block sample (TABLESAMPLE SYSTEM), scaled to PostgreSQL's row estimate;
//  - the overdue age reads the oldest EXACT_ROWS due timers by deliver_at (the sweeper's index);
//    a queue with no due timer among them reports none.
import type { Database } from '../db/index.ts';
import type { Metrics } from '../metrics.ts';

export const EXACT_ROWS = 100_000;

/**
 * countByQueue — for `table` (timers or dead_letters): $1 the exact limit, $2 the series kept.
 * Locks: none. Rows: (tenant, queue, n) for the largest queues, n exact or estimated.
 */
const countByQueue = (table: 'timers' | 'dead_letters') => `
WITH size AS (
  SELECT (SELECT count(*) FROM (SELECT 1 FROM ${table} LIMIT $1 + 1) t)::float8 AS counted,
         (SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = '${table}'::regclass)::float8 AS estimate
),
exact AS (
  SELECT tenant, queue, count(*)::float8 AS n FROM ${table}
   WHERE (SELECT counted FROM size) <= $1
   GROUP BY tenant, queue
),
sampled AS (
  SELECT tenant, queue, count(*)::float8 AS n FROM ${table} TABLESAMPLE SYSTEM (1)
   WHERE (SELECT counted FROM size) > $1
   GROUP BY tenant, queue
),
scaled AS (
  SELECT s.tenant, s.queue, round(s.n * (SELECT estimate FROM size) / nullif((SELECT sum(n) FROM sampled), 0)) AS n FROM sampled s
)
SELECT tenant, queue, n FROM exact
UNION ALL
SELECT tenant, queue, n FROM scaled
ORDER BY n DESC, tenant, queue
LIMIT $2`;

/**
 * overdueByQueue — $1 how many of the oldest due timers to read, $2 the series kept. Locks: none.
 * Rows: (tenant, queue, age in seconds of its oldest due timer), oldest first.
 */
const OVERDUE_BY_QUEUE_SQL = `
SELECT tenant, queue, extract(epoch FROM now() - min(deliver_at))::float8 AS age
  FROM (SELECT tenant, queue, deliver_at FROM timers WHERE deliver_at <= now() ORDER BY deliver_at LIMIT $1) due
 GROUP BY tenant, queue
 ORDER BY age DESC, tenant, queue
 LIMIT $2`;

interface Row {
  tenant: string;
  queue: string;
  n: number;
}

export interface QueueStats {
  /** Samples now (after the one in flight). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startQueueStats(
  db: Database,
  metrics: Metrics,
  opts: { everyMs: number; series: number; onError: (err: unknown) => void },
): QueueStats {
  const sample = async () => {
    // One after the other: a sample holds at most one of the request path's connections.
    const pending = await db.pool.query<Row>(countByQueue('timers'), [EXACT_ROWS, opts.series]);
    const dead = await db.pool.query<Row>(countByQueue('dead_letters'), [EXACT_ROWS, opts.series]);
    const overdue = await db.pool.query<{ tenant: string; queue: string; age: number }>(OVERDUE_BY_QUEUE_SQL, [EXACT_ROWS, opts.series]);
    // Replaced whole, so a queue that emptied or dropped out of the top series disappears.
    metrics.queuePending.reset();
    for (const r of pending.rows) metrics.queuePending.set({ tenant: r.tenant, queue: r.queue }, r.n);
    metrics.queueDeadLetters.reset();
    for (const r of dead.rows) metrics.queueDeadLetters.set({ tenant: r.tenant, queue: r.queue }, r.n);
    metrics.queueOverdueAge.reset();
    for (const r of overdue.rows) metrics.queueOverdueAge.set({ tenant: r.tenant, queue: r.queue }, Math.max(0, r.age));
  };
  let running: Promise<void> = Promise.resolve();
  const runOnce = () => (running = running.then(sample).catch(opts.onError));
  void runOnce();
  const timer = setInterval(() => void runOnce(), opts.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
