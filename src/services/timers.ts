// Timer operations behind src/routers/timers.ts: the batch (schedule, reschedule, cancel) with its
// plan gates, the cancel route, peek, list and the usage meter. The contract is
// shared/seeds/timer-routes.txt; DESIGN.md "Timer routes" and "Plan limits".
//
// Transactions: a batch costs a fixed number of statements whatever its size — one set-based
// upsert per run of distinct keys, one DELETE for the cancels of that run, one statement for the
// rate window and the meter. It runs on a pg client from the pool (inTransaction), not in a
// Prisma interactive transaction as DESIGN.md's default says, because the throughput target needs
// it. Measured on this 2-core machine, broker and load generator in separate processes, 8
// connections posting 256-op schedule batches to PostgreSQL 15 on the same machine, this exact
// code with only the transaction runner swapped: Prisma $transaction + $queryRawUnsafe
// 14.6k–16.2k ops/s, pg client 21.4k–22.1k ops/s (Prisma's query pipeline was ~15% of the broker's
// CPU in a profile). The statements are raw SQL either way, so nothing Prisma would check is lost.
// Single statements (cancel route, peek, list, usage) use the same pool for the same reason.
//
// Time is PostgreSQL's: deliverAt = now() + delayMs is computed in SQL, instants are rendered by
// isoSql, and the rate window is PostgreSQL's current second.
import { ApiError, isTransientDbError, sqlState, SQLSTATE } from '../errors.ts';
import { maybeCompress } from '../payload.ts';
import type { TimerOperation, TimerResult, TimerStatus } from '../routers/timers.ts';
import { isoSql } from '../routers/common.ts';
import type { AuthedContext } from '../trpc.ts';
import { DEFAULT_PARTITION, ensurePartitions } from './queues.ts';
import { inTransaction, type Queryable } from './sql.ts';
import type { EffectivePlan } from './tenants.ts';


/** Retry-After of a full pending-timer quota: it frees only as timers fire, so not every second. */
export const QUOTA_RETRY_AFTER_SECONDS = 30;
/** Retry-After when a queue encrypts at rest and this broker has no key: an operator must act. */
export const ENCRYPTION_RETRY_AFTER_SECONDS = 60;
/**
 * A batch transaction that deadlocks or fails serialization (two batches locking the same keys in
 * different orders) is replayed whole; nothing of a failed attempt was committed.
 */
const TRANSIENT_RETRIES = 8;

const CLAIMED = 'claim_expires_at IS NOT NULL AND claim_expires_at > now()';
const NOT_CLAIMED = '(t.claim_expires_at IS NULL OR t.claim_expires_at <= now())';

// ---------------------------------------------------------------------------------------------
// Pending-timer quota, counted cheaply.
//
// Counting a tenant's rows costs O(pending) (the default quota is 1,000,000 rows), so a batch
// skips the count when it provably cannot exceed the quota: the schedule rate limit is enforced
// across all brokers, so since an exact count taken at instant T no more than
// rate × (seconds since T + 1) rows can have been created by anyone. While
// count + that bound + the batch's possible new rows ≤ quota, no count is needed. With the default
// plan (1 M rows, 100 k ops/s) an idle tenant is counted at most every ~9 s; a tenant close to its
// quota is counted on every batch (LIMIT quota + 1, so never more than the quota's rows).
// The bound is per broker (a Map keyed by its Database) and never needs invalidation: it only
// ever overestimates, since fires and cancels shrink the real count.
// Concurrency: the count is not serialized with other batches, so batches in flight at the same
// instant can together overshoot the quota by at most their own new rows (≤ 256 each).
const pendingCounts = new WeakMap<object, Map<string, { count: number; atMs: number }>>();
const PENDING_CACHE_MAX_TENANTS = 10_000;

// ---------------------------------------------------------------------------------------------

interface ScheduleOp {
  index: number;
  kind: 'schedule';
  queue: string;
  timerKey: string;
  partition: string;
  delayMs: number;
  txn: string | null;
  /** The decoded payload's size, checked against the plan's ceiling. */
  decodedBytes: number;
  /** The bytes as stored (compressed and/or encrypted), base64; filled by seal(). */
  stored: string;
  storedBytes: number;
  zstd: boolean;
  encrypted: boolean;
  plain: Buffer;
}

interface CancelOp {
  index: number;
  kind: 'cancel';
  queue: string;
  timerKey: string;
  txn: string | null;
}

type PreparedOp = ScheduleOp | CancelOp;

interface Applied {
  result: TimerResult;
  deliverAtMs?: number;
}

const keyOf = (queue: string, timerKey: string) => `${queue}\u0000${timerKey}`;

function prepare(ops: TimerOperation[]): PreparedOp[] {
  return ops.map((op, index): PreparedOp => {
    if (op.op === 'cancel') return { index, kind: 'cancel', queue: op.queue, timerKey: op.timerKey, txn: op.txn ?? null };
    const plain = Buffer.from(op.payload, 'base64');
    return {
      index,
      kind: 'schedule',
      queue: op.queue,
      timerKey: op.timerKey,
      partition: op.partition ?? DEFAULT_PARTITION,
      delayMs: op.delayMs,
      txn: op.txn ?? null,
      decodedBytes: plain.length,
      stored: '',
      storedBytes: 0,
      zstd: false,
      encrypted: false,
      plain,
    };
  });
}

/** Horizon and payload ceiling: the gates that need no database, in the contract's order. */
function planVerdict(plan: EffectivePlan, ops: PreparedOp[]): ApiError | undefined {
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
    if (op.kind === 'schedule' && op.decodedBytes > plan.maxPayloadBytes) {
      return new ApiError(
        'payload_too_large_for_plan',
        `operations.${op.index}.payload: ${op.decodedBytes} bytes exceeds the plan's ceiling of ${plan.maxPayloadBytes} bytes`,
        { field: `operations.${op.index}.payload`, maxPayloadBytes: plan.maxPayloadBytes },
      );
    }
  }
  return undefined;
}

/** Which of the batch's queues encrypt at rest (queues that do not exist yet do not). */
async function encryptingQueues(db: Queryable, tenant: string, queues: string[]): Promise<Set<string>> {
  if (queues.length === 0) return new Set();
  const r = await db.query<{ name: string }>(
    'SELECT name FROM queues WHERE tenant = $1 AND name = ANY($2::text[]) AND encryption_enabled',
    [tenant, queues],
  );
  return new Set(r.rows.map((row) => row.name));
}

/**
 * Compress, then encrypt (ciphertext does not compress). Returns an error instead of sealing when
 * a queue encrypts at rest and no key is configured: storing cleartext would break the promise
 * that an encrypting queue never holds its payloads in the clear.
 */
async function seal(ctx: AuthedContext, ops: PreparedOp[], encrypting: Set<string>): Promise<ApiError | undefined> {
  for (const op of ops) {
    if (op.kind !== 'schedule') continue;
    const encrypt = encrypting.has(op.queue);
    if (encrypt && !ctx.cipher) {
      return new ApiError(
        'encryption_unavailable',
        `queue "${op.queue}" encrypts at rest but this broker has no QUEEN_ENCRYPTION_KEY; an operator must configure it`,
        { field: `operations.${op.index}.queue`, retryAfter: ENCRYPTION_RETRY_AFTER_SECONDS },
      );
    }
    const packed = await maybeCompress(op.plain);
    const bytes = encrypt ? ctx.cipher!.encrypt(packed.bytes) : packed.bytes;
    op.zstd = packed.zstd;
    op.encrypted = encrypt;
    op.stored = bytes.toString('base64');
    op.storedBytes = bytes.length;
  }
  return undefined;
}

/**
 * Splits the batch into runs in which no (queue, timerKey) repeats. Ops on distinct keys commute,
 * so each run is applied set-based (one upsert, one delete); a key touched twice starts a new run,
 * which keeps "schedule then cancel the same key" answering scheduled, then cancelled.
 */
function runsOfDistinctKeys(ops: PreparedOp[]): PreparedOp[][] {
  const runs: PreparedOp[][] = [];
  let current: PreparedOp[] = [];
  let seen = new Set<string>();
  for (const op of ops) {
    const k = keyOf(op.queue, op.timerKey);
    if (seen.has(k)) {
      runs.push(current);
      current = [];
      seen = new Set();
    }
    seen.add(k);
    current.push(op);
  }
  if (current.length) runs.push(current);
  return runs;
}

/**
 * Row locks are taken in one global order — (queue, timerKey) in byte order, as every statement
 * here sorts — so that concurrent batches never wait on each other in a cycle. A run mixing
 * schedules and cancels is applied as chunks of consecutive same-kind ops in that order (ops on
 * distinct keys commute). Measured on PostgreSQL 15, 8 connections mixing schedules and cancels
 * on 4 keys: two passes (all upserts, then all deletes) deadlocked on ~25% of batches, each
 * costing deadlock_timeout (1 s) before the replay; in key order none did.
 * A run alternating kinds more often than this is applied as "lock existing keys in order, then
 * one upsert, one delete": fewer statements, and a replay covers the rare cycle through new keys.
 */
const MAX_ORDERED_CHUNKS = 8;

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function chunksInKeyOrder(run: PreparedOp[]): PreparedOp[][] {
  const sorted = [...run].sort((a, b) => byteOrder(a.queue, b.queue) || byteOrder(a.timerKey, b.timerKey));
  const chunks: PreparedOp[][] = [];
  for (const op of sorted) {
    const last = chunks[chunks.length - 1];
    if (last && last[0].kind === op.kind) last.push(op);
    else chunks.push([op]);
  }
  return chunks;
}

// ---------------------------------------------------------------------------------------------
// SQL, one operation per function. Each names its parameters, the locks it takes and its rows.

/**
 * upsertTimers — $1 tenant, $2 producer_sub, $3..$10 parallel arrays (queue, timer_key, partition,
 * delay_ms, txn|null, payload base64, zstd, encrypted); keys distinct.
 * Locks: the row of each key, taken in byte order of (queue, timer_key) so concurrent batches do
 * not deadlock on each other's keys. A conflicting row that is claimed is locked but not updated.
 * Rows: one per key inserted or updated; a claimed key returns nothing (→ too_late).
 */
const UPSERT_SQL = `
INSERT INTO timers AS t (tenant, queue, timer_key, partition, deliver_at, txn, message_id, payload,
                         payload_zstd, encrypted, producer_sub)
SELECT $1, i.queue, i.timer_key, i.partition, now() + i.delay_ms * interval '1 millisecond',
       coalesce(i.txn, gen_random_uuid()::text), gen_random_uuid(), decode(i.payload, 'base64'),
       i.zstd, i.encrypted, $2
  FROM unnest($3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::bool[], $10::bool[])
       AS i(queue, timer_key, partition, delay_ms, txn, payload, zstd, encrypted)
 ORDER BY i.queue COLLATE "C", i.timer_key COLLATE "C"
ON CONFLICT (tenant, queue, timer_key) DO UPDATE
   SET partition = EXCLUDED.partition, deliver_at = EXCLUDED.deliver_at, txn = EXCLUDED.txn,
       message_id = EXCLUDED.message_id, payload = EXCLUDED.payload, payload_zstd = EXCLUDED.payload_zstd,
       encrypted = EXCLUDED.encrypted, producer_sub = EXCLUDED.producer_sub, attempts = 0,
       last_error = NULL, claim_token = NULL, claim_expires_at = NULL, updated_at = now()
 WHERE ${NOT_CLAIMED}
RETURNING t.queue, t.timer_key, (t.xmax = 0) AS inserted, t.txn, t.message_id::text AS message_id,
          ${isoSql('t.deliver_at')} AS deliver_at,
          ceil(extract(epoch FROM t.deliver_at) * 1000)::float8 AS deliver_at_ms`;

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
   WHERE ${NOT_CLAIMED}
   ORDER BY t.queue, t.timer_key
     FOR UPDATE OF t
)
DELETE FROM timers t USING victims v
 WHERE t.tenant = $1 AND t.queue = v.queue AND t.timer_key = v.timer_key AND ${NOT_CLAIMED}
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
SELECT t.queue, t.timer_key, t.txn, coalesce(${CLAIMED.replaceAll('claim_expires_at', 't.claim_expires_at')}, false) AS claimed
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

/**
 * admitAndMeter — $1 tenant, $2 ops in the batch, $3 billed messages. Last statement of a batch,
 * so the tenant's two hot rows (rate window, meter) are locked only from here to commit.
 * The window is PostgreSQL's current second; a transaction whose second is older than the stored
 * window counts into the stored one. Rows: one, the window's ops including this batch's.
 */
const ADMIT_AND_METER_SQL = `
WITH w AS (
  INSERT INTO schedule_rate_windows AS w (tenant, window_start, ops)
  VALUES ($1, date_trunc('second', clock_timestamp()), $2)
  ON CONFLICT (tenant) DO UPDATE
     SET ops = CASE WHEN EXCLUDED.window_start > w.window_start THEN EXCLUDED.ops ELSE w.ops + EXCLUDED.ops END,
         window_start = greatest(w.window_start, EXCLUDED.window_start)
  RETURNING ops
), m AS (
  INSERT INTO usage_meter AS u (tenant, period, messages)
  SELECT $1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), $3::bigint WHERE $3::bigint > 0
  ON CONFLICT (tenant, period) DO UPDATE SET messages = u.messages + EXCLUDED.messages
)
SELECT ops FROM w`;

/** rateWindowOps — $1 tenant. No lock. The ops already admitted in the current second. */
const RATE_WINDOW_SQL = `
SELECT coalesce((SELECT ops FROM schedule_rate_windows
                  WHERE tenant = $1 AND window_start >= date_trunc('second', clock_timestamp())), 0) AS ops`;

/**
 * pendingCount — $1 tenant, $2 cap (quota + 1), $3/$4 the batch's schedule keys. No lock.
 * Rows: one — the tenant's pending rows (at most the cap) and how many batch keys already exist.
 */
const PENDING_SQL = `
SELECT (SELECT count(*) FROM (SELECT 1 FROM timers WHERE tenant = $1 LIMIT $2) s)::int AS pending,
       (SELECT count(*) FROM timers t JOIN unnest($3::text[], $4::text[]) AS i(queue, timer_key)
           ON t.tenant = $1 AND t.queue = i.queue AND t.timer_key = i.timer_key)::int AS existing`;

/**
 * storageUsed — $1 tenant. No lock; O(the tenant's rows), so only run when a limit is set.
 * Rows: one — bytes of pending timer payloads plus log frames.
 */
const STORAGE_SQL = `
SELECT ((SELECT coalesce(sum(octet_length(payload)), 0) FROM timers WHERE tenant = $1)
      + (SELECT coalesce(sum(octet_length(payload)), 0) FROM messages WHERE tenant = $1))::float8 AS used`;

// ---------------------------------------------------------------------------------------------
// Gates that read the database (run inside the batch's transaction).

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

async function quotaRefusal(ctx: AuthedContext, q: Queryable, plan: EffectivePlan, ops: PreparedOp[]): Promise<ApiError | undefined> {
  const tenant = ctx.principal.tenant;
  const quota = plan.maxPendingTimers;
  const newKeys = new Map<string, ScheduleOp>();
  for (const op of ops) if (op.kind === 'schedule') newKeys.set(keyOf(op.queue, op.timerKey), op);
  let cache = pendingCounts.get(ctx.db);
  if (!cache) pendingCounts.set(ctx.db, (cache = new Map()));
  const known = cache.get(tenant);
  if (known) {
    const createdSince = plan.scheduleRatePerSecond * ((Date.now() - known.atMs) / 1000 + 1);
    if (known.count + createdSince + newKeys.size <= quota) return undefined;
  }
  const keys = [...newKeys.values()];
  const r = await q.query<{ pending: number; existing: number }>(PENDING_SQL, [
    tenant,
    quota + 1,
    keys.map((k) => k.queue),
    keys.map((k) => k.timerKey),
  ]);
  const { pending, existing } = r.rows[0];
  if (cache.size >= PENDING_CACHE_MAX_TENANTS) cache.clear();
  cache.set(tenant, { count: pending, atMs: Date.now() });
  const wouldCreate = newKeys.size - existing;
  if (pending + wouldCreate > quota) {
    return new ApiError(
      'pending_quota_exceeded',
      `the tenant has ${pending >= quota + 1 ? `more than ${quota}` : pending} pending timers; this batch could add ${wouldCreate}, over the plan's quota of ${quota}. It frees as timers fire or are cancelled`,
      { retryAfter: QUOTA_RETRY_AFTER_SECONDS, maxPendingTimers: quota },
    );
  }
  return undefined;
}

async function storageRefusal(ctx: AuthedContext, q: Queryable, plan: EffectivePlan, ops: PreparedOp[]): Promise<ApiError | undefined> {
  if (plan.storageLimitBytes === 0) return undefined;
  const incoming = ops.reduce((n, op) => n + (op.kind === 'schedule' ? op.storedBytes : 0), 0);
  const r = await q.query<{ used: number }>(STORAGE_SQL, [ctx.principal.tenant]);
  const used = Number(r.rows[0].used);
  if (used + incoming > plan.storageLimitBytes) {
    return new ApiError(
      'storage_limit_exceeded',
      `the tenant stores ${used} bytes; this batch adds ${incoming}, over the plan's storage limit of ${plan.storageLimitBytes} bytes`,
      { storageLimitBytes: plan.storageLimitBytes },
    );
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Applying a run of distinct keys.

async function applySchedules(q: Queryable, tenant: string, sub: string, ops: ScheduleOp[], out: Applied[], round = 1): Promise<void> {
  if (ops.length === 0) return;
  const r = await q.query<{
    queue: string;
    timer_key: string;
    inserted: boolean;
    txn: string;
    message_id: string;
    deliver_at: string;
    deliver_at_ms: number;
  }>(UPSERT_SQL, [
    tenant,
    sub,
    ops.map((o) => o.queue),
    ops.map((o) => o.timerKey),
    ops.map((o) => o.partition),
    ops.map((o) => o.delayMs),
    ops.map((o) => o.txn),
    ops.map((o) => o.stored),
    ops.map((o) => o.zstd),
    ops.map((o) => o.encrypted),
  ]);
  const done = new Map(r.rows.map((row) => [keyOf(row.queue, row.timer_key), row]));
  const states = await timerStates(q, tenant, ops.filter((o) => !done.has(keyOf(o.queue, o.timerKey))));
  const again: ScheduleOp[] = [];
  for (const op of ops) {
    const row = done.get(keyOf(op.queue, op.timerKey));
    const base = { queue: op.queue, timerKey: op.timerKey };
    if (row) {
      out[op.index] = {
        result: {
          ok: true,
          status: row.inserted ? 'scheduled' : 'rescheduled',
          ...base,
          txn: row.txn,
          messageId: row.message_id,
          deliverAt: row.deliver_at,
        },
        deliverAtMs: Number(row.deliver_at_ms),
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
    await applySchedules(q, tenant, sub, again, out, round + 1);
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

// ---------------------------------------------------------------------------------------------

/** Runs fn in one transaction on a pooled client, replaying it on deadlock or serialization failure. */
function inBatchTransaction<T>(ctx: AuthedContext, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return replayOnConflict(() => inTransaction(ctx.db.pool, (client) => fn(client)));
}

/**
 * Replays fn when PostgreSQL picked it as a deadlock victim. Batches that lock overlapping keys
 * (new keys are locked by insertion, in no global order) can form a cycle; so can a single-key
 * cancel queued on a row behind them. Nothing of a failed attempt was committed.
 */
async function replayOnConflict<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (isReplayable(err) && attempt < TRANSIENT_RETRIES) {
        // Exponential backoff with full jitter: 5, 10, 20 … ms, so colliding batches spread out.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
        continue;
      }
      throw busyOr(err);
    }
  }
}

/** Deadlock or serialization failure (pg errors carry the SQLSTATE as `code`). */
function isReplayable(err: unknown): boolean {
  const code = sqlState(err);
  return code === SQLSTATE.deadlockDetected || code === SQLSTATE.serializationFailure;
}

/** A transient failure that outlived its replays is "not your fault, retry shortly". */
function busyOr(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (isTransientDbError(err)) {
    return new ApiError('database_unavailable', 'the database is busy; retry shortly', { retryAfter: 1 }, { cause: err });
  }
  return err;
}

export async function applyBatch(ctx: AuthedContext, operations: TimerOperation[]): Promise<{ results: TimerResult[] }> {
  const { tenant, sub } = ctx.principal;
  const ops = prepare(operations);
  const scheduleQueues = [...new Set(ops.filter((o) => o.kind === 'schedule').map((o) => o.queue))];
  // Two independent reads before the transaction (PGlite runs one transaction at a time, so
  // nothing inside it may wait on another connection).
  const [plan, encrypting] = await Promise.all([
    ctx.tenants.plan(tenant),
    encryptingQueues(ctx.db.pool, tenant, scheduleQueues),
  ]);
  if (plan.schedulePaused) {
    throw new ApiError('schedule_paused', `scheduling is paused for tenant "${tenant}"; cancels still work through DELETE /api/v1/timers/:queue/*timerKey`);
  }
  const planError = planVerdict(plan, ops);
  // Compression and encryption are CPU work: done before the transaction, so its locks are short.
  // Done even when a plan gate will refuse: the storage gate, which ranks earlier, weighs the
  // bytes as stored.
  const sealError = await seal(ctx, ops, encrypting);

  const applied = await inBatchTransaction(ctx, async (q) => {
    // Gates in the contract's order: rate, quota, storage, horizon, payload ceiling. The rate is
    // admitted last (its row is the tenant's hot lock), so when a later gate refuses, the rate is
    // read first to report the earlier rung.
    const refusal =
      (await quotaRefusal(ctx, q, plan, ops)) ?? (await storageRefusal(ctx, q, plan, ops)) ?? planError ?? sealError;
    if (refusal) {
      const admitted = (await q.query<{ ops: number }>(RATE_WINDOW_SQL, [tenant])).rows[0].ops;
      throw rateRefusal(plan, Number(admitted) + ops.length, ops.length) ?? refusal;
    }
    const schedules = ops.filter((o): o is ScheduleOp => o.kind === 'schedule');
    await ensurePartitions(q, tenant, schedules.map((o) => ({ queue: o.queue, partition: o.partition })));
    const out: Applied[] = new Array(ops.length);
    for (const run of runsOfDistinctKeys(ops)) {
      const chunks = chunksInKeyOrder(run);
      if (chunks.length <= MAX_ORDERED_CHUNKS) {
        for (const chunk of chunks) {
          if (chunk[0].kind === 'schedule') await applySchedules(q, tenant, sub, chunk as ScheduleOp[], out);
          else await applyCancels(q, tenant, chunk as CancelOp[], out);
        }
      } else {
        await q.query(LOCK_KEYS_SQL, [tenant, run.map((o) => o.queue), run.map((o) => o.timerKey)]);
        await applySchedules(q, tenant, sub, run.filter((o): o is ScheduleOp => o.kind === 'schedule'), out);
        await applyCancels(q, tenant, run.filter((o): o is CancelOp => o.kind === 'cancel'), out);
      }
    }
    const billed = out.filter((a) => a.result.status === 'scheduled' || a.result.status === 'rescheduled').length;
    const admitted = await q.query<{ ops: number }>(ADMIT_AND_METER_SQL, [tenant, ops.length, billed]);
    const rate = rateRefusal(plan, Number(admitted.rows[0].ops), ops.length);
    if (rate) throw rate; // rolls back the ops, the meter and the window increment
    return out;
  });

  let earliest = Infinity;
  for (const a of applied) {
    if (a.deliverAtMs !== undefined && a.deliverAtMs < earliest) earliest = a.deliverAtMs;
  }
  if (earliest !== Infinity) ctx.events.timerScheduled(earliest);
  countVerdicts(ctx, applied.map((a) => a.result.status));
  return { results: applied.map((a) => a.result) };
}

function countVerdicts(ctx: AuthedContext, statuses: TimerStatus[]): void {
  const counts = new Map<TimerStatus, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const [status, n] of counts) ctx.metrics.scheduleVerdicts.inc({ status }, n);
}

type CancelResult = Extract<TimerResult, { status: 'cancelled' | 'too_late' | 'absent' }>;

/**
 * The cancel route: no plan gate, no grant, no block — only the boot flag (applied by the HTTP
 * layer) and knowing the tenant. One DELETE, plus a look-up when nothing was deleted (and the
 * DELETE again if the timer was released meanwhile).
 */
export async function cancelOne(ctx: AuthedContext, queue: string, timerKey: string, txn?: string): Promise<CancelResult> {
  const out: Applied[] = [];
  const op: CancelOp = { index: 0, kind: 'cancel', queue, timerKey, txn: txn ?? null };
  await replayOnConflict(() => applyCancels(ctx.db.pool, ctx.principal.tenant, [op], out));
  const result = out[0].result as CancelResult;
  countVerdicts(ctx, [result.status]);
  return result;
}

const VIEW_COLUMNS = `queue, timer_key, partition, ${isoSql('deliver_at')} AS deliver_at, txn, message_id::text AS message_id,
  payload_zstd, encrypted, producer_sub, attempts, last_error, coalesce(${CLAIMED}, false) AS claimed,
  ${isoSql('created_at')} AS created_at, ${isoSql('updated_at')} AS updated_at`;

interface ViewRow {
  queue: string;
  timer_key: string;
  partition: string;
  deliver_at: string;
  txn: string;
  message_id: string;
  payload_zstd: boolean;
  encrypted: boolean;
  producer_sub: string;
  attempts: number;
  last_error: string | null;
  claimed: boolean;
  created_at: string;
  updated_at: string;
}

function view(row: ViewRow) {
  return {
    queue: row.queue,
    timerKey: row.timer_key,
    partition: row.partition,
    deliverAt: row.deliver_at,
    txn: row.txn,
    messageId: row.message_id,
    payloadZstd: row.payload_zstd,
    encrypted: row.encrypted,
    producerSub: row.producer_sub,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    claimed: row.claimed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** peek — $1 tenant, $2 queue, $3 timer_key. No lock. The payload as stored; never decrypted. */
export async function peek(ctx: AuthedContext, queue: string, timerKey: string) {
  // encode(…, 'base64') wraps lines every 76 characters; the wire's base64 has no newlines.
  const r = await ctx.db.pool.query<ViewRow & { payload: string }>(
    `SELECT ${VIEW_COLUMNS}, translate(encode(payload, 'base64'), E'\\n', '') AS payload
       FROM timers WHERE tenant = $1 AND queue = $2 AND timer_key = $3`,
    [ctx.principal.tenant, queue, timerKey],
  );
  const row = r.rows[0];
  if (!row) return { found: false as const };
  return { found: true as const, ...view(row), payload: row.payload };
}

/**
 * list — $1 tenant, $2 queue, $3 exclusive cursor|null, $4 limit + 1. No lock. Walks the primary
 * key (tenant, queue, timer_key COLLATE "C") in byte order; the extra row says truncated.
 */
export async function list(ctx: AuthedContext, queue: string, after: string | undefined, limit: number) {
  const r = await ctx.db.pool.query<ViewRow>(
    `SELECT ${VIEW_COLUMNS} FROM timers
      WHERE tenant = $1 AND queue = $2 AND ($3::text IS NULL OR timer_key > $3::text COLLATE "C")
      ORDER BY timer_key COLLATE "C" LIMIT $4`,
    [ctx.principal.tenant, queue, after ?? null, limit + 1],
  );
  const truncated = r.rows.length > limit;
  const rows = r.rows.slice(0, limit).map(view);
  return { rows, truncated, nextAfter: rows.length ? rows[rows.length - 1].timerKey : null };
}

/** usage — $1 tenant, $2 period|null (default: the current month, UTC, PostgreSQL's clock). */
export async function usage(ctx: AuthedContext, period?: string) {
  const r = await ctx.db.pool.query<{ period: string; messages: number }>(
    `SELECT p.period, coalesce((SELECT messages FROM usage_meter WHERE tenant = $1 AND period = p.period), 0)::float8 AS messages
       FROM (SELECT coalesce($2::text, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')) AS period) p`,
    [ctx.principal.tenant, period ?? null],
  );
  return { tenant: ctx.principal.tenant, period: r.rows[0].period, messages: Number(r.rows[0].messages) };
}
