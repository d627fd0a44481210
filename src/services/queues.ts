// Queues and partitions: created on first use (by push or by schedule), and a queue's options.
import { tenantPin } from '../db/sql.ts';
import { QUEEN_QUEUE_OPTIONS, type QueueOptions } from '../contract/queues.ts';
import type { Database } from '../db/index.ts';
import { inTransaction, inTurn, runStatement, statementName, type Queryable } from '../db/transaction.ts';
import { ApiError } from '../errors.ts';
import type { PayloadCipher } from '../payload.ts';

/** A queue's lease time until configured: 300 s. */
export const DEFAULT_LEASE_SECONDS = 300;
/** A queue's retry limit until configured: 3 redeliveries after a failure. */
export const DEFAULT_RETRY_LIMIT = 3;

/** Retry-After when a queue encrypts at rest and this broker has no key: an operator must act. */
export const ENCRYPTION_RETRY_AFTER_SECONDS = 60;

export function encryptionUnavailable(queue: string, field?: string): ApiError {
  return new ApiError(
    'encryption_unavailable',
    `queue "${queue}" encrypts at rest but this broker has no QUEEN_ENCRYPTION_KEY; an operator must configure the key`,
    { retryAfter: ENCRYPTION_RETRY_AFTER_SECONDS, ...(field ? { field } : {}) },
  );
}

/** ensureQueues — $1 tenant, $2 queue names. Locks: the new rows only. Rows: 0..n inserted. */
const ENSURE_QUEUES_SQL = 'INSERT INTO queues (tenant, name) SELECT $1, unnest($2::text[]) ON CONFLICT (tenant, name) DO NOTHING';

/**
 * ensurePartitions — $1 tenant, $2 queues, $3 partitions (parallel), $4 the distinct queues. Creates
 * the missing queues and partitions in one round trip (schedule, and an append whose lock found some missing).
 * Locks: new rows. Rows: the partitions created by this statement (queue, name).
 */
const ENSURE_PARTITIONS_SQL = `
WITH new_queues AS (
  INSERT INTO queues (tenant, name) SELECT $1, unnest($4::text[]) ON CONFLICT (tenant, name) DO NOTHING
)
INSERT INTO partitions (tenant, queue, name)
SELECT $1, q, p FROM unnest($2::text[], $3::text[]) AS t(q, p)
ON CONFLICT (tenant, queue, name) DO NOTHING
RETURNING queue, name`;

/**
 * lockQueues — $1 tenant, $2 queue names. Locks: those queue rows, FOR UPDATE, in name order,
 * until commit. Taken only by the rare writers that must see each other: an append that gives an
 * empty partition its first frame (it gives the partition a consumer row per group:
 * src/services/log/append.ts), one that registers a consumer group (it gives the group a row per
 * partition that has held a frame; src/services/log/groups.ts), and a group's delete or seek. The
 * first two each write what the other must see (a frame, a group row) or wait for it under this
 * lock, so whichever takes it second sees the other's committed rows.
 * Rows: one per existing queue.
 */
export const LOCK_QUEUES_SQL = `
SELECT 1 FROM queues WHERE tenant = $1 AND name = ANY($2::text[]) ORDER BY name FOR UPDATE`;

/**
 * joinGroups — $1 tenants, $2 queues, $3 partitions (parallel, of any tenants). Gives each consumer
 * group of their queue a cursor on those that never held a frame (last_seq 0), at 0: everything they
 * will hold is new to every group; the others already have their rows. Locks: the new consumer
 * rows. Rows: 0..groups × partitions.
 */
const JOIN_GROUPS_SQL = `
INSERT INTO partition_consumers (tenant, queue, partition, consumer_group)
SELECT g.tenant, g.queue, p.name, g.consumer_group
  FROM unnest($1::text[], $2::text[], $3::text[]) AS k(tenant, queue, name)
  JOIN partitions p ON p.tenant = k.tenant AND p.queue = k.queue AND p.name = k.name
  JOIN consumer_groups g ON g.tenant = p.tenant AND g.queue = p.queue
 WHERE ${tenantPin('p', '$4')} AND ${tenantPin('g', '$4')} AND p.last_seq = 0
ON CONFLICT DO NOTHING`;

/**
 * lockQueuesOf — LOCK_QUEUES_SQL for the queues of the partitions $1 tenants, $2 queues, $3 names
 * (parallel, of any tenants) that never held a frame (last_seq 0), locked in (tenant, name) order,
 * which is each tenant's name order. $4: the tenants again on Citus, which routes the statement to
 * the one shard group they share (a fire's tenants do: src/sweeper/shardGroups.ts); null on
 * PostgreSQL (src/db/sql.ts tenantPin). The same for JOIN_GROUPS_SQL's $4.
 */
const LOCK_QUEUES_OF_SQL = `
SELECT 1 FROM queues q
  JOIN (SELECT DISTINCT p.tenant, p.queue FROM unnest($1::text[], $2::text[], $3::text[]) AS k(tenant, queue, name)
          JOIN partitions p ON p.tenant = k.tenant AND p.queue = k.queue AND p.name = k.name
         WHERE ${tenantPin('p', '$4')} AND p.last_seq = 0) e ON q.tenant = e.tenant AND q.name = e.queue
 WHERE ${tenantPin('q', '$4')}
 ORDER BY q.tenant, q.name FOR UPDATE OF q`;

/**
 * Creates the queues and partitions named in `pairs` if missing (idempotent). A new partition is
 * empty, and has no consumer rows until its first frame (joinGroups, from the append).
 */
export async function ensurePartitions(db: Queryable, tenant: string, pairs: { queue: string; partition: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  const uniq = [...new Map(pairs.map((p) => [`${p.queue}\u0000${p.partition}`, p])).values()];
  await runStatement(
    db,
    ENSURE_PARTITIONS_SQL,
    [tenant, uniq.map((p) => p.queue), uniq.map((p) => p.partition), [...new Set(uniq.map((p) => p.queue))]],
    statementName(db, 'qt_ensure_partitions'),
  );
}

/**
 * Gives those of `keys` (partitions this transaction has locked for an append) that never held a
 * frame a consumer row for every consumer group of their queue, under the queue lock
 * (LOCK_QUEUES_SQL): a group registering at that instant either committed first (its row is seen
 * here) or waits, and then sees the frame and makes its own row. Which partitions never held one is
 * read by the statements themselves, so a caller that has not read its locked rows (the sweeper's
 * one-write fire) passes them all: nothing is locked or written for the others. Two statements
 * whatever the number of tenants (a fire's batch may span thousands), run with inTurn: on a
 * pipelining connection they leave in one write with whatever the caller issues after them
 * (append's own statement), and the consumer rows' statement still takes its snapshot once the
 * queue lock is held (read committed), so it sees what it would see awaited. `name`: the
 * statements' prepared names (runStatement), on connections that keep them.
 */
export async function joinGroups(
  db: Queryable,
  keys: { tenant: string; queue: string; partition: string }[],
  pin: string[] | null,
  name?: string,
): Promise<void> {
  if (keys.length === 0) return;
  const params = [keys.map((k) => k.tenant), keys.map((k) => k.queue), keys.map((k) => k.partition), pin];
  await inTurn(db, [
    () => runStatement(db, LOCK_QUEUES_OF_SQL, params, name && `${name}:queues`),
    () => runStatement(db, JOIN_GROUPS_SQL, params, name && `${name}:groups`),
  ]);
}

/**
 * configure — $1 tenant, $2 queue, $3 encryptionEnabled, $4 leaseTime, $5 retryLimit (each null:
 * keep), $6 namespace, $7 task (null: keep), $8 the Queen options given (jsonb, merged over
 * the stored ones). Locks: the queue row. Rows: 1, the effective configuration.
 */
const CONFIGURE_SQL = `
UPDATE queues SET
  encryption_enabled = COALESCE($3::boolean, encryption_enabled),
  lease_time_seconds = COALESCE($4::integer, lease_time_seconds),
  retry_limit        = COALESCE($5::integer, retry_limit),
  namespace          = COALESCE($6::text, namespace),
  task               = COALESCE($7::text, task),
  queen_options      = queen_options || $8::jsonb,
  updated_at         = now()
WHERE tenant = $1 AND name = $2
RETURNING id::text AS id, namespace, task, queen_options, encryption_enabled, lease_time_seconds, retry_limit`;

export interface QueueConfiguration {
  queueId: string;
  namespace: string | null;
  task: string | null;
  options: QueueOptions;
}

/**
 * Creates the queue if missing and sets what is given (omitted: kept); answers the effective
 * configuration. encryptionEnabled, leaseTime and retryLimit are columns; Queen's other options
 * (QUEEN_QUEUE_OPTIONS; the retention ones act) are stored as given and echoed over their Queen
 * defaults.
 */
export async function configure(
  deps: { db: Database; cipher: PayloadCipher | undefined },
  tenant: string,
  queue: string,
  input: { namespace?: string | null; task?: string | null; options: Partial<QueueOptions> },
): Promise<QueueConfiguration> {
  const { encryptionEnabled, leaseTime, retryLimit, ...rest } = input.options;
  if (encryptionEnabled && !deps.cipher) throw encryptionUnavailable(queue);
  const queen = Object.fromEntries(Object.entries(rest).filter(([k, v]) => Object.hasOwn(QUEEN_QUEUE_OPTIONS, k) && v !== undefined));
  return inTransaction(deps.db.pool, async (tx) => {
    await tx.query(ENSURE_QUEUES_SQL, [tenant, [queue]]);
    const r = await tx.query<{
      id: string;
      namespace: string | null;
      task: string | null;
      queen_options: Record<string, unknown>;
      encryption_enabled: boolean;
      lease_time_seconds: number;
      retry_limit: number;
    }>(CONFIGURE_SQL, [
      tenant,
      queue,
      encryptionEnabled ?? null,
      leaseTime ?? null,
      retryLimit ?? null,
      input.namespace ?? null,
      input.task ?? null,
      JSON.stringify(queen),
    ]);
    const row = r.rows[0];
    return {
      queueId: row.id,
      namespace: row.namespace,
      task: row.task,
      options: {
        ...QUEEN_QUEUE_OPTIONS,
        ...(row.queen_options as Partial<QueueOptions>),
        encryptionEnabled: row.encryption_enabled,
        leaseTime: Number(row.lease_time_seconds),
        retryLimit: Number(row.retry_limit),
      },
    };
  });
}
