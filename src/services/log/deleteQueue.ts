// Deleting a queue (Queen's queue(q).delete()): its frames, partitions, cursors and leases,
// verdicts and dead letters go, in one transaction. Two things stay, on purpose:
//  - the consumer groups registered on it: every broker caches registrations (KnownGroups), so
//    a group that pops the queue again after a push re-creates it reads it from the beginning,
//    as a group of a new queue does;
//  - the timers scheduled to it: a timer is a promise of its own; when one fires, the queue is
//    created again, as a push would create it. Cancel them to withdraw them.
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { LOCK_QUEUES_SQL } from '../queues.ts';
import type { Caller, LogDeps } from './deps.ts';

/**
 * lockPartitions — $1 tenant, $2 queue. Locks: the queue's partitions FOR UPDATE, in name order
 * (after the queue row: the order a registering group takes them). Waits for appends in flight.
 */
const LOCK_PARTITIONS_SQL = 'SELECT 1 FROM partitions WHERE tenant = $1 AND queue = $2 ORDER BY name FOR UPDATE';

/**
 * deleteQueue — $1 tenant, $2 queue. Deletes the verdicts of the queue's frames (for every group
 * registered on it, and queue mode), the frames, the cursors, the partitions, the dead letters
 * and the queue row. Locks: all of those rows. Rows: 1 when the queue existed.
 */
export const DELETE_QUEUE_SQL = `
WITH groups AS (
  SELECT consumer_group FROM consumer_groups WHERE tenant = $1 AND queue = $2
  UNION SELECT '__QUEUE_MODE__'
),
verdicts AS (
  DELETE FROM message_deliveries d
   WHERE d.tenant = $1 AND d.ctid = ANY (ARRAY(
         SELECT x.tid FROM messages m CROSS JOIN groups g
          CROSS JOIN LATERAL (SELECT d.ctid AS tid FROM message_deliveries d
                               WHERE d.tenant = $1 AND d.consumer_group = g.consumer_group AND d.message_seq = m.seq
                               LIMIT 1) x
          WHERE m.tenant = $1 AND m.queue = $2))
),
frames AS (DELETE FROM messages WHERE tenant = $1 AND queue = $2),
cursors AS (DELETE FROM partition_consumers WHERE tenant = $1 AND queue = $2),
partitions AS (DELETE FROM partitions WHERE tenant = $1 AND queue = $2),
dead AS (DELETE FROM dead_letters WHERE tenant = $1 AND queue = $2)
DELETE FROM queues WHERE tenant = $1 AND name = $2
RETURNING 1`;

export interface DeleteQueueResult {
  deleted: boolean;
  existed: boolean;
  queue: string;
}

export async function deleteQueue(deps: Pick<LogDeps, 'db'>, caller: Pick<Caller, 'tenant'>, queue: string): Promise<DeleteQueueResult> {
  const existed = await inTransaction(
    deps.db.pool,
    async (tx) => {
      await tx.query(LOCK_QUEUES_SQL, [caller.tenant, [queue]]);
      await tx.query(LOCK_PARTITIONS_SQL, [caller.tenant, queue]);
      return (await tx.query(DELETE_QUEUE_SQL, [caller.tenant, queue])).rows.length > 0;
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  return { deleted: existed, existed, queue };
}
