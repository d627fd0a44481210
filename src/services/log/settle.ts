// settleBatch — releases a partition's lease once its popped batch is settled, moving the cursor.
//
// The log's consumer model, on the tables of the init migration:
//  - `messages` is the log. `seq` orders a partition's frames (FIFO); frames are never updated.
//  - `partition_consumers` holds, per (partition, consumer group), the cursor (every frame with
//    seq <= cursor_seq is settled for the group) and the partition lease: a pop leases the
//    partition to one consumer of the group for the queue's leaseTime and records the batch's
//    last seq in batch_end_seq. While the lease is live, other consumers of the group skip the
//    partition — that is how `__QUEUE_MODE__` (competing consumers) keeps per-partition order.
//  - `message_deliveries` holds each frame's verdict per group: completed, failed (to be
//    redelivered; retry_count counts failures) or dlq, and the lease it was recorded under.
//  - A batch is settled when each of its frames is completed, dead-lettered, or failed under
//    this lease; then the cursor moves past the leading settled run (a failed frame stops it, so
//    it is redelivered first, in order) and the lease is released.
import type { Queryable } from '../../db/transaction.ts';

/**
 * settleBatch — $1 tenant, $2 queue, $3 partition, $4 group, $5 batch end seq, $6 lease id|null
 * (null: the autoAck path, no lease to match).
 * Locks: the consumer row (the caller already holds it).
 * Rows: 1 when the batch is settled (cursor moved, lease released), else 0.
 */
const SETTLE_BATCH_SQL = `
UPDATE partition_consumers c
SET cursor_seq = COALESCE(
      (SELECT min(m.seq) - 1 FROM messages m
        WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
          AND m.seq > c.cursor_seq AND m.seq <= $5
          AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                           WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group
                             AND d.message_seq = m.seq AND d.status <> 'failed')),
      $5),
    lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL, updated_at = now()
WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $3 AND c.consumer_group = $4
  AND NOT EXISTS (
    SELECT 1 FROM messages m
     WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
       AND m.seq > c.cursor_seq AND m.seq <= $5
       AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                        WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group AND d.message_seq = m.seq
                          AND (d.status <> 'failed' OR d.lease_id = $6::uuid)))
RETURNING 1`;

export interface Batch {
  tenant: string;
  queue: string;
  partition: string;
  group: string;
  batchEnd: number;
  leaseId: string | null;
}

/** Returns whether the lease was released (the batch is settled). */
export async function settleBatch(tx: Queryable, b: Batch): Promise<boolean> {
  const r = await tx.query(SETTLE_BATCH_SQL, [b.tenant, b.queue, b.partition, b.group, b.batchEnd, b.leaseId]);
  return r.rows.length > 0;
}
