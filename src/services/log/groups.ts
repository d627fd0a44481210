// Consumer groups: a group has a cursor row on every partition of its queue that has ever held a
// frame. The rows are made when the group first pops on the queue (here: one per partition with a
// frame, whatever the number of empty ones), when a partition is created, and when an empty
// partition takes its first frame (src/services/queues.ts, ./append.ts); so a pop finds the
// partitions with work for its group through one index, whatever the number of partitions nobody
// consumed yet, and a group's bootstrap costs nothing for partitions that never held a frame
// (those created ahead by a schedule: they hold nothing to skip or to read until their first fire).
import type { Queryable } from '../../db/transaction.ts';
import { LOCK_QUEUES_SQL } from '../queues.ts';

/**
 * addGroup — $1 tenant, $2 queue, $3 group. Only on a queue that exists: consuming never creates a
 * queue (creating one takes the produce grant), so a pop of an unknown queue leaves no row behind.
 * Locks: the new row. Rows: 1 when new, else 0 (already registered, or no such queue).
 */
const ADD_GROUP_SQL = `
INSERT INTO consumer_groups (tenant, queue, consumer_group)
SELECT q.tenant, q.name, $3 FROM queues q WHERE q.tenant = $1 AND q.name = $2
ON CONFLICT DO NOTHING
RETURNING 1`;

/** groupExists — $1 tenant, $2 queue, $3 group. Locks: none. Rows: 0 or 1. */
export const GROUP_EXISTS_SQL = 'SELECT 1 FROM consumer_groups WHERE tenant = $1 AND queue = $2 AND consumer_group = $3';

/**
 * Where a group new to a queue starts on the partitions that exist when it registers (Queen's
 * subscription modes): at the beginning (`all`, the default), after their newest frame (`new`),
 * or at their first frame created at or after an instant. Partitions created later start at
 * the beginning either way: everything in them is new to the group.
 */
export type GroupStart = { at: 'beginning' } | { at: 'tail' } | { at: 'since'; instant: string };

/**
 * joinPartitions — $1 tenant, $2 queue, $3 group, $4 'beginning' | 'tail' | 'since', $5 the
 * instant (since). A cursor on every partition of the queue that has held a frame (last_seq > 0)
 * where the group starts; for `since`, the newest frame created before the instant, found walking
 * back from the partition's end. Locks: the new rows, and each such partition FOR SHARE, in name
 * order: an append in flight holds its partition until it commits, so the last_seq copied here is
 * never older than a frame that commits after this statement's snapshot — nor is this row
 * invisible to that append's mirror. A partition still empty in this statement's snapshot is
 * skipped: an append that gives it its first frame takes the queue lock this registration holds
 * (./append.ts), so it waits for this registration to commit and then gives the group its row.
 * Rows: one per partition that has held a frame.
 */
const JOIN_PARTITIONS_SQL = `
INSERT INTO partition_consumers (tenant, queue, partition, consumer_group, last_seq, cursor_seq)
SELECT p.tenant, p.queue, p.name, $3, p.last_seq,
       CASE
         WHEN $4::text = 'tail' THEN p.last_seq
         WHEN $4::text = 'since' THEN coalesce((SELECT m.seq FROM messages m
                                      WHERE m.tenant = p.tenant AND m.queue = p.queue AND m.partition = p.name
                                        AND m.created_at < $5::timestamptz
                                      ORDER BY m.seq DESC LIMIT 1), 0)
         ELSE 0
       END
  FROM partitions p WHERE p.tenant = $1 AND p.queue = $2 AND p.last_seq > 0
 ORDER BY p.name
   FOR SHARE OF p
ON CONFLICT DO NOTHING`;

/** The groups this broker has seen registered, so that a pop pays the registration once. */
export class KnownGroups {
  private readonly known = new Set<string>();
  private static readonly MAX = 100_000;

  has(tenant: string, queue: string, group: string): boolean {
    return this.known.has(`${tenant}\u0000${queue}\u0000${group}`);
  }

  add(tenant: string, queue: string, group: string): void {
    if (this.known.size >= KnownGroups.MAX) this.known.clear();
    this.known.add(`${tenant}\u0000${queue}\u0000${group}`);
  }

  /** The group was deleted (./consumerGroups.ts): its next pop registers it again. */
  forget(tenant: string, queue: string, group: string): void {
    this.known.delete(`${tenant}\u0000${queue}\u0000${group}`);
  }
}

/**
 * Registers the group on the queue if it is new: its row, then (under the queue lock, see
 * LOCK_QUEUES_SQL) a cursor on every partition that has held a frame. A registration in flight elsewhere makes the
 * first statement wait for it, so on return the group's rows exist either way — unless the queue
 * does not exist: then nothing is written and the answer is false (the pop finds nothing, as
 * Queen's broker answers a pop of an unknown queue: 204).
 */
export async function registerGroup(
  tx: Queryable,
  tenant: string,
  queue: string,
  group: string,
  start: GroupStart = { at: 'beginning' },
): Promise<boolean> {
  const added = await tx.query(ADD_GROUP_SQL, [tenant, queue, group]);
  if (added.rows.length === 0) return (await tx.query(GROUP_EXISTS_SQL, [tenant, queue, group])).rows.length > 0;
  await tx.query(LOCK_QUEUES_SQL, [tenant, [queue]]);
  await tx.query(JOIN_PARTITIONS_SQL, [tenant, queue, group, start.at, start.at === 'since' ? start.instant : null]);
  return true;
}
