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
// Parameters: $1 batch size, $2 stripes, $3 this stripe (0 ≤ $3 < $2), $4 the shard group's
//   tenants (shardGroups.ts; null on plain PostgreSQL: every tenant).
// Locks: FOR UPDATE SKIP LOCKED on up to $1 due, unclaimed rows of the stripe, walked in deliver_at
//   order on timers_deliver_at_idx (the sweeper's planner settings, db.ts); rows another broker
//   claimed or is firing are skipped, never waited on. Nothing while the sweeper is paused.
// Rows: the locked timers (claimDue's columns).
import { runStatement } from '../db/transaction.ts';
import type { PayloadCipher } from '../payload.ts';
import { notClaimedSql } from './claimed.ts';
import { tenantPin } from '../db/sql.ts';
import { TAKEN_COLUMNS, takenTimer, type ClaimedTimer } from './claimDue.ts';
import type { SweeperDb } from './db.ts';
import { fireAndCommit, type FireResult, type Replacement } from './fireClaimed.ts';
import { unpack } from './unpack.ts';

export const DUE_SQL = `
SELECT ${TAKEN_COLUMNS}
  FROM timers t
 WHERE t.deliver_at <= now()
   AND ${notClaimedSql('t')}
   AND ${tenantPin('t', '$4')}
   AND ($2::int = 1 OR abs(hashtext(t.tenant || '/' || t.queue || '/' || t.partition)) % $2 = $3)
   AND NOT coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false)
 ORDER BY t.deliver_at
 LIMIT $1
   FOR UPDATE OF t SKIP LOCKED`;

export interface DueFire {
  /** The timers the transaction locked (and fired, unless it threw). */
  rows: ClaimedTimer[];
  /** The fire's result; undefined when nothing was due. */
  fired: FireResult | undefined;
}

/**
 * One batch of one stripe. Throws, with nothing fired and nothing left locked, when the database
 * fails or when a row cannot be fired (unpack, constraint): the pass then claims the due timers to
 * find and charge the failing ones (pass.ts). `fire` wraps the fire (its span).
 */
export function fireDue(
  db: SweeperDb,
  cipher: PayloadCipher | undefined,
  batchSize: number,
  stripe: number,
  stripes: number,
  tenants: string[] | null,
  fire: (rows: ClaimedTimer[], run: () => Promise<FireResult>) => Promise<FireResult>,
): Promise<DueFire> {
  return db.transaction(async (tx) => {
    const rows = (await runStatement(tx, DUE_SQL, [batchSize, stripes, stripe, tenants], db.named('qt_due'))).rows.map(takenTimer);
    if (rows.length === 0) return { rows, fired: undefined };
    const replacements = new Map<string, Replacement>();
    for (const row of rows) {
      const r = await unpack(row, cipher);
      if (r) replacements.set(row.tid, r);
    }
    return { rows, fired: await fire(rows, () => fireAndCommit(tx, null, rows, replacements, db.named('qt_fire'), tenants)) };
  });
}
