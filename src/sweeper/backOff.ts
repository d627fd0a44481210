// backOff — returns failed timers to the pending set with a later deliverAt.
//
// Parameters: $1 claim token, then one element per timer: $2 tids (tid[]), $3 attempt cost
//   (int[]: 1 for permanent and configuration failures, 0 for transient ones), $4 last error
//   (text[]), $5 delay in ms from now() (float8[], exponential with jitter, see failures.ts); $6
//   the timers' tenants on Citus, null on PostgreSQL (shardGroups.ts pinOf).
//   The new deliverAt is computed in epoch seconds: Citus refuses a clock combined with a column
//   (now() + b.delay_ms * interval) in an UPDATE's SET.
// Locks: the updated timer rows (ours by lease).
// Rows: updates the timers of $2 that still carry $1 (0 for a lost lease) and clears their claim —
//   a timer in backoff is not claimed, so cancel and reschedule act on it normally.
import type { Queryable } from '../db/transaction.ts';
import { tenantPin } from '../db/sql.ts';

export interface BackOffRow {
  tid: string;
  cost: 0 | 1;
  error: string;
  delayMs: number;
}

const BACK_OFF_SQL = `
UPDATE timers t
SET attempts = t.attempts + b.cost,
    last_error = b.error,
    deliver_at = to_timestamp(extract(epoch FROM now())::float8 + b.delay_ms / 1000),
    claim_token = NULL,
    claim_expires_at = NULL,
    updated_at = now()
FROM unnest($2::tid[], $3::int[], $4::text[], $5::float8[]) AS b(tid, cost, error, delay_ms)
WHERE t.ctid = ANY ($2::tid[]) AND ${tenantPin('t', '$6')} AND t.ctid = b.tid AND t.claim_token = $1`;

export async function backOff(db: Queryable, token: string, rows: BackOffRow[], tenants: string[] | null): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.query(BACK_OFF_SQL, [
    token,
    rows.map((x) => x.tid),
    rows.map((x) => x.cost),
    rows.map((x) => x.error),
    rows.map((x) => x.delayMs),
    tenants,
  ]);
  return r.rowCount ?? 0;
}
