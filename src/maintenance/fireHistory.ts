// Fire-lag history: per tenant, queue and minute, how many timers fired and a histogram of their
// lags, kept a day in fire_lag_minutes (migration 20261208021000_fire_lag_minutes) for the
// dashboard's p50/p99 chart (GET /api/v1/fire-lag) and fired-per-minute figures.
//
// The sweeper adds each fire's lags to this broker's in-memory histograms (record(): a bucket
// search per timer, no I/O, nothing on the fire's transaction); a duty adds them to the table every
// FLUSH_MS, one upsert for everything this broker fired since the last one. With several brokers
// each adds its own counts to the same rows, so the table is the cell's history. A broker that dies
// loses at most FLUSH_MS of counts; a failed flush keeps them for the next one.
//
// Minutes are PostgreSQL's: a count is recorded under this broker's minute and sent with its age,
// and the upsert files it under date_trunc('minute', now() − age). The broker's clock only
// measures the age, so an offset between the clocks moves nothing; the flush's round trip can
// shift a count recorded in a minute's last moments into the next one.
import type { Queryable } from '../db/transaction.ts';
import { FIRE_LAG_BUCKETS_SECONDS } from '../metrics.ts';
import type { DutySpec } from './loop.ts';

// The histogram's buckets: queen_timers_fire_lag_seconds's bounds, and a last one for the rest.
export { FIRE_LAG_BUCKETS_SECONDS };
/** How often a broker adds its counts to the table. */
export const FLUSH_MS = 5_000;
/** How long the table keeps a minute: the chart shows at most the last day. */
export const HISTORY_RETENTION_SECONDS = 24 * 3600;
/** How often old minutes are deleted, and how many rows one run deletes at most. */
export const HISTORY_PRUNE_MS = 10 * 60_000;
export const HISTORY_PRUNE_BATCH = 10_000;
export const HISTORY_PRUNE_BATCHES_PER_RUN = 20;
/** Entries (tenant × queue × minute) held between flushes; past it new ones are dropped and counted. */
export const MAX_PENDING_ENTRIES = 50_000;

const MINUTE_MS = 60_000;

interface Entry {
  tenant: string;
  queue: string;
  /** This broker's clock, start of the minute the counts were recorded in. */
  minuteMs: number;
  fired: number;
  buckets: number[];
}

/** The bucket index of a lag in seconds. */
export function bucketOf(lagSeconds: number): number {
  let i = 0;
  while (i < FIRE_LAG_BUCKETS_SECONDS.length && lagSeconds > FIRE_LAG_BUCKETS_SECONDS[i]!) i++;
  return i;
}

/**
 * flushFireHistory — $1 tenants, $2 queues, $3 ages in ms (parallel), $4 fired counts, $5 bucket
 * counts (each an array literal). Locks: the upserted rows (one per tenant, queue and minute: the
 * entries of one flush never share one, as their ages differ by whole minutes). Rows: 0..n.
 */
const FLUSH_SQL = `
INSERT INTO fire_lag_minutes AS f (tenant, queue, minute, fired, buckets)
SELECT t, q, date_trunc('minute', now() - age * interval '1 millisecond'), n, b::bigint[]
  FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::text[]) AS u(t, q, age, n, b)
ON CONFLICT (tenant, queue, minute) DO UPDATE
   SET fired = f.fired + EXCLUDED.fired,
       buckets = (SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i)
                    FROM unnest(f.buckets, EXCLUDED.buckets) WITH ORDINALITY AS z(x, y, i))`;

/** pruneFireHistory — $1 seconds kept, $2 rows at most. Locks: the deleted rows. Rows: 0..$2. */
const PRUNE_SQL = `
DELETE FROM fire_lag_minutes WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM fire_lag_minutes WHERE minute < now() - $1 * interval '1 second' LIMIT $2))`;

/** This broker's counts since its last flush. */
export class FireHistory {
  private entries = new Map<string, Entry>();
  /** Counts dropped because MAX_PENDING_ENTRIES was reached (the table then undercounts). */
  dropped = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The lags (seconds) of timers of one queue fired just now. */
  record(tenant: string, queue: string, lags: number[]): void {
    if (lags.length === 0) return;
    const minuteMs = Math.floor(this.now() / MINUTE_MS) * MINUTE_MS;
    const key = `${tenant}\u0000${queue}\u0000${minuteMs}`;
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= MAX_PENDING_ENTRIES) {
        this.dropped += lags.length;
        return;
      }
      e = { tenant, queue, minuteMs, fired: 0, buckets: new Array<number>(FIRE_LAG_BUCKETS_SECONDS.length + 1).fill(0) };
      this.entries.set(key, e);
    }
    e.fired += lags.length;
    for (const lag of lags) e.buckets[bucketOf(lag)]!++;
  }

  /** Adds the counts to fire_lag_minutes; on failure they are kept for the next flush. */
  async flush(db: Queryable): Promise<number> {
    if (this.entries.size === 0) return 0;
    const batch = this.entries;
    this.entries = new Map();
    const list = [...batch.values()];
    const now = this.now();
    try {
      await db.query(FLUSH_SQL, [
        list.map((e) => e.tenant),
        list.map((e) => e.queue),
        list.map((e) => now - e.minuteMs),
        list.map((e) => e.fired),
        list.map((e) => `{${e.buckets.join(',')}}`),
      ]);
      return list.length;
    } catch (err) {
      for (const [key, e] of batch) {
        const later = this.entries.get(key);
        if (later) {
          later.fired += e.fired;
          e.buckets.forEach((n, i) => (later.buckets[i]! += n));
        } else this.entries.set(key, e);
      }
      throw err;
    }
  }
}

/** The duty that adds a broker's counts to the table every FLUSH_MS (where a sweeper runs). */
export function fireHistoryFlushDuty(db: Queryable, history: FireHistory): DutySpec<number> {
  return { name: 'fire_history_flush', everyMs: FLUSH_MS, run: () => history.flush(db) };
}

/** The duty that deletes minutes older than HISTORY_RETENTION_SECONDS, HISTORY_PRUNE_BATCH at a time. */
export function fireHistoryPruneDuty(db: Queryable): DutySpec<number> {
  return {
    name: 'fire_history_prune',
    everyMs: HISTORY_PRUNE_MS,
    runAtStart: true,
    run: async () => {
      // A few batches per run, so a cell with many queues keeps up; each statement stays short.
      let total = 0;
      for (let i = 0; i < HISTORY_PRUNE_BATCHES_PER_RUN; i++) {
        const n = (await db.query(PRUNE_SQL, [HISTORY_RETENTION_SECONDS, HISTORY_PRUNE_BATCH])).rowCount ?? 0;
        total += n;
        if (n < HISTORY_PRUNE_BATCH) break;
      }
      return total;
    },
  };
}
