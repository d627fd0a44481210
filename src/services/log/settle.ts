// Settling a partition's popped batch: moving the group's cursor and releasing its lease.
//
// The log's consumer model, on the tables of the migrations:
//  - `messages` is the log. `seq` orders a partition's frames (FIFO); frames are never updated.
//  - `partition_consumers` holds, per (partition, consumer group), the cursor (every frame with
//    seq <= cursor_seq is settled for the group) and the partition lease: a pop leases the
//    partition to one consumer of the group for the queue's leaseTime and records the batch's
//    last seq in batch_end_seq. While the lease is live, other consumers of the group skip the
//    partition — that is how `__QUEUE_MODE__` (competing consumers) keeps per-partition order.
//    last_seq (the partition's newest frame) and delivered_seq (the highest seq ever handed out)
//    bound where a pop looks (./pop.ts).
//  - `message_deliveries` holds each frame's verdict per group: completed, failed (to be
//    redelivered; retry_count counts failures) or dlq, and the lease it was recorded under.
//    autoAck writes none: its frames are settled by the cursor passing them.
//  - A batch is settled when each of its frames is completed, dead-lettered, or failed under
//    this lease; then the cursor moves past the leading settled run (a failed frame stops it, so
//    it is redelivered first, in order) and the lease is released. When the lease expires first,
//    the next pop of the partition moves the cursor past the leading settled run the same way.
//
// Verdicts are looked up by scalar subqueries (primary-key probes), never by a join the planner
// could turn into a scan of the group's whole history; the range looked at is one batch.
import type { Queryable } from '../../db/transaction.ts';

/** A frame's verdict for the consumer row `c`'s group, as a scalar subquery over `m`. */
const VERDICT = `(SELECT d.status FROM message_deliveries d
                   WHERE d.tenant = c.tenant AND d.consumer_group = c.consumer_group AND d.message_seq = m.seq)`;

/** The new cursor: just before the batch's first frame not completed or dead-lettered, else its end. */
const CURSOR_AFTER_BATCH = `coalesce(
  (SELECT min(m.seq) - 1 FROM messages m
    WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
      AND m.seq > c.cursor_seq AND m.seq <= c.batch_end_seq
      AND coalesce(${VERDICT}, 'failed') = 'failed'),
  c.batch_end_seq)`;

/**
 * advanceExpired — the batch of an expired lease: the cursor moves past its leading settled frames
 * and the lease is cleared. $1 tenant, $2 queue, $3 partition, $4 group.
 * Locks: the consumer row (the caller holds it). Rows: 1, the new cursor.
 */
export const ADVANCE_EXPIRED_SQL = `
UPDATE partition_consumers c
   SET cursor_seq = ${CURSOR_AFTER_BATCH}, lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL
 WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $3 AND c.consumer_group = $4
RETURNING c.cursor_seq`;

export interface ConsumerAt {
  tenant: string;
  queue: string;
  partition: string;
  group: string;
}

/** Moves an expired batch's cursor past its settled head and clears the lease; returns the cursor. */
export async function advanceExpired(tx: Queryable, at: ConsumerAt): Promise<number> {
  const r = await tx.query<{ cursor_seq: number }>(ADVANCE_EXPIRED_SQL, [at.tenant, at.queue, at.partition, at.group]);
  return Number(r.rows[0].cursor_seq);
}

export interface Released {
  queue: string;
  partition: string;
  group: string;
  /** Frames remain after the new cursor (a failure to redeliver, or newer frames). */
  more: boolean;
}

/** A frame of a leased batch, in seq order. */
export interface BatchFrame {
  seq: number;
}

/** A frame's verdict for the batch's group: its status and the lease it was recorded under. */
export interface VerdictAt {
  status: string;
  lease_id: string | null;
}

/**
 * Where the cursor goes when a leased batch is settled, or undefined while it is not: the batch
 * (its frames after the cursor up to batchEnd, in seq order) is settled when each frame is
 * completed, dead-lettered, or failed under `lease`; the cursor then moves just before the first
 * failed frame (redelivered first, in order), or to the batch's end. The same rule as
 * ADVANCE_EXPIRED_SQL, for a batch whose verdicts are all in hand.
 */
export function cursorAfterBatch(
  frames: BatchFrame[],
  batchEnd: number,
  lease: string,
  verdictOf: (seq: number) => VerdictAt | undefined,
): number | undefined {
  let firstFailed: number | undefined;
  for (const { seq } of frames) {
    const v = verdictOf(seq);
    if (!v || (v.status === 'failed' && v.lease_id !== lease)) return undefined;
    if (v.status === 'failed' && firstFailed === undefined) firstFailed = seq;
  }
  return firstFailed === undefined ? batchEnd : firstFailed - 1;
}
