// fireDue — fires timers that are already due straight from the table, in one transaction: lock
// the next due batch (FOR UPDATE SKIP LOCKED), unpack what must be unpacked, append the frames and
// delete the rows (fireClaimed.ts's statement, with its COMMIT).
//
// Why not claim first, as the hand-off window does: a claim writes every row (its lease) and the
// fire then deletes that new version, so each timer was written twice, in two commits. Here a
// timer is locked, not written, until its fire deletes it: the backlog fires at about twice the
// claim-then-fire rate (docs/benchmarks.md). The row lock is the lease: held by this transaction
// only, it dies with the connection, so a killed broker leaves nothing to expire and nothing to
// release. A cancel or reschedule of a row being fired waits for the fire (one transaction) and
// then finds it gone: absent, as for any fired timer.
//
// Stripes: the pass runs `stripes` of these transactions side by side, each taking only the
// partitions whose hash falls in its stripe. Two fires of one partition would serialise on its
// append lock anyway; fires of different partitions use both of PostgreSQL's cores. Within a
// partition, frames keep their deliverAt order: one stripe holds the partition, and the pass
// awaits every stripe before the next.
//
// One statement (plain PostgreSQL): the due rows are chosen, locked, deleted and appended by one
// statement (DUE_FIRE_SQL), which leaves with its BEGIN and COMMIT in one write: one round trip a
// batch, where choosing the rows first and firing them in a second statement (after the
// partitions' lock statement) made three, each a hand-off between PostgreSQL and the broker on a
// machine whose cores both are busy. The fire ran at 1.2–1.4x the rate of the three (fire bench,
// docs/benchmarks.md). The statement refuses a batch it cannot fire as it stands, firing nothing:
// a zstd payload (unpacked by the broker, unpack.ts) or a partition's first frame (append() creates
// its consumer rows first). The batch is then fired the two-statement way. After a zstd payload the
// stripe keeps that way for the rest of the pass (a backlog of zstd timers would be refused batch
// after batch); after first frames, which that batch has now appended, it tries the one statement
// once more (pass.ts).
// Not on Citus (each shard group's batch takes the two statements there, as shardGroups.ts routes
// them), nor embedded, where nothing is pipelined.
//
// Parameters (DUE_SQL): $1 batch size, $2 stripes, $3 this stripe (0 ≤ $3 < $2), $4 the shard
//   group's tenants (shardGroups.ts; null on plain PostgreSQL: every tenant). DUE_FIRE_SQL: the
//   same, and $5 whether to return the fired timers for the span's links (tracing.ts).
// Locks: FOR UPDATE SKIP LOCKED on up to $1 due, unclaimed rows of the stripe, walked in deliver_at
//   order on timers_deliver_at_idx (the sweeper's planner settings, db.ts); rows another broker
//   claimed or is firing are skipped, never waited on. Nothing while the sweeper is paused.
//   DUE_FIRE_SQL then locks their partitions as the append does (partitionsLockedHere).
// Rows: DUE_SQL, the locked timers (claimDue's columns); DUE_FIRE_SQL, the fire's result row
//   (fireClaimed.ts) with `taken`, the rows it locked, `zstd`, whether one holds a zstd payload
//   (why it refused), and `described`, the fired ones ($5).
//   A row updated since the statement's snapshot is locked in its newest version, which the
//   DELETE (under the snapshot) does not see: it stays, unfired and unlocked at COMMIT, for the
//   next batch.
import { commitWith, runStatement } from '../db/transaction.ts';
import type { PayloadCipher } from '../payload.ts';
import { notClaimedSql } from './claimed.ts';
import { tenantPin } from '../db/sql.ts';
import { appendSql, partitionsLockedHere } from '../services/log/append.ts';
import { TAKEN_COLUMNS, takenTimer } from './claimDue.ts';
import type { SweeperDb } from './db.ts';
import { collided, DELETED_TIMER, fireAndCommit, fireResult, FRAMES_OF_D, type FireResult, type Replacement } from './fireClaimed.ts';
import { tracingInstalled } from '../tracing.ts';
import { firedSpan, fireSpan } from './tracing.ts';
import { unpack } from './unpack.ts';

/** The due, unclaimed rows of a stripe, first due first, locked; `columns` of each. */
export const dueRows = (columns: string) => `
SELECT ${columns}
  FROM timers t
 WHERE t.deliver_at <= now()
   AND ${notClaimedSql('t')}
   AND ${tenantPin('t', '$4')}
   AND ($2::int = 1 OR abs(hashtext(t.tenant || '/' || t.queue || '/' || t.partition)) % $2 = $3)
   AND NOT coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false)
 ORDER BY t.deliver_at
 LIMIT $1
   FOR UPDATE OF t SKIP LOCKED`;

export const DUE_SQL = dueRows(TAKEN_COLUMNS);

/** DUE_FIRE_SQL's frames: the due rows, their partitions locked, deleted unless refused (see the header). */
const DUE_FRAMES = `
due AS MATERIALIZED (${dueRows('t.ctid AS tid, t.tenant, t.queue, t.partition, t.payload_zstd')}
),
keys AS MATERIALIZED (SELECT DISTINCT tenant, queue, partition AS name FROM due),
ready AS (
  SELECT NOT EXISTS (SELECT 1 FROM due WHERE payload_zstd)
     AND ${partitionsLockedHere(
       `(SELECT * FROM keys ORDER BY tenant COLLATE "C", queue COLLATE "C", name COLLATE "C") k`,
       '(SELECT count(*) FROM keys)',
       'held',
     )} AS ok
),
o AS (SELECT NULL::tid AS tid, NULL::bytea AS payload, NULL::boolean AS encrypted WHERE false),
d AS (
  DELETE FROM timers t
   WHERE t.ctid = ANY (ARRAY(SELECT tid FROM due)) AND ${tenantPin('t', '$4')} AND (SELECT ok FROM ready)
  RETURNING ${DELETED_TIMER}
), ${FRAMES_OF_D}`;

export const DUE_FIRE_SQL = appendSql({
  ctes: DUE_FRAMES,
  createdAt: 'statement_timestamp()',
  after: collided('$4'),
  result: fireResult(
    `'{}'::text[]`,
    'NOT (SELECT ok FROM ready)',
    `,
  (SELECT count(*) FROM due)::int AS taken,
  EXISTS (SELECT 1 FROM due WHERE payload_zstd) AS zstd,
  CASE WHEN $5::boolean THEN (SELECT json_agg(json_build_object('tenant', tenant, 'queue', queue, 'partition', partition,
    'timerKey', timer_key, 'txn', txn, 'messageId', message_id, 'traceparent', traceparent)) FROM d) END AS described`,
  ),
  tenants: '$4',
});

/** Which due timers a batch takes: the parameters of the header. */
export interface DueBatch {
  /** At most this many ($1). */
  size: number;
  /** This stripe of `stripes` ($3, $2). */
  stripe: number;
  stripes: number;
  /** The shard group's tenants ($4; null on plain PostgreSQL). */
  tenants: string[] | null;
}

export interface DueFire {
  /** How many due timers the transaction locked (and fired, unless it threw). */
  taken: number;
  /** The fire's result; undefined when nothing was due. */
  fired: FireResult | undefined;
  /**
   * The one statement refused the batch, which was then fired the two-statement way (see the
   * header): for a zstd payload, or for its partitions (one that never held a frame, or missing).
   */
  refused: false | 'zstd' | 'partitions';
}

/**
 * One batch of one stripe, in one statement when `oneStatement` and the database allow (see the
 * header). Throws, with nothing fired and nothing left locked, when the database fails or when a
 * row cannot be fired (unpack, constraint): the pass then claims the due timers to find and
 * charge the failing ones (pass.ts).
 */
export async function fireDue(db: SweeperDb, cipher: PayloadCipher | undefined, batch: DueBatch, oneStatement: boolean): Promise<DueFire> {
  const { size, stripe, stripes, tenants } = batch;
  if (oneStatement && tenants === null && !db.embedded) {
    const describe = tracingInstalled();
    let refused: DueFire['refused'] = false;
    const done = await firedSpan(Date.now(), async () => {
      const [r] = (
        await db.transaction((tx) => commitWith<any>(tx, DUE_FIRE_SQL, [size, stripes, stripe, null, describe], db.named('qt_due_fire')))
      ).rows;
      const { pg_now_ms: pgNowMs, taken, described, unready, zstd, ...fired } = r;
      if (unready) refused = zstd ? 'zstd' : 'partitions';
      return unready ? undefined : { taken, described: described ?? undefined, fired: { ...fired, pgNowMs } as FireResult };
    });
    if (done) return { taken: done.taken, fired: done.taken > 0 ? done.fired : undefined, refused: false };
    return { ...(await inTwoStatements(db, cipher, batch)), refused };
  }
  return { ...(await inTwoStatements(db, cipher, batch)), refused: false };
}

/** The batch chosen and locked by DUE_SQL, then fired by fireClaimed.ts's statement with its COMMIT. */
function inTwoStatements(db: SweeperDb, cipher: PayloadCipher | undefined, batch: DueBatch): Promise<Omit<DueFire, 'refused'>> {
  const { size, stripe, stripes, tenants } = batch;
  return db.transaction(async (tx) => {
    const rows = (await runStatement(tx, DUE_SQL, [size, stripes, stripe, tenants], db.named('qt_due'))).rows.map(takenTimer);
    if (rows.length === 0) return { taken: 0, fired: undefined };
    const replacements = new Map<string, Replacement>();
    for (const row of rows) {
      const r = await unpack(row, cipher);
      if (r) replacements.set(row.tid, r);
    }
    const fired = await fireSpan(rows, undefined, () => fireAndCommit(tx, null, rows, replacements, db.named('qt_fire'), tenants));
    return { taken: rows.length, fired };
  });
}
