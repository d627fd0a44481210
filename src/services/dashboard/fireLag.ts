// The fire-lag chart: per minute over the last `minutes`, the timers fired and the p50/p99 of their
// lag, from the histograms every sweeping broker adds to fire_lag_minutes
// (src/maintenance/fireHistory.ts). A quantile is the upper bound of the bucket that holds it.
import type { FireLag } from '../../contract/dashboard.ts';
import type { Database } from '../../db/index.ts';
import { isoSql } from '../../db/sql.ts';
import { FIRE_LAG_BUCKETS_SECONDS } from '../../maintenance/fireHistory.ts';

type Deps = { db: Database };

/**
 * fireLag — $1 tenant, $2 queue|null (every queue), $3 minutes. Locks: none. Rows: $3, one per
 * minute oldest first, with the bucket counts summed over the queues and brokers (empty: none
 * fired). Reads fire_lag_minutes by (tenant, queue, minute) or (tenant, minute).
 */
const FIRE_LAG_SQL = `
WITH span AS (SELECT date_trunc('minute', now()) - ($3::int - 1) * interval '1 minute' AS first, date_trunc('minute', now()) AS last),
f AS (
  SELECT f.minute, u.i, sum(u.n)::float8 AS n
    FROM fire_lag_minutes f CROSS JOIN LATERAL unnest(f.buckets) WITH ORDINALITY AS u(n, i)
   WHERE f.tenant = $1 AND ($2::text IS NULL OR f.queue = $2::text) AND f.minute >= (SELECT first FROM span)
   GROUP BY f.minute, u.i
)
SELECT ${isoSql('m.minute')} AS minute,
       coalesce((SELECT array_agg(f.n ORDER BY f.i) FROM f WHERE f.minute = m.minute), '{}') AS buckets,
       ${isoSql('now()')} AS at
  FROM generate_series((SELECT first FROM span), (SELECT last FROM span), interval '1 minute') AS m(minute)
 ORDER BY m.minute`;

const BOUNDS_MS = FIRE_LAG_BUCKETS_SECONDS.map((s) => Math.round(s * 1e6) / 1e3);

/** The upper bound (ms) of the bucket holding quantile q; the last bound for the slower bucket. */
export function quantileMs(buckets: number[], q: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= rank) return BOUNDS_MS[Math.min(i, BOUNDS_MS.length - 1)]!;
  }
  return BOUNDS_MS[BOUNDS_MS.length - 1]!;
}

export async function fireLag(deps: Deps, caller: { tenant: string }, queue: string | undefined, minutes: number): Promise<FireLag> {
  const r = await deps.db.pool.query<{ minute: string; buckets: number[]; at: string }>(FIRE_LAG_SQL, [
    caller.tenant,
    queue ?? null,
    minutes,
  ]);
  return {
    at: r.rows[0]!.at,
    queue: queue ?? null,
    bucketBoundsMs: BOUNDS_MS,
    series: r.rows.map((row) => {
      const b = row.buckets.map(Number);
      return {
        minute: row.minute,
        fired: b.reduce((a, n) => a + n, 0),
        p50Ms: quantileMs(b, 0.5),
        p99Ms: quantileMs(b, 0.99),
        slowerThanLastBound: b[BOUNDS_MS.length] ?? 0,
      };
    }),
  };
}
