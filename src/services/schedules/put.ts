// PUT /api/v1/schedules/:queue/*scheduleKey — create or replace a schedule.
//
// The gates are the timer batch's, in the contract's order, for the one timer a schedule holds
// at a time, after the plan's own two for schedules (both 403: retrying cannot help, deleting a
// schedule, slowing the cron or raising the plan does): the number of schedules
// (maxSchedules; a replace is not a new one) and the shortest gap between occurrences
// (minScheduleIntervalSeconds, the smallest over the next INTERVAL_WINDOW occurrences). Then:
// schedule paused (403), rate (one op, 429), pending-timer quota (room for its next
// occurrence's timer, 429), storage (its payload as stored, 403), horizon (403 when even the next
// occurrence is beyond the plan's horizon from now: then every occurrence is), payload ceiling
// (403). Nothing is metered here: each occurrence is metered when it is materialized.
//
// A replace is one transaction: the upsert locks the schedule row (waiting for a materializing
// sweeper that holds it), then every timer of the schedule — the old definition's occurrences —
// is deleted, claimed or not: a sweeper's fire is guarded by its claim token and inserts nothing
// for a row that is gone, and a fire already under way holds the row until it commits, so the
// DELETE waits for it. No occurrence of the old definition enters the log after PUT answers.
// (DELETE of a schedule leaves claimed occurrences alone, as a timer cancel does: too_late.)
import { DEFAULT_PARTITION } from '../../contract/common.ts';
import {
  canonicalZone,
  DEFAULT_TIMEZONE,
  occurrenceTimerKey,
  SHOWN_OCCURRENCES,
  type PutScheduleResult,
} from '../../contract/schedules.ts';
import { inTransaction, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { ensurePartitions } from '../queues.ts';
import type { Caller, TimerDeps } from '../timers/deps.ts';
import { admitAndMeter, quotaRefusal, rateRefusalBefore, weighStorage } from '../../plans/gates.ts';
import { scheduleOp, seal } from '../timers/prepare.ts';
import { isoInstant, nextOccurrence, nextOccurrences, shownOccurrences } from './occurrences.ts';
import { MATERIALIZE_LOOKAHEAD_MS, SCHEDULE_TIMERS, TIMER_AT, timerOfSchedule, VIEW_COLUMNS, view, type ViewRow } from './rows.ts';

export interface PutScheduleInput {
  queue: string;
  scheduleKey: string;
  cron: string;
  timezone?: string | undefined;
  payload: string;
  partition?: string | undefined;
}

/**
 * How many of the next occurrences a PUT looks at for the shortest gap: an expression whose
 * occurrences come closer only rarely (a second field listing 0,1 on one day a year) could pass,
 * but every one of them is still metered as one message.
 */
export const INTERVAL_WINDOW = 100;

/**
 * countSchedules — $1 tenant, $2 queue, $3 schedule_key. Locks: the tenant's row (FOR UPDATE), so
 * two PUTs creating the tenant's last allowed schedule at once are weighed one after the other.
 * Rows: 1 — how many schedules the tenant holds, and whether this key is one of them.
 */
const COUNT_SCHEDULES_SQL = `
WITH locked AS (SELECT 1 FROM tenants WHERE tenant = $1 FOR UPDATE)
SELECT (SELECT count(*) FROM schedules WHERE tenant = $1)::integer AS n,
       EXISTS (SELECT 1 FROM schedules WHERE tenant = $1 AND queue = $2 AND schedule_key = $3) AS present,
       (SELECT count(*) FROM locked)::integer AS locked`;

/** pgNow — no parameters, no lock. Rows: 1, the transaction's now() in epoch ms. */
const NOW_SQL = 'SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms';

/**
 * upsertSchedule — $1 tenant, $2 queue, $3 schedule_key, $4 cron, $5 timezone, $6 partition,
 * $7 payload (base64, as stored), $8 zstd, $9 encrypted, $10 producer_sub, $11 first occurrence
 * (epoch ms), $12 lookahead ms, $13 the request's traceparent (each occurrence's timer carries it). A replace gets a new definition and revision + 1 and starts
 * over from the first occurrence after now; its skipped count is kept.
 * Locks: the schedule row (waits for a sweeper materializing it). Rows: 1.
 */
const UPSERT_SQL = `
INSERT INTO schedules AS s (tenant, queue, schedule_key, cron, timezone, partition, payload, payload_zstd, encrypted,
                            producer_sub, definition, next_at, materialize_at, traceparent)
VALUES ($1, $2, $3, $4, $5, $6, decode($7::text, 'base64'), $8, $9, $10, gen_random_uuid(),
        to_timestamp($11::float8 / 1000), to_timestamp(($11::float8 - $12::float8) / 1000), $13::text)
ON CONFLICT (tenant, queue, schedule_key) DO UPDATE
   SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, partition = EXCLUDED.partition, payload = EXCLUDED.payload,
       payload_zstd = EXCLUDED.payload_zstd, encrypted = EXCLUDED.encrypted, producer_sub = EXCLUDED.producer_sub,
       traceparent = EXCLUDED.traceparent, definition = EXCLUDED.definition, revision = s.revision + 1, next_at = EXCLUDED.next_at, last_at = NULL,
       materialize_at = EXCLUDED.materialize_at, updated_at = EXCLUDED.updated_at
RETURNING (s.xmax = 0) AS inserted, ${VIEW_COLUMNS}, (extract(epoch FROM s.materialize_at) * 1000)::float8 AS materialize_ms`;

/**
 * withdrawAll — $1 tenant, $2 queue, $3 schedule_key. Locks: each of the schedule's timers (a fire
 * in flight holds its row until it commits: this waits). Rows: the timers deleted, claimed or not.
 */
const WITHDRAW_ALL_SQL = `
DELETE FROM timers t WHERE ${SCHEDULE_TIMERS}
RETURNING t.timer_key, t.txn, ${TIMER_AT} AS at`;

export async function putSchedule(deps: TimerDeps, caller: Caller, input: PutScheduleInput): Promise<PutScheduleResult> {
  const { tenant, sub } = caller;
  const timezone = canonicalZone(input.timezone ?? DEFAULT_TIMEZONE) ?? DEFAULT_TIMEZONE; // the schema refused unknown zones
  const spec = { cron: input.cron, timezone };
  const partition = input.partition ?? DEFAULT_PARTITION;
  const { plan, encrypting } = await deps.tenants.planAndEncrypting(tenant, [input.queue]);
  if (plan.schedulePaused) {
    throw new ApiError(
      'schedule_paused',
      `scheduling is paused for tenant "${tenant}"; DELETE /api/v1/schedules/:queue/*scheduleKey still stops a schedule`,
    );
  }
  // The one timer the schedule holds at a time, as the timer gates weigh it (its key once known).
  const op = scheduleOp(0, { queue: input.queue, timerKey: '', partition, delayMs: 0 }, input.payload);
  const sealError = await seal(deps.cipher, [op], encrypting);

  const done = await inTransaction(deps.db.pool, async (q) => {
    const nowMs = Number((await q.query<{ now_ms: number }>(NOW_SQL)).rows[0].now_ms);
    const first = nextOccurrence(spec, nowMs);
    if (first === null) {
      throw new ApiError('validation_failed', `cron: "${input.cron}" has no occurrence after now in ${timezone}`, { field: 'cron' });
    }
    op.timerKey = occurrenceTimerKey(input.scheduleKey, first);
    const refusal =
      intervalRefusal(plan.minScheduleIntervalSeconds, spec, nowMs) ??
      (await countRefusal(q, tenant, input, plan.maxSchedules)) ??
      (await quotaRefusal(q, deps.pendingCounts, tenant, plan, [op])) ??
      (await weighStorage(q, tenant, plan.storageLimitBytes, op.storedBytes, 'this schedule')) ??
      horizonRefusal(plan.horizonSeconds, nowMs, first) ??
      payloadRefusal(plan.maxTimerPayloadBytes, op.decodedBytes) ??
      sealError;
    if (refusal) throw (await rateRefusalBefore(q, tenant, plan, 1)) ?? refusal;
    await ensurePartitions(q, tenant, [{ queue: input.queue, partition }]);
    const row = (
      await q.query<ViewRow & { inserted: boolean; materialize_ms: number }>(UPSERT_SQL, [
        tenant,
        input.queue,
        input.scheduleKey,
        input.cron,
        timezone,
        partition,
        op.stored,
        op.zstd,
        op.encrypted,
        sub,
        first,
        MATERIALIZE_LOOKAHEAD_MS,
        deps.traceparent ?? null,
      ])
    ).rows[0];
    const withdrawn = await q.query<{ timer_key: string; txn: string; at: string }>(WITHDRAW_ALL_SQL, [
      tenant,
      input.queue,
      input.scheduleKey,
    ]);
    await admitAndMeter(q, tenant, plan, 1, 0, { commit: true }); // throws the rate refusal, rolling back
    return { row, nowMs, withdrawn: withdrawn.rows.map(timerOfSchedule) };
  });

  // Wake the sweepers for its first materialization (in-process, and other brokers by NOTIFY).
  deps.notifier.timerScheduled(Number(done.row.materialize_ms), done.nowMs);
  return {
    ok: true,
    status: done.row.inserted ? 'created' : 'replaced',
    ...view(done.row),
    nextOccurrences: shownOccurrences(spec, done.nowMs, SHOWN_OCCURRENCES),
    withdrawn: done.withdrawn,
  };
}

/** The cron's occurrences come closer than the plan's minimum interval (over INTERVAL_WINDOW of them). */
function intervalRefusal(minSeconds: number, spec: { cron: string; timezone: string }, nowMs: number): ApiError | undefined {
  const at = nextOccurrences(spec, nowMs, INTERVAL_WINDOW);
  let gap = Infinity;
  for (let i = 1; i < at.length; i++) gap = Math.min(gap, at[i] - at[i - 1]);
  if (gap >= minSeconds * 1000) return undefined;
  return new ApiError(
    'schedule_interval_too_short',
    `cron: "${spec.cron}" fires ${gap / 1000} s apart, more often than the plan's minScheduleIntervalSeconds of ${minSeconds} s; ` +
      'space its occurrences further apart, or ask the operator to lower minScheduleIntervalSeconds',
    { field: 'cron', minScheduleIntervalSeconds: minSeconds },
  );
}

/** A new schedule (not a replace) past the plan's maxSchedules. */
async function countRefusal(q: Queryable, tenant: string, input: PutScheduleInput, maxSchedules: number): Promise<ApiError | undefined> {
  const { n, present } = (await q.query<{ n: number; present: boolean }>(COUNT_SCHEDULES_SQL, [tenant, input.queue, input.scheduleKey]))
    .rows[0];
  if (present || n < maxSchedules) return undefined;
  return new ApiError(
    'schedule_limit_exceeded',
    `scheduleKey: the tenant holds ${n} schedules, the plan's maxSchedules; ` +
      'DELETE /api/v1/schedules/:queue/*scheduleKey one it no longer needs, or ask the operator to raise maxSchedules',
    { field: 'scheduleKey', maxSchedules },
  );
}

/** Every occurrence is beyond the horizon when the next one is: later ones are later still. */
function horizonRefusal(horizonSeconds: number, nowMs: number, first: number): ApiError | undefined {
  if (first - nowMs <= horizonSeconds * 1000) return undefined;
  return new ApiError(
    'horizon_exceeded',
    `cron: the next occurrence (${isoInstant(first)}) is beyond the plan's horizon of ${horizonSeconds} s from now, and so is every later one`,
    { field: 'cron', horizonSeconds },
  );
}

function payloadRefusal(maxPayloadBytes: number, bytes: number): ApiError | undefined {
  if (bytes <= maxPayloadBytes) return undefined;
  return new ApiError('payload_too_large_for_plan', `payload: ${bytes} bytes exceeds the plan's ceiling of ${maxPayloadBytes} bytes`, {
    field: 'payload',
    maxPayloadBytes,
  });
}
