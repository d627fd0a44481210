// Counts that stay cheap at volume: exact up to a cap (a LIMIT inside the count, so the work stops
// there whatever the table holds), then either "at least the cap" or an estimate from a block
// sample of the table, scaled by the fraction of its pages read. The dashboard's routes say which.
import type { Count } from '../../contract/dashboard.ts';
import type { Queryable } from '../../db/transaction.ts';
import { SAMPLE_PAGES, samplePercent } from '../../maintenance/queueGauges.ts';

/** Rows a count reads before it stops: ~10 ms of index entries. */
export const COUNT_CAP = 10_000;

/** A count that read at most `cap` rows: exact below it, "at least" at it. */
export const capped = (n: number, cap = COUNT_CAP): Count => (n < cap ? { value: n, basis: 'exact' } : { value: cap, basis: 'at_least' });

/** SQL: how many rows `from … where` holds, reading at most $cap of them. */
export const cappedCount = (fromWhere: string, capParam: string) =>
  `(SELECT count(*) FROM (SELECT 1 FROM ${fromWhere} LIMIT ${capParam}) c)::int`;

export type SampledTable = 'timers' | 'dead_letters' | 'messages';

/**
 * sampleByQueue — for `table`: $1 tenant, $2 queues, $3 the sample's percentage of the table's
 * pages. Locks: none. Rows: (queue, rows seen in the sample). Reads about SAMPLE_PAGES pages.
 */
const sampleByQueue = (table: SampledTable) => `
SELECT queue, count(*)::float8 AS n FROM ${table} TABLESAMPLE SYSTEM ($3::float8)
 WHERE tenant = $1 AND queue = ANY ($2::text[]) GROUP BY queue`;

/** pagesOf — the table's size in pages now (not the planner's last estimate, which may be 0). */
const pagesOf = (table: SampledTable) => `SELECT (pg_relation_size('${table}') / current_setting('block_size')::int)::float8 AS pages`;

/**
 * Estimates of how many rows each queue holds in `table`, for queues whose exact count reached the
 * cap: a block sample scaled by the fraction read. A queue the sample missed (or saw too little of
 * to beat the cap) is reported as at least the cap.
 */
export async function estimateByQueue(db: Queryable, table: SampledTable, tenant: string, queues: string[]): Promise<Map<string, Count>> {
  const out = new Map<string, Count>();
  if (queues.length === 0) return out;
  const pages = (await db.query<{ pages: number }>(pagesOf(table))).rows[0]!.pages;
  const percent = samplePercent(pages, SAMPLE_PAGES);
  const r = await db.query<{ queue: string; n: number }>(sampleByQueue(table), [tenant, queues, percent]);
  const seen = new Map(r.rows.map((row) => [row.queue, Math.round((row.n * 100) / percent)]));
  for (const q of queues) {
    const est = seen.get(q) ?? 0;
    out.set(q, est > COUNT_CAP ? { value: est, basis: 'estimate' } : { value: COUNT_CAP, basis: 'at_least' });
  }
  return out;
}
