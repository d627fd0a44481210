// The pending gauge (queen_timers_pending): countPending every PENDING_SAMPLE_MS, a duty on the
// maintenance loop (loop.ts), beside the sweeper's passes, never inside one.
//
// countPending — exact up to EXACT_PENDING_LIMIT timers (a count that stops there: bounded work, whatever the
// table holds); above it, PostgreSQL's own estimate of the table's rows (pg_class.reltuples, kept
// by autovacuum and ANALYZE — by the broker's maintenance in embedded mode). A count of every row
// grows with the table, and it runs every 5 s (docs/benchmarks.md).
// Parameters: $1 the limit. Locks: none (MVCC read). Rows: one.
import type { Queryable } from '../db/transaction.ts';
import type { Metrics } from '../metrics.ts';
import type { DutySpec } from './loop.ts';

export const EXACT_PENDING_LIMIT = 100_000;
/** How often the gauge is sampled. */
export const PENDING_SAMPLE_MS = 5_000;

const PENDING_SQL = `
SELECT (SELECT count(*) FROM (SELECT 1 FROM timers LIMIT $1) t)::int AS counted,
       (SELECT greatest(c.reltuples, 0) FROM pg_class c WHERE c.oid = 'timers'::regclass)::float8 AS estimate`;

export async function countPending(db: Queryable): Promise<number> {
  const { counted, estimate } = (await db.query<{ counted: number; estimate: number }>(PENDING_SQL, [EXACT_PENDING_LIMIT])).rows[0];
  return counted < EXACT_PENDING_LIMIT ? counted : Math.max(EXACT_PENDING_LIMIT, Math.round(estimate));
}

/** The duty: a sample at start and every PENDING_SAMPLE_MS; a failed sample is logged at debug. */
export function pendingGaugeDuty(db: Queryable, metrics: Pick<Metrics, 'pending'>): DutySpec<void> {
  return {
    name: 'pending_gauge',
    everyMs: PENDING_SAMPLE_MS,
    runAtStart: true,
    failureLevel: 'debug',
    run: async () => metrics.pending.set(await countPending(db)),
  };
}
