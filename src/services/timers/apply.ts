// Applying a batch (schedule, reschedule, cancel) and the cancel route.
//
// A batch costs a fixed number of statements whatever its size — one set-based upsert per run of
// distinct keys, one DELETE for the cancels of that run, one statement for the rate window and the
// meter — in one transaction of the runner (src/db/transaction.ts), gates first. On PostgreSQL the
// usual batch (one kind of op, nothing a gate must count) reaches the database in three writes:
// the plan read; BEGIN, the partitions and the upsert; the rate window and meter with the COMMIT.
//
// Time is PostgreSQL's: deliverAt = now() + delayMs is computed in SQL (the transaction's now()
// comes back as microseconds, and the broker adds each op's delay and renders the instant as isoSql
// would, by isoFromMicros), and the rate window is PostgreSQL's current second.
import { randomUUID } from 'node:crypto';
import type { CancelResult, TimerOperation, TimerResult, TimerStatus } from '../../contract/timers.ts';
import { isoFromMicros, microsSql, textArray } from '../../db/sql.ts';
import { inTransaction, inTurn, replayOnConflict, runStatement, statementName, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import type { Metrics } from '../../metrics.ts';
import { ensurePartitions } from '../queues.ts';
import type { Caller, TimerDeps } from './deps.ts';
import { admitAndMeter, planVerdict, quotaRefusal, quotaSurelyHolds, rateRefusalBefore, storageRefusal } from '../../plans/gates.ts';
import { chunksInKeyOrder, MAX_ORDERED_CHUNKS, runsOfDistinctKeys } from './lockOrder.ts';
import { claimedSql, notClaimedSql } from '../../sweeper/claimed.ts';
import { keyOf, prepare, seal, type Applied, type CancelOp, type PreparedOp, type ScheduleOp } from './prepare.ts';

/**
 * upsertTimers — $1 tenant, $2 producer_sub, $3..$10 parallel arrays (queue, timer_key, partition,
 * delay_ms, txn, payload base64, zstd, encrypted), $11 the request's traceparent (or null), $12 the
 * frames' message ids (uuid[], parallel too); keys distinct. The ids, and the txn an op leaves out,
 * are minted by the broker as a push's are: PostgreSQL's gen_random_uuid() costs 2–4 µs of the
 * database's CPU a call (OpenSSL's RAND_bytes per call), and two per timer were about a quarter of
 * what the database spent on a scheduled timer (docs/benchmarks.md).
 * Locks: the row of each key, taken in byte order of (queue, timer_key) so concurrent batches do
 * not deadlock on each other's keys. A conflicting row that is claimed is locked but not updated
 * (claimed at the row's now(), EXCLUDED.updated_at: Citus refuses a function in ON CONFLICT … WHERE).
 * Row: one for the batch. A key inserted or updated carries the txn and message id sent for it (an
 * update sets both from EXCLUDED) and its deliver_at is the transaction's now() plus delay_ms, so
 * none of it comes back per row: `now_us` (microsSql), the message ids of the updated rows
 * (rescheduled), and, only when some key was left alone because it is claimed (→ too_late), the
 * message ids of every row written. A row per key was most of what the driver parsed, itself a tenth
 * of the broker's CPU on a batch (docs/benchmarks.md).
 */
const UPSERT_SQL = `
WITH u AS (
INSERT INTO timers AS t (tenant, queue, timer_key, partition, deliver_at, txn, message_id, payload,
                         payload_zstd, encrypted, producer_sub, traceparent, updated_at)
SELECT $1, i.queue, i.timer_key, i.partition, now() + i.delay_ms * interval '1 millisecond',
       i.txn, i.message_id, decode(i.payload, 'base64'), i.zstd, i.encrypted, $2, $11::text, now()
  FROM unnest($3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::bool[], $10::bool[], $12::uuid[])
       AS i(queue, timer_key, partition, delay_ms, txn, payload, zstd, encrypted, message_id)
 ORDER BY i.queue COLLATE "C", i.timer_key COLLATE "C"
ON CONFLICT (tenant, queue, timer_key) DO UPDATE
   SET partition = EXCLUDED.partition, deliver_at = EXCLUDED.deliver_at, txn = EXCLUDED.txn,
       message_id = EXCLUDED.message_id, payload = EXCLUDED.payload, payload_zstd = EXCLUDED.payload_zstd,
       encrypted = EXCLUDED.encrypted, producer_sub = EXCLUDED.producer_sub, traceparent = EXCLUDED.traceparent, attempts = 0,
       last_error = NULL, claim_token = NULL, claim_expires_at = NULL, updated_at = EXCLUDED.updated_at
 WHERE ${notClaimedSql('t', 'EXCLUDED.updated_at')}
RETURNING t.message_id, (t.xmax = 0) AS inserted
)
SELECT ${microsSql('now()')} AS now_us, count(*)::int AS affected,
       array_agg(u.message_id::text) FILTER (WHERE NOT u.inserted) AS updated_ids,
       CASE WHEN count(*) < cardinality($3::text[]) THEN array_agg(u.message_id::text) END AS affected_ids
  FROM u`;

/**
 * cancelTimers — $1 tenant, $2 queues, $3 timer_keys (distinct keys).
 * Locks: each unclaimed row, in key order (victims), then deletes it; a claimed row is left untouched.
 * The DELETE joins on the key, not on the ctid victims returned: after waiting on a concurrent
 * update, FOR UPDATE returns the newest row version, but the DELETE scans under the statement's
 * snapshot and a ctid join to the old version would delete nothing. Joined on the key, the DELETE
 * finds the old version and EvalPlanQual re-checks (and deletes) the newest one.
 * Rows: one per cancelled key.
 */
const CANCEL_SQL = `
WITH victims AS (
  SELECT t.queue, t.timer_key
    FROM timers t JOIN unnest($2::text[], $3::text[]) AS i(queue, timer_key)
      ON t.tenant = $1 AND t.queue = i.queue AND t.timer_key = i.timer_key
   WHERE ${notClaimedSql('t')}
   ORDER BY t.queue, t.timer_key
     FOR UPDATE OF t
)
DELETE FROM timers t USING victims v
 WHERE t.tenant = $1 AND t.queue = v.queue AND t.timer_key = v.timer_key AND ${notClaimedSql('t')}
RETURNING t.queue, t.timer_key, t.txn`;

/**
 * lockKeys — $1 tenant, $2 queues, $3 timer_keys. Locks the existing rows of a run that mixes
 * schedules and cancels, in key order, before either statement runs: the upsert and the delete
 * each lock in key order, but two batches could still cross between the two statements.
 */
const LOCK_KEYS_SQL = `
SELECT 1 FROM timers t JOIN unnest($2::text[], $3::text[]) AS i(queue, timer_key)
    ON t.tenant = $1 AND t.queue = i.queue AND t.timer_key = i.timer_key
 ORDER BY t.queue, t.timer_key
   FOR UPDATE OF t`;

/**
 * timerStates — $1 tenant, $2 queues, $3 timer_keys. No lock. Rows: the existing ones among the
 * keys, with their txn and whether they are claimed (→ too_late) or not (→ apply the op again).
 */
const STATES_SQL = `
SELECT t.queue, t.timer_key, t.txn, coalesce(${claimedSql('t')}, false) AS claimed
  FROM timers t JOIN unnest($2::text[], $3::text[]) AS i(queue, timer_key)
    ON t.tenant = $1 AND t.queue = i.queue AND t.timer_key = i.timer_key`;

/**
 * An op that left a key unchanged is looked at again in a second statement, which may see a newer
 * state: a claim cleared meanwhile (backoff, lease expiry, release) leaves the timer pending and
 * unclaimed, so neither too_late nor absent would be true. The op is then applied again, at most
 * this many times in all; a key that keeps changing hands beyond that answers 503, retry shortly.
 */
const MAX_APPLY_ROUNDS = 8;

const keptChangingHands = () =>
  new ApiError('database_unavailable', 'a timer kept changing hands between a sweeper and this request; retry shortly', { retryAfter: 1 });

// ---------------------------------------------------------------------------------------------
// Applying a run of distinct keys.

/** Who schedules: the producer, and the request's traceparent each timer keeps (docs/tracing.md). */
interface Producer {
  sub: string;
  traceparent: string | null;
}

async function applySchedules(q: Queryable, tenant: string, by: Producer, ops: ScheduleOp[], out: Applied[], round = 1): Promise<void> {
  if (ops.length === 0) return;
  const txns = ops.map((o) => o.txn ?? randomUUID());
  const messageIds = ops.map(() => randomUUID());
  const r = await runStatement<{ now_us: number; affected: number; updated_ids: string[] | null; affected_ids: string[] | null }>(
    q,
    UPSERT_SQL,
    [
      tenant,
      by.sub,
      textArray(ops.map((o) => o.queue)),
      textArray(ops.map((o) => o.timerKey)),
      textArray(ops.map((o) => o.partition)),
      ops.map((o) => o.delayMs),
      textArray(txns),
      textArray(ops.map((o) => o.stored)),
      ops.map((o) => o.zstd),
      ops.map((o) => o.encrypted),
      by.traceparent,
      textArray(messageIds),
    ],
    statementName(q, 'qt_upsert'),
  );
  const { now_us: nowUs, affected, updated_ids: updatedIds, affected_ids: affectedIds } = r.rows[0];
  // Every op's row was written, or some key is claimed and affected_ids lists those that were.
  const written = affected < ops.length ? new Set(affectedIds) : undefined;
  const rescheduled = new Set(updatedIds);
  const states = written
    ? await timerStates(
        q,
        tenant,
        ops.filter((_, i) => !written.has(messageIds[i])),
      )
    : new Map<string, { txn: string; claimed: boolean }>();
  const again: ScheduleOp[] = [];
  for (const [i, op] of ops.entries()) {
    const base = { queue: op.queue, timerKey: op.timerKey };
    if (!written || written.has(messageIds[i])) {
      // deliver_at = now() + delayMs, exact as a double: the horizon (at most 2^31 s) keeps it below 2^53 µs.
      const deliverAtUs = nowUs + op.delayMs * 1000;
      out[op.index] = {
        result: {
          ok: true,
          status: rescheduled.has(messageIds[i]) ? 'rescheduled' : 'scheduled',
          ...base,
          txn: txns[i],
          messageId: messageIds[i],
          deliverAt: isoFromMicros(deliverAtUs),
        },
        deliverAtMs: Math.ceil(deliverAtUs / 1000),
      };
    } else {
      // The upsert left the row alone: it is in a sweeper's hands. Report the txn it will deliver.
      // Not claimed when looked at (released meanwhile, or gone): apply the schedule again.
      const state = states.get(keyOf(op.queue, op.timerKey));
      if (state?.claimed) out[op.index] = { result: { ok: false, status: 'too_late', ...base, txn: state.txn } };
      else again.push(op);
    }
  }
  if (again.length) {
    if (round >= MAX_APPLY_ROUNDS) throw keptChangingHands();
    await applySchedules(q, tenant, by, again, out, round + 1);
  }
}

async function timerStates(
  q: Queryable,
  tenant: string,
  ops: { queue: string; timerKey: string }[],
): Promise<Map<string, { txn: string; claimed: boolean }>> {
  if (ops.length === 0) return new Map();
  const r = await q.query<{ queue: string; timer_key: string; txn: string; claimed: boolean }>(STATES_SQL, [
    tenant,
    ops.map((o) => o.queue),
    ops.map((o) => o.timerKey),
  ]);
  return new Map(r.rows.map((row) => [keyOf(row.queue, row.timer_key), { txn: row.txn, claimed: row.claimed }]));
}

/**
 * Cancels distinct keys: unclaimed → deleted (cancelled); claimed → too_late; no row → absent.
 * A key that is not deleted and has no row when looked at again (fired or cancelled meanwhile) is
 * absent: "no longer pending". One whose row is there and unclaimed by then (its claim was
 * cleared between the two statements) is still pending: the cancel is applied again.
 */
async function applyCancels(q: Queryable, tenant: string, ops: CancelOp[], out: Applied[], round = 1): Promise<void> {
  if (ops.length === 0) return;
  const r = await q.query<{ queue: string; timer_key: string; txn: string }>(CANCEL_SQL, [
    tenant,
    ops.map((o) => o.queue),
    ops.map((o) => o.timerKey),
  ]);
  const deleted = new Map(r.rows.map((row) => [keyOf(row.queue, row.timer_key), row.txn]));
  const states = await timerStates(
    q,
    tenant,
    ops.filter((o) => !deleted.has(keyOf(o.queue, o.timerKey))),
  );
  const again: CancelOp[] = [];
  for (const op of ops) {
    const k = keyOf(op.queue, op.timerKey);
    const base = { queue: op.queue, timerKey: op.timerKey };
    const rowTxn = deleted.get(k);
    const state = states.get(k);
    if (rowTxn !== undefined) out[op.index] = { result: { ok: true, status: 'cancelled', ...base, txn: op.txn ?? rowTxn } };
    else if (!state) out[op.index] = { result: { ok: false, status: 'absent', ...base, txn: op.txn } };
    else if (state.claimed) out[op.index] = { result: { ok: false, status: 'too_late', ...base, txn: op.txn ?? state.txn } };
    else again.push(op);
  }
  if (again.length) {
    if (round >= MAX_APPLY_ROUNDS) throw keptChangingHands();
    await applyCancels(q, tenant, again, out, round + 1);
  }
}

/** Applies the ops, run after run of distinct keys, each in key order (lockOrder.ts). */
async function applyRuns(q: Queryable, tenant: string, by: Producer, ops: PreparedOp[]): Promise<Applied[]> {
  const out: Applied[] = new Array(ops.length);
  for (const run of runsOfDistinctKeys(ops)) {
    const chunks = chunksInKeyOrder(run);
    if (chunks.length <= MAX_ORDERED_CHUNKS) {
      for (const chunk of chunks) {
        if (chunk[0].kind === 'schedule') await applySchedules(q, tenant, by, chunk as ScheduleOp[], out);
        else await applyCancels(q, tenant, chunk as CancelOp[], out);
      }
    } else {
      await q.query(LOCK_KEYS_SQL, [tenant, run.map((o) => o.queue), run.map((o) => o.timerKey)]);
      await applySchedules(
        q,
        tenant,
        by,
        run.filter((o): o is ScheduleOp => o.kind === 'schedule'),
        out,
      );
      await applyCancels(
        q,
        tenant,
        run.filter((o): o is CancelOp => o.kind === 'cancel'),
        out,
      );
    }
  }
  return out;
}

export async function applyBatch(deps: TimerDeps, caller: Caller, operations: TimerOperation[]): Promise<{ results: TimerResult[] }> {
  const { tenant, sub } = caller;
  const ops = prepare(operations);
  const scheduleQueues = [...new Set(ops.filter((o) => o.kind === 'schedule').map((o) => o.queue))];
  // Read before the transaction, in one statement (PGlite runs one transaction at a time, so
  // nothing inside it may wait on another connection).
  const { plan, encrypting } = await deps.tenants.planAndEncrypting(tenant, scheduleQueues);
  if (plan.schedulePaused) {
    throw new ApiError(
      'schedule_paused',
      `scheduling is paused for tenant "${tenant}"; cancels still work through DELETE /api/v1/timers/:queue/*timerKey`,
    );
  }
  const planError = planVerdict(plan, ops);
  // Compression and encryption are CPU work: done before the transaction, so its locks are short.
  // Done even when a plan gate will refuse: the storage gate, which ranks earlier, weighs the
  // bytes as stored.
  const sealError = await seal(deps.cipher, ops, encrypting);

  const applied = await inTransaction(deps.db.pool, async (q) => {
    // Gates in the contract's order: rate, quota, storage, horizon, payload ceiling. The rate is
    // admitted last (its row is the tenant's hot lock), so when a later gate refuses, the rate is
    // read first to report the earlier rung. When none can refuse (the usual batch: quota provably
    // not reached, no storage limit), nothing is awaited before the batch's first statements, so
    // they leave with BEGIN in one write (inTransaction).
    const mayRefuse =
      planError || sealError || plan.storageLimitBytes !== 0 || !quotaSurelyHolds(deps.pendingCounts, tenant, plan, ops.length);
    if (mayRefuse) {
      const refusal =
        (await quotaRefusal(q, deps.pendingCounts, tenant, plan, ops)) ??
        (await storageRefusal(q, tenant, plan, ops)) ??
        planError ??
        sealError;
      if (refusal) throw (await rateRefusalBefore(q, tenant, plan, ops.length)) ?? refusal;
    }
    const schedules = ops.filter((o): o is ScheduleOp => o.kind === 'schedule');
    // Pipelined, the ops' first statement goes out with the partitions' (inTurn).
    const [, out] = await inTurn(q, [
      () =>
        ensurePartitions(
          q,
          tenant,
          schedules.map((o) => ({ queue: o.queue, partition: o.partition })),
        ),
      () => applyRuns(q, tenant, { sub, traceparent: deps.traceparent ?? null }, ops),
    ]);
    const billed = out.filter((a) => a.result.status === 'scheduled' || a.result.status === 'rescheduled').length;
    // Throws the rate refusal (rolling back the ops, the meter and the window increment); goes out with the COMMIT.
    await admitAndMeter(q, tenant, plan, ops.length, billed, { commit: true });
    return out;
  });

  // The earliest instant written wakes the sweepers; its op's delay is how far it is from the
  // transaction's now() (the other brokers hear of it only when that is near: notify.ts).
  let earliest: { atMs: number; inMs: number } | undefined;
  for (const op of ops) {
    const atMs = applied[op.index].deliverAtMs;
    if (op.kind === 'schedule' && atMs !== undefined && (!earliest || atMs < earliest.atMs)) earliest = { atMs, inMs: op.delayMs };
  }
  if (earliest) deps.notifier.timerScheduled(earliest.atMs, earliest.atMs - earliest.inMs);
  countVerdicts(
    deps.metrics,
    applied.map((a) => a.result.status),
  );
  return { results: applied.map((a) => a.result) };
}

function countVerdicts(metrics: Metrics, statuses: TimerStatus[]): void {
  const counts = new Map<TimerStatus, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const [status, n] of counts) metrics.scheduleVerdicts.inc({ status }, n);
}

/**
 * The cancel route: no plan gate, no grant, no block — only the boot flag (applied by the HTTP
 * layer) and knowing the tenant. One DELETE, plus a look-up when nothing was deleted (and the
 * DELETE again if the timer was released meanwhile).
 */
export async function cancelOne(
  deps: Pick<TimerDeps, 'db' | 'metrics'>,
  caller: Pick<Caller, 'tenant'>,
  queue: string,
  timerKey: string,
  txn?: string,
): Promise<CancelResult> {
  const out: Applied[] = [];
  const op: CancelOp = { index: 0, kind: 'cancel', queue, timerKey, txn: txn ?? null };
  await replayOnConflict(() => applyCancels(deps.db.pool, caller.tenant, [op], out));
  const result = out[0].result as CancelResult;
  countVerdicts(deps.metrics, [result.status]);
  return result;
}
