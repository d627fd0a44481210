// deadLetter — moves timers that exhausted QUEEN_SWEEPER_MAX_ATTEMPTS into their destination
// queue's DLQ, under the synthetic consumer group TIMER_DLQ_CONSUMER_GROUP (from_timer = true).
//
// Parameters: $1 claim token, then one element per timer: $2 tids (tid[]), $3 last error (text[]),
//   $4 attempts spent (int[]); $5 the timers' tenants on Citus, null on PostgreSQL (shardGroups.ts pinOf).
// Locks: the deleted timer rows (ours by lease).
// Rows: deletes the timers of $2 that still carry $1 and inserts one dead_letters row for each,
//   in the same statement. Payload bytes, payload_zstd and encrypted are kept exactly as stored.
// A timer's DLQ row is not replayable (timer_dlq_not_replayable): it never had a consumer group.
import type { Queryable } from '../db/transaction.ts';
import { INSERT_DEAD_LETTERS } from '../services/log/deadLetterInsert.ts';
import { tenantPin } from '../db/sql.ts';

/** The synthetic consumer group of DLQ rows written by the sweeper. */
export const TIMER_DLQ_CONSUMER_GROUP = '__timers__';

export interface DeadLetterRow {
  tid: string;
  error: string;
  attempts: number;
}

const DEAD_LETTER_SQL = `
WITH e AS (
  SELECT * FROM unnest($2::tid[], $3::text[], $4::int[]) AS e(tid, error, attempts)
), d AS (
  DELETE FROM timers t
  WHERE t.ctid = ANY ($2::tid[]) AND ${tenantPin('t', '$5')} AND t.claim_token = $1
  RETURNING t.ctid AS tid, t.tenant, t.queue, t.partition, t.message_id, t.txn, t.payload, t.encrypted,
    t.payload_zstd, t.producer_sub, t.timer_key
)
${INSERT_DEAD_LETTERS}
SELECT d.tenant, d.queue, d.partition, '${TIMER_DLQ_CONSUMER_GROUP}', d.message_id, d.txn, d.payload, d.encrypted,
  d.payload_zstd, d.producer_sub, e.error, e.attempts, true, d.timer_key
FROM d JOIN e ON e.tid = d.tid`;

export async function deadLetter(db: Queryable, token: string, rows: DeadLetterRow[], tenants: string[] | null): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.query(DEAD_LETTER_SQL, [
    token,
    rows.map((x) => x.tid),
    rows.map((x) => x.error),
    rows.map((x) => x.attempts),
    tenants,
  ]);
  return r.rowCount ?? 0;
}
