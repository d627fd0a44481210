// The log's consumer model, and the rule by which an ack call commits a partition's cursor.
//
// On the tables of the migrations:
//  - `messages` is the log. `seq` orders a partition's frames (FIFO); frames are never updated.
//  - `partition_consumers` holds, per (partition, consumer group), the cursor (every frame with
//    seq <= cursor_seq is committed for the group: done, or dead-lettered) and the partition
//    lease: a pop leases the partition to one consumer of the group for the queue's leaseTime
//    and records the batch's last seq in batch_end_seq. While the lease is live, other consumers
//    of the group skip the partition — that is how `__QUEUE_MODE__` (competing consumers) keeps
//    per-partition order. last_seq (the partition's newest frame) and delivered_seq (the highest
//    seq ever handed out) bound where a pop looks (./pop.ts). A lease that expires is simply
//    taken over by the next pop: the frames after the cursor are handed out again.
//  - `message_deliveries` keeps, per group, what outlives a delivery: a frame's failure count
//    (status failed, retry_count) while it waits to be redelivered, and its dlq verdict.
//
// Acks commit as Queen's broker does (ack-as-commit): the cursor is the group's position, and an
// ack moves it.
//  - A completed ack of frame N commits every frame up to N (acking the last frame of a batch
//    completes the batch; frames before N that were never acked are committed with it).
//  - Explicit signals are never skipped: in one ack call the lowest failed, retry or dlq frame
//    (the head) decides the action, and the cursor stops before it even when later frames were
//    acked completed — those are redelivered. failed spends one of the queue's retryLimit (past
//    it, the frame is dead-lettered); retry spends none; dlq dead-letters at once. A dead-letter
//    commits the frame (the cursor moves onto it). Any head releases the lease: the partition is
//    redelivered from the cursor at once.
//  - The lease is released when the cursor reaches the batch's end.
//  - An ack at or below the cursor changes nothing: completed answers noop, a failure is refused
//    (the frame is already committed).
import type { AckRequest } from '../../contract/log.ts';

/** An ack of one frame of a partition after its cursor, in an ack call. */
export interface Claim {
  seq: number;
  status: AckRequest;
}

/** The explicit signals, strongest first: at the same frame dlq beats failed beats retry. */
const SIGNAL_RANK: Record<AckRequest, number> = { dlq: 0, failed: 1, retry: 2, completed: 3 };

export interface Commit {
  /** Where the completed acks move the cursor: the highest one below the head (else unchanged). */
  cursor: number;
  /** The lowest explicit signal, which decides the action; undefined when every ack is completed. */
  head?: Claim;
}

/** What an ack call's claims on one partition (all after `cursor`) commit. */
export function commitOf(cursor: number, claims: Claim[]): Commit {
  let head: Claim | undefined;
  for (const c of claims) {
    if (c.status === 'completed') continue;
    if (!head || c.seq < head.seq || (c.seq === head.seq && SIGNAL_RANK[c.status] < SIGNAL_RANK[head.status])) head = c;
  }
  let committed = cursor;
  for (const c of claims) {
    if (c.status === 'completed' && c.seq > committed && (!head || c.seq < head.seq)) committed = c.seq;
  }
  return { cursor: committed, head };
}

export interface Released {
  queue: string;
  partition: string;
  group: string;
  /** Frames remain after the new cursor (a failure to redeliver, or newer frames). */
  more: boolean;
}
