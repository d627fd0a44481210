// ack — records consumers' verdicts on popped frames: completed, failed (redelivered up to the
// queue's retryLimit, then dead-lettered) or dlq, and settles the batch when its last frame is
// judged (./settle.ts).
import type { AckStatus } from '../../contract/log.ts';
import { isoSql } from '../../db/sql.ts';
import { inTransaction, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { queueConfig } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';
import { settleBatch } from './settle.ts';

export interface AckItem {
  transactionId: string;
  partitionId: string;
  status: AckStatus;
  consumerGroup: string;
  leaseId?: string | null;
  error?: string | null;
}

export interface AckOutcome {
  transactionId: string;
  partitionId: string;
  /** The frame's verdict for the group now: a failure past retryLimit is `dlq`. */
  status: AckStatus;
  consumerGroup: string;
  retryCount: number;
  /** True when this ack settled the batch: the cursor moved and the partition is free. */
  leaseReleased: boolean;
  acknowledgedAt: string;
}

/**
 * findFrame — the frame named by (partitionId, transactionId) in the caller's tenant.
 * $1 tenant, $2 partition id, $3 txn. Locks: none. Rows: 0 or 1.
 */
const FIND_FRAME_SQL = `
SELECT m.seq, m.queue, m.partition
  FROM partitions p
  JOIN messages m ON m.tenant = p.tenant AND m.queue = p.queue AND m.partition = p.name AND m.transaction_id = $3
 WHERE p.tenant = $1 AND p.id = $2::uuid`;

/**
 * lockConsumer — the partition's consumer state for the group, locked against concurrent pops and
 * acks. $1 tenant, $2 queue, $3 partition, $4 group. Locks: the consumer row. Rows: 0 or 1.
 */
const LOCK_CONSUMER_SQL = `
SELECT cursor_seq, lease_id::text AS lease_id, batch_end_seq, lease_expires_at > now() AS live, ${isoSql('now()')} AS now
  FROM partition_consumers
 WHERE tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4
   FOR UPDATE`;

/** priorVerdict — $1 tenant, $2 group, $3 seq. Locks: the delivery row. Rows: 0 or 1. */
const PRIOR_VERDICT_SQL = `
SELECT status, retry_count, lease_id::text AS lease_id FROM message_deliveries
 WHERE tenant = $1 AND consumer_group = $2 AND message_seq = $3
   FOR UPDATE`;

/** now — no parameters. PostgreSQL's clock as a wire instant. Rows: 1. */
const NOW_SQL = `SELECT ${isoSql('now()')} AS now`;

/**
 * recordVerdict — $1 tenant, $2 group, $3 seq, $4 status, $5 retry count, $6 lease.
 * Locks: the delivery row. Rows: 1.
 */
const RECORD_VERDICT_SQL = `
INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count, lease_id)
VALUES ($1, $2, $3, $4, $5, $6::uuid)
ON CONFLICT (tenant, consumer_group, message_seq)
DO UPDATE SET status = EXCLUDED.status, retry_count = EXCLUDED.retry_count, lease_id = EXCLUDED.lease_id, updated_at = now()`;

/**
 * deadLetterFrame — the frame's stored bytes go to the group's dead letters as they are (still
 * encrypted when the frame is): a consumer's dead letter, replayable.
 * $1 tenant, $2 group, $3 seq, $4 error|null, $5 retry count. Locks: the new row. Rows: 1.
 */
const DEAD_LETTER_FRAME_SQL = `
INSERT INTO dead_letters (tenant, queue, partition, consumer_group, message_id, transaction_id, payload, encrypted,
                          producer_sub, error_message, retry_count, timer_key)
SELECT m.tenant, m.queue, m.partition, $2, m.id, m.transaction_id, m.payload, m.encrypted,
       m.producer_sub, $4, $5, m.timer_key
  FROM messages m WHERE m.tenant = $1 AND m.seq = $3`;

/**
 * Acks frames in one transaction; each item answers an outcome or an ApiError (batch acks report
 * per item; a single ack throws it). Items are applied in (partition, group) order so that two
 * batch acks lock the same consumer rows in the same order (no deadlock); outcomes come
 * back in input order.
 */
export async function ack(deps: LogDeps, caller: Caller, items: AckItem[]): Promise<(AckOutcome | ApiError)[]> {
  const { tenant } = caller;
  const lockKey = (i: number) => `${items[i].partitionId.toLowerCase()}\u0000${items[i].consumerGroup}`;
  const order = items.map((_, i) => i).sort((a, b) => (lockKey(a) < lockKey(b) ? -1 : lockKey(a) > lockKey(b) ? 1 : a - b));
  const released = new Set<string>();
  const outcomes = await inTransaction(deps.db.pool, async (tx) => {
    released.clear(); // a replayed transaction starts over
    const out: (AckOutcome | ApiError)[] = new Array(items.length);
    for (const i of order) {
      try {
        out[i] = await ackOne(tx, tenant, items[i], released);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        out[i] = err;
      }
    }
    return out;
  });
  // A released lease may leave redeliverable frames behind: wake this tenant's waiting pops.
  for (const queue of released) deps.notifier.messagesPushed(tenant, queue);
  return outcomes;
}

async function ackOne(tx: Queryable, tenant: string, item: AckItem, released: Set<string>): Promise<AckOutcome> {
  const group = item.consumerGroup;
  const frame = (
    await tx.query<{ seq: number; queue: string; partition: string }>(FIND_FRAME_SQL, [tenant, item.partitionId, item.transactionId])
  ).rows[0];
  if (!frame) {
    throw new ApiError('not_found', `no frame with transactionId "${item.transactionId}" in partition ${item.partitionId}`, {
      field: 'transactionId',
    });
  }
  const seq = Number(frame.seq);
  const consumer = await tx.query<{
    cursor_seq: number;
    lease_id: string | null;
    batch_end_seq: number;
    live: boolean | null;
    now: string;
  }>(LOCK_CONSUMER_SQL, [tenant, frame.queue, frame.partition, group]);
  const pc = consumer.rows[0];
  const prior = (
    await tx.query<{ status: AckStatus; retry_count: number; lease_id: string | null }>(PRIOR_VERDICT_SQL, [tenant, group, seq])
  ).rows[0];
  const now = pc?.now ?? (await tx.query<{ now: string }>(NOW_SQL)).rows[0].now;
  const outcome = (status: AckStatus, retryCount: number, leaseReleased = false): AckOutcome => ({
    transactionId: item.transactionId,
    partitionId: item.partitionId,
    status,
    consumerGroup: group,
    retryCount,
    leaseReleased,
    acknowledgedAt: now,
  });
  // Final verdicts are idempotent: a retried ack answers the verdict already recorded.
  if (prior && prior.status !== 'failed') return outcome(prior.status, prior.retry_count);

  const inLiveBatch = pc && pc.live && pc.lease_id !== null && seq > Number(pc.cursor_seq) && seq <= Number(pc.batch_end_seq);
  if (!inLiveBatch || (item.leaseId != null && item.leaseId !== pc.lease_id)) {
    throw new ApiError(
      'lease_mismatch',
      item.leaseId != null && pc?.lease_id && item.leaseId !== pc.lease_id
        ? `leaseId ${item.leaseId} is not the live lease of this partition for consumer group "${group}"; the frame will be redelivered to its current holder`
        : `frame "${item.transactionId}" is not leased to consumer group "${group}": its lease expired or it was never popped; it will be redelivered`,
      { field: 'leaseId' },
    );
  }
  const leaseId = pc.lease_id!;
  // Already judged under this lease (a retried "failed"): answer the recorded verdict.
  if (prior && prior.lease_id === leaseId) return outcome(prior.status, prior.retry_count);

  let status = item.status;
  let retryCount = prior?.retry_count ?? 0;
  if (status === 'failed') {
    retryCount += 1;
    // retryLimit counts redeliveries after a failure: limit 3 = up to 4 deliveries, then DLQ.
    const { retryLimit } = await queueConfig(tx, tenant, frame.queue);
    if (retryCount > retryLimit) status = 'dlq';
  }
  await tx.query(RECORD_VERDICT_SQL, [tenant, group, seq, status, retryCount, leaseId]);
  if (status === 'dlq') await tx.query(DEAD_LETTER_FRAME_SQL, [tenant, group, seq, item.error ?? null, retryCount]);
  const leaseReleased = await settleBatch(tx, {
    tenant,
    queue: frame.queue,
    partition: frame.partition,
    group,
    batchEnd: Number(pc.batch_end_seq),
    leaseId,
  });
  if (leaseReleased) released.add(frame.queue);
  return outcome(status, retryCount, leaseReleased);
}
