// ack — commits consumers' acks on popped frames, as Queen's broker does (the rule is in
// ./settle.ts): a completed ack moves the group's cursor onto its frame; the lowest failed, retry
// or dlq frame of a call stops it there and releases the lease (failed redelivers up to the
// queue's retryLimit, then dead-letters; retry spends none of it; dlq dead-letters at once).
//
// Set-based: a request of any size (up to 1,000 acks) costs the same few statements — locate the
// partitions and lock their consumer rows, read the frames of the leased batches with their
// failure counts, then write the failures, the dead letters and the new cursors in one statement.
//
// Why the consumer row lock is enough: every move of a group's cursor on a partition, and every
// write of its failure counts there, happens under that group's consumer row for that partition,
// so once this transaction holds the row what it reads stays true until it commits.
import type { AckRequest, AckStatus } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { isoSql } from '../../db/sql.ts';
import { commitWith, inTransaction, runStatement, statementName, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { DEFAULT_RETRY_LIMIT } from '../queues.ts';
import { INSERT_DEAD_LETTERS } from './deadLetterInsert.ts';
import type { Caller, LogDeps } from './deps.ts';
import { commitOf, type Claim, type Released } from './settle.ts';

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
  queueName: string;
  partitionName: string;
  consumerGroup: string;
  /** What the ack did to the frame: completed (committed), failed (to be redelivered) or dlq. */
  status: AckStatus;
  /** The frame's failures so far (a failure past the queue's retryLimit dead-letters it). */
  retryCount: number;
  /** The partition's lease was released by this call: the batch is done, or a failure redelivers it. */
  leaseReleased: boolean;
  /** A completed ack of a frame already committed: nothing changed. */
  noop?: true;
  /** Not committed: an earlier failure in the same call stopped the cursor before this frame. */
  redelivered?: true;
  acknowledgedAt: string;
}

/**
 * locate — the (partition, group) pairs the acks name: each partition looked up by id in the
 * caller's tenant (UNIQUE (tenant, id): both bound, so a probe finds one row whatever the
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
       c.cursor_seq, c.lease_id, c.batch_end_seq, c.delivered_seq, c.last_seq, c.live,
       coalesce((SELECT q.retry_limit FROM queues q WHERE q.tenant = $1 AND q.name = n.queue), ${DEFAULT_RETRY_LIMIT}) AS retry_limit,
       ${isoSql('now()')} AS now
  FROM named n
  LEFT JOIN LATERAL (
       SELECT c.cursor_seq, c.lease_id::text AS lease_id, c.batch_end_seq, c.delivered_seq, c.last_seq,
              coalesce(c.lease_expires_at > now(), false) AS live
         FROM partition_consumers c
        WHERE c.tenant = $1 AND c.queue = n.queue AND c.partition = n.name AND c.consumer_group = n.grp
          FOR UPDATE OF c) c ON true`;

/** A frame's verdict for group `grp`, as columns of a lateral probe (primary key). */
const VERDICT_OF = (grp: string) => `
 LEFT JOIN LATERAL (SELECT d.status, d.retry_count FROM message_deliveries d
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
SELECT k.queue, k.partition, k.grp AS consumer_group, m.seq, m.transaction_id, d.status, d.retry_count
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
SELECT k.queue, k.partition, k.grp AS consumer_group, m.seq, m.transaction_id, d.status, d.retry_count
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS k(queue, partition, txn, grp)
 CROSS JOIN LATERAL (SELECT m.seq, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition AND m.transaction_id = k.txn
                      LIMIT 1) m
${VERDICT_OF('k.grp')}`;

/**
 * writeVerdicts — in one statement: the failures (retry counts) and dlq verdicts; the dead letters
 * (the frames' stored bytes go to their group's dead letters as they are, still encrypted when the
 * frame is: replayable); and the commits (each consumer row's new cursor, and its lease released
 * when the call says so; each row found and updated by its key: Citus routes no modification that
 * addresses rows by ctid through another CTE). $1 tenant; verdicts $2 groups, $3 seqs, $4 statuses, $5 retry counts, $6 leases;
 * dead letters $7 groups, $8 queues, $9 partitions, $10 seqs, $11 errors|null, $12 retry counts;
 * commits $13 queues, $14 partitions, $15 groups, $16 cursors, $17 releases (each set parallel). Locks: the delivery
 * rows, the new dead letters, the consumer rows (already held). Rows: none.
 */
export const WRITE_VERDICTS_SQL = `
WITH verdicts AS (
  INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count, lease_id)
  SELECT $1, v.grp, v.seq, v.status, v.retries, v.lease
    FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[], $6::uuid[]) AS v(grp, seq, status, retries, lease)
  ON CONFLICT (tenant, consumer_group, message_seq)
  DO UPDATE SET status = EXCLUDED.status, retry_count = EXCLUDED.retry_count, lease_id = EXCLUDED.lease_id, updated_at = EXCLUDED.updated_at
),
dead AS (
  ${INSERT_DEAD_LETTERS}
  SELECT m.tenant, m.queue, m.partition, k.grp, m.id, m.transaction_id, m.payload, m.encrypted,
         false, m.producer_sub, k.error, k.retries, false, m.timer_key
    FROM unnest($7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::int[]) AS k(grp, queue, partition, seq, error, retries)
   CROSS JOIN LATERAL (SELECT m.* FROM messages m
                        WHERE m.tenant = $1 AND m.queue = k.queue AND m.partition = k.partition AND m.seq = k.seq LIMIT 1) m
),
commits AS (
  SELECT * FROM unnest($13::text[], $14::text[], $15::text[], $16::bigint[], $17::boolean[]) AS s(queue, partition, grp, cursor_seq, release)
)
UPDATE partition_consumers c
   SET cursor_seq = greatest(c.cursor_seq, s.cursor_seq),
       lease_id = CASE WHEN s.release THEN NULL ELSE c.lease_id END,
       lease_expires_at = CASE WHEN s.release THEN NULL ELSE c.lease_expires_at END,
       batch_end_seq = CASE WHEN s.release THEN NULL ELSE c.batch_end_seq END,
       updated_at = now()
  FROM commits s
 WHERE c.tenant = $1 AND c.queue = s.queue AND c.partition = s.partition AND c.consumer_group = s.grp`;

/** A located (partition, group) pair: its consumer row (absent: the group never popped it). */
interface Located {
  partition_id: string;
  queue: string;
  partition: string;
  consumer_group: string;
  cursor_seq: number | null;
  lease_id: string | null;
  batch_end_seq: number | null;
  delivered_seq: number | null;
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
}

/** The acks of a call on one located pair that reach past its cursor. */
interface PairClaims {
  pc: Located;
  claims: (Claim & { index: number })[];
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
 * `commit`: the write is that transaction's last statement and goes out with its COMMIT.
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
    await runStatement<Located>(
      tx,
      LOCATE_SQL,
      [tenant, named.map((i) => i.partitionId.toLowerCase()), named.map((i) => i.consumerGroup)],
      statementName(tx, 'qt_ack_locate'),
    )
  ).rows;
  const byName = new Map(located.map((l) => [`${l.partition_id}\u0000${l.consumer_group}`, l]));
  const pairFor = (item: AckItem) => byName.get(`${item.partitionId.toLowerCase()}\u0000${item.consumerGroup}`);

  // The frames: the leased batches' first (one index range each), then the rest by txn; each
  // with the group's verdict so far.
  const frames = new Map<string, FrameRow>();
  const leased = located.filter((l) => l.lease_id !== null && l.batch_end_seq !== null);
  if (leased.length > 0) {
    const r = await runStatement<FrameRow>(
      tx,
      BATCH_FRAMES_SQL,
      [
        tenant,
        leased.map((l) => l.queue),
        leased.map((l) => l.partition),
        leased.map((l) => l.consumer_group),
        leased.map((l) => l.cursor_seq),
        leased.map((l) => l.batch_end_seq),
      ],
      statementName(tx, 'qt_ack_batch_frames'),
    );
    for (const row of r.rows) frames.set(frameKey(pairKey(row.queue, row.partition, row.consumer_group), row.transaction_id), row);
  }
  const frameOf = (item: AckItem, pc: Located) =>
    frames.get(frameKey(pairKey(pc.queue, pc.partition, pc.consumer_group), item.transactionId));
  const missing = items.filter((item) => {
    const pc = pairFor(item);
    return pc && !frameOf(item, pc);
  });
  if (missing.length > 0) {
    const r = await runStatement<FrameRow>(
      tx,
      FIND_FRAMES_SQL,
      [
        tenant,
        missing.map((i) => pairFor(i)!.queue),
        missing.map((i) => pairFor(i)!.partition),
        missing.map((i) => i.transactionId),
        missing.map((i) => i.consumerGroup),
      ],
      statementName(tx, 'qt_ack_find_frames'),
    );
    for (const row of r.rows) frames.set(frameKey(pairKey(row.queue, row.partition, row.consumer_group), row.transaction_id), row);
  }

  // Each ack: refused, answered at once (at or below the cursor), or a claim on its pair.
  const outcomes: (AckOutcome | ApiError)[] = new Array(items.length);
  const outcome = (item: AckItem, pc: Located, status: AckStatus, retryCount: number): AckOutcome => ({
    transactionId: item.transactionId,
    partitionId: item.partitionId,
    queueName: pc.queue,
    partitionName: pc.partition,
    consumerGroup: item.consumerGroup,
    status,
    retryCount,
    leaseReleased: false,
    acknowledgedAt: pc.now,
  });
  const claimed = new Map<string, PairClaims>();
  const failuresOf = new Map<string, number>();
  items.forEach((item, index) => {
    const pc = pairFor(item);
    const frame = pc && frameOf(item, pc);
    if (!pc || !frame) {
      outcomes[index] = new ApiError('not_found', `no frame with transactionId "${item.transactionId}" in partition ${item.partitionId}`, {
        field: 'transactionId',
      });
      return;
    }
    const refusal = refuse(item, pc, Number(frame.seq));
    if (refusal === 'noop') {
      outcomes[index] = { ...outcome(item, pc, 'completed', 0), noop: true };
      return;
    }
    if (refusal) {
      outcomes[index] = refusal;
      return;
    }
    const pair = pairKey(pc.queue, pc.partition, pc.consumer_group);
    const entry = claimed.get(pair) ?? { pc, claims: [] };
    entry.claims.push({ seq: Number(frame.seq), status: item.status, index });
    claimed.set(pair, entry);
    if (frame.status === 'failed') failuresOf.set(`${pair}\u0000${frame.seq}`, frame.retry_count!);
  });

  // Each pair's claims commit together (./settle.ts).
  const written: { group: string; seq: number; status: AckStatus; retries: number; lease: string | null }[] = [];
  const dead: { group: string; queue: string; partition: string; seq: number; error: string | null; retries: number }[] = [];
  const commits: { queue: string; partition: string; group: string; cursor: number; release: boolean }[] = [];
  const released: Released[] = [];
  for (const [pair, { pc, claims }] of claimed) {
    const group = pc.consumer_group;
    const cursor = Number(pc.cursor_seq);
    const batchEnd = pc.batch_end_seq === null ? null : Number(pc.batch_end_seq);
    const commit = commitOf(cursor, claims);
    let to = commit.cursor;
    let headVerdict: { status: AckStatus; retries: number } | undefined;
    const { head } = commit;
    if (head) {
      let retries = failuresOf.get(`${pair}\u0000${head.seq}`) ?? 0;
      let status: AckStatus = head.status === 'dlq' ? 'dlq' : 'failed';
      // retryLimit counts redeliveries after a failure: limit 3 = up to 4 deliveries, then DLQ.
      if (head.status === 'failed' && ++retries > pc.retry_limit) status = 'dlq';
      headVerdict = { status, retries };
      if (head.status !== 'retry') written.push({ group, seq: head.seq, status, retries, lease: pc.lease_id });
      if (status === 'dlq') {
        const error = claims.find((c) => c.seq === head.seq && c.status === head.status)!;
        dead.push({ group, queue: pc.queue, partition: pc.partition, seq: head.seq, error: items[error.index].error ?? null, retries });
        to = head.seq;
      }
    }
    const release = batchEnd !== null && (head !== undefined || to >= batchEnd);
    if (to > cursor || release) commits.push({ queue: pc.queue, partition: pc.partition, group, cursor: to, release });
    if (release) released.push({ queue: pc.queue, partition: pc.partition, group, more: to < Number(pc.last_seq) });
    for (const c of claims) {
      const item = items[c.index];
      const o =
        head && c.seq === head.seq && c.status !== 'completed'
          ? outcome(item, pc, headVerdict!.status, headVerdict!.retries)
          : c.seq <= to && c.status === 'completed'
            ? outcome(item, pc, 'completed', 0)
            : {
                ...outcome(item, pc, c.status === 'completed' ? 'completed' : 'failed', failuresOf.get(`${pair}\u0000${c.seq}`) ?? 0),
                redelivered: true as const,
              };
      o.leaseReleased = release;
      outcomes[c.index] = o;
    }
  }

  if (written.length + commits.length > 0) {
    const params = [
      tenant,
      written.map((w) => w.group),
      written.map((w) => w.seq),
      written.map((w) => w.status),
      written.map((w) => w.retries),
      written.map((w) => w.lease),
      dead.map((d) => d.group),
      dead.map((d) => d.queue),
      dead.map((d) => d.partition),
      dead.map((d) => d.seq),
      dead.map((d) => d.error),
      dead.map((d) => d.retries),
      commits.map((c) => c.queue),
      commits.map((c) => c.partition),
      commits.map((c) => c.group),
      commits.map((c) => c.cursor),
      commits.map((c) => c.release),
    ];
    // The transaction's last statement, when the caller says so: it goes out with the COMMIT.
    const name = statementName(tx, 'qt_ack_write');
    await (commit ? commitWith(tx, WRITE_VERDICTS_SQL, params, name) : runStatement(tx, WRITE_VERDICTS_SQL, params, name));
  }
  return { outcomes, released };
}

/**
 * Why an ack of the frame at `seq` cannot claim it, if it cannot: 'noop' for a completed ack of a
 * committed frame, else the refusal. A lease is checked only when the ack names one (Queen's rule:
 * an ack without leaseId is accepted after its lease expired); without one, the ack may reach the
 * frames of the recorded batch, or those ever handed out when there is none.
 */
function refuse(item: AckItem, pc: Located, seq: number): ApiError | 'noop' | undefined {
  const group = item.consumerGroup;
  if (pc.cursor_seq === null) {
    return new ApiError('lease_mismatch', `consumer group "${group}" never popped partition ${item.partitionId}`, {
      field: 'consumerGroup',
    });
  }
  if (seq <= Number(pc.cursor_seq)) {
    if (item.status === 'completed') return 'noop';
    return new ApiError(
      'already_committed',
      `frame "${item.transactionId}" is already committed for consumer group "${group}" (a later frame was acked, or it was dead-lettered): a ${item.status} ack cannot redeliver it`,
      { field: 'status' },
    );
  }
  if (item.leaseId != null && (item.leaseId.toLowerCase() !== pc.lease_id || !pc.live)) {
    return new ApiError(
      'lease_mismatch',
      `invalid or expired lease: leaseId ${item.leaseId} is not the live lease of this partition for consumer group "${group}"; the frame will be redelivered`,
      { field: 'leaseId' },
    );
  }
  if (seq > Number(pc.batch_end_seq ?? pc.delivered_seq)) {
    return new ApiError('lease_mismatch', `frame "${item.transactionId}" was not handed out to consumer group "${group}": pop it first`, {
      field: 'transactionId',
    });
  }
  return undefined;
}
