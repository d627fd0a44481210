// The forecast: how many of a queue's timers fall in each of the next 60 minutes and the next 90
// days (UTC). Each series reads the queue's timers in deliverAt order (timers_queue_deliver_at) and
// stops after FORECAST_CAP of them: the buckets wholly before the last one read are exact. The
// buckets from there on are estimated from a block sample of the table (FORECAST_SAMPLE_PAGES
// pages, scaled by the fraction of the table read) and say so. So a queue of five million timers
// costs the same as one of fifty thousand (the bench line `npm run bench -- dashboard` measures it).
import type { Count, Forecast } from '../../contract/dashboard.ts';
import type { Database } from '../../db/index.ts';
import { isoSql } from '../../db/sql.ts';
import { samplePercent } from '../../maintenance/queueGauges.ts';

type Deps = { db: Database };

/** Timers one series reads before it estimates the rest. */
export const FORECAST_CAP = 20_000;
/** Pages the estimate samples (8 kB each). */
export const FORECAST_SAMPLE_PAGES = 1024;

type Unit = 'minute' | 'day';
const SPAN = { minute: 60, day: 90 } as const;

/** SQL: an instant as milliseconds since the epoch (float8), to key buckets in JavaScript. */
const epochMs = (e: string) => `(extract(epoch FROM ${e}) * 1000)::float8`;

/** The series' bounds: from the start of the current unit (UTC), SPAN units. $1 unit. */
const SPAN_SQL = (unit: Unit) =>
  `date_trunc('${unit}', now(), 'UTC') AS first, date_trunc('${unit}', now(), 'UTC') + ${SPAN[unit]} * interval '1 ${unit}' AS last`;

/**
 * counted — for `unit`: $1 tenant, $2 queue, $3 the cap. Locks: none. Rows: one per bucket holding
 * any of the first $3 timers from the span's start (deliverAt order), with their count; each row
 * also carries how many were read in all and the bucket of the last one.
 */
const COUNTED_SQL = (unit: Unit) => `
WITH span AS (SELECT ${SPAN_SQL(unit)}),
read AS (
  SELECT t.deliver_at FROM timers t
   WHERE t.tenant = $1 AND t.queue = $2 AND t.deliver_at >= (SELECT first FROM span) AND t.deliver_at < (SELECT last FROM span)
   ORDER BY t.deliver_at LIMIT $3
)
SELECT ${epochMs(`date_trunc('${unit}', deliver_at, 'UTC')`)} AS bucket, count(*)::float8 AS n,
       (SELECT count(*) FROM read)::float8 AS total,
       (SELECT ${epochMs(`date_trunc('${unit}', max(deliver_at), 'UTC')`)} FROM read) AS last_bucket
  FROM read GROUP BY 1`;

/**
 * sampled — for `unit`: $1 tenant, $2 queue, $3 the first bucket to estimate, $4 the sample's
 * percentage of the table's pages. Locks: none. Rows: per bucket from $3 to the span's end, the
 * timers seen in the sample.
 */
const SAMPLED_SQL = (unit: Unit) => `
WITH span AS (SELECT ${SPAN_SQL(unit)})
SELECT ${epochMs(`date_trunc('${unit}', t.deliver_at, 'UTC')`)} AS bucket, count(*)::float8 AS n
  FROM timers t TABLESAMPLE SYSTEM ($4::float8)
 WHERE t.tenant = $1 AND t.queue = $2 AND t.deliver_at >= to_timestamp($3::float8 / 1000) AND t.deliver_at < (SELECT last FROM span)
 GROUP BY 1`;

/** The buckets of the span, as instants and as epoch ms (to match the rows'). */
const BUCKETS_SQL = (unit: Unit) => `
WITH span AS (SELECT ${SPAN_SQL(unit)})
SELECT ${isoSql('b')} AS start, ${epochMs('b')} AS ms, ${isoSql('now()')} AS at
  FROM generate_series((SELECT first FROM span), (SELECT last FROM span) - interval '1 ${unit}', interval '1 ${unit}') AS b
 ORDER BY b`;

const PAGES_SQL = `SELECT (pg_relation_size('timers') / current_setting('block_size')::int)::float8 AS pages`;

async function series(db: Database, tenant: string, queue: string, unit: Unit) {
  const buckets = (await db.pool.query<{ start: string; ms: number; at: string }>(BUCKETS_SQL(unit))).rows;
  const counted = (
    await db.pool.query<{ bucket: number; n: number; total: number; last_bucket: number | null }>(COUNTED_SQL(unit), [
      tenant,
      queue,
      FORECAST_CAP,
    ])
  ).rows;
  const exact = new Map(counted.map((r) => [r.bucket, r.n]));
  const total = counted[0]?.total ?? 0;
  // Below the cap every bucket was read whole; at it, the bucket of the last timer read and the
  // later ones are estimated.
  let estimatedFrom = Infinity;
  const sampled = new Map<number, number>();
  const lastBucket = counted[0]?.last_bucket ?? null;
  if (total >= FORECAST_CAP && lastBucket !== null) {
    estimatedFrom = lastBucket;
    const pages = (await db.pool.query<{ pages: number }>(PAGES_SQL)).rows[0]!.pages;
    const percent = samplePercent(pages, FORECAST_SAMPLE_PAGES);
    const r = await db.pool.query<{ bucket: number; n: number }>(SAMPLED_SQL(unit), [tenant, queue, lastBucket, percent]);
    for (const row of r.rows) sampled.set(row.bucket, Math.round((row.n * 100) / percent));
  }
  return {
    at: buckets[0]!.at,
    buckets: buckets.map((b) => {
      const n = exact.get(b.ms) ?? 0;
      const count: Count =
        b.ms < estimatedFrom ? { value: n, basis: 'exact' } : { value: Math.max(n, sampled.get(b.ms) ?? 0), basis: 'estimate' };
      return { start: b.start, count };
    }),
  };
}

export async function forecast(deps: Deps, caller: { tenant: string }, queue: string): Promise<Forecast> {
  const byMinute = await series(deps.db, caller.tenant, queue, 'minute');
  const byDay = await series(deps.db, caller.tenant, queue, 'day');
  return { at: byMinute.at, queue, byMinute: byMinute.buckets, byDay: byDay.buckets };
}
