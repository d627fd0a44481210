// ack — records consumers' verdicts on popped frames: completed, failed (redelivered up to the
// queue's retryLimit, then dead-lettered) or dlq, and settles the batches whose last frame is
// judged (./settle.ts).
//
// Set-based: a request of any size (up to 1,000 acks) costs a fixed number of statements — find
// the frames, lock their consumer rows, read their verdicts so far, then write the new verdicts,
// the dead letters and the settled batches, each in one statement. The rules are applied to the
// items in request order in memory, as if each were acked on its own.
import type { AckStatus } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plans.ts';
import { byteOrder, isoSql } from '../../db/sql.ts';
import { inTransaction, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import type { Caller, LogDeps } from './deps.ts';
import { settleBatches, type LeasedBatch } from './settle.ts';

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
 * findPartitions — the partitions named by id in the caller's tenant (partitions_id: unique on
 * the id alone, so the planner knows a probe finds one row whatever the statistics say).
 * $1 tenant, $2 partition ids. Locks: none. Rows: one per partition found.
 */
export const FIND_PARTITIONS_SQL = `
SELECT i.pid::text AS id, p.queue, p.name
  FROM unnest($2::uuid[]) AS i(pid)
 CROSS JOIN LATERAL (SELECT p.queue, p.name FROM partitions p WHERE p.id = i.pid AND p.tenant = $1 LIMIT 1) p`;

/**
 * batchFrames — the frames of live leased batches: for each (queue, partition, cursor, batch end)
 * one index range of at most one batch. An ack names its frame by txn; matching the txns against
 * these in memory keeps the lookup bounded by the batch, where a per-item probe by txn may walk
 * the whole partition (without statistics the planner rates messages_partition_seq as cheap as
 * the txn's unique key).
 * $1 tenant, $2 queues, $3 partitions, $4 cursors, $5 batch ends (parallel). Locks: none.
 * Rows: one per frame in those ranges. (OFFSET 0 keeps the range a subquery run per range, which
 * the planner would otherwise flatten into a join free to scan the table.)
 */
export const BATCH_FRAMES_SQL = `
SELECT k.queue, k.partition, m.seq, m.transaction_id
  FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS k(queue, partition, cursor_seq, end_seq)
 CROSS JOIN LATERAL (SELECT m.seq, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition
                        AND m.seq > k.cursor_seq AND m.seq <= k.end_seq
                     OFFSET 0) m`;

/**
 * findFrames — frames by (queue, partition, txn): the acks that named no frame of a live batch
 * (a repeated or late ack: the rare path). $1 tenant, $2 queues, $3 partitions, $4 txns
 * (parallel). Locks: none. Rows: one per frame found.
 */
export const FIND_FRAMES_SQL = `
SELECT k.queue, k.partition, m.seq, m.transaction_id
  FROM unnest($2::text[], $3::text[], $4::text[]) AS k(queue, partition, txn)
 CROSS JOIN LATERAL (SELECT m.seq, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition AND m.transaction_id = k.txn
                      LIMIT 1) m`;

/**
 * lockConsumers — the consumer state of each (queue, partition, group), locked against concurrent
 * pops, acks and appends, in the order given (the caller sorts by key, as the append locks).
 * $1 tenant, $2 queues, $3 partitions, $4 groups (parallel). Locks: those consumer rows.
 * Rows: one per existing row.
 */
export const LOCK_CONSUMERS_SQL = `
SELECT c.*
  FROM unnest($2::text[], $3::text[], $4::text[]) AS k(queue, partition, grp)
 CROSS JOIN LATERAL (
       SELECT c.queue, c.partition, c.consumer_group, c.cursor_seq, c.lease_id::text AS lease_id, c.batch_end_seq,
              coalesce(c.lease_expires_at > now(), false) AS live
         FROM partition_consumers c
        WHERE c.tenant = $1 AND c.queue = k.queue AND c.partition = k.partition AND c.consumer_group = k.grp
          FOR UPDATE OF c) c`;

/**
 * priorVerdicts — the frames' verdicts so far. $1 tenant, $2 groups, $3 seqs (parallel, in the
 * order to lock them). Locks: those delivery rows. Rows: one per existing verdict.
 */
export const PRIOR_VERDICTS_SQL = `
SELECT d.*
  FROM unnest($2::text[], $3::bigint[]) AS k(grp, seq)
 CROSS JOIN LATERAL (
       SELECT d.consumer_group, d.message_seq, d.status, d.retry_count, d.lease_id::text AS lease_id
         FROM message_deliveries d
        WHERE d.tenant = $1 AND d.consumer_group = k.grp AND d.message_seq = k.seq
          FOR UPDATE OF d) d`;

/** retryLimits — $1 tenant, $2 queue names. Locks: none. Rows: one per existing queue. */
const RETRY_LIMITS_SQL = 'SELECT name, retry_limit FROM queues WHERE tenant = $1 AND name = ANY($2::text[])';

/** now — no parameters. PostgreSQL's clock as a wire instant. Rows: 1. */
const NOW_SQL = `SELECT ${isoSql('now()')} AS now`;

/**
 * recordVerdicts — $1 tenant, $2 groups, $3 seqs, $4 statuses, $5 retry counts, $6 leases
 * (parallel; one element per frame). Locks: the delivery rows. Rows: one per element.
 */
const RECORD_VERDICTS_SQL = `
INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count, lease_id)
SELECT $1, v.grp, v.seq, v.status, v.retries, v.lease
  FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[], $6::uuid[]) AS v(grp, seq, status, retries, lease)
ON CONFLICT (tenant, consumer_group, message_seq)
DO UPDATE SET status = EXCLUDED.status, retry_count = EXCLUDED.retry_count, lease_id = EXCLUDED.lease_id, updated_at = now()`;

/**
 * deadLetterFrames — the frames' stored bytes go to their group's dead letters as they are (still
 * encrypted when the frame is): a consumer's dead letter, replayable.
 * $1 tenant, $2 groups, $3 seqs, $4 errors|null, $5 retry counts (parallel). Locks: the new rows.
 * Rows: one per element, in order.
 */
const DEAD_LETTER_FRAMES_SQL = `
INSERT INTO dead_letters (tenant, queue, partition, consumer_group, message_id, transaction_id, payload, encrypted,
                          producer_sub, error_message, retry_count, timer_key)
SELECT m.tenant, m.queue, m.partition, k.grp, m.id, m.transaction_id, m.payload, m.encrypted,
       m.producer_sub, k.error, k.retries, m.timer_key
  FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[]) AS k(grp, seq, error, retries)
 CROSS JOIN LATERAL (SELECT m.* FROM messages m WHERE m.tenant = $1 AND m.seq = k.seq LIMIT 1) m`;

interface Consumer {
  cursor_seq: number;
  lease_id: string | null;
  batch_end_seq: number | null;
  live: boolean;
}

interface Verdict {
  status: AckStatus;
  retry_count: number;
  lease_id: string | null;
}

const pairKey = (queue: string, partition: string, group: string) => `${queue}\u0000${partition}\u0000${group}`;
const verdictKey = (group: string, seq: number) => `${group}\u0000${seq}`;
/**
 * Acks frames in one transaction; each item answers an outcome or an ApiError (batch acks report
 * per item; a single ack throws it). Outcomes come back in input order.
 */
export async function ack(deps: LogDeps, caller: Caller, items: AckItem[]): Promise<(AckOutcome | ApiError)[]> {
  const { tenant } = caller;
  const { outcomes, released } = await inTransaction(deps.db.pool, (tx) => judge(tx, tenant, items), { setup: setLocal(INDEX_PLANS) });
  // A released lease with frames behind it (a failure to redeliver, newer frames): wake a waiter.
  for (const r of released) if (r.more) deps.notifier.messagesPushed(tenant, r.queue, [r.partition], r.group);
  return outcomes;
}

async function judge(tx: Queryable, tenant: string, items: AckItem[]) {
  // The partitions the acks name, then their consumer rows, locked in key order (as every
  // transaction that holds several consumer rows takes them).
  const named = await tx.query<{ id: string; queue: string; name: string }>(FIND_PARTITIONS_SQL, [
    tenant,
    [...new Set(items.map((i) => i.partitionId.toLowerCase()))],
  ]);
  const partitionOf = new Map(named.rows.map((r) => [r.id, { queue: r.queue, partition: r.name }]));
  const pairs = new Map<string, { queue: string; partition: string; group: string }>();
  for (const item of items) {
    const p = partitionOf.get(item.partitionId.toLowerCase());
    if (p) pairs.set(pairKey(p.queue, p.partition, item.consumerGroup), { ...p, group: item.consumerGroup });
  }
  const pairList = [...pairs.values()].sort(
    (a, b) => byteOrder(a.queue, b.queue) || byteOrder(a.partition, b.partition) || byteOrder(a.group, b.group),
  );
  const consumers = new Map<string, Consumer>();
  if (pairList.length > 0) {
    const locked = await tx.query<Consumer & { queue: string; partition: string; consumer_group: string }>(LOCK_CONSUMERS_SQL, [
      tenant,
      pairList.map((p) => p.queue),
      pairList.map((p) => p.partition),
      pairList.map((p) => p.group),
    ]);
    for (const r of locked.rows) consumers.set(pairKey(r.queue, r.partition, r.consumer_group), r);
  }

  // The frames: those of the live batches first, then the rest by txn.
  const seqOf = new Map<string, number>();
  const frameKey = (queue: string, partition: string, txn: string) => `${queue}\u0000${partition}\u0000${txn}`;
  const ranges = [
    ...new Map(
      pairList
        .map((p) => ({ ...p, c: consumers.get(pairKey(p.queue, p.partition, p.group)) }))
        .filter((p) => p.c?.lease_id && p.c.batch_end_seq !== null)
        .map((p) => [`${p.queue}\u0000${p.partition}\u0000${p.c!.cursor_seq}\u0000${p.c!.batch_end_seq}`, p]),
    ).values(),
  ];
  if (ranges.length > 0) {
    const r = await tx.query<{ queue: string; partition: string; seq: number; transaction_id: string }>(BATCH_FRAMES_SQL, [
      tenant,
      ranges.map((p) => p.queue),
      ranges.map((p) => p.partition),
      ranges.map((p) => p.c!.cursor_seq),
      ranges.map((p) => p.c!.batch_end_seq),
    ]);
    for (const row of r.rows) seqOf.set(frameKey(row.queue, row.partition, row.transaction_id), Number(row.seq));
  }
  const missing = items
    .map((item) => ({ item, p: partitionOf.get(item.partitionId.toLowerCase()) }))
    .filter(({ item, p }) => p && !seqOf.has(frameKey(p.queue, p.partition, item.transactionId)));
  if (missing.length > 0) {
    const r = await tx.query<{ queue: string; partition: string; seq: number; transaction_id: string }>(FIND_FRAMES_SQL, [
      tenant,
      missing.map((m) => m.p!.queue),
      missing.map((m) => m.p!.partition),
      missing.map((m) => m.item.transactionId),
    ]);
    for (const row of r.rows) seqOf.set(frameKey(row.queue, row.partition, row.transaction_id), Number(row.seq));
  }
  const located = items.map((item) => {
    const p = partitionOf.get(item.partitionId.toLowerCase());
    const seq = p && seqOf.get(frameKey(p.queue, p.partition, item.transactionId));
    return { item, frame: p && seq !== undefined ? { ...p, seq } : undefined };
  });

  const judged = located.filter((l) => l.frame);
  const verdicts = new Map<string, Verdict>();
  if (judged.length > 0) {
    const keys = [...new Map(judged.map((l) => [verdictKey(l.item.consumerGroup, l.frame!.seq), l])).values()].sort(
      (a, b) => byteOrder(a.item.consumerGroup, b.item.consumerGroup) || a.frame!.seq - b.frame!.seq,
    );
    const prior = await tx.query<Verdict & { consumer_group: string; message_seq: number }>(PRIOR_VERDICTS_SQL, [
      tenant,
      keys.map((l) => l.item.consumerGroup),
      keys.map((l) => l.frame!.seq),
    ]);
    for (const r of prior.rows) verdicts.set(verdictKey(r.consumer_group, Number(r.message_seq)), r);
  }
  const limits = new Map<string, number>();
  const failing = [...new Set(judged.filter((l) => l.item.status === 'failed').map((l) => l.frame!.queue))];
  if (failing.length > 0) {
    const r = await tx.query<{ name: string; retry_limit: number }>(RETRY_LIMITS_SQL, [tenant, failing]);
    for (const row of r.rows) limits.set(row.name, row.retry_limit);
  }
  const now = (await tx.query<{ now: string }>(NOW_SQL)).rows[0].now;

  // The rules, item by item, against the state the earlier items left.
  const written: { group: string; seq: number; status: AckStatus; retries: number; lease: string }[] = [];
  const dead: { group: string; seq: number; error: string | null; retries: number }[] = [];
  const lastJudgeOf = new Map<string, number>();
  const outcomes: (AckOutcome | ApiError)[] = located.map(({ item, frame }, index) => {
    const group = item.consumerGroup;
    const outcome = (status: AckStatus, retryCount: number): AckOutcome => ({
      transactionId: item.transactionId,
      partitionId: item.partitionId,
      status,
      consumerGroup: group,
      retryCount,
      leaseReleased: false,
      acknowledgedAt: now,
    });
    if (!frame) {
      return new ApiError('not_found', `no frame with transactionId "${item.transactionId}" in partition ${item.partitionId}`, {
        field: 'transactionId',
      });
    }
    const pc = consumers.get(pairKey(frame.queue, frame.partition, group));
    const prior = verdicts.get(verdictKey(group, frame.seq));
    // Final verdicts are idempotent: a retried ack answers the verdict already recorded. A frame
    // the cursor passed without a verdict was completed by an autoAck pop.
    if (prior && prior.status !== 'failed') return outcome(prior.status, prior.retry_count);
    if (!prior && pc && frame.seq <= Number(pc.cursor_seq)) return outcome('completed', 0);

    const inLiveBatch = pc && pc.live && pc.lease_id !== null && frame.seq > Number(pc.cursor_seq) && frame.seq <= Number(pc.batch_end_seq);
    if (!inLiveBatch || (item.leaseId != null && item.leaseId !== pc.lease_id)) {
      return new ApiError(
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
      if (retryCount > (limits.get(frame.queue) ?? 3)) status = 'dlq';
    }
    verdicts.set(verdictKey(group, frame.seq), { status, retry_count: retryCount, lease_id: leaseId });
    written.push({ group, seq: frame.seq, status, retries: retryCount, lease: leaseId });
    if (status === 'dlq') dead.push({ group, seq: frame.seq, error: item.error ?? null, retries: retryCount });
    lastJudgeOf.set(pairKey(frame.queue, frame.partition, group), index);
    return outcome(status, retryCount);
  });

  if (written.length > 0) {
    await tx.query(RECORD_VERDICTS_SQL, [
      tenant,
      written.map((w) => w.group),
      written.map((w) => w.seq),
      written.map((w) => w.status),
      written.map((w) => w.retries),
      written.map((w) => w.lease),
    ]);
  }
  if (dead.length > 0) {
    await tx.query(DEAD_LETTER_FRAMES_SQL, [
      tenant,
      dead.map((d) => d.group),
      dead.map((d) => d.seq),
      dead.map((d) => d.error),
      dead.map((d) => d.retries),
    ]);
  }
  const batches: LeasedBatch[] = [...lastJudgeOf.keys()].map((k) => {
    const p = pairs.get(k)!;
    return { queue: p.queue, partition: p.partition, group: p.group, leaseId: consumers.get(k)!.lease_id! };
  });
  const released = await settleBatches(tx, tenant, batches);
  // The ack that judged a batch's last frame is the one that released it.
  for (const r of released) {
    const o = outcomes[lastJudgeOf.get(pairKey(r.queue, r.partition, r.group))!];
    if (!(o instanceof ApiError)) o.leaseReleased = true;
  }
  return { outcomes, released };
}
