// shardGroups — on a Citus cluster, which tenants have timers to take, grouped by shard.
//
// Citus runs FOR UPDATE, and a write's locks, only in a statement pinned to one shard: a filter
// `tenant = ANY($n)` whose tenants all live in one shard group (colocated shards of every table,
// on one worker). So the sweeper's statements that find rows (the due fire's lock, the window's
// claim) carry a tenant filter, `tenantPin`, and on Citus the sweeper fills it once per shard
// group: a read without locks (DUE_GROUPS_SQL, multi-shard, no transaction) lists the tenants whose
// timers are due within the window, in deliverAt order, grouped by their shard; then each group
// is locked, claimed and fired by statements that Citus routes to that one shard, in transactions
// that touch one worker (no two-phase commit on the hot path). The statements that address rows
// they took (by ctid: the fire, backoff, dead letter) name the rows' tenants beside the ctids, on
// every database.
//
// On plain PostgreSQL there is one group, all tenants: the filter's parameter is null and the
// statements find rows as they always did, walking timers_deliver_at_idx in deliverAt order, with
// no read ahead of them. This module and tenantPin (src/db/sql.ts) are where the two differ.
//
// Why a read, not a directory of tenants kept by the schedule path: the directory would cost every
// schedule, reschedule and backoff a write (the hot path the sweeper serves), and its guard against
// hiding a timer scheduled while its tenant drains is a protocol of its own. The read costs the
// sweeper, on Citus only, one parallel scan of the due part of each shard's deliver_at index per
// claim and per fire pass; it sees a timer as soon as its schedule committed.
//
// Parameters of DUE_GROUPS_SQL: $1 the window in ms (due = by now() + $1), $2 how many due timers
//   the read looks at (their tenants make the groups; the oldest first).
// Locks: none. Rows: one, with PostgreSQL's now(), the pause flag, the delay to the earliest timer
//   beyond the window (null: none), and the groups: shard id, tenants, and whether any of their
//   timers is due now (not only within the window).
import { citusDistributed } from '../db/citus.ts';
import { notClaimedSql } from './claimed.ts';
import type { SweeperDb } from './db.ts';

export const DUE_GROUPS_SQL = `
WITH flags AS (
  SELECT coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false) AS paused
), due AS (
  SELECT tenant, deliver_at <= now() AS due_now FROM timers
   WHERE deliver_at <= now() + $1 * interval '1 millisecond' AND ${notClaimedSql('timers')}
   ORDER BY deliver_at
   LIMIT $2
), groups AS (
  SELECT get_shard_id_for_distribution_column('timers', tenant)::text AS shard, array_agg(DISTINCT tenant) AS tenants,
         bool_or(due_now) AS due_now
    FROM due GROUP BY 1
), later AS (
  SELECT min(deliver_at) AS at FROM timers WHERE deliver_at > now() + $1 * interval '1 millisecond'
)
SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms, f.paused,
       (extract(epoch FROM l.at - now()) * 1000)::float8 AS next_due_ms,
       CASE WHEN f.paused THEN '[]'::json ELSE coalesce(g.j, '[]'::json) END AS groups
  FROM flags f, later l,
       (SELECT json_agg(json_build_object('shard', shard, 'tenants', tenants, 'dueNow', due_now)) AS j FROM groups) g`;

/** A shard group's tenants with timers to take. */
export interface ShardGroup {
  /** Citus's shard id of the group (of `timers`); null on plain PostgreSQL, where one group holds every tenant. */
  shard: string | null;
  /** The tenants (null: every tenant, plain PostgreSQL). */
  tenants: string[] | null;
  /** Some of its timers are due now, not only within the window. */
  dueNow: boolean;
}

export interface DueGroups {
  groups: ShardGroup[];
  nowMs: number;
  paused: boolean;
  /** ms from nowMs to the earliest deliverAt beyond the window; null when none is pending. */
  nextDueInMs: number | null;
}

/** The one group of plain PostgreSQL: every tenant, no filter. */
export const ALL_TENANTS: ShardGroup = { shard: null, tenants: null, dueNow: true };

const distributed = new WeakMap<SweeperDb, Promise<boolean>>();

/** Whether the sweeper's statements must be pinned per shard group: `timers` is distributed (asked once per SweeperDb; asked again after a failure). */
export function pinnedPerShard(db: SweeperDb): Promise<boolean> {
  let known = distributed.get(db);
  if (!known) {
    known = db.embedded ? Promise.resolve(false) : citusDistributed(db.pool, 'timers');
    distributed.set(db, known);
    known.catch(() => distributed.delete(db));
  }
  return known;
}

/** Citus only: the shard groups whose tenants have unclaimed timers due within `windowMs`. */
export async function dueGroups(db: SweeperDb, windowMs: number, look: number): Promise<DueGroups> {
  const r = await db.query(DUE_GROUPS_SQL, [windowMs, look]);
  const row = r.rows[0];
  return {
    groups: row.groups as ShardGroup[],
    nowMs: row.now_ms,
    paused: row.paused,
    nextDueInMs: row.next_due_ms,
  };
}

/**
 * What a statement addressing taken rows by ctid names beside the ctids (tenantPin's parameter):
 * on Citus the rows' distinct tenants (one shard group's), on plain PostgreSQL null. Not the
 * tenants there too: PostgreSQL would then find the rows by the tenant's index, every timer of the
 * tenant, instead of by their addresses.
 */
export const pinOf = (rows: { tenant: string; shard: string | null }[]): string[] | null =>
  rows.length > 0 && rows[0].shard !== null ? [...new Set(rows.map((r) => r.tenant))] : null;
