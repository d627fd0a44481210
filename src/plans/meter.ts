// The usage meter: billed messages per tenant and calendar month (UTC, PostgreSQL's clock). Written
// by one upsert (meterMessages), inside the statement that produces what it bills: the schedule
// batch's last statement (gates.ts, admitAndMeter) and the materializer's (sweeper/materializeDue.ts).
import type { Usage } from '../contract/timers.ts';
import type { Database } from '../db/index.ts';

/**
 * meterMessages — a CTE body: adds the billed messages of `rows` (a SELECT of (tenant, messages))
 * to each tenant's meter row for the current month. Rows with no messages are skipped. Locks: the
 * tenants' meter rows, until the caller's transaction commits — so callers make it their last
 * statement.
 */
export const meterMessages = (rows: string) => `
  INSERT INTO usage_meter AS u (tenant, period, messages)
  SELECT r.tenant, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), r.messages FROM (${rows}) AS r(tenant, messages) WHERE r.messages > 0
  ON CONFLICT (tenant, period) DO UPDATE SET messages = u.messages + EXCLUDED.messages`;

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
