// Tenants and their plans. A tenant is provisioned with the cell's default plan the first time a
// valid credential names it; plan fields left null follow the cell default (config), so changing
// a default reaches every tenant that never overrode it.
import type { Config } from '../config.ts';
import { PAYLOAD_CEILING_BYTES, TIMER_PAYLOAD_CEILING_BYTES, type EffectivePlan, type PlanOverrides } from '../contract/admin.ts';
import type { Database } from '../db/index.ts';
import { inTransaction, runStatement, statementName } from '../db/transaction.ts';

/** ensureTenant — $1 tenant. Locks: the new row only. Rows: 0 or 1. */
const ENSURE_TENANT_SQL = 'INSERT INTO tenants (tenant) VALUES ($1) ON CONFLICT (tenant) DO NOTHING';

/**
 * planAndEncrypting — $1 tenant, $2 queue names. No lock. Rows: one — the tenant's plan columns
 * (found = false and nulls when it has no row yet) and the names among $2 of its queues that
 * encrypt at rest.
 */
const PLAN_AND_ENCRYPTING_SQL = `
SELECT t.tenant IS NOT NULL AS found, t.max_payload_bytes, t.horizon_seconds, t.max_pending_timers, t.schedule_rate_per_second,
       t.storage_limit_bytes, coalesce(t.schedule_paused, false) AS schedule_paused, t.max_schedules, t.min_schedule_interval_seconds,
       coalesce((SELECT array_agg(q.name) FROM queues q WHERE q.tenant = $1 AND q.name = ANY($2::text[]) AND q.encryption_enabled),
                '{}') AS encrypting
  FROM (SELECT $1::text AS tenant) k LEFT JOIN tenants t ON t.tenant = k.tenant`;

/**
 * updatePlan — $1 tenant, then per plan field a pair ($2k: set it?, $2k+1: the value, null = the
 * cell default), in the order of PLAN_FIELDS; a field not set keeps its value. Stamped by
 * PostgreSQL (no broker clock enters a stored instant). Locks: the tenant row. Rows: 1.
 */
const UPDATE_PLAN_SQL = `
INSERT INTO tenants AS t (tenant, max_payload_bytes, horizon_seconds, max_pending_timers, schedule_rate_per_second,
                          storage_limit_bytes, schedule_paused, max_schedules, min_schedule_interval_seconds)
VALUES ($1, $3::integer, $5::integer, $7::integer, $9::integer, $11::bigint, coalesce($13::boolean, false), $15::integer, $17::integer)
ON CONFLICT (tenant) DO UPDATE SET
  max_payload_bytes        = CASE WHEN $2::boolean  THEN EXCLUDED.max_payload_bytes        ELSE t.max_payload_bytes END,
  horizon_seconds          = CASE WHEN $4::boolean  THEN EXCLUDED.horizon_seconds          ELSE t.horizon_seconds END,
  max_pending_timers       = CASE WHEN $6::boolean  THEN EXCLUDED.max_pending_timers       ELSE t.max_pending_timers END,
  schedule_rate_per_second = CASE WHEN $8::boolean  THEN EXCLUDED.schedule_rate_per_second ELSE t.schedule_rate_per_second END,
  storage_limit_bytes      = CASE WHEN $10::boolean THEN EXCLUDED.storage_limit_bytes      ELSE t.storage_limit_bytes END,
  schedule_paused          = CASE WHEN $12::boolean THEN EXCLUDED.schedule_paused          ELSE t.schedule_paused END,
  max_schedules            = CASE WHEN $14::boolean THEN EXCLUDED.max_schedules            ELSE t.max_schedules END,
  min_schedule_interval_seconds = CASE WHEN $16::boolean THEN EXCLUDED.min_schedule_interval_seconds
                                       ELSE t.min_schedule_interval_seconds END,
  updated_at               = EXCLUDED.updated_at
RETURNING max_payload_bytes, horizon_seconds, max_pending_timers, schedule_rate_per_second, storage_limit_bytes, schedule_paused,
          max_schedules, min_schedule_interval_seconds`;

const PLAN_FIELDS = [
  'maxPayloadBytes',
  'horizonSeconds',
  'maxPendingTimers',
  'scheduleRatePerSecond',
  'storageLimitBytes',
  'schedulePaused',
  'maxSchedules',
  'minScheduleIntervalSeconds',
] as const;

const SELECT = {
  maxPayloadBytes: true,
  horizonSeconds: true,
  maxPendingTimers: true,
  scheduleRatePerSecond: true,
  storageLimitBytes: true,
  schedulePaused: true,
  maxSchedules: true,
  minScheduleIntervalSeconds: true,
} as const;

export class TenantDirectory {
  private readonly known = new Set<string>();
  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  /** Creates the tenant with the default plan if it does not exist yet (idempotent, cached). */
  async ensure(tenant: string): Promise<void> {
    if (this.known.has(tenant)) return;
    await this.db.pool.query(ENSURE_TENANT_SQL, [tenant]);
    this.known.add(tenant);
  }

  async plan(tenant: string): Promise<EffectivePlan> {
    return (await this.planAndEncrypting(tenant, [])).plan;
  }

  /**
   * The tenant's plan in force and which of `queues` encrypt at rest, in one round trip: what a
   * schedule reads before its transaction. Raw SQL rather than the Prisma client, whose per-call
   * CPU was a visible share of a 256-op schedule batch (docs/benchmarks.md).
   */
  async planAndEncrypting(tenant: string, queues: string[]): Promise<{ plan: EffectivePlan; encrypting: Set<string> }> {
    const { pool } = this.db;
    const r = await runStatement<PlanRow & { found: boolean; encrypting: string[] }>(
      pool,
      PLAN_AND_ENCRYPTING_SQL,
      [tenant, queues],
      statementName(pool, 'qt_plan'),
    );
    const row = r.rows[0];
    return { plan: this.effective(tenant, row.found ? overridesOf(row) : undefined), encrypting: new Set(row.encrypting) };
  }

  /** Admin update: fields set to null reset to the cell default; absent fields are unchanged. */
  /** A page of tenants by name with their plans in force (keyset: names after `after`). */
  async list(after: string | undefined, limit: number): Promise<{ rows: EffectivePlan[]; truncated: boolean; nextAfter: string | null }> {
    const found = await this.db.prisma.tenant.findMany({
      where: after === undefined ? {} : { tenant: { gt: after } },
      orderBy: { tenant: 'asc' },
      take: limit + 1,
      select: { tenant: true, ...SELECT },
    });
    const rows = found
      .slice(0, limit)
      .map(({ tenant, ...row }) => this.effective(tenant, { ...row, storageLimitBytes: toNum(row.storageLimitBytes) }));
    return { rows, truncated: found.length > limit, nextAfter: rows.length ? rows[rows.length - 1]!.tenant : null };
  }

  async update(tenant: string, patch: Partial<PlanOverrides>): Promise<EffectivePlan> {
    const params = PLAN_FIELDS.flatMap((f) => [patch[f] !== undefined, patch[f] ?? null]);
    const row = await inTransaction(this.db.pool, async (tx) => (await tx.query<PlanRow>(UPDATE_PLAN_SQL, [tenant, ...params])).rows[0]);
    this.known.add(tenant);
    return this.effective(tenant, overridesOf(row));
  }

  /** The storage limit of a plan whose override is `override` (null: the cell default; 0: none). */
  storageLimit(override: number | null): number {
    return override ?? this.config.QUEEN_DEFAULT_STORAGE_LIMIT_BYTES;
  }

  /** A plan's max payload (a pushed message's ceiling) when its override is `override` (null: the cell default). */
  payloadCeiling(override: number | null): number {
    return Math.min(PAYLOAD_CEILING_BYTES, override ?? this.config.QUEEN_DEFAULT_MAX_PAYLOAD_BYTES);
  }

  effective(tenant: string, o: PlanOverrides | undefined): EffectivePlan {
    const c = this.config;
    const overrides: PlanOverrides = o ?? {
      maxPayloadBytes: null,
      horizonSeconds: null,
      maxPendingTimers: null,
      scheduleRatePerSecond: null,
      storageLimitBytes: null,
      schedulePaused: false,
      maxSchedules: null,
      minScheduleIntervalSeconds: null,
    };
    return {
      tenant,
      maxPayloadBytes: this.payloadCeiling(overrides.maxPayloadBytes),
      maxTimerPayloadBytes: Math.min(TIMER_PAYLOAD_CEILING_BYTES, this.payloadCeiling(overrides.maxPayloadBytes)),
      horizonSeconds: Math.min(c.QUEEN_DEFAULT_HORIZON_SECONDS, overrides.horizonSeconds ?? c.QUEEN_DEFAULT_HORIZON_SECONDS),
      maxPendingTimers: overrides.maxPendingTimers ?? c.QUEEN_DEFAULT_MAX_PENDING_TIMERS,
      scheduleRatePerSecond: overrides.scheduleRatePerSecond ?? c.QUEEN_DEFAULT_SCHEDULE_RATE_PER_SECOND,
      storageLimitBytes: overrides.storageLimitBytes ?? c.QUEEN_DEFAULT_STORAGE_LIMIT_BYTES,
      schedulePaused: overrides.schedulePaused,
      maxSchedules: overrides.maxSchedules ?? c.QUEEN_DEFAULT_MAX_SCHEDULES,
      minScheduleIntervalSeconds: overrides.minScheduleIntervalSeconds ?? c.QUEEN_DEFAULT_MIN_SCHEDULE_INTERVAL_SECONDS,
      overrides,
    };
  }
}

const toNum = (v: bigint | null) => (v === null ? null : Number(v));

/** A tenants row's plan columns, as the raw statements here return them (bigint as text). */
interface PlanRow {
  max_payload_bytes: number | null;
  horizon_seconds: number | null;
  max_pending_timers: number | null;
  schedule_rate_per_second: number | null;
  storage_limit_bytes: string | number | null;
  schedule_paused: boolean;
  max_schedules: number | null;
  min_schedule_interval_seconds: number | null;
}

function overridesOf(row: PlanRow): PlanOverrides {
  return {
    maxPayloadBytes: row.max_payload_bytes,
    horizonSeconds: row.horizon_seconds,
    maxPendingTimers: row.max_pending_timers,
    scheduleRatePerSecond: row.schedule_rate_per_second,
    storageLimitBytes: row.storage_limit_bytes === null ? null : Number(row.storage_limit_bytes),
    schedulePaused: row.schedule_paused,
    maxSchedules: row.max_schedules,
    minScheduleIntervalSeconds: row.min_schedule_interval_seconds,
  };
}
