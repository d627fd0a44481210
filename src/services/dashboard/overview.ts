// The overview: per queue of the caller's tenant, what is pending, due soon, overdue, claimed,
// fired, dead-lettered, in the log and behind in its consumer groups, and warnings in words.
//
// Its cost does not grow with a queue: each count reads at most COUNT_CAP index entries (the
// timers on timers_queue_deliver_at or the primary key, frames on the messages key, dead letters on
// dead_letters_queue); a queue past the cap gets an estimate from one block sample per table
// (pending, frames, dead letters: SAMPLE_PAGES pages) or a lower bound (windows, overdue, claimed).
// The bench line `npm run bench -- dashboard` times it on a queue of five million timers.
import {
  CONSUMER_LAG_WARNING_SECONDS,
  OVERDUE_WARNING_SECONDS,
  OVERVIEW_GROUPS_MAX,
  type Count,
  type Overview,
  type QueueOverview,
  type Warning,
} from '../../contract/dashboard.ts';
import type { Database } from '../../db/index.ts';
import { isoSql } from '../../db/sql.ts';
import { claimedSql } from '../../sweeper/claimed.ts';
import type { ClusterFlagsCache } from '../cluster.ts';
import { COUNT_CAP, capped, cappedCount, estimateByQueue, type SampledTable } from './counts.ts';
import { groupLags } from './logViews.ts';

type Deps = { db: Database; cluster: Pick<ClusterFlagsCache, 'get'> };

const T = 'timers t WHERE t.tenant = $1 AND t.queue = q.name';

/** Due timers read for the claimed count: a few sweeper batches' worth. */
export const CLAIMED_SCAN = 2_000;

/**
 * overview — $1 tenant, $2 exclusive queue cursor|null, $3 one queue|null, $4 limit + 1, $5 the
 * count cap, $6 the due timers read for the claimed count. Locks: none. Rows: 0..$4 queues by name in byte order, each with its capped counts,
 * the age of its oldest due timer (the first entry of its deliver_at range) and the fires of the
 * last complete minute and the last hour (fire_lag_minutes).
 */
const OVERVIEW_SQL = `
SELECT q.name AS queue,
  ${cappedCount(T, '$5')} AS pending,
  ${cappedCount(`${T} AND t.deliver_at > now() AND t.deliver_at <= now() + interval '1 minute'`, '$5')} AS due_minute,
  ${cappedCount(`${T} AND t.deliver_at > now() AND t.deliver_at <= now() + interval '1 hour'`, '$5')} AS due_hour,
  ${cappedCount(`${T} AND t.deliver_at > now() AND t.deliver_at <= now() + interval '1 day'`, '$5')} AS due_day,
  ${cappedCount(`${T} AND t.deliver_at <= now()`, '$5')} AS overdue,
  ${cappedCount(`${T} AND t.deliver_at <= now() - ${OVERDUE_WARNING_SECONDS} * interval '1 second'`, '$5')} AS overdue_5s,
  (SELECT extract(epoch FROM now() - min(t.deliver_at)) FROM ${T} AND t.deliver_at <= now())::float8 AS oldest_overdue,
  -- A claim takes the oldest due timers first, so the claimed ones are at the start of the due
  -- range: the first $6 due rows are read (heap rows: the claim's expiry is not in the index), not
  -- every due row until $5 claimed ones are found.
  (SELECT count(*) FILTER (WHERE ${claimedSql('d')}) FROM (SELECT t.claim_expires_at FROM ${T} AND t.deliver_at <= now()
     ORDER BY t.deliver_at LIMIT $6) d)::int AS claimed,
  (SELECT count(*) FROM (SELECT 1 FROM ${T} AND t.deliver_at <= now() LIMIT $6) d)::int AS claim_scanned,
  (SELECT coalesce(sum(f.fired), 0) FROM fire_lag_minutes f WHERE f.tenant = $1 AND f.queue = q.name
      AND f.minute = date_trunc('minute', now()) - interval '1 minute')::float8 AS fired_minute,
  (SELECT coalesce(sum(f.fired), 0) FROM fire_lag_minutes f WHERE f.tenant = $1 AND f.queue = q.name
      AND f.minute >= date_trunc('minute', now()) - interval '60 minutes')::float8 AS fired_hour,
  ${cappedCount('dead_letters d WHERE d.tenant = $1 AND d.queue = q.name', '$5')} AS dead_letters,
  ${cappedCount('messages m WHERE m.tenant = $1 AND m.queue = q.name', '$5')} AS frames,
  ${cappedCount('partitions p WHERE p.tenant = $1 AND p.queue = q.name', '$5')} AS partitions,
  ${isoSql('now()')} AS at
FROM (SELECT name FROM queues
       WHERE tenant = $1 AND ($2::text IS NULL OR name > $2::text COLLATE "C") AND ($3::text IS NULL OR name = $3::text)
       ORDER BY name COLLATE "C" LIMIT $4) q
ORDER BY q.name COLLATE "C"`;

interface Row {
  queue: string;
  pending: number;
  due_minute: number;
  due_hour: number;
  due_day: number;
  overdue: number;
  overdue_5s: number;
  oldest_overdue: number | null;
  claimed: number;
  claim_scanned: number;
  fired_minute: number;
  fired_hour: number;
  dead_letters: number;
  frames: number;
  partitions: number;
  at: string;
}

/** AT_TIME — no parameters. PostgreSQL's now() as an instant (an overview with no queue still says when). */
const AT_SQL = `SELECT ${isoSql('now()')} AS at`;

const fmt = (n: number) => n.toLocaleString('en-US');
const shown = (c: Count) =>
  c.basis === 'exact' ? fmt(c.value) : c.basis === 'at_least' ? `at least ${fmt(c.value)}` : `about ${fmt(c.value)}`;

/** Counts that reached the cap, replaced by the table's estimate where it says more. */
async function estimated(db: Database, table: SampledTable, tenant: string, rows: Row[], pick: (r: Row) => number) {
  const big = rows.filter((r) => pick(r) >= COUNT_CAP).map((r) => r.queue);
  return estimateByQueue(db.pool, table, tenant, big);
}

export async function overview(
  deps: Deps,
  caller: { tenant: string },
  opts: { after: string | undefined; queue: string | undefined; limit: number },
): Promise<Overview> {
  const db = deps.db;
  const r = await db.pool.query<Row>(OVERVIEW_SQL, [
    caller.tenant,
    opts.after ?? null,
    opts.queue ?? null,
    opts.limit + 1,
    COUNT_CAP,
    CLAIMED_SCAN,
  ]);
  const page = r.rows.slice(0, opts.limit);
  // One statement after the other: an overview holds at most one of the request path's connections.
  const pendingEst = await estimated(db, 'timers', caller.tenant, page, (x) => x.pending);
  const deadEst = await estimated(db, 'dead_letters', caller.tenant, page, (x) => x.dead_letters);
  const framesEst = await estimated(db, 'messages', caller.tenant, page, (x) => x.frames);
  const rows: QueueOverview[] = [];
  const warnings: Warning[] = [];
  for (const x of page) {
    const groups = await groupLags(db.pool, caller.tenant, x.queue, undefined, OVERVIEW_GROUPS_MAX);
    const row: QueueOverview = {
      queue: x.queue,
      pending: pendingEst.get(x.queue) ?? capped(x.pending),
      due: { nextMinute: capped(x.due_minute), nextHour: capped(x.due_hour), nextDay: capped(x.due_day) },
      overdue: capped(x.overdue),
      overdueOver5s: capped(x.overdue_5s),
      oldestOverdueSeconds: x.oldest_overdue === null ? null : Math.max(0, Number(x.oldest_overdue)),
      // Every due timer read: exact; else claimed ones may lie past the rows read.
      claimed: x.claim_scanned < CLAIMED_SCAN ? { value: x.claimed, basis: 'exact' } : { value: x.claimed, basis: 'at_least' },
      fired: { lastMinute: Number(x.fired_minute), lastHour: Number(x.fired_hour) },
      deadLetters: deadEst.get(x.queue) ?? capped(x.dead_letters),
      log: {
        frames: framesEst.get(x.queue) ?? capped(x.frames),
        partitions: capped(x.partitions),
        groups: groups.rows,
        groupsTruncated: groups.more,
      },
    };
    rows.push(row);
    warnings.push(...queueWarnings(row));
  }
  const flags = await deps.cluster.get();
  if (flags.sweeperPaused)
    warnings.unshift({
      queue: null,
      code: 'sweeper_paused',
      message: 'the sweeper is paused cluster-wide: no timer fires until an operator resumes it',
    });
  if (flags.produceBlocked)
    warnings.unshift({
      queue: null,
      code: 'produce_blocked',
      message: 'produce is blocked cluster-wide: schedules and pushes are refused (503)',
    });
  const at = page[0]?.at ?? (await db.pool.query<{ at: string }>(AT_SQL)).rows[0]!.at;
  return { at, rows, truncated: r.rows.length > opts.limit, nextAfter: rows.length ? rows[rows.length - 1]!.queue : null, warnings };
}

/** What needs attention in one queue, in words. */
export function queueWarnings(row: QueueOverview): Warning[] {
  const out: Warning[] = [];
  const q = row.queue;
  if (row.overdueOver5s.value > 0) {
    const n = row.overdueOver5s;
    out.push({
      queue: q,
      code: 'overdue',
      message: `queue ${q}: ${shown(n)} ${n.value === 1 && n.basis === 'exact' ? 'timer' : 'timers'} overdue by more than ${OVERDUE_WARNING_SECONDS} s`,
    });
  }
  if (row.deadLetters.value > 0) {
    out.push({ queue: q, code: 'dead_letters', message: `queue ${q}: ${shown(row.deadLetters)} in the dead-letter queue` });
  }
  for (const g of row.log.groups) {
    const age = g.oldestUnconsumedAgeSeconds;
    if (age !== null && age > CONSUMER_LAG_WARNING_SECONDS) {
      out.push({
        queue: q,
        code: 'consumer_lag',
        message: `queue ${q}: consumer group ${g.consumerGroup} is ${shown(g.framesBehind)} frames behind; the oldest waits for ${Math.round(age)} s`,
      });
    }
  }
  return out;
}
