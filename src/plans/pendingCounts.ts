// The pending-timer quota, counted cheaply (the gate itself is quotaRefusal in gates.ts).
//
// Counting a tenant's rows costs O(pending) (the default quota is 1,000,000 rows), so a batch
// skips the count when it provably cannot exceed the quota: the schedule rate limit is enforced
// across all brokers, so since an exact count taken at instant T no more than
// rate × (seconds since T + 1) rows can have been created by anyone. While
// count + that bound + the batch's possible new rows ≤ quota, no count is needed: an idle tenant
// far from its quota is counted every (quota − count) / rate seconds, a tenant close to it on
// every batch (LIMIT quota + 1, so never more than the quota's rows).
// The bound is per broker (one PendingCounts in its services) and never needs invalidation: it
// only ever overestimates, since fires and cancels shrink the real count.
// Concurrency: the count is not serialized with other batches, so batches in flight at the same
// instant can together overshoot the quota by at most their own new rows (≤ 256 each).
const PENDING_CACHE_MAX_TENANTS = 10_000;

/** The last exact pending count of each tenant, and when it was taken (this broker's clock). */
export class PendingCounts {
  private readonly counts = new Map<string, { count: number; atMs: number }>();

  get(tenant: string): { count: number; atMs: number } | undefined {
    return this.counts.get(tenant);
  }

  set(tenant: string, count: number): void {
    if (this.counts.size >= PENDING_CACHE_MAX_TENANTS) this.counts.clear();
    this.counts.set(tenant, { count, atMs: Date.now() });
  }
}
