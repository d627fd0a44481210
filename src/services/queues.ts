// Queues and partitions, created on first use by push or by schedule.
import type { Queryable } from './sql.ts';

export interface QueueConfig {
  encryptionEnabled: boolean;
  leaseTimeSeconds: number;
  retryLimit: number;
}

/** The partition of a push or schedule that names none. */
export const DEFAULT_PARTITION = 'Default';

const DEFAULTS: QueueConfig = { encryptionEnabled: false, leaseTimeSeconds: 300, retryLimit: 3 };

/** The queue's options; a queue that does not exist yet has the defaults. */
export async function queueConfig(db: Queryable, tenant: string, queue: string): Promise<QueueConfig> {
  const r = await db.query<{ encryption_enabled: boolean; lease_time_seconds: number; retry_limit: number }>(
    'SELECT encryption_enabled, lease_time_seconds, retry_limit FROM queues WHERE tenant = $1 AND name = $2',
    [tenant, queue],
  );
  const row = r.rows[0];
  return row
    ? { encryptionEnabled: row.encryption_enabled, leaseTimeSeconds: row.lease_time_seconds, retryLimit: row.retry_limit }
    : DEFAULTS;
}

/**
 * Creates the queues and partitions named in `pairs` if missing (idempotent; one statement each).
 * Takes no lock beyond the inserted rows' own.
 */
export async function ensurePartitions(db: Queryable, tenant: string, pairs: { queue: string; partition: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  const queues = [...new Set(pairs.map((p) => p.queue))];
  await db.query(
    'INSERT INTO queues (tenant, name) SELECT $1, unnest($2::text[]) ON CONFLICT (tenant, name) DO NOTHING',
    [tenant, queues],
  );
  const uniq = [...new Map(pairs.map((p) => [`${p.queue}\u0000${p.partition}`, p])).values()];
  await db.query(
    `INSERT INTO partitions (tenant, queue, name)
     SELECT $1, q, p FROM unnest($2::text[], $3::text[]) AS t(q, p)
     ON CONFLICT (tenant, queue, name) DO NOTHING`,
    [tenant, uniq.map((p) => p.queue), uniq.map((p) => p.partition)],
  );
}

/**
 * Serialises appends to the log per partition, until the caller's transaction ends.
 *
 * A frame's seq is drawn when it is inserted but becomes visible when its transaction commits. Two
 * transactions appending to one partition could therefore commit out of seq order, and a pop that
 * settled the later frame would move the partition's cursor past the earlier one — which would
 * then never be delivered. Holding the partition rows from before the insert until commit makes
 * commit order equal seq order within each partition. Rows are locked in key order, so appenders
 * (push, the sweeper's fire) never deadlock on each other. Must run inside a transaction.
 *
 * $1 tenants, $2 queues, $3 partitions (parallel arrays; duplicates allowed).
 * Locks: those partition rows, FOR UPDATE, until commit. Rows: one per distinct existing partition.
 */
export async function lockPartitionsForAppend(db: Queryable, keys: { tenant: string; queue: string; partition: string }[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query(
    `SELECT 1 FROM partitions p
     WHERE (p.tenant, p.queue, p.name) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))
     ORDER BY p.tenant, p.queue, p.name
     FOR UPDATE OF p`,
    [keys.map((k) => k.tenant), keys.map((k) => k.queue), keys.map((k) => k.partition)],
  );
}
