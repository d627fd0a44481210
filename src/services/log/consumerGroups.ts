// Consumer-group control: deleting a group (on one queue, or on every queue of the tenant) and
// seeking its cursors. Both take the queue lock first, as a registering group and a deleted queue
// do (LOCK_QUEUES_SQL), then the group's cursor rows, so a pop of the group in flight finishes
// before they move and the next one reads from where they were put.
//
// A deleted group is gone whole: its registration, its cursors (and the leases on them) and the
// failure counts of its frames. Its next pop registers it again as a new group (./groups.ts), with
// the subscription mode that pop asks for. Brokers cache registrations (KnownGroups); a pop that
// finds no work for a group it had cached checks that the registration still exists (./pop.ts),
// so another broker's cache never hides a delete. Dead letters stay: they are the group's record.
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction, type Queryable } from '../../db/transaction.ts';
import { LOCK_QUEUES_SQL } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';

/** groupQueues — $1 tenant, $2 group. Locks: none. Rows: one per queue the group is registered on. */
const GROUP_QUEUES_SQL = 'SELECT queue FROM consumer_groups WHERE tenant = $1 AND consumer_group = $2 ORDER BY queue';

/**
 * Forgets the group's failure counts (message_deliveries) of its queue's frames after each of
 * its cursors — those it will read again. `targets` is a CTE of (partition, cursor).
 * $1 tenant, $2 queue, $3 group. Cost: the frames after the cursors, the ones the group reads next.
 */
const FORGET_VERDICTS = `
verdicts AS (
  DELETE FROM message_deliveries d
   USING targets t, messages m
   WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = t.partition AND m.seq > t.cursor
     AND d.tenant = $1 AND d.consumer_group = $3 AND d.message_seq = m.seq
)`;

/**
 * deleteGroup — $1 tenant, $2 queue, $3 group. Deletes the group's verdicts of the queue's frames,
 * its cursors and its registration. Locks: those rows (the cursors FOR UPDATE first: a pop in
 * flight holds one). Rows: one — the cursors deleted.
 */
export const DELETE_GROUP_SQL = `
WITH targets AS (
  SELECT partition, 0::bigint AS cursor FROM partition_consumers
   WHERE tenant = $1 AND queue = $2 AND consumer_group = $3
   ORDER BY partition
     FOR UPDATE
),${FORGET_VERDICTS},
cursors AS (
  DELETE FROM partition_consumers c USING targets t
   WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3 AND c.partition = t.partition
  RETURNING 1
),
registration AS (DELETE FROM consumer_groups WHERE tenant = $1 AND queue = $2 AND consumer_group = $3)
SELECT (SELECT count(*) FROM cursors)::int AS partitions`;

/**
 * seekGroup — $1 tenant, $2 queue, $3 group, $4 'end' | 'instant' | 'beginning', $5 the instant.
 * Moves each of the group's cursors on the queue: to the partition's newest frame (end), to the
 * newest frame created at or before the instant (found walking back from the partition's end: the
 * cost is the frames after the instant, those the group will read), or to 0. delivered_seq follows
 * the cursor down (an ack without a lease reaches no frame not handed out again), the lease is
 * released, and the failure counts of the frames after the new cursor are forgotten.
 * Locks: the group's cursor rows, in partition order. Rows: one per cursor moved.
 */
export const SEEK_GROUP_SQL = `
WITH targets AS (
  SELECT c.partition,
         CASE $4::text
           WHEN 'end' THEN c.last_seq
           WHEN 'instant' THEN coalesce((SELECT m.seq FROM messages m
                                          WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
                                            AND m.created_at <= $5::timestamptz
                                          ORDER BY m.seq DESC LIMIT 1), 0)
           ELSE 0
         END AS cursor
    FROM partition_consumers c
   WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3
   ORDER BY c.partition
     FOR UPDATE OF c
),${FORGET_VERDICTS}
UPDATE partition_consumers c
   SET cursor_seq = t.cursor, delivered_seq = t.cursor, lease_id = NULL, lease_expires_at = NULL, batch_end_seq = NULL,
       updated_at = now()
  FROM targets t
 WHERE c.tenant = $1 AND c.queue = $2 AND c.consumer_group = $3 AND c.partition = t.partition
RETURNING 1`;

export interface DeleteGroupResult {
  success: true;
  consumerGroup: string;
  deletedPartitions: number;
  metadataDeleted: boolean;
}

/** Deletes the group on `queue`, or (undefined) on every queue of the tenant where it is registered. */
export async function deleteGroup(
  deps: Pick<LogDeps, 'db' | 'knownGroups'>,
  caller: Pick<Caller, 'tenant'>,
  group: string,
  queue: string | undefined,
): Promise<number> {
  const { tenant } = caller;
  const { deleted, queues } = await inTransaction(
    deps.db.pool,
    async (tx) => {
      const queues =
        queue !== undefined ? [queue] : (await tx.query<{ queue: string }>(GROUP_QUEUES_SQL, [tenant, group])).rows.map((r) => r.queue);
      let deleted = 0;
      // One queue after the other, in name order: the order LOCK_QUEUES_SQL takes queue rows.
      for (const q of queues) deleted += await deleteOnQueue(tx, tenant, q, group);
      return { deleted, queues };
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  for (const q of queues) deps.knownGroups.forget(tenant, q, group);
  return deleted;
}

async function deleteOnQueue(tx: Queryable, tenant: string, queue: string, group: string): Promise<number> {
  await tx.query(LOCK_QUEUES_SQL, [tenant, [queue]]);
  return (await tx.query<{ partitions: number }>(DELETE_GROUP_SQL, [tenant, queue, group])).rows[0].partitions;
}

export type SeekTarget = { to: 'end' } | { to: 'beginning' } | { to: 'instant'; instant: string };

/** Moves the group's cursors on the queue; answers how many moved (0: not registered there). */
export async function seekGroup(
  deps: Pick<LogDeps, 'db' | 'waiters'>,
  caller: Pick<Caller, 'tenant'>,
  group: string,
  queue: string,
  target: SeekTarget,
): Promise<number> {
  const { tenant } = caller;
  const moved = await inTransaction(
    deps.db.pool,
    async (tx) => {
      await tx.query(LOCK_QUEUES_SQL, [tenant, [queue]]);
      const r = await tx.query(SEEK_GROUP_SQL, [tenant, queue, group, target.to, target.to === 'instant' ? target.instant : null]);
      return r.rows.length;
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  // Frames behind the new cursors are pending again: wake the group's long-polls.
  if (moved > 0) deps.waiters.poke(tenant, queue, group);
  return moved;
}
