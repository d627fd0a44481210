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
import { isoSql } from '../../db/sql.ts';
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
 * findFrames — the frames named by (partitionId, transactionId), in the caller's tenant.
 * $1 tenant, $2 partition ids, $3 txns (parallel). Locks: none. Rows: one per item found (ord is
 * the item's 1-based position).
 */
export const FIND_FRAMES_SQL = `
SELECT i.ord::int AS ord, m.seq, m.queue, m.partition
  FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS i(pid, txn, ord)
  JOIN partitions p ON p.tenant = $1 AND p.id = i.pid
  JOIN messages m ON m.tenant = $1 AND m.queue = p.queue AND m.partition = p.name AND m.transaction_id = i.txn`;

/**
 * lockConsumers — the consumer state of each (queue, partition, group), locked against concurrent
 * pops, acks and appends, in key order (as the append locks them).
 * $1 tenant, $2 queues, $3 partitions, $4 groups (parallel). Locks: those consumer rows.
 * Rows: one per existing row.
 */
export const LOCK_CONSUMERS_SQL = `
SELECT c.queue, c.partition, c.consumer_group, c.cursor_seq, c.lease_id::text AS lease_id, c.batch_end_seq,
       coalesce(c.lease_expires_at > now(), false) AS live
  FROM partition_consumers c
  JOIN unnest($2::text[], $3::text[], $4::text[]) AS k(queue, partition, grp)
    ON c.tenant = $1 AND c.queue = k.queue AND c.partition = k.partition AND c.consumer_group = k.grp
 ORDER BY c.queue, c.partition, c.consumer_group
   FOR UPDATE OF c`;

/**
 * priorVerdicts — the frames' verdicts so far. $1 tenant, $2 groups, $3 seqs (parallel).
 * Locks: those delivery rows, in key order. Rows: one per existing verdict.
 */
export const PRIOR_VERDICTS_SQL = `
SELECT d.consumer_group, d.message_seq, d.status, d.retry_count, d.lease_id::text AS lease_id
  FROM message_deliveries d
  JOIN unnest($2::text[], $3::bigint[]) AS k(grp, seq) ON d.tenant = $1 AND d.consumer_group = k.grp AND d.message_seq = k.seq
 ORDER BY d.consumer_group, d.message_seq
   FOR UPDATE OF d`;

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
  FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[]) WITH ORDINALITY AS k(grp, seq, error, retries, ord)
  JOIN messages m ON m.tenant = $1 AND m.seq = k.seq
 ORDER BY k.ord`;

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
  const found = await tx.query<{ ord: number; seq: number; queue: string; partition: string }>(FIND_FRAMES_SQL, [
    tenant,
    items.map((i) => i.partitionId),
    items.map((i) => i.transactionId),
  ]);
  const frames = new Map(found.rows.map((r) => [r.ord - 1, { seq: Number(r.seq), queue: r.queue, partition: r.partition }]));
  const located = items.map((item, i) => ({ item, frame: frames.get(i) }));

  const pairs = new Map<string, { queue: string; partition: string; group: string }>();
  for (const { item, frame } of located) {
    if (frame) pairs.set(pairKey(frame.queue, frame.partition, item.consumerGroup), { ...frame, group: item.consumerGroup });
  }
  const pairList = [...pairs.values()];
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
  const judged = located.filter((l) => l.frame);
  const verdicts = new Map<string, Verdict>();
  if (judged.length > 0) {
    const prior = await tx.query<Verdict & { consumer_group: string; message_seq: number }>(PRIOR_VERDICTS_SQL, [
      tenant,
      judged.map((l) => l.item.consumerGroup),
      judged.map((l) => l.frame!.seq),
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
