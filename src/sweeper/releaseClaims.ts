// releaseClaims — gives up leases this broker will not use (shutdown; a claim whose answer was
// lost with its connection), so another broker takes the rows at once instead of after the lease.
//
// Parameters: $1 claim tokens (uuid[]), $2 the hand-off window in ms (claims reach that far ahead).
// Locks: the updated timer rows; a row another broker is firing cannot carry one of our tokens.
// Rows: clears claim_token/claim_expires_at on every timer still carrying one of $1. Claimed rows
//   are due within the window (deliver_at <= now() + $2 at the claim), so the deliver_at index
//   bounds the scan to that set; there is no index on claim_token (it would cost every claim and fire an index write).
import type { SweeperDb } from './db.ts';

const RELEASE_CLAIMS_SQL = `
UPDATE timers SET claim_token = NULL, claim_expires_at = NULL
WHERE deliver_at <= now() + $2 * interval '1 millisecond' AND claim_token = ANY ($1::uuid[])`;

export async function releaseClaims(db: SweeperDb, tokens: string[], handoffMs: number): Promise<number> {
  if (tokens.length === 0) return 0;
  const r = await db.planned((q) => q.query(RELEASE_CLAIMS_SQL, [tokens, handoffMs]));
  return r.rowCount ?? 0;
}
