// fireClaimed — moves claimed timers into the log in one transaction, through the log's append
// (src/services/log/append.ts): it locks the destination partitions (commit order = seq order per
// partition, so a consumer's cursor never passes a frame still being fired), then runs one
// statement that deletes the timers and inserts their frames.
//
// Parameters: $1 claim token (null: the rows are locked by this very transaction, fireDue.ts), $2
//   tids of the timers to fire (tid[]), and the replacement bytes for
//   timers whose stored payload cannot enter the log as it is (zstd: the log has no zstd flag):
//   $3 tids (tid[]), $4 payloads (bytea[]), $5 encrypted flags (bool[]); $6 the timers' tenants
//   on Citus, named beside the ctids (a ctid is per shard, and the tenants route the statement to
//   the one shard group the timers were taken from), null on PostgreSQL (shardGroups.ts pinOf).
//   Locked here (fireClaimed on PostgreSQL): $7–$9 the destination partitions (append.ts
//   partitionsLockedHere), locked by the statement itself instead of a statement before it.
// Locks: the destination partition rows (until commit); the deleted timer rows (ours by lease);
//   the log's unique indexes for the inserted frames.
// Rows: nothing while the operator has paused the sweepers (cluster_flags; `paused` in the result).
//   Else deletes the timers of $2 that still carry $1 and are due on PostgreSQL's clock
//   (deliver_at <= clock_timestamp(), read once; written as `(…) IS TRUE` so that it cannot serve
//   as an index condition: the rows are found by a TID scan, never by walking timers_deliver_at_idx over the
//   whole backlog, which the planner chose when the statistics put one row there) — a broker that
//   lost its lease deletes 0 and
//   therefore inserts 0; a timer the broker's clock thought due too soon is not deleted and comes
//   back in `early`, so no frame is ever early whatever the broker's clock says. Inserts one frame per deleted timer in deliverAt order (seq follows the
//   ORDER BY), unless the log already holds its txn in that queue and partition (ON CONFLICT DO
//   NOTHING). A frame of the same timer key holding it is the first fire of a schedule the client
//   retried: the repeat is dropped, as the log's dedupe promises. Anything else holding it (a
//   pushed message, another timer's frame, in the log or in this very fire) would make this
//   timer's promise vanish: the timer goes to its queue's DLQ instead, under the timers' consumer
//   group, with the reason.
//   A zstd timer without replacement bytes would violate messages.payload NOT NULL on purpose:
//   the statement fails rather than delivering compressed bytes as if they were the payload.
//   A frame's created_at is that clock_timestamp(): the instant the fire found it due, never
//   before its deliverAt (the transaction's now() was read before the rows were locked).
// Returns one row: deleted, inserted, per tenant+queue the fire lags (created_at − deliver_at,
//   PostgreSQL's clock, seconds), the early tids and the clock_timestamp() the fire compared with.
import { append, partitionKeys, partitionsLockedHereByKeys, type LockedHere } from '../services/log/append.ts';
import { INSERT_DEAD_LETTERS } from '../services/log/deadLetterInsert.ts';
import { inTransaction, type Queryable } from '../db/transaction.ts';
import type { ClaimedTimer } from './claimDue.ts';
import type { SweeperDb } from './db.ts';
import { TIMER_DLQ_CONSUMER_GROUP } from './deadLetter.ts';
import { tenantPin } from '../db/sql.ts';
import { pinOf } from './shardGroups.ts';

export interface Replacement {
  tid: string;
  payload: Buffer;
  encrypted: boolean;
}

export interface FireResult {
  deleted: number;
  inserted: number;
  /** Timers dead-lettered because another message holds their txn in their queue and partition. */
  collided: number;
  queues: { tenant: string; queue: string; partitions: string[]; lags: number[] }[];
  /** Timers of the batch, still ours, that were not due yet on PostgreSQL's clock: back to the wheel. */
  early: string[];
  /** The clock_timestamp() the fire compared deliverAts with, ms since the epoch. */
  pgNowMs: number;
  /** The operator paused the sweepers (cluster_flags): nothing was fired. */
  paused: boolean;
}

/** The operator's pause (cluster_flags), as SQL. */
const PAUSED = `coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false)`;

/** What the fire's DELETE (`d`) returns of each timer: what FRAMES_OF_D makes a frame of. */
export const DELETED_TIMER = `t.ctid AS tid, t.tenant, t.queue, t.partition, t.timer_key, t.deliver_at, t.txn, t.message_id,
    t.payload, t.payload_zstd, t.encrypted, t.producer_sub, t.traceparent`;

/**
 * The deleted timers `d` as the append's `frames`, in deliverAt order, each with its replacement
 * bytes from `o` (tid, payload, encrypted) when it has some.
 */
export const FRAMES_OF_D = `frames AS (
  SELECT row_number() OVER (ORDER BY d.deliver_at, d.timer_key) AS ord, d.tenant, d.message_id AS id, d.queue,
    d.partition, d.txn AS transaction_id,
    CASE WHEN o.tid IS NOT NULL THEN o.payload WHEN d.payload_zstd THEN NULL ELSE d.payload END AS payload,
    coalesce(o.encrypted, d.encrypted) AS encrypted, d.producer_sub, d.timer_key, d.deliver_at,
    substr(d.traceparent, 4, 32)::uuid AS trace_id, d.traceparent
  FROM d LEFT JOIN o ON o.tid = d.tid
)`;

/**
 * The fired timers as frames (see the header); feeds the log's one append statement. Locked here
 * (`lockedHere`): the statement takes the destination partitions' append lock itself ($7–$9,
 * partitionsLockedHere) and deletes nothing unless each exists and (`held`) has held a frame.
 */
const firedFrames = (lockedHere?: LockedHere) => `
o AS (
  SELECT * FROM unnest($3::tid[], $4::bytea[], $5::boolean[]) AS o(tid, payload, encrypted)
),${lockedHere ? ` ready AS (SELECT ${partitionsLockedHereByKeys(lockedHere)} AS ok),` : ''} d AS (
  DELETE FROM timers t
  WHERE t.ctid = ANY ($2::tid[]) AND ${tenantPin('t', '$6')} AND ($1::uuid IS NULL OR t.claim_token = $1)
    AND (t.deliver_at <= statement_timestamp()) IS TRUE AND NOT ${PAUSED}${lockedHere ? ' AND (SELECT ok FROM ready)' : ''}
  RETURNING ${DELETED_TIMER}
), ${FRAMES_OF_D}`;

export const FIRED_FRAMES = firedFrames();

/**
 * The timers whose frame was not appended and whose txn no frame of their own key holds: the DLQ.
 * The counts come first, as a one-time filter: when every frame was appended (all but a misuse of
 * txn) the anti-join never runs. It must not: the CTEs' row estimates follow the timers table's
 * statistics, and with an estimate of one row the planner joins frames to `appended` by a nested
 * loop, a quadratic scan that dominated the fire once an ANALYZE had sampled claimed rows
 * (docs/benchmarks.md).
 */
export const collided = (tenants: string) => `
collided AS (
  ${INSERT_DEAD_LETTERS}
  SELECT f.tenant, f.queue, f.partition, '${TIMER_DLQ_CONSUMER_GROUP}', f.id, f.transaction_id, f.payload, f.encrypted,
    false, f.producer_sub,
    'txn_conflict: txn ' || f.transaction_id || ' is already taken in queue ' || f.queue || ', partition ' || f.partition
      || ', by another message (a push or another timer); this timer was not delivered: give each timer its own txn',
    0, true, f.timer_key
  FROM frames f
  WHERE (SELECT count(*) FROM appended) < (SELECT count(*) FROM frames)
    AND NOT EXISTS (SELECT 1 FROM appended a WHERE a.tenant = f.tenant AND a.id = f.id::text)
    AND NOT EXISTS (SELECT 1 FROM messages m
                     WHERE m.tenant = f.tenant AND ${tenantPin('m', tenants)} AND m.queue = f.queue AND m.partition = f.partition
                       AND m.transaction_id = f.transaction_id AND m.timer_key = f.timer_key)
  RETURNING 1
)`;

export const COLLIDED = collided('$6');

/**
 * The fire's one result row (see the header): `early` and `unready` as SQL (locked here, `unready`
 * says the partitions refused it: firedFrames), then `more` columns.
 */
export const fireResult = (early: string, unready: string, more = '') => `
SELECT (SELECT count(*) FROM d)::int AS deleted,
  (SELECT count(*) FROM appended)::int AS inserted,
  (SELECT count(*) FROM collided)::int AS collided,
  (SELECT coalesce(json_agg(g), '[]'::json)
     FROM (SELECT tenant, queue, array_agg(DISTINCT partition) AS partitions, array_agg(lag) AS lags
             FROM appended GROUP BY tenant, queue) g) AS queues,
  ${early} AS early,
  (extract(epoch FROM statement_timestamp()) * 1000)::float8 AS pg_now_ms,
  ${PAUSED} AS paused,
  ${unready} AS unready${more}`;

/** The timers of $2 still ours that were not due on the fire's clock (see the header). */
const EARLY = `(SELECT coalesce(array_agg(t.ctid::text), '{}') FROM timers t
    WHERE (SELECT count(*) FROM d) < cardinality($2::tid[])
      AND t.ctid = ANY ($2::tid[]) AND ${tenantPin('t', '$6')} AND ($1::uuid IS NULL OR t.claim_token = $1)
      AND (t.deliver_at > statement_timestamp()) IS TRUE)`;

export const FIRE_RESULT = fireResult(EARLY, 'false');
const FIRE_RESULT_LOCKED_HERE = fireResult(EARLY, 'NOT (SELECT ok FROM ready)');

/** The statement's source, locked here or not (firedFrames), built once. */
const FIRED_FRAMES_HERE: Record<LockedHere, string> = { held: firedFrames('held'), joining: firedFrames('joining') };

export async function fireClaimed(
  db: SweeperDb,
  token: string,
  rows: ClaimedTimer[],
  replacements: Map<string, Replacement>,
  { here = 'held' }: { here?: LockedHere | null } = {},
): Promise<FireResult> {
  const tenants = pinOf(rows);
  // No replay here: the sweeper retries by its own rules, and the claim token makes that safe.
  const fire = (lockedHere?: LockedHere) =>
    inTransaction(db.pool, (tx) => fireAndCommit(tx, token, rows, replacements, db.named('qt_fire'), tenants, lockedHere), {
      replay: false,
    });
  // On PostgreSQL's own connections, the fire locks its partitions itself, so BEGIN, the fire and
  // COMMIT leave in one write: one round trip from the timer's instant to its frame, where the lock
  // statement first made two (a wheel's fire lags by its first round trip, and the next timer
  // waits for the whole transaction). `here` says how (append.ts LockedHere): `held` refuses a
  // partition that never held a frame, `joining` gives it its consumer rows in that same write. A
  // partition that does not exist (or, `held`, never held a frame) refuses it, with nothing fired:
  // the usual append then creates what it needs (at once, `here` null, when the fire thread's
  // statement already refused: one round trip fewer). Not on Citus, whose router is known to take the
  // lock statement as it stands (shardGroups.ts) and has not been tried with this shape, nor
  // embedded, where nothing is pipelined.
  if (tenants === null && !db.embedded && here) {
    const r = await fire(here);
    if (!r.unready) return r;
  }
  return fire();
}

/**
 * The fire as the last statement of `tx`, which it commits: the statement goes out with its
 * COMMIT (one round trip fewer while the partitions are locked). token null: `tx` itself holds the
 * rows (fireDue.ts). `name`: the statements' prepared name (SweeperDb.named), suffixed with the
 * shape's (`_held`, `_joining`) when locked here. `tenants`: $6 (see the header). `lockedHere`: the
 * statement takes the partitions' lock itself (firedFrames, append.ts LockedHere), and `unready`
 * in the result says it refused.
 */
export async function fireAndCommit(
  tx: Queryable,
  token: string | null,
  rows: ClaimedTimer[],
  replacements: Map<string, Replacement>,
  name: string | undefined,
  tenants: string[] | null,
  lockedHere?: LockedHere,
): Promise<FireResult & { unready: boolean }> {
  const repl = rows.map((r) => replacements.get(r.tid)).filter((x): x is Replacement => x !== undefined);
  const params = [token, rows.map((x) => x.tid), repl.map((x) => x.tid), repl.map((x) => x.payload), repl.map((x) => x.encrypted), tenants];
  if (lockedHere) {
    const keys = partitionKeys(rows);
    params.push(
      keys.map((k) => k.tenant),
      keys.map((k) => k.queue),
      keys.map((k) => k.partition),
    );
  }
  const [r] = await append<Omit<FireResult, 'pgNowMs'> & { pg_now_ms: number; unready: boolean }>(
    tx,
    rows,
    {
      ctes: lockedHere ? FIRED_FRAMES_HERE[lockedHere] : FIRED_FRAMES,
      createdAt: 'statement_timestamp()',
      after: COLLIDED,
      params,
      result: lockedHere ? FIRE_RESULT_LOCKED_HERE : FIRE_RESULT,
      tenants: '$6',
      name: name && lockedHere ? `${name}_${lockedHere}` : name,
    },
    { commit: true, pin: tenants, lockedInStatement: lockedHere },
  );
  const { pg_now_ms: pgNowMs, ...result } = r;
  return { ...result, pgNowMs };
}
