// DELETE /api/v1/schedules/:queue/*scheduleKey — the route nothing can refuse but the boot flag
// (after authentication names the tenant): no grant, pause, quota or cluster block applies.
//
// One transaction: the schedule row goes first (waiting for a sweeper materializing it, so the
// occurrence it was making is seen), then its unclaimed timers; occurrences in a sweeper's hands
// are reported as tooLate — they will be (or were) delivered, as a timer cancel says too_late.
import type { DeleteScheduleResult } from '../../contract/schedules.ts';
import type { Database } from '../../db/index.ts';
import { inTransaction } from '../../db/transaction.ts';
import { notClaimedSql } from '../../sweeper/claimed.ts';
import type { Caller } from '../timers/deps.ts';
import { SCHEDULE_TIMERS, TIMER_AT, timerOfSchedule } from './rows.ts';

type Deps = { db: Database };

/** deleteSchedule — $1 tenant, $2 queue, $3 schedule_key. Locks: the schedule row. Rows: 0 or 1. */
const DELETE_SQL = 'DELETE FROM schedules WHERE tenant = $1 AND queue = $2 AND schedule_key = $3 RETURNING 1';

/**
 * withdrawUnclaimed — $1 tenant, $2 queue, $3 schedule_key. Locks: the schedule's unclaimed
 * timers. Rows: the ones deleted.
 */
const WITHDRAW_SQL = `
DELETE FROM timers t WHERE ${SCHEDULE_TIMERS} AND ${notClaimedSql('t')}
RETURNING t.timer_key, t.txn, ${TIMER_AT} AS at`;

/** claimedTimers — $1 tenant, $2 queue, $3 schedule_key. No lock. Rows: the schedule's timers left (claimed). */
const CLAIMED_SQL = `
SELECT t.timer_key, t.txn, ${TIMER_AT} AS at FROM timers t WHERE ${SCHEDULE_TIMERS} ORDER BY t.timer_key COLLATE "C"`;

export async function deleteSchedule(
  deps: Deps,
  caller: Pick<Caller, 'tenant'>,
  queue: string,
  scheduleKey: string,
): Promise<DeleteScheduleResult> {
  const params = [caller.tenant, queue, scheduleKey];
  return inTransaction(deps.db.pool, async (q) => {
    const deleted = (await q.query(DELETE_SQL, params)).rowCount === 1;
    if (!deleted) return { ok: false as const, status: 'absent' as const, queue, scheduleKey, withdrawn: [], tooLate: [] };
    const withdrawn = (await q.query(WITHDRAW_SQL, params)).rows.map(timerOfSchedule);
    const tooLate = (await q.query(CLAIMED_SQL, params)).rows.map(timerOfSchedule);
    return { ok: true as const, status: 'deleted' as const, queue, scheduleKey, withdrawn, tooLate };
  });
}
