// Retention — deletes old frames of the log, in every broker, in bounded batches.
//
// Per queue (Queen's options, in queues.queen_options; 0 or unset = the cell default from
// QUEEN_DEFAULT_RETENTION_SECONDS / QUEEN_DEFAULT_COMPLETED_RETENTION_SECONDS; retentionEnabled
// false turns both off for the queue):
//  - retentionSeconds: a frame older than this goes, consumed or not;
//  - completedRetentionSeconds: a frame older than this goes once every consumer group of its
//    partition has passed it (seq <= each group's cursor), observers (OBSERVER_PREFIX) aside. A
//    partition no group reads keeps its frames; a frame in a leased batch is after its group's
//    cursor, so it stays.
// With a frame go its delivery rows (failure counts) and its dead letters; a timer's dead letters
// (which have no frame) go when older than the queue's retention.
//
// A pass claims up to PARTITIONS_PER_PASS partitions of queues with retention, least recently
// visited first (FOR UPDATE SKIP LOCKED, then marked visited, in one short statement: two brokers
// never take the same partition in one round), then prunes each in a transaction of its
// own that deletes at most QUEEN_RETENTION_BATCH_SIZE frames: the oldest run of expired frames, read
// as one index range from the partition's start (a full batch is followed by another, up to
// BATCHES_PER_PARTITION). A pass killed halfway deletes nothing early: each
// statement re-reads the ages and cursors on PostgreSQL's clock when it runs.
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { INDEX_PLANS, setLocal } from '../db/plannerSettings.ts';
import { inTransaction } from '../db/transaction.ts';
import type { Metrics } from '../metrics.ts';
import type { DutySpec } from './loop.ts';

const PARTITIONS_PER_PASS = 50;
/**
 * Consumer groups named with this prefix are observers (the CLI's `tail`): they read and ack like
 * any group, but completedRetentionSeconds does not wait for them, so a tail left behind (or
 * never run again) holds nothing back.
 */
export const OBSERVER_PREFIX = '__observer:';
/**
 * Batches one pass may delete from one partition: a partition whose batch came back full is pruned
 * again at once (each batch its own transaction), so a hot partition — a queue's Default partition
 * receiving the fire of every timer — is not left behind by a fixed batch per pass.
 */
const BATCHES_PER_PARTITION = 20;

/** A queue's effective retention in seconds for one option: its own, else the cell default; off when it disabled retention. */
const effective = (option: string, cellDefault: string) => `
  CASE WHEN (q.queen_options->>'retentionEnabled')::boolean IS FALSE THEN 0
       ELSE coalesce(nullif((q.queen_options->>'${option}')::int, 0), ${cellDefault}) END`;

/**
 * claimPartitions — $1 default retention s, $2 default completed retention s, $3 partitions.
 * The queues with retention (a scan of the queues table: one row per queue), then their
 * partitions least recently visited first. Locks: the claimed partition rows, until the claim
 * commits (one being appended to is skipped this round). Rows: the claimed partitions with their
 * queue's effective retention, and how long ago the least recently visited of them was visited.
 */
export const CLAIM_PARTITIONS_SQL = `
WITH kept AS (
  SELECT q.tenant, q.name, ${effective('retentionSeconds', '$1')} AS retention_s,
         ${effective('completedRetentionSeconds', '$2')} AS completed_s
    FROM queues q
),
candidates AS (
  SELECT p.tenant, p.queue, p.name AS partition, p.retained_at, k.retention_s, k.completed_s
    FROM kept k
    JOIN partitions p ON p.tenant = k.tenant AND p.queue = k.name
   WHERE k.retention_s > 0 OR k.completed_s > 0
   ORDER BY p.retained_at NULLS FIRST
   LIMIT $3
     FOR UPDATE OF p SKIP LOCKED
),
visited AS (
  UPDATE partitions p SET retained_at = now() FROM candidates c
   WHERE p.tenant = c.tenant AND p.queue = c.queue AND p.name = c.partition
)
SELECT c.tenant, c.queue, c.partition, c.retention_s, c.completed_s,
       extract(epoch FROM now() - (SELECT min(coalesce(x.retained_at, now())) FROM candidates x))::float8 AS lag_s
  FROM candidates c`;

/**
 * prunePartition — $1 tenant, $2 queue, $3 partition, $4 batch, $5 retention s, $6 completed s
 * (0 = off). Deletes the oldest run of the partition's frames that are expired — older than $5,
 * or older than $6 and passed by every consumer group of the partition — at most $4, with their
 * delivery rows and dead letters, and the partition's timer dead letters older than its retention.
 * Locks: the deleted rows. Rows: one, the counts.
 */
export const PRUNE_PARTITION_SQL = `
WITH passed AS (
  SELECT min(c.cursor_seq) AS seq FROM partition_consumers c
   WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $3 AND NOT starts_with(c.consumer_group, '${OBSERVER_PREFIX}')
),
head AS (
  SELECT m.seq, m.id,
         ($5 > 0 AND m.created_at < now() - make_interval(secs => $5))
      OR ($6 > 0 AND m.created_at < now() - make_interval(secs => $6) AND m.seq <= coalesce((SELECT seq FROM passed), 0)) AS expired
    FROM messages m
   WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = $3
   ORDER BY m.seq
   LIMIT $4
),
doomed AS (
  SELECT h.seq, h.id FROM head h
   WHERE h.seq < coalesce((SELECT min(k.seq) FROM head k WHERE NOT k.expired), 9223372036854775807)
),
gone AS (
  DELETE FROM messages m USING doomed d WHERE m.tenant = $1 AND m.queue = $2 AND m.partition = $3 AND m.seq = d.seq
  RETURNING m.seq, m.id
),
deliveries AS (
  DELETE FROM message_deliveries x
   USING gone g, (SELECT c.consumer_group FROM partition_consumers c
                   WHERE c.tenant = $1 AND c.queue = $2 AND c.partition = $3) c
   WHERE x.tenant = $1 AND x.consumer_group = c.consumer_group AND x.message_seq = g.seq
),
letters AS (
  DELETE FROM dead_letters l USING gone g WHERE l.tenant = $1 AND l.message_id = g.id
  RETURNING 1
),
timer_letters AS (
  DELETE FROM dead_letters l
   WHERE l.tenant = $1 AND l.ctid = ANY (ARRAY(
         SELECT t.ctid FROM dead_letters t
          WHERE t.tenant = $1 AND t.queue = $2 AND t.partition = $3 AND t.from_timer
            AND t.created_at < now() - make_interval(secs => greatest($5, $6))
          LIMIT $4))
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int AS frames,
       ((SELECT count(*) FROM letters) + (SELECT count(*) FROM timer_letters))::int AS dead_letters`;

interface Claimed {
  tenant: string;
  queue: string;
  partition: string;
  retention_s: number;
  completed_s: number;
  lag_s: number | null;
}

export interface RetentionPass {
  partitions: number;
  frames: number;
  deadLetters: number;
}

export interface RetentionDeps {
  db: Database;
  config: Config;
  metrics: Metrics;
}

/** One pass: claims partitions with retention and prunes each once. */
export async function retainOnce(deps: RetentionDeps): Promise<RetentionPass> {
  const { config, metrics } = deps;
  const claimed = (
    await deps.db.pool.query<Claimed>(CLAIM_PARTITIONS_SQL, [
      config.QUEEN_DEFAULT_RETENTION_SECONDS,
      config.QUEEN_DEFAULT_COMPLETED_RETENTION_SECONDS,
      PARTITIONS_PER_PASS,
    ])
  ).rows;
  const pass: RetentionPass = { partitions: claimed.length, frames: 0, deadLetters: 0 };
  metrics.retentionLag.set(claimed.length === 0 ? 0 : Math.max(0, claimed[0].lag_s ?? 0));
  for (const c of claimed) {
    for (let batch = 0; batch < BATCHES_PER_PARTITION; batch++) {
      const r = await inTransaction(
        deps.db.pool,
        (tx) =>
          tx.query<{ frames: number; dead_letters: number }>(PRUNE_PARTITION_SQL, [
            c.tenant,
            c.queue,
            c.partition,
            config.QUEEN_RETENTION_BATCH_SIZE,
            c.retention_s,
            c.completed_s,
          ]),
        { setup: setLocal(INDEX_PLANS) },
      );
      pass.frames += r.rows[0].frames;
      pass.deadLetters += r.rows[0].dead_letters;
      if (r.rows[0].frames < config.QUEEN_RETENTION_BATCH_SIZE) break;
    }
  }
  metrics.retained.inc({ kind: 'frames' }, pass.frames);
  metrics.retained.inc({ kind: 'dead_letters' }, pass.deadLetters);
  return pass;
}

/** The duty: retainOnce every QUEEN_RETENTION_INTERVAL_MS, on the maintenance loop (loop.ts). */
export function retentionDuty(deps: RetentionDeps): DutySpec<RetentionPass> {
  return { name: 'retention', everyMs: deps.config.QUEEN_RETENTION_INTERVAL_MS, run: () => retainOnce(deps) };
}
