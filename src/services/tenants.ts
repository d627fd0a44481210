// Tenants and their plans. A tenant is provisioned with the cell's default plan the first time a
// valid credential names it; plan fields left null follow the cell default (config), so changing
// a default reaches every tenant that never overrode it.
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';

/** The hard ceiling of any payload in the cell, whatever a plan says: 1 MiB. */
export const PAYLOAD_CEILING_BYTES = 1024 * 1024;

export interface PlanOverrides {
  maxPayloadBytes: number | null;
  horizonSeconds: number | null;
  maxPendingTimers: number | null;
  scheduleRatePerSecond: number | null;
  storageLimitBytes: number | null;
  schedulePaused: boolean;
}

export interface EffectivePlan {
  tenant: string;
  /** min(1 MiB, plan): the payload ceiling. */
  maxPayloadBytes: number;
  /** min(cell horizon, plan): a tenant can only narrow the cell's horizon. */
  horizonSeconds: number;
  maxPendingTimers: number;
  scheduleRatePerSecond: number;
  /** 0 = unlimited. */
  storageLimitBytes: number;
  schedulePaused: boolean;
  overrides: PlanOverrides;
}

const SELECT = {
  maxPayloadBytes: true,
  horizonSeconds: true,
  maxPendingTimers: true,
  scheduleRatePerSecond: true,
  storageLimitBytes: true,
  schedulePaused: true,
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
    await this.db.pool.query('INSERT INTO tenants (tenant) VALUES ($1) ON CONFLICT (tenant) DO NOTHING', [tenant]);
    this.known.add(tenant);
  }

  async plan(tenant: string): Promise<EffectivePlan> {
    const row = await this.db.prisma.tenant.findUnique({ where: { tenant }, select: SELECT });
    return this.effective(tenant, row ? { ...row, storageLimitBytes: toNum(row.storageLimitBytes) } : undefined);
  }

  /** Admin update: fields set to null reset to the cell default; absent fields are unchanged. */
  async update(tenant: string, patch: Partial<PlanOverrides>): Promise<EffectivePlan> {
    const data = { ...patch, storageLimitBytes: patch.storageLimitBytes === undefined ? undefined : toBig(patch.storageLimitBytes) };
    const row = await this.db.prisma.$transaction(async (tx) => {
      const saved = await tx.tenant.upsert({
        where: { tenant },
        create: { tenant, ...data, schedulePaused: patch.schedulePaused ?? false },
        update: data,
        select: SELECT,
      });
      // Stamped by PostgreSQL: no broker clock enters a stored instant.
      await tx.$executeRaw`UPDATE tenants SET updated_at = now() WHERE tenant = ${tenant}`;
      return saved;
    });
    this.known.add(tenant);
    return this.effective(tenant, { ...row, storageLimitBytes: toNum(row.storageLimitBytes) });
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
    };
    return {
      tenant,
      maxPayloadBytes: Math.min(PAYLOAD_CEILING_BYTES, overrides.maxPayloadBytes ?? c.QUEEN_DEFAULT_MAX_PAYLOAD_BYTES),
      horizonSeconds: Math.min(c.QUEEN_DEFAULT_HORIZON_SECONDS, overrides.horizonSeconds ?? c.QUEEN_DEFAULT_HORIZON_SECONDS),
      maxPendingTimers: overrides.maxPendingTimers ?? c.QUEEN_DEFAULT_MAX_PENDING_TIMERS,
      scheduleRatePerSecond: overrides.scheduleRatePerSecond ?? c.QUEEN_DEFAULT_SCHEDULE_RATE_PER_SECOND,
      storageLimitBytes: overrides.storageLimitBytes ?? c.QUEEN_DEFAULT_STORAGE_LIMIT_BYTES,
      schedulePaused: overrides.schedulePaused,
      overrides,
    };
  }
}

const toNum = (v: bigint | null) => (v === null ? null : Number(v));
const toBig = (v: number | null) => (v === null ? null : BigInt(v));
