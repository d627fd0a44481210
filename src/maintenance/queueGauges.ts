// Per-queue gauges for /metrics: pending timers, the age of the oldest overdue timer, and
// dead-letter depth, by (tenant, queue). Sampled every QUEEN_METRICS_QUEUE_INTERVAL_MS by every
// broker (each exports the cell's figures, like queen_timers_pending), never on a scrape.
//
// Cardinality is bounded: each gauge carries at most QUEEN_METRICS_QUEUES series, the queues with
// the largest values; the rest are left out (the cell-wide queen_timers_pending still counts
// them). The work is bounded too, whatever the tables hold:
//  - counts are exact while the table has at most EXACT_ROWS rows; above that they are estimates
//    from a block sample of at most SAMPLE_PAGES pages (TABLESAMPLE SYSTEM at the percentage that
//    reads that many), scaled to PostgreSQL's row estimate: a sample of ten million timers reads
//    SAMPLE_PAGES pages, where a fixed percentage grew with the table and showed in the sweeper's
//    fire lag (the volume bench, docs/benchmarks.md);
//  - the overdue age reads the oldest EXACT_ROWS due timers by deliver_at (the sweeper's index);
//    a queue with no due timer among them reports none.
import type { Database } from '../db/index.ts';
import type { Metrics } from '../metrics.ts';
import type { DutySpec } from './loop.ts';

export const EXACT_ROWS = 100_000;
/** Pages a sampled count reads at most (8 kB each). */
export const SAMPLE_PAGES = 256;

type Table = 'timers' | 'dead_letters';

/**
 * sizeOf — for `table`: $1 the exact limit. Locks: none. Rows: 1 — PostgreSQL's page and row
 * estimates, and the rows counted up to $1 + 1 (skipped, as 'big', when the estimate is already
 * ten times the limit).
 */
const sizeOf = (table: Table) => `
SELECT greatest(c.relpages, 0)::float8 AS pages, greatest(c.reltuples, 0)::float8 AS estimate,
       CASE WHEN c.reltuples > 10 * $1::float8 THEN $1::float8 + 1
            ELSE (SELECT count(*) FROM (SELECT 1 FROM ${table} LIMIT $1 + 1) t)::float8 END AS counted
  FROM pg_class c WHERE c.oid = '${table}'::regclass`;

/** exactByQueue — $1 the series kept. Locks: none. Rows: (tenant, queue, n), the largest queues. */
const exactByQueue = (table: Table) => `
SELECT tenant, queue, count(*)::float8 AS n FROM ${table} GROUP BY tenant, queue ORDER BY n DESC, tenant, queue LIMIT $1`;

/**
 * sampledByQueue — $1 the series kept, $2 the sample's percentage of the table's pages, $3 the
 * table's row estimate. Locks: none. Rows: (tenant, queue, n scaled to the estimate), the largest.
 */
const sampledByQueue = (table: Table) => `
WITH sampled AS (
  SELECT tenant, queue, count(*)::float8 AS n FROM ${table} TABLESAMPLE SYSTEM ($2::float8) GROUP BY tenant, queue
)
SELECT tenant, queue, round(n * $3::float8 / nullif((SELECT sum(n) FROM sampled), 0)) AS n FROM sampled
 ORDER BY n DESC, tenant, queue LIMIT $1`;

/** The TABLESAMPLE SYSTEM percentage that reads about `samplePages` of a table's `pages`. */
export function samplePercent(pages: number, samplePages: number): number {
  return pages <= samplePages ? 100 : (100 * samplePages) / pages;
}

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

export interface QueueGaugeOptions {
  /** The series each gauge keeps (QUEEN_METRICS_QUEUES). */
  series: number;
  exactRows?: number;
  samplePages?: number;
}

/** One sample of the three per-queue gauges; throws when a statement fails. */
export async function sampleQueueGauges(db: Database, metrics: Metrics, opts: QueueGaugeOptions): Promise<void> {
  const exactRows = opts.exactRows ?? EXACT_ROWS;
  const samplePages = opts.samplePages ?? SAMPLE_PAGES;
  // One statement after the other: a sample holds at most one of the request path's connections.
  const countByQueue = async (table: Table) => {
    const size = (await db.pool.query<{ pages: number; estimate: number; counted: number }>(sizeOf(table), [exactRows])).rows[0];
    if (size.counted <= exactRows) return (await db.pool.query<Row>(exactByQueue(table), [opts.series])).rows;
    const percent = samplePercent(size.pages, samplePages);
    return (await db.pool.query<Row>(sampledByQueue(table), [opts.series, percent, size.estimate])).rows;
  };
  const pending = await countByQueue('timers');
  const dead = await countByQueue('dead_letters');
  const overdue = (await db.pool.query<{ tenant: string; queue: string; age: number }>(OVERDUE_BY_QUEUE_SQL, [exactRows, opts.series]))
    .rows;
  // Replaced whole, so a queue that emptied or dropped out of the top series disappears.
  metrics.queuePending.reset();
  for (const r of pending) metrics.queuePending.set({ tenant: r.tenant, queue: r.queue }, r.n);
  metrics.queueDeadLetters.reset();
  for (const r of dead) metrics.queueDeadLetters.set({ tenant: r.tenant, queue: r.queue }, r.n);
  metrics.queueOverdueAge.reset();
  for (const r of overdue) metrics.queueOverdueAge.set({ tenant: r.tenant, queue: r.queue }, Math.max(0, r.age));
}

/**
 * The duty: a sample at start and every QUEEN_METRICS_QUEUE_INTERVAL_MS, on the maintenance loop
 * (loop.ts). A failed sample is logged at debug: the gauges keep their last figures until the next.
 */
export function queueGaugesDuty(db: Database, metrics: Metrics, opts: QueueGaugeOptions & { everyMs: number }): DutySpec<void> {
  return {
    name: 'queue_gauges',
    everyMs: opts.everyMs,
    runAtStart: true,
    failureLevel: 'debug',
    run: () => sampleQueueGauges(db, metrics, opts),
  };
}
