// The operator routes (a token of the operator tenant with the admin grant): tenants' plans and
// the cluster flags.
import type { CallOptions, Http } from './http.ts';
import { segmentPath } from './paths.ts';
import type { ClusterFlags, TenantList, TenantPlan } from './types.ts';

/** Plan fields to change: a number sets it, null returns it to the cell default, omitted keeps it. */
export interface PlanChange {
  maxPayloadBytes?: number | null | undefined;
  horizonSeconds?: number | null | undefined;
  maxPendingTimers?: number | null | undefined;
  scheduleRatePerSecond?: number | null | undefined;
  storageLimitBytes?: number | null | undefined;
  schedulePaused?: boolean | undefined;
}

export interface ClusterChange {
  produceBlocked?: boolean | undefined;
  sweeperPaused?: boolean | undefined;
}

/** Only the fields given a value (undefined means "not sent", as omitted). */
const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export class Admin {
  constructor(private readonly http: Http) {}

  /** One page of the tenants by name with their plans in force (`after`: the previous page's nextAfter). */
  async tenants(opts: CallOptions & { after?: string | undefined; limit?: number | undefined } = {}): Promise<TenantList> {
    return (
      await this.http.request<TenantList>({
        method: 'GET',
        path: '/api/v1/admin/tenants',
        query: { after: opts.after, limit: opts.limit },
        signal: opts.signal,
      })
    ).data;
  }

  /** A tenant's plan in force: its overrides over the cell defaults. */
  async plan(tenant: string, opts: CallOptions = {}): Promise<TenantPlan> {
    return (
      await this.http.request<TenantPlan>({
        method: 'GET',
        path: `/api/v1/admin/tenants/${segmentPath(tenant)}`,
        signal: opts.signal,
        traceparent: opts.traceparent,
      })
    ).data;
  }

  /** Creates the tenant or changes its plan; answers the plan now in force. */
  async setPlan(tenant: string, change: PlanChange, opts: CallOptions = {}): Promise<TenantPlan> {
    return (
      await this.http.request<TenantPlan>({
        method: 'PUT',
        path: `/api/v1/admin/tenants/${segmentPath(tenant)}`,
        body: defined(change),
        signal: opts.signal,
        traceparent: opts.traceparent,
      })
    ).data;
  }

  async cluster(opts: CallOptions = {}): Promise<ClusterFlags> {
    return (
      await this.http.request<ClusterFlags>({
        method: 'GET',
        path: '/api/v1/admin/cluster',
        signal: opts.signal,
        traceparent: opts.traceparent,
      })
    ).data;
  }

  /** Blocks produce cluster-wide, or pauses the sweeper (resuming fires everything that matured meanwhile). */
  async setCluster(change: ClusterChange, opts: CallOptions = {}): Promise<ClusterFlags> {
    return (
      await this.http.request<ClusterFlags>({
        method: 'PUT',
        path: '/api/v1/admin/cluster',
        body: defined(change),
        signal: opts.signal,
        traceparent: opts.traceparent,
      })
    ).data;
  }
}
