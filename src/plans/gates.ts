// The plan gates every produce path weighs, in the contract's order: rate, pending-timer quota
// (counted cheaply: pendingCounts.ts), storage (schedules and pushes alike), horizon, payload
// ceiling. The rate window and the usage meter (meter.ts) are written by one statement, the last
// of a batch.
import type { EffectivePlan } from '../contract/admin.ts';
import { commitWith, runStatement, statementName, type Queryable } from '../db/transaction.ts';
import { ApiError, sqlState } from '../errors.ts';
import { keyOf, type PreparedOp, type ScheduleOp } from '../services/timers/prepare.ts';
import { meterMessages } from './meter.ts';
import type { PendingCounts } from './pendingCounts.ts';

/** Retry-After of a full pending-timer quota: it frees only as timers fire, so not every second. */
export const QUOTA_RETRY_AFTER_SECONDS = 30;

/** The SQLSTATE queen_timers_refuse() raises (prisma/migrations/20261209300000_refuse_function). */
const REFUSED_SQLSTATE = 'QT429';

/** Horizon and payload ceiling: the gates that need no database, in the contract's order. */
export function planVerdict(plan: EffectivePlan, ops: PreparedOp[]): ApiError | undefined {
  const horizonMs = plan.horizonSeconds * 1000;
  for (const op of ops) {
    if (op.kind === 'schedule' && op.delayMs > horizonMs) {
      return new ApiError(
        'horizon_exceeded',
        `operations.${op.index}.delayMs: ${op.delayMs} ms is beyond the plan's horizon of ${plan.horizonSeconds} s`,
        { field: `operations.${op.index}.delayMs`, horizonSeconds: plan.horizonSeconds },
      );
    }
  }
  for (const op of ops) {
    if (op.kind === 'schedule' && op.decodedBytes > plan.maxTimerPayloadBytes) {
      return new ApiError(
        'payload_too_large_for_plan',
        `operations.${op.index}.payload: ${op.decodedBytes} bytes exceeds a timer's ceiling of ${plan.maxTimerPayloadBytes} bytes (min(1 MiB, the plan's max payload))`,
        { field: `operations.${op.index}.payload`, maxPayloadBytes: plan.maxTimerPayloadBytes },
      );
    }
  }
  return undefined;
}

/**
 * admitAndMeter — $1 tenant, $2 ops in the batch, $3 billed messages, $4 the plan's rate. Last
 * statement of a batch, so the tenant's two hot rows (rate window, meter) are locked only from here
 * to commit. The window is PostgreSQL's current second; a transaction whose second is older than
 * the stored window counts into the stored one. When the window's ops pass the rate, the statement
 * raises QT429 (queen_timers_refuse), so it can go out with the COMMIT, which PostgreSQL then turns
 * into a rollback. Rows: one, the window's ops including this batch's.
 */
const ADMIT_AND_METER_SQL = `
WITH w AS (
  INSERT INTO schedule_rate_windows AS w (tenant, window_start, ops)
  VALUES ($1, date_trunc('second', clock_timestamp()), $2)
  ON CONFLICT (tenant) DO UPDATE
     SET ops = CASE WHEN EXCLUDED.window_start > w.window_start THEN EXCLUDED.ops ELSE w.ops + EXCLUDED.ops END,
         window_start = greatest(w.window_start, EXCLUDED.window_start)
  RETURNING ops
), m AS (${meterMessages('SELECT $1::text, $3::bigint')}
)
SELECT CASE WHEN ops > $4 THEN queen_timers_refuse('rate_limited') ELSE ops END AS ops FROM w`;

/** rateWindowOps — $1 tenant. No lock. The ops already admitted in the current second. */
const RATE_WINDOW_SQL = `
SELECT coalesce((SELECT ops FROM schedule_rate_windows
                  WHERE tenant = $1 AND window_start >= date_trunc('second', clock_timestamp())), 0) AS ops`;

/**
 * pendingCount — $1 tenant, $2 cap (quota + 1). No lock. Rows: one — the tenant's pending rows, at
 * most the cap: O(that many), which is why a count is shared and skipped when it can be
 * (pendingCounts.ts).
 */
const PENDING_SQL = `SELECT count(*)::int AS pending FROM (SELECT 1 FROM timers WHERE tenant = $1 LIMIT $2) s`;

/**
 * existingKeys — $1 tenant, $2/$3 the batch's schedule keys (queue, timer_key; distinct). No lock.
 * Rows: one — how many of them are pending already. One probe of the primary key per key (the
 * LATERAL with LIMIT keeps it one): joined as a set, the planner hashed every pending row of the
 * tenant when the table's statistics were older than its rows, spilling to disk, for each batch
 * that counted (docs/benchmarks.md).
 */
const EXISTING_SQL = `
SELECT count(*)::int AS existing
  FROM unnest($2::text[], $3::text[]) AS i(queue, timer_key)
 CROSS JOIN LATERAL (SELECT 1 FROM timers t WHERE t.tenant = $1 AND t.queue = i.queue AND t.timer_key = i.timer_key LIMIT 1) t`;

/**
 * storageUsed — $1 tenant. Locks: the tenant's storage lock (a transaction advisory lock), so
 * concurrent batches of a tenant with a limit are weighed one after the other, each seeing what
 * the ones before it committed: the limit is exact for schedules. O(the tenant's rows), so only
 * run when a limit is set. Rows: one — bytes of pending timer payloads plus log frames.
 */
const STORAGE_SQL = `
SELECT pg_advisory_xact_lock(hashtextextended('queen-timers storage ' || $1, 0))`;
const STORAGE_USED_SQL = `
SELECT ((SELECT coalesce(sum(octet_length(payload)), 0) FROM timers WHERE tenant = $1)
      + (SELECT coalesce(sum(octet_length(payload)), 0) FROM messages WHERE tenant = $1))::float8 AS used`;

function rateRefusal(plan: EffectivePlan, admitted: number, batch: number): ApiError | undefined {
  if (batch > plan.scheduleRatePerSecond) {
    // No retry can admit it (403: retrying will not help); only splitting can.
    return new ApiError(
      'batch_exceeds_rate',
      `a batch of ${batch} ops exceeds the plan's rate of ${plan.scheduleRatePerSecond} ops/s and can never be admitted; split it into batches of at most ${plan.scheduleRatePerSecond} ops`,
      { scheduleRatePerSecond: plan.scheduleRatePerSecond },
    );
  }
  if (admitted > plan.scheduleRatePerSecond) {
    return new ApiError('rate_limited', `over the plan's rate of ${plan.scheduleRatePerSecond} ops/s; retry after the current second`, {
      retryAfter: 1,
      scheduleRatePerSecond: plan.scheduleRatePerSecond,
    });
  }
  return undefined;
}

/**
 * The rate gate when a later gate refuses: the rate is read (not admitted) to report the earlier
 * rung first, as the contract orders them.
 */
export async function rateRefusalBefore(q: Queryable, tenant: string, plan: EffectivePlan, batch: number): Promise<ApiError | undefined> {
  const admitted = (await q.query<{ ops: number }>(RATE_WINDOW_SQL, [tenant])).rows[0].ops;
  return rateRefusal(plan, Number(admitted) + batch, batch);
}

/**
 * Admits the batch into the rate window and meters its billed ops, in one statement, the last of
 * the batch's transaction; throws the rate refusal when the window overflowed (which rolls back the
 * ops, the meter and the window increment). With `commit`, the statement goes out with the
 * transaction's COMMIT (commitWith): nothing may run on `q` afterwards.
 */
export async function admitAndMeter(
  q: Queryable,
  tenant: string,
  plan: EffectivePlan,
  batch: number,
  billed: number,
  opts: { commit?: boolean } = {},
): Promise<void> {
  const params = [tenant, batch, billed, plan.scheduleRatePerSecond];
  try {
    const name = statementName(q, 'qt_admit');
    await (opts.commit ? commitWith(q, ADMIT_AND_METER_SQL, params, name) : runStatement(q, ADMIT_AND_METER_SQL, params, name));
  } catch (err) {
    // Over the rate: the window held more than the plan's rate with this batch in it.
    if (sqlState(err) === REFUSED_SQLSTATE) throw rateRefusal(plan, plan.scheduleRatePerSecond + 1, batch)!;
    throw err;
  }
}

/**
 * Whether `newRows` more pending timers provably keep the tenant within its quota, from its last
 * exact count and the rate bound since (pendingCounts.ts): then no count is needed.
 */
export function quotaSurelyHolds(counts: PendingCounts, tenant: string, plan: EffectivePlan, newRows: number): boolean {
  const known = counts.get(tenant);
  if (!known) return false;
  const createdSince = plan.scheduleRatePerSecond * ((Date.now() - known.atMs) / 1000 + 1);
  return known.count + createdSince + newRows <= plan.maxPendingTimers;
}

export async function quotaRefusal(
  q: Queryable,
  counts: PendingCounts,
  tenant: string,
  plan: EffectivePlan,
  ops: PreparedOp[],
): Promise<ApiError | undefined> {
  const quota = plan.maxPendingTimers;
  const newKeys = new Map<string, ScheduleOp>();
  for (const op of ops) if (op.kind === 'schedule') newKeys.set(keyOf(op.queue, op.timerKey), op);
  if (quotaSurelyHolds(counts, tenant, plan, newKeys.size)) return undefined;
  const pending = await counts.count(tenant, quota + 1, async () => {
    const r = await q.query<{ pending: number }>(PENDING_SQL, [tenant, quota + 1]);
    return r.rows[0].pending;
  });
  if (pending + newKeys.size <= quota) return undefined;
  // Near the quota: a key already pending is a reschedule, which creates no row.
  const keys = [...newKeys.values()];
  const r = await q.query<{ existing: number }>(EXISTING_SQL, [tenant, keys.map((k) => k.queue), keys.map((k) => k.timerKey)]);
  const wouldCreate = newKeys.size - r.rows[0].existing;
  if (pending + wouldCreate > quota) {
    return new ApiError(
      'pending_quota_exceeded',
      `the tenant has ${pending >= quota + 1 ? `more than ${quota}` : pending} pending timers; this batch could add ${wouldCreate}, over the plan's quota of ${quota}. It frees as timers fire or are cancelled`,
      { retryAfter: QUOTA_RETRY_AFTER_SECONDS, maxPendingTimers: quota },
    );
  }
  return undefined;
}

export async function storageRefusal(q: Queryable, tenant: string, plan: EffectivePlan, ops: PreparedOp[]): Promise<ApiError | undefined> {
  const incoming = ops.reduce((n, op) => n + (op.kind === 'schedule' ? op.storedBytes : 0), 0);
  return weighStorage(q, tenant, plan.storageLimitBytes, incoming, 'this batch');
}

/**
 * The storage gate, for schedules and pushes alike: 403 storage_limit_exceeded when the tenant's
 * stored bytes plus `incoming` would pass `limit` (0: no limit, nothing read). Weighed under the
 * tenant's storage lock, so concurrent writers are weighed one after the other.
 */
export async function weighStorage(
  q: Queryable,
  tenant: string,
  limit: number,
  incoming: number,
  what: string,
): Promise<ApiError | undefined> {
  if (limit === 0) return undefined;
  await q.query(STORAGE_SQL, [tenant]);
  // A statement of its own: its snapshot is taken after the lock, so it sees the writes before.
  const used = Number((await q.query<{ used: number }>(STORAGE_USED_SQL, [tenant])).rows[0].used);
  if (used + incoming > limit) {
    return new ApiError(
      'storage_limit_exceeded',
      `the tenant stores ${used} bytes; ${what} adds ${incoming}, over the plan's storage limit of ${limit} bytes`,
      { storageLimitBytes: limit },
    );
  }
  return undefined;
}
