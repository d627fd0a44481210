// pop — hands a batch of frames to a consumer of a group, leasing the partition (or completing the
// frames at once with autoAck), and long-polls when asked. The consumer model is described in
// ./settle.ts.
//
// Cost: a pop reads forward from its group's cursor. It picks a partition by walking the group's
// partitions that have work (partition_consumers_ready: last_seq > cursor_seq), least recently
// served first, skipping only those leased to other consumers; it reads the batch as one index
// range after the cursor. Nothing grows with the group's history or with the partitions that have
// no work, and every statement runs under INDEX_PLANS, so no plan depends on fresh statistics.
// The pick and the read are named statements (runStatement), as the ack's are (./ack.ts): under a
// busy drain, planning them again for every pop was most of the database's CPU for them
// (docs/benchmarks.md).
//
// A long-poll waits in memory (./waiters.ts): no transaction and no connection while it waits.
import { randomUUID } from 'node:crypto';
import type { Frame } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { bytesOf, isoSql } from '../../db/sql.ts';
import { commitWith, inTransaction, runStatement, statementName, type Queryable } from '../../db/transaction.ts';
import { openStored } from '../../payload.ts';
import { DEFAULT_LEASE_SECONDS } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';
import { GROUP_EXISTS_SQL, registerGroup, type GroupStart } from './groups.ts';

/** Payload bytes one pop hands out at most (the first frame always goes): 16 MiB. */
export const POP_BATCH_BYTES = 16 * 1024 * 1024;
/** Partitions one pop tries: one whose frames after the cursor are gone (retention) has nothing, and is passed. */
const PICK_ATTEMPTS = 3;

export interface PopRequest {
  queue: string;
  partition?: string;
  consumerGroup: string;
  batch: number;
  autoAck: boolean;
  wait: boolean;
  timeoutMs: number;
  /** Partitions one pop may take (Queen's `partitions`); `batch` caps the frames across them. */
  partitions?: number;
  /** Where the group starts if this pop registers it (a named group's first pop on the queue). */
  start?: GroupStart;
}

/** What a long-poll listens to besides the log: the caller hanging up. */
export interface PopDeps extends LogDeps {
  signal: AbortSignal;
}

/**
 * The queue's windowBuffer in seconds (Queen's option, stored in queen_options; 0: none), for the
 * queue $1 tenant, $2 queue: an uncorrelated subquery, computed once per statement.
 */
const WINDOW_SECONDS = `coalesce((SELECT CASE WHEN jsonb_typeof(q.queen_options->'windowBuffer') = 'number'
                                       THEN (q.queen_options->>'windowBuffer')::float8 END
                                  FROM queues q WHERE q.tenant = $1 AND q.name = $2), 0)`;

/**
 * What a pop needs of the picked consumer row: where to read, its partition's id, the queue's lease
 * time and window. The subqueries name the tenant ($1, the picked row's) rather than correlate on
 * it: on Citus every table of the statement is then pinned to the tenant's shard, which its
 * FOR UPDATE requires.
 */
const PICKED_COLUMNS = `c.partition, c.cursor_seq, c.last_seq,
  (SELECT p.id::text FROM partitions p WHERE p.tenant = $1 AND p.queue = c.queue AND p.name = c.partition) AS partition_id,
  coalesce((SELECT q.lease_time_seconds FROM queues q WHERE q.tenant = $1 AND q.name = c.queue), ${DEFAULT_LEASE_SECONDS}) AS lease_seconds,
  ${WINDOW_SECONDS} AS window_seconds`;

/**
 * windowBuffer, as Queen's pop applies it: a partition is not handed out while its newest frame is
 * younger than the window (each frame appended holds the frames before it again), on PostgreSQL's
 * clock. The pick skips such a partition by its consumer row's newest seq (one key probe, and none
 * when the queue has no window); the read checks again in its own snapshot (BATCH).
 */
const NOT_HELD = `(${WINDOW_SECONDS} <= 0 OR NOT EXISTS (
       SELECT 1 FROM messages m
        WHERE m.tenant = $1 AND m.queue = c.queue AND m.partition = c.partition AND m.seq = c.last_seq
          AND m.created_at > now() - make_interval(secs => ${WINDOW_SECONDS})))`;

/**
 * pickAny — the group's least recently served partition with work and no live lease; a concurrent
 * pop of the group skips it (SKIP LOCKED) and takes the next.
 * $1 tenant, $2 queue, $3 group, $4 partitions this pop already took (a multi-partition pop).
 * Locks: one partition_consumers row. Rows: 0 or 1.
 * Walks partition_consumers_ready in updated_at order.
 */
export const PICK_ANY_SQL = `
SELECT ${PICKED_COLUMNS}
  FROM partition_consumers c
 WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3 AND c.last_seq > c.cursor_seq
   AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
   AND c.partition <> ALL($4::text[])
   AND ${NOT_HELD}
 ORDER BY c.updated_at
 LIMIT 1
   FOR UPDATE OF c SKIP LOCKED`;

/**
 * pickOne — the named partition, when it has work for the group and no live lease.
 * $1 tenant, $2 queue, $3 group, $4 partition. Locks: its partition_consumers row. Rows: 0 or 1.
 */
export const PICK_ONE_SQL = `
SELECT ${PICKED_COLUMNS}
  FROM partition_consumers c
 WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $4 AND c.consumer_group = $3 AND c.last_seq > c.cursor_seq
   AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
   AND ${NOT_HELD}
   FOR UPDATE OF c SKIP LOCKED`;

/**
 * The first frames after the cursor, in seq order (every one of them is pending for the group:
 * ./settle.ts). The batch also stops at POP_BATCH_BYTES of payload (always at least one frame): a
 * response carries each payload twice (base64 and data), and one too large to serialise would
 * fail after the lease was taken, again and again. Nothing is read while the queue's windowBuffer
 * holds the partition (`hold`: its newest frame in this statement's snapshot is younger than the
 * window; a frame appended after the pick is seen here): every frame handed out is at least the
 * window old, never early.
 * $1 tenant, $2 queue, $3 partition, $4 group, $5 cursor, $6 batch size, $7 byte budget, $8 the
 * queue's windowBuffer in seconds (0: none; the pick read it).
 */
const BATCH = `
hold AS (
  SELECT coalesce($8::float8 > 0 AND (SELECT n.created_at FROM messages n
                                       WHERE n.tenant = $1 AND n.queue = $2 AND n.partition = $3
                                       ORDER BY n.seq DESC LIMIT 1) > now() - make_interval(secs => $8::float8), false) AS held
),
batch AS (
  SELECT seq, id, transaction_id, payload, encrypted, producer_sub, trace_id, traceparent, created_at FROM (
    SELECT f.*, sum(octet_length(f.payload)) OVER (ORDER BY f.seq) - octet_length(f.payload) AS bytes_before
      FROM (SELECT m.seq, m.id::text AS id, m.transaction_id, m.payload, m.encrypted, m.producer_sub, m.trace_id::text AS trace_id,
                   m.traceparent,
                   ${isoSql('m.created_at')} AS created_at
              FROM messages m
             WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = $3 AND m.seq > $5 AND NOT (SELECT held FROM hold)
             ORDER BY m.seq
             LIMIT $6) f) b
   WHERE b.bytes_before < $7
),
taken AS (SELECT max(seq) AS end_seq FROM batch)`;

/** The consumer row being popped (the caller holds its lock), when the batch is not empty. */
const POPPED_ROW = `tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4 AND (SELECT end_seq FROM taken) IS NOT NULL`;

/**
 * A partition whose frames after the cursor are all gone (retention deleted them unconsumed):
 * the cursor moves to its newest seq, so the partition stops being picked as one with work.
 */
const EMPTIED = `
emptied AS (
  UPDATE partition_consumers SET cursor_seq = greatest(cursor_seq, last_seq)
   WHERE tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4 AND (SELECT end_seq FROM taken) IS NULL
     AND NOT (SELECT held FROM hold)
)`;

/**
 * readAndLease — reads the batch (BATCH) and leases the partition to this consumer for the
 * queue's leaseTime, on PostgreSQL's clock, for the frames up to the batch's end (an expired
 * lease is taken over). $1..$8 as BATCH, $9 lease seconds, $10 the lease id, minted by the
 * broker (a multi-partition pop leases all its partitions under one; a gen_random_uuid() here would
 * be a volatile function in an UPDATE, which Citus refuses). Locks: the consumer row (already held).
 * Rows: the batch, in seq order, each with the lease id.
 */
export const READ_AND_LEASE_SQL = `
WITH ${BATCH},${EMPTIED},
leased AS (
  UPDATE partition_consumers
     SET lease_id = $10::uuid, lease_expires_at = now() + make_interval(secs => $9::integer),
         batch_end_seq = (SELECT end_seq FROM taken), delivered_seq = greatest(delivered_seq, (SELECT end_seq FROM taken)),
         updated_at = now()
   WHERE ${POPPED_ROW}
  RETURNING lease_id::text AS lease_id
)
SELECT b.*, (SELECT lease_id FROM leased) AS lease_id FROM batch b ORDER BY b.seq`;

/**
 * readAndComplete — autoAck: reads the batch (BATCH) and commits it as it is handed out, by
 * moving the cursor past it: no lease (an expired one is cleared), no delivery rows.
 * $1..$8 as BATCH. Locks: the consumer row (already held). Rows: the batch, in seq order.
 */
export const READ_AND_COMPLETE_SQL = `
WITH ${BATCH},${EMPTIED},
completed AS (
  UPDATE partition_consumers
     SET cursor_seq = (SELECT end_seq FROM taken), delivered_seq = greatest(delivered_seq, (SELECT end_seq FROM taken)),
         lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL, updated_at = now()
   WHERE ${POPPED_ROW}
)
SELECT b.*, NULL::text AS lease_id FROM batch b ORDER BY b.seq`;

interface Picked {
  partition: string;
  cursor_seq: number;
  last_seq: number;
  partition_id: string;
  lease_seconds: number;
  window_seconds: number;
}

interface FrameRow {
  seq: number;
  id: string;
  transaction_id: string;
  payload: Uint8Array;
  encrypted: boolean;
  producer_sub: string;
  trace_id: string | null;
  traceparent: string | null;
  created_at: string;
  lease_id: string | null;
}

/**
 * Pops one batch, long-polling when asked. The waiter is armed before the first look, so frames
 * that arrive between a look and the wait wake it; a periodic probe covers what arrives without
 * an event (a lease that expired).
 */
export async function pop(deps: PopDeps, caller: Caller, req: PopRequest): Promise<Frame[]> {
  const { tenant } = caller;
  if (!req.wait) return (await popOnce(deps, tenant, req)).frames;
  const waiter = deps.waiters.arm({ tenant, queue: req.queue, group: req.consumerGroup, partition: req.partition });
  const deadline = Date.now() + req.timeoutMs;
  try {
    for (;;) {
      // The caller hung up: take no lease on its behalf.
      if (deps.signal.aborted) return [];
      waiter.signalled = false;
      const { frames, more } = await popOnce(deps, tenant, req);
      if (frames.length > 0) {
        // autoAck left the partition free with frames in it: another waiter can take them now.
        if (more) deps.waiters.poke(tenant, req.queue, req.consumerGroup);
        return frames;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || deps.waiters.draining) return [];
      if (waiter.signalled) continue;
      await waiter.sleep(remaining, deps.signal);
    }
  } finally {
    waiter.disarm();
  }
}

interface Taken {
  frames: Frame[];
  /** autoAck left frames after the batch in a partition that is free for the group. */
  more: boolean;
}

const NOTHING: Taken = { frames: [], more: false };

/**
 * One look: picks a partition with work for the group and takes its next batch, each attempt in a
 * transaction of its own whose last statement goes out with the COMMIT. A picked partition can
 * turn out to have nothing left (retention deleted its frames): then the next one is tried.
 */
async function popOnce(deps: LogDeps, tenant: string, req: PopRequest): Promise<Taken> {
  const group = req.consumerGroup;
  const width = req.partition === undefined ? Math.max(1, req.partitions ?? 1) : 1;
  for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
    const cached = deps.knownGroups.has(tenant, req.queue, group);
    let known = cached;
    const taken = await inTransaction(
      deps.db.pool,
      async (tx) => {
        // A queue that does not exist has nothing to pop, and a pop never creates one.
        if (!known && !(await registerGroup(tx, tenant, req.queue, group, req.start))) return undefined;
        known = true;
        if (width === 1) {
          const picked = await pick(tx, tenant, req, []);
          return picked && takeBatch(deps, tx, tenant, req, picked, { commit: true, leaseId: null });
        }
        return takeSeveral(deps, tx, tenant, req, width);
      },
      { setup: setLocal(INDEX_PLANS) },
    );
    if (known) deps.knownGroups.add(tenant, req.queue, group);
    if (!taken) {
      // Nothing to pop for a group this broker had cached as registered: it may have been deleted
      // (on any broker) since. Then forget it and look again: the next attempt registers it anew.
      if (cached && !(await stillRegistered(deps, tenant, req.queue, group))) {
        deps.knownGroups.forget(tenant, req.queue, group);
        continue;
      }
      return NOTHING;
    }
    if (taken.frames.length > 0) return taken;
  }
  return NOTHING;
}

/**
 * A multi-partition pop: up to `width` partitions, one batch of at most `req.batch` frames across
 * them, all leased under one lease id (renewing it renews them all; each partition is settled by
 * the acks of its own frames). Undefined when no partition had work.
 */
async function takeSeveral(deps: LogDeps, tx: Queryable, tenant: string, req: PopRequest, width: number): Promise<Taken | undefined> {
  const leaseId = req.autoAck ? null : randomUUID();
  const taken: Taken = { frames: [], more: false };
  const seen: string[] = [];
  while (seen.length < width && taken.frames.length < req.batch) {
    const picked = await pick(tx, tenant, req, seen);
    if (!picked) break;
    seen.push(picked.partition);
    const batch = await takeBatch(deps, tx, tenant, { ...req, batch: req.batch - taken.frames.length }, picked, { commit: false, leaseId });
    taken.frames.push(...batch.frames);
    taken.more ||= batch.more;
  }
  return seen.length === 0 ? undefined : taken;
}

/** Whether the group is still registered on the queue (a PK lookup; only after an empty look). */
async function stillRegistered(deps: LogDeps, tenant: string, queue: string, group: string): Promise<boolean> {
  return (await deps.db.pool.query(GROUP_EXISTS_SQL, [tenant, queue, group])).rows.length > 0;
}

async function pick(tx: Queryable, tenant: string, req: PopRequest, taken: string[]): Promise<Picked | undefined> {
  const r =
    req.partition === undefined
      ? await runStatement<Picked>(tx, PICK_ANY_SQL, [tenant, req.queue, req.consumerGroup, taken], statementName(tx, 'qt_pick_any'))
      : await runStatement<Picked>(
          tx,
          PICK_ONE_SQL,
          [tenant, req.queue, req.consumerGroup, req.partition],
          statementName(tx, 'qt_pick_one'),
        );
  return r.rows[0];
}

/**
 * Reads and leases (or completes) the picked partition's next batch; empty when it has none left.
 * `commit`: the read is the transaction's last statement and goes out with its COMMIT. `leaseId`:
 * the lease to take (null: a new one, minted here).
 */
async function takeBatch(
  deps: LogDeps,
  tx: Queryable,
  tenant: string,
  req: PopRequest,
  picked: Picked,
  o: { commit: boolean; leaseId: string | null },
): Promise<Taken> {
  const group = req.consumerGroup;
  const params = [
    tenant,
    req.queue,
    picked.partition,
    group,
    Number(picked.cursor_seq),
    req.batch,
    POP_BATCH_BYTES,
    Number(picked.window_seconds),
  ];
  const [sql, values, name] = req.autoAck
    ? [READ_AND_COMPLETE_SQL, params, statementName(tx, 'qt_read_complete')]
    : [READ_AND_LEASE_SQL, [...params, picked.lease_seconds, o.leaseId ?? randomUUID()], statementName(tx, 'qt_read_lease')];
  const batch = o.commit ? await commitWith<FrameRow>(tx, sql, values, name) : await runStatement<FrameRow>(tx, sql, values, name);
  if (batch.rows.length === 0) return NOTHING;
  const batchEnd = Number(batch.rows[batch.rows.length - 1].seq);
  const leaseId = batch.rows[0].lease_id;
  const frames: Frame[] = [];
  for (const row of batch.rows) {
    frames.push({
      id: row.id,
      transactionId: row.transaction_id,
      partitionId: picked.partition_id,
      partition: picked.partition,
      queue: req.queue,
      consumerGroup: group,
      leaseId,
      producerSub: row.producer_sub,
      traceId: row.trace_id,
      traceparent: row.traceparent,
      createdAt: row.created_at,
      ...(await openStored(deps.cipher, bytesOf(row.payload), row.encrypted)),
    });
  }
  return { frames, more: req.autoAck && batchEnd < Number(picked.last_seq) };
}
