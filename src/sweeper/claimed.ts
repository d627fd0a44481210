// "Claimed": a timer in a sweeper's hands — its lease (claim_expires_at) has not expired. The one
// place this rule is spelled; the sweeper's claim, every timer path (schedule, reschedule, cancel,
// peek, list) and the schedules' withdrawals take it from here.
//
// claim_token and claim_expires_at are set together (claimDue) and cleared together (backOff,
// releaseClaims, the schedule upsert); a fire or a dead letter deletes the row. So the lease's
// expiry alone says whether a row is claimed, and a row whose lease expired is free again, whatever
// token it still carries: the token only guards the statements of the batch that claimed it.

/** SQL: the row `row` (a table alias or name) is claimed — its lease has not expired. Never NULL. */
export const claimedSql = (row: string) => `(${row}.claim_expires_at IS NOT NULL AND ${row}.claim_expires_at > now())`;

/**
 * SQL: the row `row` is not claimed — never claimed, or its lease expired; cancel, reschedule,
 * withdraw and a new claim may take it. `now`: the instant to compare with, now() unless the
 * statement has it as a value (an upsert's ON CONFLICT … WHERE, where Citus refuses a function).
 */
export const notClaimedSql = (row: string, now = 'now()') => `(${row}.claim_expires_at IS NULL OR ${row}.claim_expires_at <= ${now})`;
