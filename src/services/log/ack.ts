// ack — records consumers' verdicts on popped frames: completed, failed (redelivered up to the
// queue's retryLimit, then dead-lettered) or dlq, and settles the batches whose last frame is
// judged (./settle.ts).
//
// Set-based: a request of any size (up to 1,000 acks) costs the same few statements — locate the
// partitions and lock their consumer rows, read the frames of the leased batches with their
// verdicts so far, then write the new verdicts, the dead letters and the settled batches in one
// statement. The rules are applied to the items in request order in memory, as if each were acked
// on its own.
//
// Why the consumer row lock is enough: every write of a group's verdicts on a partition's frames
// (here, and an autoAck pop completing failed frames) happens under that group's consumer row for
// that partition, so once this transaction holds the row the verdicts it reads stay true until it
// commits.
import type { AckRequest, AckStatus } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plans.ts';
import { isoSql } from '../../db/sql.ts';
import { commitWith, inTransaction, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { DEFAULT_RETRY_LIMIT } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';
import { cursorAfterBatch, type BatchFrame, type Released } from './settle.ts';

export interface AckItem {
  transactionId: string;
  partitionId: string;
  status: AckRequest;
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
 * locate — the (partition, group) pairs the acks name: each partition looked up by id in the
 * caller's tenant (partitions_id: unique on the id alone, so a probe finds one row whatever the
 * statistics say), then its consumer row for the group locked against concurrent pops, acks and
 * appends, in key order (queue, partition, group: as every transaction that holds several consumer
 * rows takes them). With each pair: the queue's retryLimit and PostgreSQL's clock.
 * $1 tenant, $2 partition ids, $3 groups (parallel, distinct pairs). Locks: the consumer rows.
 * Rows: one per pair whose partition exists (consumer columns null when the group never popped it).
 */
export const LOCATE_SQL = `
WITH named AS MATERIALIZED (
  SELECT k.pid, k.grp, p.queue, p.name
    FROM unnest($2::uuid[], $3::text[]) AS k(pid, grp)
   CROSS JOIN LATERAL (SELECT p.queue, p.name FROM partitions p WHERE p.id = k.pid AND p.tenant = $1 LIMIT 1) p
   ORDER BY p.queue, p.name, k.grp
)
SELECT n.pid::text AS partition_id, n.queue, n.name AS partition, n.grp AS consumer_group,
       c.cursor_seq, c.lease_id, c.batch_end_seq, c.last_seq, c.live,
       coalesce((SELECT q.retry_limit FROM queues q WHERE q.tenant = $1 AND q.name = n.queue), ${DEFAULT_RETRY_LIMIT}) AS retry_limit,
       ${isoSql('now()')} AS now
  FROM named n
  LEFT JOIN LATERAL (
       SELECT c.cursor_seq, c.lease_id::text AS lease_id, c.batch_end_seq, c.last_seq,
              coalesce(c.lease_expires_at > now(), false) AS live
         FROM partition_consumers c
        WHERE c.tenant = $1 AND c.queue = n.queue AND c.partition = n.name AND c.consumer_group = n.grp
          FOR UPDATE OF c) c ON true`;

/** A frame's verdict for group `grp`, as columns of a lateral probe (primary key). */
const VERDICT_OF = (grp: string) => `
 LEFT JOIN LATERAL (SELECT d.status, d.retry_count, d.lease_id::text AS verdict_lease FROM message_deliveries d
                     WHERE d.tenant = $1 AND d.consumer_group = ${grp} AND d.message_seq = m.seq LIMIT 1) d ON true`;

/**
 * batchFrames — the frames of leased batches, with the group's verdict on each: for each
 * (queue, partition, group, cursor, batch end) one index range of at most one batch. An ack names
 * its frame by txn; matching the txns against these in memory keeps the lookup bounded by the
 * batch, where a per-item probe by txn may walk the whole partition (without statistics the
 * planner rates messages_partition_seq as cheap as the txn's unique key).
 * $1 tenant, $2 queues, $3 partitions, $4 groups, $5 cursors, $6 batch ends (parallel). Locks:
 * none. Rows: one per frame in those ranges, in seq order within each. (OFFSET 0 keeps the range
 * a subquery run per range, which the planner would otherwise flatten into a join free to scan
 * the table.)
 */
export const BATCH_FRAMES_SQL = `
SELECT k.queue, k.partition, k.grp AS consumer_group, m.seq, m.transaction_id, d.status, d.retry_count, d.verdict_lease
  FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS k(queue, partition, grp, cursor_seq, end_seq)
 CROSS JOIN LATERAL (SELECT m.seq, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition
                        AND m.seq > k.cursor_seq AND m.seq <= k.end_seq
                      ORDER BY m.seq
                     OFFSET 0) m
${VERDICT_OF('k.grp')}`;

/**
 * findFrames — frames by (queue, partition, txn), with the group's verdict: the acks that named
 * no frame of a leased batch (a repeated or late ack: the rare path). $1 tenant, $2 queues,
 * $3 partitions, $4 txns, $5 groups (parallel). Locks: none. Rows: one per frame found.
 */
export const FIND_FRAMES_SQL = `
SELECT k.queue, k.partition, k.grp AS consumer_group, m.seq, m.transaction_id, d.status, d.retry_count, d.verdict_lease
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS k(queue, partition, txn, grp)
 CROSS JOIN LATERAL (SELECT m.seq, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition AND m.transaction_id = k.txn
                      LIMIT 1) m
${VERDICT_OF('k.grp')}`;

/**
 * writeVerdicts — in one statement: the new verdicts; the dead letters (the frames' stored bytes
 * go to their group's dead letters as they are, still encrypted when the frame is: replayable);
 * and the settled batches (the cursor moves to where ./settle.ts computed, the lease is released;
 * each consumer row found by key, then updated by its ctid, which stays put while it is locked).
 * $1 tenant; verdicts $2 groups, $3 seqs, $4 statuses, $5 retry counts, $6 leases; dead letters
 * $7 groups, $8 seqs, $9 errors|null, $10 retry counts; settled $11 queues, $12 partitions,
 * $13 groups, $14 leases, $15 cursors (each set parallel). Locks: the delivery rows, the new dead
 * letters, the consumer rows (already held). Rows: none.
 */
export const WRITE_VERDICTS_SQL = `
WITH verdicts AS (
  INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count, lease_id)
  SELECT $1, v.grp, v.seq, v.status, v.retries, v.lease
    FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[], $6::uuid[]) AS v(grp, seq, status, retries, lease)
  ON CONFLICT (tenant, consumer_group, message_seq)
  DO UPDATE SET status = EXCLUDED.status, retry_count = EXCLUDED.retry_count, lease_id = EXCLUDED.lease_id, updated_at = now()
),
dead AS (
  INSERT INTO dead_letters (tenant, queue, partition, consumer_group, message_id, transaction_id, payload, encrypted,
                            producer_sub, error_message, retry_count, timer_key)
  SELECT m.tenant, m.queue, m.partition, k.grp, m.id, m.transaction_id, m.payload, m.encrypted,
         m.producer_sub, k.error, k.retries, m.timer_key
    FROM unnest($7::text[], $8::bigint[], $9::text[], $10::int[]) AS k(grp, seq, error, retries)
   CROSS JOIN LATERAL (SELECT m.* FROM messages m WHERE m.tenant = $1 AND m.seq = k.seq LIMIT 1) m
),
settled AS (
  SELECT x.tid, s.cursor_seq
    FROM unnest($11::text[], $12::text[], $13::text[], $14::uuid[], $15::bigint[]) AS s(queue, partition, grp, lease, cursor_seq)
   CROSS JOIN LATERAL (SELECT c.ctid AS tid FROM partition_consumers c
                        WHERE c.tenant = $1 AND c.queue = s.queue AND c.partition = s.partition AND c.consumer_group = s.grp
                          AND c.lease_id = s.lease
                        LIMIT 1) x
)
UPDATE partition_consumers c
   SET cursor_seq = s.cursor_seq, lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL, updated_at = now()
  FROM settled s
 WHERE c.ctid = s.tid`;

/** A located (partition, group) pair: its consumer row (absent: the group never popped it). */
interface Located {
  partition_id: string;
  queue: string;
  partition: string;
  consumer_group: string;
  cursor_seq: number | null;
  lease_id: string | null;
  batch_end_seq: number | null;
  last_seq: number | null;
  live: boolean | null;
  retry_limit: number;
  now: string;
}

/** A frame row of BATCH_FRAMES_SQL / FIND_FRAMES_SQL: the frame and the group's verdict so far. */
interface FrameRow {
  queue: string;
  partition: string;
  consumer_group: string;
  seq: number;
  transaction_id: string;
  status: AckStatus | null;
  retry_count: number | null;
  verdict_lease: string | null;
}

interface Verdict {
  status: AckStatus;
  retry_count: number;
  lease_id: string | null;
}

const pairKey = (queue: string, partition: string, group: string) => `${queue}\u0000${partition}\u0000${group}`;
const frameKey = (pair: string, txn: string) => `${pair}\u0000${txn}`;

/**
 * Acks frames in one transaction; each item answers an outcome or an ApiError (batch acks report
 * per item; a single ack throws it). Outcomes come back in input order.
 */
export async function ack(deps: LogDeps, caller: Caller, items: AckItem[]): Promise<(AckOutcome | ApiError)[]> {
  const { tenant } = caller;
  const judged = await inTransaction(deps.db.pool, (tx) => judge(tx, tenant, items, { commit: true }), { setup: setLocal(INDEX_PLANS) });
  announceReleased(deps, tenant, judged.released);
  return judged.outcomes;
}

/** A released lease with frames behind it (a failure to redeliver, newer frames): wake a waiter. */
export function announceReleased(deps: Pick<LogDeps, 'notifier'>, tenant: string, released: Released[]): void {
  for (const r of released) if (r.more) deps.notifier.messagesPushed(tenant, r.queue, [r.partition], r.group);
}

/**
 * Judges acks inside the caller's transaction (ack's own, or a Queen transaction's).
 * `commit`: the write of the verdicts is that transaction's last statement and goes out with its
 * COMMIT.
 */
export async function judge(
  tx: Queryable,
  tenant: string,
  items: AckItem[],
  { commit }: { commit: boolean },
): Promise<{ outcomes: (AckOutcome | ApiError)[]; released: Released[] }> {
  // The pairs the items name, located and locked.
  const named = [...new Map(items.map((i) => [`${i.partitionId.toLowerCase()}\u0000${i.consumerGroup}`, i])).values()];
  const located = (
    await tx.query<Located>(LOCATE_SQL, [tenant, named.map((i) => i.partitionId.toLowerCase()), named.map((i) => i.consumerGroup)])
  ).rows;
  const byName = new Map(located.map((l) => [`${l.partition_id}\u0000${l.consumer_group}`, l]));
  const byPair = new Map(located.map((l) => [pairKey(l.queue, l.partition, l.consumer_group), l]));
  const pairFor = (item: AckItem) => byName.get(`${item.partitionId.toLowerCase()}\u0000${item.consumerGroup}`);

  // The frames: the leased batches' first (with every frame of each, to settle it), then the
  // rest by txn. The verdicts come with them.
  const frames = new Map<string, FrameRow>();
  const batchFrames = new Map<string, BatchFrame[]>();
  const leased = located.filter((l) => l.lease_id !== null && l.batch_end_seq !== null);
  if (leased.length > 0) {
    const r = await tx.query<FrameRow>(BATCH_FRAMES_SQL, [
      tenant,
      leased.map((l) => l.queue),
      leased.map((l) => l.partition),
      leased.map((l) => l.consumer_group),
      leased.map((l) => l.cursor_seq),
      leased.map((l) => l.batch_end_seq),
    ]);
    for (const row of r.rows) {
      const pair = pairKey(row.queue, row.partition, row.consumer_group);
      frames.set(frameKey(pair, row.transaction_id), row);
      const list = batchFrames.get(pair) ?? [];
      list.push({ seq: Number(row.seq) });
      batchFrames.set(pair, list);
    }
  }
  const missing = items.filter((item) => {
    const l = pairFor(item);
    return l && !frames.has(frameKey(pairKey(l.queue, l.partition, l.consumer_group), item.transactionId));
  });
  if (missing.length > 0) {
    const r = await tx.query<FrameRow>(FIND_FRAMES_SQL, [
      tenant,
      missing.map((i) => pairFor(i)!.queue),
      missing.map((i) => pairFor(i)!.partition),
      missing.map((i) => i.transactionId),
      missing.map((i) => i.consumerGroup),
    ]);
    for (const row of r.rows) frames.set(frameKey(pairKey(row.queue, row.partition, row.consumer_group), row.transaction_id), row);
  }
  const verdicts = new Map<string, Verdict>();
  const verdictKey = (group: string, seq: number) => `${group}\u0000${seq}`;
  for (const f of frames.values()) {
    if (f.status !== null) {
      verdicts.set(verdictKey(f.consumer_group, Number(f.seq)), {
        status: f.status,
        retry_count: f.retry_count!,
        lease_id: f.verdict_lease,
      });
    }
  }

  // The rules, item by item, against the state the earlier items left.
  const written: { group: string; seq: number; status: AckStatus; retries: number; lease: string }[] = [];
  const dead: { group: string; seq: number; error: string | null; retries: number }[] = [];
  const lastJudgeOf = new Map<string, number>();
  const outcomes: (AckOutcome | ApiError)[] = items.map((item, index) => {
    const group = item.consumerGroup;
    const pc = pairFor(item);
    const pair = pc && pairKey(pc.queue, pc.partition, group);
    const frame = pair && frames.get(frameKey(pair, item.transactionId));
    if (!pc || !frame) {
      return new ApiError('not_found', `no frame with transactionId "${item.transactionId}" in partition ${item.partitionId}`, {
        field: 'transactionId',
      });
    }
    const outcome = (status: AckStatus, retryCount: number): AckOutcome => ({
      transactionId: item.transactionId,
      partitionId: item.partitionId,
      status,
      consumerGroup: group,
      retryCount,
      leaseReleased: false,
      acknowledgedAt: pc.now,
    });
    const seq = Number(frame.seq);
    const prior = verdicts.get(verdictKey(group, seq));
    // Final verdicts are idempotent: a retried ack answers the verdict already recorded. A frame
    // the cursor passed without a verdict was completed by an autoAck pop.
    if (prior && prior.status !== 'failed') return outcome(prior.status, prior.retry_count);
    if (!prior && pc.cursor_seq !== null && seq <= Number(pc.cursor_seq)) return outcome('completed', 0);

    const inLiveBatch = pc.live && pc.lease_id !== null && seq > Number(pc.cursor_seq) && seq <= Number(pc.batch_end_seq);
    if (!inLiveBatch || (item.leaseId != null && item.leaseId !== pc.lease_id)) {
      return new ApiError(
        'lease_mismatch',
        item.leaseId != null && pc.lease_id && item.leaseId !== pc.lease_id
          ? `leaseId ${item.leaseId} is not the live lease of this partition for consumer group "${group}"; the frame will be redelivered to its current holder`
          : `frame "${item.transactionId}" is not leased to consumer group "${group}": its lease expired or it was never popped; it will be redelivered`,
        { field: 'leaseId' },
      );
    }
    const leaseId = pc.lease_id!;
    // Already judged under this lease (a retried "failed"): answer the recorded verdict.
    if (prior && prior.lease_id === leaseId) return outcome(prior.status, prior.retry_count);

    // Queen's retry is a failure that spends none of the budget: redelivered, never dead-lettered by it.
    let status: AckStatus = item.status === 'retry' ? 'failed' : item.status;
    let retryCount = prior?.retry_count ?? 0;
    if (item.status === 'failed') {
      retryCount += 1;
      // retryLimit counts redeliveries after a failure: limit 3 = up to 4 deliveries, then DLQ.
      if (retryCount > pc.retry_limit) status = 'dlq';
    }
    verdicts.set(verdictKey(group, seq), { status, retry_count: retryCount, lease_id: leaseId });
    written.push({ group, seq, status, retries: retryCount, lease: leaseId });
    if (status === 'dlq') dead.push({ group, seq, error: item.error ?? null, retries: retryCount });
    lastJudgeOf.set(pair, index);
    return outcome(status, retryCount);
  });

  // The batches judged here that are now settled: their cursor moves and their lease is released.
  const settled: (Released & { lease: string; cursor: number })[] = [];
  for (const pair of lastJudgeOf.keys()) {
    const pc = byPair.get(pair)!;
    const lease = pc.lease_id!;
    const cursor = cursorAfterBatch(batchFrames.get(pair) ?? [], Number(pc.batch_end_seq), lease, (seq) =>
      verdicts.get(verdictKey(pc.consumer_group, seq)),
    );
    if (cursor === undefined) continue;
    settled.push({ queue: pc.queue, partition: pc.partition, group: pc.consumer_group, lease, cursor, more: cursor < Number(pc.last_seq) });
  }
  if (written.length > 0) {
    const params = [
      tenant,
      written.map((w) => w.group),
      written.map((w) => w.seq),
      written.map((w) => w.status),
      written.map((w) => w.retries),
      written.map((w) => w.lease),
      dead.map((d) => d.group),
      dead.map((d) => d.seq),
      dead.map((d) => d.error),
      dead.map((d) => d.retries),
      settled.map((b) => b.queue),
      settled.map((b) => b.partition),
      settled.map((b) => b.group),
      settled.map((b) => b.lease),
      settled.map((b) => b.cursor),
    ];
    // The transaction's last statement, when the caller says so: it goes out with the COMMIT.
    await (commit ? commitWith(tx, WRITE_VERDICTS_SQL, params) : tx.query(WRITE_VERDICTS_SQL, params));
  }
  // The ack that judged a batch's last frame is the one that released it.
  for (const b of settled) {
    const o = outcomes[lastJudgeOf.get(pairKey(b.queue, b.partition, b.group))!];
    if (!(o instanceof ApiError)) o.leaseReleased = true;
  }
  return { outcomes, released: settled.map(({ queue, partition, group, more }) => ({ queue, partition, group, more })) };
}
