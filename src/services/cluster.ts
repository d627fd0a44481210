// Cluster flags (produce blocked, sweeper paused): one row, read through a short cache so the
// produce path does not pay a query per request. Writes through this broker invalidate at once;
// other brokers see a change within CLUSTER_FLAGS_TTL_MS.
import type { ClusterFlags } from '../contract/admin.ts';
import type { Database } from '../db/index.ts';

export const CLUSTER_FLAGS_TTL_MS = 1_000;

/** readFlags — no parameters. No lock. Rows: 1 (the single row of cluster_flags). */
const READ_FLAGS_SQL = 'SELECT produce_blocked, sweeper_paused FROM cluster_flags WHERE id = 1';

/**
 * setFlags — $1 produce_blocked|null, $2 sweeper_paused|null (null: keep). Stamped by PostgreSQL
 * (one clock). Locks: the row. Rows: 1.
 */
const SET_FLAGS_SQL = `
UPDATE cluster_flags SET produce_blocked = COALESCE($1, produce_blocked),
       sweeper_paused = COALESCE($2, sweeper_paused), updated_at = now()
 WHERE id = 1 RETURNING produce_blocked, sweeper_paused`;

export class ClusterFlagsCache {
  private cached: { flags: ClusterFlags; at: number } | undefined;
  constructor(private readonly db: Database) {}

  /** The flags, from the cache unless it is older than CLUSTER_FLAGS_TTL_MS (or `fresh`: read now). */
  async get(fresh = false): Promise<ClusterFlags> {
    if (!fresh && this.cached && Date.now() - this.cached.at < CLUSTER_FLAGS_TTL_MS) return this.cached.flags;
    const r = await this.db.pool.query<{ produce_blocked: boolean; sweeper_paused: boolean }>(READ_FLAGS_SQL);
    const row = r.rows[0];
    const flags = { produceBlocked: row?.produce_blocked ?? false, sweeperPaused: row?.sweeper_paused ?? false };
    this.cached = { flags, at: Date.now() };
    return flags;
  }

  async set(patch: Partial<ClusterFlags>): Promise<ClusterFlags> {
    const r = await this.db.pool.query<{ produce_blocked: boolean; sweeper_paused: boolean }>(SET_FLAGS_SQL, [
      patch.produceBlocked ?? null,
      patch.sweeperPaused ?? null,
    ]);
    const flags = { produceBlocked: r.rows[0].produce_blocked, sweeperPaused: r.rows[0].sweeper_paused };
    this.cached = { flags, at: Date.now() };
    return flags;
  }
}
