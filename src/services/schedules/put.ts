// PUT /api/v1/schedules/:queue/*scheduleKey — create or replace a schedule.
//
// The gates are the timer batch's, in the contract's order, for the one timer a schedule holds
// at a time: schedule paused (403), rate (one op, 429), pending-timer quota (room for its next
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
import { inTransaction } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { encryptingQueues, ensurePartitions } from '../queues.ts';
import type { Caller, TimerDeps } from '../timers/deps.ts';
import { admitAndMeter, quotaRefusal, rateRefusalBefore, weighStorage } from '../../plans/gates.ts';
import { scheduleOp, seal } from '../timers/prepare.ts';
import { isoInstant, localTime, nextOccurrence, nextOccurrences } from './occurrences.ts';
import { MATERIALIZE_LOOKAHEAD_MS, SCHEDULE_TIMERS, TIMER_AT, timerOfSchedule, VIEW_COLUMNS, view, type ViewRow } from './rows.ts';

export interface PutScheduleInput {
  queue: string;
  scheduleKey: string;
  cron: string;
  timezone?: string | undefined;
  payload: string;
  partition?: string | undefined;
}

/** pgNow — no parameters, no lock. Rows: 1, the transaction's now() in epoch ms. */
const NOW_SQL = 'SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms';

/**
 * upsertSchedule — $1 tenant, $2 queue, $3 schedule_key, $4 cron, $5 timezone, $6 partition,
 * $7 payload (base64, as stored), $8 zstd, $9 encrypted, $10 producer_sub, $11 first occurrence
 * (epoch ms), $12 lookahead ms. A replace gets a new definition and revision + 1 and starts
 * over from the first occurrence after now; its skipped count is kept.
 * Locks: the schedule row (waits for a sweeper materializing it). Rows: 1.
 */
const UPSERT_SQL = `
INSERT INTO schedules AS s (tenant, queue, schedule_key, cron, timezone, partition, payload, payload_zstd, encrypted,
                            producer_sub, definition, next_at, materialize_at)
VALUES ($1, $2, $3, $4, $5, $6, decode($7::text, 'base64'), $8, $9, $10, gen_random_uuid(),
        to_timestamp($11::float8 / 1000), to_timestamp(($11::float8 - $12::float8) / 1000))
ON CONFLICT (tenant, queue, schedule_key) DO UPDATE
   SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, partition = EXCLUDED.partition, payload = EXCLUDED.payload,
       payload_zstd = EXCLUDED.payload_zstd, encrypted = EXCLUDED.encrypted, producer_sub = EXCLUDED.producer_sub,
       definition = EXCLUDED.definition, revision = s.revision + 1, next_at = EXCLUDED.next_at, last_at = NULL,
       materialize_at = EXCLUDED.materialize_at, updated_at = now()
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
  const [plan, encrypting] = await Promise.all([deps.tenants.plan(tenant), encryptingQueues(deps.db.pool, tenant, [input.queue])]);
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
      (await quotaRefusal(q, deps.pendingCounts, tenant, plan, [op])) ??
      (await weighStorage(q, tenant, plan.storageLimitBytes, op.storedBytes, 'this schedule')) ??
      horizonRefusal(plan.horizonSeconds, nowMs, first) ??
      payloadRefusal(plan.maxPayloadBytes, op.decodedBytes) ??
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
      ])
    ).rows[0];
    const withdrawn = await q.query<{ timer_key: string; txn: string; at: string }>(WITHDRAW_ALL_SQL, [
      tenant,
      input.queue,
      input.scheduleKey,
    ]);
    const rate = await admitAndMeter(q, tenant, plan, 1, 0);
    if (rate) throw rate;
    return { row, nowMs, withdrawn: withdrawn.rows.map(timerOfSchedule) };
  });

  // Wake the sweepers for its first materialization (in-process, and other brokers by NOTIFY).
  deps.notifier.timerScheduled(Number(done.row.materialize_ms));
  return {
    ok: true,
    status: done.row.inserted ? 'created' : 'replaced',
    ...view(done.row),
    nextOccurrences: nextOccurrences(spec, done.nowMs, SHOWN_OCCURRENCES).map((at) => ({
      at: isoInstant(at),
      local: localTime(timezone, at),
    })),
    withdrawn: done.withdrawn,
  };
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
