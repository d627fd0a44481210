// The tenant's queues by name: one page of the queues table's primary key.
import type { QueueList } from '../../contract/dashboard.ts';
import type { Database } from '../../db/index.ts';
import { isoSql } from '../../db/sql.ts';

/**
 * listQueues — $1 tenant, $2 exclusive cursor|null, $3 limit + 1. Locks: none. Rows: 0..$3 queues
 * by name in byte order (the primary key (tenant, name)).
 */
const LIST_QUEUES_SQL = `
SELECT name, encryption_enabled, ${isoSql('created_at')} AS created_at FROM queues
 WHERE tenant = $1 AND ($2::text IS NULL OR name > $2::text COLLATE "C")
 ORDER BY name COLLATE "C" LIMIT $3`;

export async function listQueues(
  deps: { db: Database },
  caller: { tenant: string },
  after: string | undefined,
  limit: number,
): Promise<QueueList> {
  const r = await deps.db.pool.query<{ name: string; encryption_enabled: boolean; created_at: string }>(LIST_QUEUES_SQL, [
    caller.tenant,
    after ?? null,
    limit + 1,
  ]);
  const rows = r.rows.slice(0, limit).map((q) => ({ queue: q.name, encryptionEnabled: q.encryption_enabled, createdAt: q.created_at }));
  return { rows, truncated: r.rows.length > limit, nextAfter: rows.length ? rows[rows.length - 1]!.queue : null };
}
