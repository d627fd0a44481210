// countPending — samples the pending gauge (queen_timers_pending).
//
// Parameters: none. Locks: none (MVCC read). Rows: reads every timer once; run every
// PENDING_SAMPLE_MS, never inside a pass (~10 ms per 100,000 rows here).
import type { Queryable } from '../db/transaction.ts';

export async function countPending(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM timers');
  return r.rows[0].n;
}
