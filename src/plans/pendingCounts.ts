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
// instant can together overshoot the quota by at most their own new rows (≤ 256 each). A batch
// that needs a count while another of the tenant's is counting on this broker waits for that one
// instead of starting its own: when the bound runs out, every batch in flight needs a count at
// once, and each was O(pending). The count it gets began before it asked, so the rows it misses
// are those of batches in flight with it, as with a count of its own.
const PENDING_CACHE_MAX_TENANTS = 10_000;

/** The last exact pending count of each tenant, and when it was taken (this broker's clock). */
export class PendingCounts {
  private readonly counts = new Map<string, { count: number; atMs: number }>();
  /** The count running for a tenant (keyed with its cap), which a batch needing one waits for. */
  private readonly counting = new Map<string, Promise<number>>();

  get(tenant: string): { count: number; atMs: number } | undefined {
    return this.counts.get(tenant);
  }

  /**
   * The tenant's pending count, up to `cap`: the one running for it with that cap if any (a plan
   * changed meanwhile counts anew), else `run`'s, kept with the instant it began (rows made after it
   * are the bound's, quotaSurelyHolds). A count that fails is not shared: a batch that waited for
   * it counts itself.
   */
  async count(tenant: string, cap: number, run: () => Promise<number>): Promise<number> {
    const key = `${tenant}\u0000${cap}`;
    const running = this.counting.get(key);
    if (running) {
      try {
        return await running;
      } catch {
        // counted below
      }
    }
    const atMs = Date.now();
    const counted = run();
    this.counting.set(key, counted);
    try {
      const count = await counted;
      if (this.counts.size >= PENDING_CACHE_MAX_TENANTS) this.counts.clear();
      this.counts.set(tenant, { count, atMs });
      return count;
    } finally {
      if (this.counting.get(key) === counted) this.counting.delete(key);
    }
  }
}
