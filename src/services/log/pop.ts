// pop — hands a batch of frames to a consumer of a group, leasing the partition (or completing the
// frames at once with autoAck), and long-polls when asked. The consumer model is described in
// ./settle.ts.
//
// Every transaction is short: a long-poll waits between transactions, holding no connection
// (embedded PGlite runs one transaction at a time).
import type { Frame } from '../../contract/log.ts';
import { isoSql, bytesOf } from '../../db/sql.ts';
import { inTransaction } from '../../db/transaction.ts';
import { openStored } from '../../payload.ts';
import { queueConfig } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';
import { settleBatch } from './settle.ts';

/** A notification is only a hint: a waiting pop re-checks the log at least this often. */
export const POP_RECHECK_MS = 1_000;
/** Payload bytes one pop hands out at most (the first frame always goes): 16 MiB. */
export const POP_BATCH_BYTES = 16 * 1024 * 1024;

export interface PopRequest {
  queue: string;
  partition?: string;
  consumerGroup: string;
  batch: number;
  autoAck: boolean;
  wait: boolean;
  timeoutMs: number;
}

/** What a long-poll listens to besides the log: the caller hanging up. */
export interface PopDeps extends LogDeps {
  signal: AbortSignal;
}

/**
 * joinGroup — gives the group a cursor on each partition of the queue it has not seen yet. Cursor
 * 0: a new named group starts at the beginning of every partition (it sees the whole log).
 * $1 tenant, $2 queue, $3 group, $4 partition|null (all). Locks: new rows. Rows: 0..n.
 */
const JOIN_GROUP_SQL = `
INSERT INTO partition_consumers (tenant, queue, partition, consumer_group)
SELECT p.tenant, p.queue, p.name, $3 FROM partitions p
 WHERE p.tenant = $1 AND p.queue = $2 AND ($4::text IS NULL OR p.name = $4)
   AND NOT EXISTS (SELECT 1 FROM partition_consumers c
                    WHERE c.tenant = p.tenant AND c.queue = p.queue AND c.partition = p.name AND c.consumer_group = $3)
ON CONFLICT DO NOTHING`;

/**
 * pickPartition — one unleased (or lease-expired) partition with an unsettled frame after the
 * cursor, least recently served first (round-robin across partitions); a concurrent pop of the
 * same group skips it (SKIP LOCKED) and takes another partition.
 * $1 tenant, $2 queue, $3 group, $4 partition|null. Locks: one partition_consumers row.
 * Rows: 0 or 1.
 */
const PICK_PARTITION_SQL = `
SELECT c.partition, c.cursor_seq, p.id::text AS partition_id
  FROM partition_consumers c
  JOIN partitions p ON p.tenant = c.tenant AND p.queue = c.queue AND p.name = c.partition
 WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3 AND ($4::text IS NULL OR c.partition = $4)
   AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
   AND EXISTS (
     SELECT 1 FROM messages m
      WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition AND m.seq > c.cursor_seq
        AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                         WHERE d.tenant = m.tenant AND d.consumer_group = c.consumer_group AND d.message_seq = m.seq
                           AND d.status <> 'failed'))
 ORDER BY c.updated_at, c.partition
 LIMIT 1
   FOR UPDATE OF c SKIP LOCKED`;

/**
 * readBatch — the first unsettled frames after the cursor, in seq order (failed ones come back in
 * their place, so order survives a retry). It also stops at POP_BATCH_BYTES of payload (always at
 * least one frame): a response carries each payload twice (base64 and data), and one too large to
 * serialise would fail after the lease was taken, again and again.
 * $1 tenant, $2 queue, $3 partition, $4 group, $5 cursor, $6 batch size, $7 byte budget.
 * Locks: none. Rows: 1..batch.
 */
const READ_BATCH_SQL = `
SELECT seq, id, transaction_id, payload, encrypted, producer_sub, created_at FROM (
  SELECT m.seq, m.id::text AS id, m.transaction_id, m.payload, m.encrypted, m.producer_sub,
         ${isoSql('m.created_at')} AS created_at,
         sum(octet_length(m.payload)) OVER (ORDER BY m.seq) - octet_length(m.payload) AS bytes_before
    FROM messages m
   WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = $3 AND m.seq > $5
     AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                      WHERE d.tenant = m.tenant AND d.consumer_group = $4 AND d.message_seq = m.seq AND d.status <> 'failed')
   ORDER BY m.seq
   LIMIT $6) b
 WHERE b.bytes_before < $7
 ORDER BY seq`;

/**
 * completeAll — autoAck: the frames are completed as they are handed out; no lease is taken.
 * $1 tenant, $2 group, $3 seqs. Locks: the delivery rows. Rows: one per frame.
 */
const COMPLETE_ALL_SQL = `
INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status)
SELECT $1, $2, unnest($3::bigint[]), 'completed'
ON CONFLICT (tenant, consumer_group, message_seq)
DO UPDATE SET status = 'completed', lease_id = NULL, updated_at = now()`;

/**
 * leasePartition — leases the partition to this consumer for the queue's leaseTime, on
 * PostgreSQL's clock. $1 tenant, $2 queue, $3 partition, $4 group, $5 lease seconds, $6 batch end
 * seq. Locks: the consumer row (already held). Rows: 1.
 */
const LEASE_PARTITION_SQL = `
UPDATE partition_consumers
   SET lease_id = gen_random_uuid(), lease_expires_at = now() + make_interval(secs => $5::integer),
       batch_end_seq = $6, updated_at = now()
 WHERE tenant = $1 AND queue = $2 AND partition = $3 AND consumer_group = $4
RETURNING lease_id::text AS lease_id`;

interface FrameRow {
  seq: number;
  id: string;
  transaction_id: string;
  payload: Uint8Array;
  encrypted: boolean;
  producer_sub: string;
  created_at: string;
}

/**
 * Pops one batch, long-polling when asked. The wait happens between transactions: a listener
 * for pushes to this tenant's queue is armed before the first look, so a push that lands between
 * a look and the wait is never missed, and the log is re-checked every POP_RECHECK_MS anyway
 * (a notification is only a hint; leases also expire without one).
 */
export async function pop(deps: PopDeps, caller: Caller, req: PopRequest): Promise<Frame[]> {
  const { tenant } = caller;
  if (!req.wait) return popOnce(deps, tenant, req);
  let signalled: boolean;
  let wake: (() => void) | undefined;
  const off = deps.notifier.onMessages((e) => {
    if (e.tenant !== tenant || e.queue !== req.queue) return;
    signalled = true;
    wake?.();
  });
  // A draining broker answers its long-polls at once (204) rather than lease frames to
  // connections it is about to close.
  const offDrain = deps.notifier.onDrain(() => wake?.());
  const onGone = () => wake?.();
  deps.signal.addEventListener('abort', onGone);
  const deadline = Date.now() + req.timeoutMs;
  try {
    for (;;) {
      signalled = false;
      // The caller hung up: take no lease on its behalf.
      if (deps.signal.aborted) return [];
      const frames = await popOnce(deps, tenant, req);
      const remaining = deadline - Date.now();
      if (frames.length > 0 || remaining <= 0 || deps.notifier.draining) return frames;
      if (signalled) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, POP_RECHECK_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    off();
    offDrain();
    deps.signal.removeEventListener('abort', onGone);
  }
}

async function popOnce(deps: LogDeps, tenant: string, req: PopRequest): Promise<Frame[]> {
  const group = req.consumerGroup;
  const partitionFilter = req.partition ?? null;
  return inTransaction(deps.db.pool, async (tx) => {
    await tx.query(JOIN_GROUP_SQL, [tenant, req.queue, group, partitionFilter]);
    const picked = await tx.query<{ partition: string; cursor_seq: number; partition_id: string }>(PICK_PARTITION_SQL, [
      tenant,
      req.queue,
      group,
      partitionFilter,
    ]);
    const target = picked.rows[0];
    if (!target) return [];
    const batch = await tx.query<FrameRow>(READ_BATCH_SQL, [
      tenant,
      req.queue,
      target.partition,
      group,
      Number(target.cursor_seq),
      req.batch,
      POP_BATCH_BYTES,
    ]);
    const seqs = batch.rows.map((r) => Number(r.seq));
    const batchEnd = seqs[seqs.length - 1];
    let leaseId: string | null = null;
    if (req.autoAck) {
      await tx.query(COMPLETE_ALL_SQL, [tenant, group, seqs]);
      await settleBatch(tx, { tenant, queue: req.queue, partition: target.partition, group, batchEnd, leaseId: null });
    } else {
      const { leaseTimeSeconds } = await queueConfig(tx, tenant, req.queue);
      const leased = await tx.query<{ lease_id: string }>(LEASE_PARTITION_SQL, [
        tenant,
        req.queue,
        target.partition,
        group,
        leaseTimeSeconds,
        batchEnd,
      ]);
      leaseId = leased.rows[0].lease_id;
    }
    const frames: Frame[] = [];
    for (const row of batch.rows) {
      frames.push({
        id: row.id,
        transactionId: row.transaction_id,
        partitionId: target.partition_id,
        partition: target.partition,
        queue: req.queue,
        consumerGroup: group,
        leaseId,
        producerSub: row.producer_sub,
        createdAt: row.created_at,
        ...(await openStored(deps.cipher, bytesOf(row.payload), row.encrypted)),
      });
    }
    return frames;
  });
}
