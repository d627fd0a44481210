// claimDue — takes a lease on the next batch of due timers.
//
// Parameters: $1 claim token (uuid, fresh per batch), $2 batch size (QUEEN_SWEEPER_BATCH_SIZE),
//   $3 lease length in ms (QUEEN_SWEEPER_LEASE_MS), $4 the hand-off window in ms
//   (QUEEN_SWEEPER_HANDOFF_MS): "due" here means due by now() + $4. A timer claimed ahead of its
//   instant waits in the sweeper's wheel (wheel.ts); its lease runs until now() + $4 + $3, so it
//   lasts at least $3 past the instant whatever the window (not max(deliver_at, now()) + $3: Citus
//   refuses a clock combined with a column in an UPDATE's SET). $5: whether timers already due
//   are claimed too. They are not, as a rule: those are fired straight from the table, locked in
//   the fire's own transaction (fireDue.ts), which writes each row once instead of twice; the
//   claim takes them only to isolate a batch whose fire failed (pass.ts).
//   $6 the shard group's tenants (shardGroups.ts; null on plain PostgreSQL: every tenant): the
//   claim, and what its head says of due and later timers, covers only them.
// Locks: FOR UPDATE SKIP LOCKED on up to $2 due rows, walked in deliver_at order on
//   timers_deliver_at_idx; rows another broker is claiming or firing are skipped, never waited on.
//   Nothing is claimed while cluster_flags.sweeper_paused is set (the operator's control).
// Rows: updates 0..$2 timers (claim_token = $1, claim_expires_at = now() + $4 + $3 ms) and returns them, plus one leading row even when nothing was due, carrying PostgreSQL's
//   now(), the pause flag, the delay until the next deliverAt beyond the window (null when there
//   is none) for the sleep, and whether unclaimed timers are due (left for fireDue when $5 is false).
// Statement-level autocommit: the lease is visible to cancel/reschedule (too_late) as soon as this
// returns. Rows are addressed afterwards by ctid: the fire and backoff statements then use a TID
// scan whatever the planner thinks of the table, and the claim token guards against a ctid reused
// after the row moved on (another broker's claim, a backoff) — such a row no longer carries $1.
import { runStatement } from '../db/transaction.ts';
import { notClaimedSql } from './claimed.ts';
import { tenantPin } from '../db/sql.ts';
import type { SweeperDb } from './db.ts';

export interface ClaimedTimer {
  /** Physical address of the claimed row version, as text "(page,item)". */
  tid: string;
  tenant: string;
  queue: string;
  partition: string;
  timerKey: string;
  txn: string;
  messageId: string;
  /** Seconds since the epoch, microsecond precision (ordering only; never stored back). */
  deliverAt: number;
  attempts: number;
  payloadZstd: boolean;
  encrypted: boolean;
  /** The stored bytes, returned only for zstd rows (the others enter the log untouched, in SQL). */
  payload: Buffer | null;
  /** The W3C traceparent the timer was scheduled with: the fire's span links to it (docs/tracing.md). */
  traceparent: string | null;
  /** Its shard group on Citus (shardGroups.ts), set by the sweeper that took it; null on plain PostgreSQL. */
  shard: string | null;
}

export interface ClaimResult {
  rows: ClaimedTimer[];
  /** PostgreSQL's now() at the claim, ms since the epoch. */
  nowMs: number;
  /** ms from that now() to the earliest deliverAt beyond the window; null when no such timer is pending. */
  nextDueInMs: number | null;
  paused: boolean;
  /** Unclaimed timers are due now (not taken by this claim: fireDue fires them). */
  dueWaiting: boolean;
}

/**
 * The columns a sweeper reads of a timer it takes (claimDue, fireDue), as SQL over alias `t`. Only
 * immutable functions (deliverAt's epoch is taken of an interval: Citus refuses a stable function
 * in an UPDATE's RETURNING).
 */
export const TAKEN_COLUMNS = `t.ctid::text AS tid, t.tenant, t.queue, t.partition, t.timer_key, t.txn, t.message_id,
    extract(epoch FROM t.deliver_at - timestamptz 'epoch')::float8 AS deliver_at, t.attempts, t.payload_zstd, t.encrypted,
    CASE WHEN t.payload_zstd THEN t.payload END AS payload, t.traceparent`;

/** A row of TAKEN_COLUMNS. */
export function takenTimer(x: any): ClaimedTimer {
  return {
    tid: x.tid,
    tenant: x.tenant,
    queue: x.queue,
    partition: x.partition,
    timerKey: x.timer_key,
    txn: x.txn,
    messageId: x.message_id,
    deliverAt: x.deliver_at,
    attempts: x.attempts,
    payloadZstd: x.payload_zstd,
    encrypted: x.encrypted,
    payload: x.payload,
    traceparent: x.traceparent,
    shard: null,
  };
}

export const CLAIM_DUE_SQL = `
WITH flags AS (
  SELECT coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false) AS paused
), due AS (
  SELECT ctid FROM timers
  WHERE deliver_at <= now() + $4 * interval '1 millisecond'
    AND ($5 OR deliver_at > now())
    AND ${notClaimedSql('timers')}
    AND ${tenantPin('timers', '$6')}
    AND NOT (SELECT paused FROM flags)
  ORDER BY deliver_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE timers t
  SET claim_token = $1, claim_expires_at = now() + ($4 + $3) * interval '1 millisecond'
  WHERE t.ctid = ANY (ARRAY(SELECT ctid FROM due)) AND ${tenantPin('t', '$6')}
  RETURNING ${TAKEN_COLUMNS}
), head AS (
  SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms,
    (extract(epoch FROM (SELECT min(deliver_at) FROM timers WHERE deliver_at > now() + $4 * interval '1 millisecond'
                                     AND ${tenantPin('timers', '$6')}) - now()) * 1000)::float8 AS next_due_ms,
    (SELECT paused FROM flags) AS paused,
    NOT $5 AND NOT (SELECT paused FROM flags)
      AND EXISTS (SELECT 1 FROM timers WHERE deliver_at <= now() AND ${notClaimedSql('timers')}
                                 AND ${tenantPin('timers', '$6')}) AS due_waiting
)
SELECT head.*, c.* FROM head LEFT JOIN claimed c ON true`;

export async function claimDue(
  db: SweeperDb,
  token: string,
  batchSize: number,
  leaseMs: number,
  handoffMs = 0,
  includeDue = true,
  tenants: string[] | null = null,
): Promise<ClaimResult> {
  const r = await db.planned((q) =>
    runStatement(q, CLAIM_DUE_SQL, [token, batchSize, leaseMs, handoffMs, includeDue, tenants], db.named('qt_claim')),
  );
  const head = r.rows[0];
  const rows = r.rows.filter((x) => x.tid !== null).map(takenTimer);
  return { rows, nowMs: head.now_ms, nextDueInMs: head.next_due_ms, paused: head.paused, dueWaiting: head.due_waiting };
}
