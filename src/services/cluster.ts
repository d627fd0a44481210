// Cluster flags (produce blocked, sweeper paused): one row, read through a short cache so the
// produce path does not pay a query per request. Writes through this broker invalidate at once;
// other brokers see a change within CLUSTER_FLAGS_TTL_MS.
import type { Database } from '../db/index.ts';

export const CLUSTER_FLAGS_TTL_MS = 1_000;

export interface ClusterFlags {
  produceBlocked: boolean;
  sweeperPaused: boolean;
}

export class ClusterFlagsCache {
  private cached: { flags: ClusterFlags; at: number } | undefined;
  constructor(private readonly db: Database) {}

  async get(): Promise<ClusterFlags> {
    if (this.cached && Date.now() - this.cached.at < CLUSTER_FLAGS_TTL_MS) return this.cached.flags;
    const r = await this.db.pool.query<{ produce_blocked: boolean; sweeper_paused: boolean }>(
      'SELECT produce_blocked, sweeper_paused FROM cluster_flags WHERE id = 1',
    );
    const row = r.rows[0];
    const flags = { produceBlocked: row?.produce_blocked ?? false, sweeperPaused: row?.sweeper_paused ?? false };
    this.cached = { flags, at: Date.now() };
    return flags;
  }

  async set(patch: Partial<ClusterFlags>): Promise<ClusterFlags> {
    const row = await this.db.prisma.clusterFlags.update({
      where: { id: 1 },
      data: { ...patch, updatedAt: new Date() },
      select: { produceBlocked: true, sweeperPaused: true },
    });
    this.cached = { flags: row, at: Date.now() };
    return row;
  }
}
