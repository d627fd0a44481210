// countPending — samples the pending gauge (queen_timers_pending).
//
// Parameters: none. Locks: none (MVCC read). Rows: reads every timer once; run every
// PENDING_SAMPLE_MS, never inside a pass (its cost grows with the table: docs/measurements.md).
import type { Queryable } from '../db/transaction.ts';

export async function countPending(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM timers');
  return r.rows[0].n;
}
