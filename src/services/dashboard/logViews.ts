// The log as the dashboard shows it: a queue's partitions with their depth, its consumer groups
// with their lag, the leases held, and a partition's frames by position. Reading consumes nothing.
import type { FrameList, GroupLag, LeaseList, PartitionList } from '../../contract/dashboard.ts';
import type { Database } from '../../db/index.ts';
import type { Queryable } from '../../db/transaction.ts';
import { isoSql } from '../../db/sql.ts';
import { ApiError } from '../../errors.ts';
import { COUNT_CAP, capped, cappedCount } from './counts.ts';

type Deps = { db: Database };
type Tenant = { tenant: string };

/** Partitions a lag reads the oldest unconsumed frame of, at most: the oldest among them is shown. */
export const LAG_PARTITIONS_READ = 1_000;

/** The consumer rows of group g that have frames after their cursor (last_seq is kept by the append). */
const BEHIND = `SELECT pc.partition, pc.cursor_seq FROM partition_consumers pc
   WHERE pc.tenant = $1 AND pc.queue = $2 AND pc.consumer_group = g.consumer_group AND pc.last_seq > pc.cursor_seq`;

/** The frames after the cursor of consumer row b (of the messages key, in seq order). */
const AFTER_CURSOR = 'messages m WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = b.partition AND m.seq > b.cursor_seq';

/**
 * groupLags — $1 tenant, $2 queue, $3 exclusive cursor|null, $4 limit + 1, $5 the count cap,
 * $6 partitions read for the oldest frame. Locks: none. Rows: 0..$4 groups by name in byte order,
 * each with frames behind (capped: the first $5 frames after the cursors), partitions behind
 * (capped), the oldest unconsumed frame's created_at (among the first $6 partitions behind) and
 * the live leases.
 */
const GROUP_LAGS_SQL = `
SELECT g.consumer_group,
  (SELECT count(*) FROM (SELECT 1 FROM (${BEHIND} LIMIT $5) b
     CROSS JOIN LATERAL (SELECT 1 FROM ${AFTER_CURSOR} LIMIT $5) f LIMIT $5) c)::int AS frames_behind,
  (SELECT count(*) FROM (${BEHIND} LIMIT $5) b)::int AS partitions_behind,
  ${isoSql('o.oldest')} AS oldest_at, extract(epoch FROM now() - o.oldest)::float8 AS oldest_age,
  (SELECT count(*) FROM partition_consumers pc WHERE pc.tenant = $1 AND pc.queue = $2 AND pc.consumer_group = g.consumer_group
      AND pc.lease_id IS NOT NULL AND pc.lease_expires_at > now())::int AS leases
FROM (SELECT consumer_group FROM consumer_groups
       WHERE tenant = $1 AND queue = $2 AND ($3::text IS NULL OR consumer_group > $3::text COLLATE "C")
       ORDER BY consumer_group COLLATE "C" LIMIT $4) g
CROSS JOIN LATERAL (
  SELECT min(first.created_at) AS oldest FROM (${BEHIND} LIMIT $6) b
   CROSS JOIN LATERAL (SELECT m.created_at FROM ${AFTER_CURSOR} ORDER BY m.seq LIMIT 1) first
) o
ORDER BY g.consumer_group COLLATE "C"`;

interface GroupRow {
  consumer_group: string;
  frames_behind: number;
  partitions_behind: number;
  oldest_at: string | null;
  oldest_age: number | null;
  leases: number;
}

/** Up to `limit` consumer groups of a queue after `after`, with their lag; `more` when others follow. */
export async function groupLags(
  db: Queryable,
  tenant: string,
  queue: string,
  after: string | undefined,
  limit: number,
): Promise<{ rows: GroupLag[]; more: boolean }> {
  const r = await db.query<GroupRow>(GROUP_LAGS_SQL, [tenant, queue, after ?? null, limit + 1, COUNT_CAP, LAG_PARTITIONS_READ]);
  const rows = r.rows.slice(0, limit).map((g) => ({
    consumerGroup: g.consumer_group,
    framesBehind: capped(g.frames_behind),
    partitionsBehind: capped(g.partitions_behind),
    oldestUnconsumedAt: g.oldest_at,
    oldestUnconsumedAgeSeconds: g.oldest_age === null ? null : Math.max(0, Number(g.oldest_age)),
    leasesHeld: Number(g.leases),
  }));
  return { rows, more: r.rows.length > limit };
}

export async function listGroups(deps: Deps, caller: Tenant, queue: string, after: string | undefined, limit: number) {
  const { rows, more } = await groupLags(deps.db.pool, caller.tenant, queue, after, limit);
  return { rows, truncated: more, nextAfter: rows.length ? rows[rows.length - 1]!.consumerGroup : null };
}

/**
 * partitions — $1 tenant, $2 queue, $3 exclusive cursor|null, $4 limit + 1, $5 the count cap.
 * Locks: none. Rows: 0..$4 partitions by name in byte order with their frames (capped count on the
 * messages key).
 */
const PARTITIONS_SQL = `
SELECT p.name, p.last_seq::float8 AS last_seq, ${isoSql('p.created_at')} AS created_at,
  ${cappedCount('messages m WHERE m.tenant = p.tenant AND m.queue = p.queue AND m.partition = p.name', '$5')} AS frames
  FROM partitions p
 WHERE p.tenant = $1 AND p.queue = $2 AND ($3::text IS NULL OR p.name > $3::text COLLATE "C")
 ORDER BY p.name COLLATE "C" LIMIT $4`;

export async function listPartitions(
  deps: Deps,
  caller: Tenant,
  queue: string,
  after: string | undefined,
  limit: number,
): Promise<PartitionList> {
  const r = await deps.db.pool.query<{ name: string; last_seq: number; created_at: string; frames: number }>(PARTITIONS_SQL, [
    caller.tenant,
    queue,
    after ?? null,
    limit + 1,
    COUNT_CAP,
  ]);
  const rows = r.rows.slice(0, limit).map((p) => ({
    partition: p.name,
    frames: capped(p.frames),
    lastSeq: Number(p.last_seq),
    createdAt: p.created_at,
  }));
  return { rows, truncated: r.rows.length > limit, nextAfter: rows.length ? rows[rows.length - 1]!.partition : null };
}

/**
 * leases — $1 tenant, $2 queue, $3 exclusive cursor partition|null, $4 its consumer group, $5 limit + 1.
 * Locks: none. Rows: 0..$5 live leases by (partition, consumer group) in byte order.
 */
const LEASES_SQL = `
SELECT partition, consumer_group, ${isoSql('lease_expires_at')} AS expires_at, batch_end_seq::float8 AS batch_end_seq
  FROM partition_consumers
 WHERE tenant = $1 AND queue = $2 AND lease_id IS NOT NULL AND lease_expires_at > now()
   AND ($3::text IS NULL OR (partition COLLATE "C", consumer_group COLLATE "C") > ($3::text COLLATE "C", $4::text COLLATE "C"))
 ORDER BY partition COLLATE "C", consumer_group COLLATE "C" LIMIT $5`;

/** The lease cursor: the last row's partition and group, as JSON (both may hold any printable text). */
function leaseCursor(after: string | undefined): [string | null, string | null] {
  if (after === undefined) return [null, null];
  try {
    const v: unknown = JSON.parse(after);
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return [v[0], v[1]];
  } catch {
    // refused below
  }
  throw new ApiError('validation_failed', 'after: not a cursor of this list; pass the nextAfter of the previous page as it came', {
    field: 'after',
  });
}

export async function listLeases(deps: Deps, caller: Tenant, queue: string, after: string | undefined, limit: number): Promise<LeaseList> {
  const [p, g] = leaseCursor(after);
  const r = await deps.db.pool.query<{ partition: string; consumer_group: string; expires_at: string; batch_end_seq: number | null }>(
    LEASES_SQL,
    [caller.tenant, queue, p, g, limit + 1],
  );
  const rows = r.rows.slice(0, limit).map((l) => ({
    consumerGroup: l.consumer_group,
    partition: l.partition,
    expiresAt: l.expires_at,
    batchEndSeq: l.batch_end_seq === null ? null : Number(l.batch_end_seq),
  }));
  const last = rows[rows.length - 1];
  return { rows, truncated: r.rows.length > limit, nextAfter: last ? JSON.stringify([last.partition, last.consumerGroup]) : null };
}

/**
 * frames — $1 tenant, $2 queue, $3 partition, $4 exclusive seq cursor, $5 limit + 1. Locks: none.
 * Rows: 0..$5 frames of the partition by seq on the messages key, payloads as stored (base64).
 */
const FRAMES_SQL = `
SELECT seq::float8 AS seq, id::text AS id, transaction_id, ${isoSql('created_at')} AS created_at, producer_sub, timer_key,
  ${isoSql('deliver_at')} AS deliver_at, encrypted, octet_length(payload) AS bytes,
  translate(encode(payload, 'base64'), E'\\n', '') AS payload
  FROM messages
 WHERE tenant = $1 AND queue = $2 AND partition = $3 AND seq > $4
 ORDER BY seq LIMIT $5`;

interface FrameSqlRow {
  seq: number;
  id: string;
  transaction_id: string;
  created_at: string;
  producer_sub: string;
  timer_key: string | null;
  deliver_at: string | null;
  encrypted: boolean;
  bytes: number;
  payload: string;
}

export async function listFrames(
  deps: Deps,
  caller: Tenant,
  queue: string,
  partition: string,
  after: number,
  limit: number,
): Promise<FrameList> {
  const r = await deps.db.pool.query<FrameSqlRow>(FRAMES_SQL, [caller.tenant, queue, partition, after, limit + 1]);
  const rows = r.rows.slice(0, limit).map((f) => ({
    seq: Number(f.seq),
    id: f.id,
    transactionId: f.transaction_id,
    createdAt: f.created_at,
    producerSub: f.producer_sub,
    timerKey: f.timer_key,
    deliverAt: f.deliver_at,
    encrypted: f.encrypted,
    bytes: Number(f.bytes),
    payload: f.payload,
  }));
  return { rows, truncated: r.rows.length > limit, nextAfter: rows.length ? String(rows[rows.length - 1]!.seq) : null };
}
