// The usage meter: billed messages per tenant and calendar month (UTC, PostgreSQL's clock). It is
// written by the schedule batch, in its transaction (src/services/timers/gates.ts, admitAndMeter).
import type { Usage } from '../contract/timers.ts';
import type { Database } from '../db/index.ts';

/**
 * usage — $1 tenant, $2 period|null (default: the current month). No lock. Rows: 1 (0 messages
 * when the tenant has no meter row for the period).
 */
const USAGE_SQL = `
SELECT p.period, coalesce((SELECT messages FROM usage_meter WHERE tenant = $1 AND period = p.period), 0)::float8 AS messages
  FROM (SELECT coalesce($2::text, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')) AS period) p`;

export async function usage(deps: { db: Database }, caller: { tenant: string }, period?: string): Promise<Usage> {
  const r = await deps.db.pool.query<{ period: string; messages: number }>(USAGE_SQL, [caller.tenant, period ?? null]);
  return { tenant: caller.tenant, period: r.rows[0].period, messages: Number(r.rows[0].messages) };
}
