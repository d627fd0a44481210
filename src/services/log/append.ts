// append — the only way a frame enters the log. Push, dead-letter replay and the sweeper's fire all
// append through here, so all of them take the partition lock below; a second way to insert into
// `messages` would be a path that forgot it.
//
// Why the lock: a frame's seq is drawn when it is inserted but becomes visible when its
// transaction commits. Two transactions appending to one partition could therefore commit out of
// seq order, and a pop that settled the later frame would move the partition's cursor past the
// earlier one — which would then never be delivered. Holding the partition rows from before the
// insert until commit makes commit order equal seq order within each partition. Rows are locked in
// key order, so appenders never deadlock on each other.
//
// The same statement records each partition's newest seq (partitions.last_seq) and mirrors it onto
// the partition's consumer rows, which is how a consumer group finds the partitions that have work
// for it with one index (src/services/log/pop.ts). A partition that never held a frame has no
// consumer rows (a group's registration skips it: ./groups.ts); its first append gives it one per
// group first (joinGroups).
import { byteOrder, tenantPin } from '../../db/sql.ts';
import { commitWith, inTurn, runStatement, type Queryable } from '../../db/transaction.ts';
import { ensurePartitions, joinGroups } from '../queues.ts';

/** A partition appended to: the unit of the append lock. */
export interface PartitionKey {
  tenant: string;
  queue: string;
  partition: string;
}

/**
 * lockPartitionsForAppend — $1 tenants, $2 queues, $3 partitions (parallel arrays, distinct, in
 * key order). Locks: those partition rows, FOR UPDATE, in that order, until commit. Rows: one per
 * existing partition, with what binds a frame appended to it: its queue's encryption at rest and
 * its tenant's payload ceiling and storage limit overrides (null: the cell default), and its newest
 * seq (0: it never held a frame). Each row is looked up by its key (a lateral probe, whatever the
 * statistics say). $4: the tenants again, to pin every table to them on Citus, which then routes
 * the statement to the one shard group they share (a push has one tenant, a fire takes one shard
 * group's: src/sweeper/shardGroups.ts); null on PostgreSQL, where a list of a fire's thousand
 * tenants beside each key would be a thousand index probes per key (src/db/sql.ts tenantPin).
 */
export const LOCK_PARTITIONS_SQL = `
SELECT k.tenant, k.queue, k.name AS partition, p.last_seq::float8 AS last_seq,
       coalesce((SELECT q.encryption_enabled FROM queues q
                  WHERE q.tenant = k.tenant AND ${tenantPin('q', '$4')} AND q.name = k.queue), false) AS encrypted,
       (SELECT t.max_payload_bytes FROM tenants t WHERE t.tenant = k.tenant AND ${tenantPin('t', '$4')}) AS max_payload_bytes,
       (SELECT t.storage_limit_bytes FROM tenants t WHERE t.tenant = k.tenant AND ${tenantPin('t', '$4')})::float8 AS storage_limit_bytes
  FROM unnest($1::text[], $2::text[], $3::text[]) AS k(tenant, queue, name)
 CROSS JOIN LATERAL (
       SELECT p.last_seq FROM partitions p
        WHERE p.tenant = k.tenant AND ${tenantPin('p', '$4')} AND p.queue = k.queue AND p.name = k.name FOR UPDATE OF p) p`;

/**
 * How an appending statement takes the append lock itself (AppendOptions.lockedInStatement):
 * `held`, every partition must exist and have held a frame (it has its consumer rows); `joining`,
 * the partitions were locked and joined to their consumer groups by statements before it, in the
 * same write (append), and every partition must exist.
 */
export type LockedHere = 'held' | 'joining';

/**
 * The append lock inside the appending statement itself, as a condition its source puts on its
 * rows (the sweeper's fires, src/sweeper/fireClaimed.ts and fireDue.ts): true when every partition
 * of `keys` (a FROM item of distinct (tenant, queue, name) rows in key order; `count` says how
 * many) exists and, `held`, has held a frame, each then locked FOR UPDATE in that order, as
 * lockPartitionsForAppend locks. The source evaluates it before its first row, so before the
 * insert draws a seq; when it is false the source yields no frame (and the caller appends again
 * through append(), which creates partitions and consumer rows). A scalar subquery runs once per
 * statement; each key is looked up by a lateral probe, as above. Not on Citus (the fire takes the
 * lock statement there, see fireClaimed.ts).
 */
export const partitionsLockedHere = (keys: string, count: string, mode: LockedHere) => `
(SELECT count(*) FROM ${keys}
  CROSS JOIN LATERAL (
        SELECT 1 FROM partitions p
         WHERE p.tenant = k.tenant AND p.queue = k.queue AND p.name = k.name${mode === 'held' ? ' AND p.last_seq > 0' : ''} FOR UPDATE OF p) p
) = ${count}`;

/** partitionsLockedHere over $7, $8, $9 (tenants, queues, names: partitionKeys' arrays). */
export const partitionsLockedHereByKeys = (mode: LockedHere) =>
  partitionsLockedHere('unnest($7::text[], $8::text[], $9::text[]) AS k(tenant, queue, name)', 'cardinality($7::text[])', mode);

/** The distinct partitions of `partitions`, in key (byte) order: the order every append locks them in. */
export function partitionKeys(partitions: PartitionKey[]): PartitionKey[] {
  return [...new Map(partitions.map((k) => [`${k.tenant}\u0000${k.queue}\u0000${k.partition}`, k])).values()].sort(
    (a, b) => byteOrder(a.tenant, b.tenant) || byteOrder(a.queue, b.queue) || byteOrder(a.partition, b.partition),
  );
}

/** A partition locked for an append, with what binds the frames appended to it. */
export interface LockedPartition extends PartitionKey {
  /** Its queue encrypts payloads at rest. */
  encrypted: boolean;
  /** Its tenant's plan override of the payload ceiling; null: the cell default. */
  max_payload_bytes: number | null;
  /** Its tenant's plan override of the storage limit; null: the cell default. */
  storage_limit_bytes: number | null;
  /** Its newest seq; 0: it never held a frame, and has no consumer rows yet. */
  last_seq: number;
}

/**
 * The frames to append, as SQL: `ctes` is a list of WITH items ending in one named `frames` with
 * the columns (ord, tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub,
 * timer_key, deliver_at, trace_id, traceparent); frames enter the log in `ord` order (seq follows it). `params` are its
 * parameters. `after`: more WITH items, which may read `appended` (the rows inserted: tenant,
 * queue, partition, seq, id, transaction_id, lag). `result` is the statement's final SELECT, over
 * `appended` and the source's CTEs; by default the appended rows. The fragments are constants of
 * the callers, never input.
 */
export interface FrameSource {
  ctes: string;
  params: unknown[];
  /** The frames' created_at, as SQL over the source's CTEs; by default the transaction's now(). */
  createdAt?: string;
  /** Names the lock and the insert as prepared statements (src/db/transaction.ts `statement`): the sweeper's own connections only. */
  name?: string;
  after?: string;
  result?: string;
  /** The frames' tenants as a text[] SQL expression over `params` (e.g. '$6'), or null there (src/db/sql.ts tenantPin): on Citus it pins the statement to their one shard. */
  tenants: string;
}

/**
 * The log's one insert statement. A txn already in its partition is skipped (the log's dedupe on
 * (tenant, queue, partition, transaction_id), which also makes a repeat within one source
 * harmless); message ids are fresh uuids, so the other unique key never conflicts in practice.
 * `lag` is created_at − deliver_at in seconds on PostgreSQL's clock, for timer frames (null for
 * pushed ones). Then each partition's newest seq goes to its row and to its consumer rows, locked
 * in key order (an ack batch holding some of them never deadlocks with an append).
 *
 * The consumer rows are updated by key, not by the ctid their lock returned. A pop or an ack
 * updates them without the partition lock; when one commits while this statement waits for the
 * row, FOR UPDATE locks and returns the row's newest version, which this statement's snapshot does
 * not see: an UPDATE joined on that ctid found nothing and dropped the mirror silently, and the
 * group did not see the frame until the next append (test/log-append-order.test.ts). Joined on the
 * key, the UPDATE finds the version it sees and EvalPlanQual moves it to the newest one. The
 * partition row needs no such care (this transaction has held it since lockPartitionsForAppend);
 * it is updated by key too, as Citus routes no modification that addresses rows by ctid through
 * another CTE. The source's tenants (`tenants`) pin the consumer rows' lock, so that on Citus the
 * statement runs on the one shard group they share. The text needs none of the source's
 * parameters nor its name (a statement built once, like the sweeper's, has neither yet).
 */
export const appendSql = (s: Omit<FrameSource, 'params' | 'name'>) => {
  const pin = (alias: string) => tenantPin(alias, s.tenants);
  return `
WITH ${s.ctes},
appended AS (
  INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub, timer_key, deliver_at, trace_id,
                        traceparent, created_at)
  SELECT f.tenant, f.id, f.queue, f.partition, f.transaction_id, f.payload, f.encrypted, f.producer_sub, f.timer_key, f.deliver_at,
         f.trace_id, f.traceparent, ${s.createdAt ?? 'now()'}
    FROM frames f
   ORDER BY f.ord
  ON CONFLICT DO NOTHING
  RETURNING tenant, queue, partition, seq, id::text AS id, transaction_id,
            extract(epoch FROM created_at - deliver_at)::float8 AS lag
),
newest AS (
  SELECT tenant, queue, partition, max(seq) AS seq FROM appended
   GROUP BY tenant, queue, partition
   ORDER BY tenant, queue, partition
),
bumped AS (
  UPDATE partitions p SET last_seq = n.seq FROM newest n
   WHERE p.tenant = n.tenant AND p.queue = n.queue AND p.name = n.partition
),
consumer_rows AS MATERIALIZED (
  SELECT n.tenant, n.queue, n.partition, x.consumer_group, n.seq FROM newest n
   CROSS JOIN LATERAL (SELECT c.consumer_group FROM partition_consumers c
                        WHERE c.tenant = n.tenant AND ${pin('c')} AND c.queue = n.queue AND c.partition = n.partition
                        ORDER BY c.consumer_group
                          FOR UPDATE OF c) x
),
mirrored AS (
  UPDATE partition_consumers c SET last_seq = r.seq FROM consumer_rows r
   WHERE c.tenant = r.tenant AND c.queue = r.queue AND c.partition = r.partition AND c.consumer_group = r.consumer_group
)${s.after ? `,\n${s.after}` : ''}
${s.result ?? 'SELECT * FROM appended'}`;
};

export interface AppendOptions {
  /** Runs once the partitions are locked, before the insert: may refuse the append (throw) or rewrite the source's parameters (encrypt payloads). */
  prepare?: (locked: LockedPartition[]) => void | Promise<void>;
  /** The insert is the transaction's last statement: it goes out with the COMMIT (commitWith). */
  commit?: boolean;
  /** LOCK_PARTITIONS_SQL's $4 and joinGroups' pin: by default the partitions' tenants (a push's one); the sweeper's fire passes its own (null on PostgreSQL). */
  pin?: string[] | null;
  /**
   * The source locks the partitions itself (partitionsLockedHere) and yields no frame unless each
   * exists and, `held`, has held a frame: no lock statement goes first, so the statement (with its
   * COMMIT, and the BEGIN before it) leaves in one write. `joining`: the lock statement and
   * joinGroups go first in that same write, without awaiting their answers, so a partition's first
   * frame needs no round trip more either; for the others joinGroups locks and writes nothing. Neither
   * creates partitions; `prepare` is not called.
   */
  lockedInStatement?: LockedHere;
}

/**
 * Appends frames to `partitions`, creating the missing ones. Must run inside a transaction, which
 * then holds the partitions until it ends.
 */
export async function append<R extends Record<string, unknown>>(
  tx: Queryable,
  partitions: PartitionKey[],
  source: FrameSource,
  { prepare, commit, pin = [...new Set(partitions.map((k) => k.tenant))], lockedInStatement }: AppendOptions = {},
): Promise<R[]> {
  if (partitions.length === 0) return [];
  const text = appendSql(source);
  const run = () => (commit ? commitWith<R>(tx, text, source.params, source.name) : runStatement<R>(tx, text, source.params, source.name));
  // Issued before any await: the statement leaves in the write that carries BEGIN (transaction.ts).
  if (lockedInStatement === 'held') return (await run()).rows;
  const keys = partitionKeys(partitions);
  const lockParams = [keys.map((k) => k.tenant), keys.map((k) => k.queue), keys.map((k) => k.partition), pin];
  const lock = async () =>
    (await runStatement<LockedPartition>(tx, LOCK_PARTITIONS_SQL, lockParams, source.name && `${source.name}:lock`)).rows;
  if (lockedInStatement === 'joining') {
    // The partitions first, then the queues, as below: the order every append takes them in.
    const [, , ran] = await inTurn(tx, [lock, () => joinGroups(tx, keys, pin, source.name), run]);
    return ran.rows;
  }
  // Schedule creates its partitions ahead, so a fire's lock finds them all; a push's first frame
  // in a partition (or a timer written straight into the table) creates it here.
  let locked = await lock();
  if (locked.length < keys.length) {
    for (const tenant of new Set(keys.map((k) => k.tenant))) {
      await ensurePartitions(
        tx,
        tenant,
        keys.filter((k) => k.tenant === tenant),
      );
    }
    locked = await lock();
  }
  await prepare?.(locked);
  // A partition's first frame: its consumer rows first. The queue lock is then taken after
  // partition locks, against the usual order: a consumer group registering on that queue at that
  // instant waits for this append, or (when this append also holds a partition that already has
  // frames, which the registration locks) deadlocks with it, and the runner's replay (or the
  // sweeper's free retry of a transient failure) settles it. On a pipelining connection the queue
  // lock, the consumer rows and the append leave in one write (joinGroups says why that is safe).
  const first = locked.filter((l) => Number(l.last_seq) === 0);
  const [, ran] = await inTurn(tx, [() => joinGroups(tx, first, pin, source.name), run]);
  return ran.rows;
}
