// materializeDue — turns the schedules' next occurrences into ordinary timers, inside the
// sweeper's loop (before each pass claims due timers), on PostgreSQL's clock.
//
// One transaction per batch:
//   claimSchedules  up to BATCH_SIZE schedules whose materialize_at has come, FOR
//                   UPDATE SKIP LOCKED (another broker's batch is skipped, never waited on); none
//                   while the operator pauses the sweeper, none of a tenant whose schedules are
//                   paused. A broker killed mid-batch loses its transaction and its locks at once.
//   (Node)          each schedule's occurrence: its next_at, or after an outage or a pause, when
//                   several are past, the latest of them (src/services/schedules/occurrences.ts);
//                   the earlier ones are skipped and counted;
//   withdrawMissed  on a catch-up, the schedule's earlier timers no sweeper holds: missed too;
//   materialize     one statement: the schedule row moves on (last_at, next_at, skipped), the
//                   occurrence's timer is inserted (ON CONFLICT DO NOTHING on its key: the backstop
//                   behind the row lock; its txn derives from the definition and the instant, so
//                   the log would deduplicate a second one too), and each timer inserted is
//                   metered as one message.
// A PUT or DELETE of a schedule locks the same row first, so it waits for a batch holding it and
// then sees the timer the batch made (src/services/schedules/put.ts, remove.ts).
//
// Costs, per batch: a claim on schedules_materialize_at, a catch-up's ~log2(seconds missed) cron
// look-ups (the skipped count steps through the missed occurrences, extrapolated past COUNT_CAP),
// one statement. A paused tenant's due schedules are read (and passed over) by every run.
import { occurrenceTimerKey } from '../contract/schedules.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services/index.ts';
import { notClaimedSql } from './claimed.ts';
import { inTransaction, type Queryable } from '../db/transaction.ts';
import { meterMessages } from '../plans/meter.ts';
import { countOccurrences, latestOccurrence, nextOccurrence } from '../services/schedules/occurrences.ts';
import { MATERIALIZE_LOOKAHEAD_MS, occurrenceTxn, scheduleTimers } from '../services/schedules/rows.ts';
import type { SweeperDb } from './db.ts';

/**
 * claimSchedules — $1 batch size. Locks: FOR UPDATE SKIP LOCKED on up to $1 due schedule rows,
 * walked on schedules_materialize_at. Rows: one leading row (PostgreSQL's now(), the pause flag,
 * the next future materialize_at for the loop's sleep) joined with 0..$1 claimed schedules.
 */
const CLAIM_SQL = `
WITH flags AS (
  SELECT coalesce((SELECT sweeper_paused FROM cluster_flags WHERE id = 1), false) AS paused
), due AS (
  SELECT s.tenant, s.queue, s.schedule_key, s.cron, s.timezone, s.definition::text AS definition,
         (extract(epoch FROM s.next_at) * 1000)::float8 AS next_ms
    FROM schedules s
   WHERE s.materialize_at <= now()
     AND NOT (SELECT paused FROM flags)
     AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.tenant = s.tenant AND t.schedule_paused)
   ORDER BY s.materialize_at
   LIMIT $1
     FOR UPDATE OF s SKIP LOCKED
), head AS (
  SELECT (extract(epoch FROM now()) * 1000)::float8 AS now_ms,
         (SELECT (extract(epoch FROM min(materialize_at)) * 1000)::float8 FROM schedules WHERE materialize_at > now()) AS wake_ms,
         (SELECT paused FROM flags) AS paused
)
SELECT head.*, due.* FROM head LEFT JOIN due ON true`;

/**
 * withdrawMissed — $1 tenants, $2 queues, $3 schedule keys, $4 the occurrences' timer keys
 * (parallel; catch-ups only). Locks: the schedules' unclaimed timers of earlier occurrences
 * (ISO instants sort as they fall). Rows: one per timer deleted, naming its schedule.
 */
const WITHDRAW_MISSED_SQL = `
DELETE FROM timers t USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS m(tenant, queue, schedule_key, timer_key)
 WHERE ${scheduleTimers('m.tenant', 'm.queue', 'm.schedule_key')}
   AND t.timer_key < m.timer_key COLLATE "C" AND ${notClaimedSql('t')}
RETURNING m.tenant, m.queue, m.schedule_key`;

/**
 * materialize — $1..$8 parallel arrays (tenant, queue, schedule_key, occurrence ms, next
 * occurrence ms|null, skipped, timer_key, txn), $9 lookahead ms. Locks: the schedule rows (already
 * ours), the new timer rows, the tenants' meter rows. Rows: 1 — timers inserted, the earliest
 * deliverAt among them (to wake the sweepers).
 */
const MATERIALIZE_SQL = `
WITH plan AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[], $7::text[], $8::text[])
    AS p(tenant, queue, schedule_key, at_ms, next_ms, skipped, timer_key, txn)
), s AS (
  UPDATE schedules s
     SET last_at = to_timestamp(p.at_ms / 1000), next_at = to_timestamp(p.next_ms / 1000),
         materialize_at = CASE WHEN p.next_ms IS NOT NULL
                               THEN greatest(to_timestamp((p.next_ms - $9::float8) / 1000), to_timestamp(p.at_ms / 1000)) END,
         skipped = s.skipped + p.skipped::bigint, updated_at = now()
    FROM plan p
   WHERE s.tenant = p.tenant AND s.queue = p.queue AND s.schedule_key = p.schedule_key
  RETURNING s.tenant, s.queue, s.partition, s.payload, s.payload_zstd, s.encrypted, s.producer_sub, s.traceparent, p.at_ms, p.timer_key, p.txn
), ins AS (
  INSERT INTO timers (tenant, queue, timer_key, partition, deliver_at, txn, message_id, payload, payload_zstd, encrypted, producer_sub,
                      traceparent)
  SELECT tenant, queue, timer_key, partition, to_timestamp(at_ms / 1000), txn, gen_random_uuid(), payload, payload_zstd, encrypted,
         producer_sub, traceparent
    FROM s
  ON CONFLICT (tenant, queue, timer_key) DO NOTHING
  RETURNING tenant, (extract(epoch FROM deliver_at) * 1000)::float8 AS deliver_ms
), metered AS (${meterMessages('SELECT tenant, count(*) FROM ins GROUP BY tenant')}
)
SELECT (SELECT count(*) FROM ins)::int AS materialized, (SELECT min(deliver_ms) FROM ins) AS earliest_ms`;

/**
 * deferBroken — $1 tenants, $2 queues, $3 schedule keys. For a stored expression the cron library
 * no longer reads (an upgrade): tried again in a minute, not on every pass. Locks: those rows
 * (ours). Rows: 0..n.
 */
const DEFER_SQL = `
UPDATE schedules s SET materialize_at = now() + interval '1 minute'
  FROM unnest($1::text[], $2::text[], $3::text[]) AS d(tenant, queue, schedule_key)
 WHERE s.tenant = d.tenant AND s.queue = d.queue AND s.schedule_key = d.schedule_key`;

/**
 * Schedules per transaction: each costs a few cron look-ups in Node while the batch's rows are
 * locked (a catch-up up to COUNT_CAP of them), so batches stay small; at most this many batches
 * per run, a larger backlog continuing on the next pass (within the 30 s lookahead).
 */
const BATCH_SIZE = 100;
const MAX_BATCHES_PER_RUN = 10;
/** After a failed run, the next waits this long, doubling up to the cap. */
const FAILURE_BACKOFF_BASE_MS = 1_000;
const FAILURE_BACKOFF_CAP_MS = 30_000;

interface DueSchedule {
  tenant: string;
  queue: string;
  schedule_key: string;
  cron: string;
  timezone: string;
  definition: string;
  next_ms: number;
}

interface Plan {
  s: DueSchedule;
  atMs: number;
  nextMs: number | null;
  skipped: number;
  catchUp: boolean;
  timerKey: string;
}

export interface MaterializeResult {
  materialized: number;
  skipped: number;
}

/** The schedules' side of the sweeper: when to run, and one run. */
export class Materializer {
  /** Local clock: when the next run is needed (0: at the next pass). */
  private wakeAtLocal = 0;
  /** Earliest instant notified since the current batch was sent (local clock): kept past the batch. */
  private notifiedLocal = Infinity;
  /** Runs failed in a row (the back-off's exponent). */
  private failures = 0;

  constructor(
    private readonly db: SweeperDb,
    private readonly services: Services,
    private readonly log: Logger,
  ) {}

  /** When the loop must pass next for the schedules' sake (local clock). */
  get wakeAt(): number {
    return this.wakeAtLocal;
  }

  /** An instant (local clock) at which something may have become due: a PUT, a schedule. */
  notified(localMs: number): void {
    this.wakeAtLocal = Math.min(this.wakeAtLocal, localMs);
    this.notifiedLocal = Math.min(this.notifiedLocal, localMs);
  }

  /**
   * Runs when due; between runs the loop's own clock says when (at most QUEEN_SWEEPER_MAX_SLEEP_MS
   * apart). Never throws, so the schedules never cost the timers their pass: a run that fails (a
   * deadlock with another broker's run, the database) is logged, counted, and tried again after
   * 1 s, doubling to 30 s while runs keep failing. Its committed batches stand; the failed one
   * rolled back whole. `always`: runs whether due or not (a pass driven by sweepOnce(), in tests).
   */
  async runIfDue(always: boolean): Promise<MaterializeResult> {
    const total: MaterializeResult = { materialized: 0, skipped: 0 };
    if (!always && Date.now() < this.wakeAtLocal) return total;
    try {
      await this.run(total);
    } catch (err) {
      this.wakeAtLocal = Date.now() + Math.min(FAILURE_BACKOFF_CAP_MS, FAILURE_BACKOFF_BASE_MS * 2 ** this.failures++);
      this.services.metrics.schedulesFailures.inc();
      this.log.warn({ err }, 'schedule materialization failed; retried on a later pass');
    }
    return total;
  }

  private async run(total: MaterializeResult): Promise<void> {
    const maxSleep = this.services.config.QUEEN_SWEEPER_MAX_SLEEP_MS;
    const batch = Math.min(BATCH_SIZE, this.services.config.QUEEN_SWEEPER_BATCH_SIZE);
    for (let round = 0; round < MAX_BATCHES_PER_RUN; round++) {
      const sentAt = Date.now();
      this.notifiedLocal = Infinity;
      const r = await inTransaction(this.db.pool, (tx) => this.batch(tx, batch), { replay: false });
      // Committed: count it, and wake the sweepers for the new timers (in-process and NOTIFY).
      this.failures = 0;
      total.materialized += r.materialized;
      total.skipped += r.skipped;
      this.services.metrics.schedulesMaterialized.inc(r.materialized);
      this.services.metrics.schedulesSkipped.inc(r.skipped);
      if (r.skipped > 0) this.log.info({ skipped: r.skipped }, 'schedule occurrences missed (outage or pause): only the latest fired');
      if (r.earliestMs !== null) this.services.notifier.timerScheduled(r.earliestMs, r.nowMs);
      const offset = r.nowMs - sentAt;
      // A PUT that committed after the claim's snapshot notified meanwhile: its wake-up stands.
      this.wakeAtLocal = Math.min(sentAt + maxSleep, r.wakeMs === null ? Infinity : r.wakeMs - offset, this.notifiedLocal);
      if (r.claimed < batch) break;
      this.wakeAtLocal = 0; // a full batch: more are due
    }
  }

  private async batch(tx: Queryable, size: number) {
    const r = await tx.query(CLAIM_SQL, [size]);
    const head = r.rows[0];
    const due: DueSchedule[] = r.rows.filter((x) => x.schedule_key !== null);
    const nowMs = Number(head.now_ms);
    const out = {
      claimed: due.length,
      nowMs,
      wakeMs: head.wake_ms === null ? null : Number(head.wake_ms),
      materialized: 0,
      skipped: 0,
      earliestMs: null as number | null,
    };
    if (due.length === 0) return out;

    const plans: Plan[] = [];
    const broken: DueSchedule[] = [];
    for (const s of due) {
      try {
        plans.push(plan(s, nowMs));
      } catch (err) {
        this.log.error(
          { err, queue: s.queue, scheduleKey: s.schedule_key },
          'schedule occurrence could not be computed; retried in a minute',
        );
        broken.push(s);
      }
    }
    if (broken.length > 0) {
      await tx.query(DEFER_SQL, [broken.map((s) => s.tenant), broken.map((s) => s.queue), broken.map((s) => s.schedule_key)]);
    }
    const catchUps = plans.filter((p) => p.catchUp);
    if (catchUps.length > 0) {
      const w = await tx.query<{ tenant: string; queue: string; schedule_key: string }>(WITHDRAW_MISSED_SQL, [
        catchUps.map((p) => p.s.tenant),
        catchUps.map((p) => p.s.queue),
        catchUps.map((p) => p.s.schedule_key),
        catchUps.map((p) => p.timerKey),
      ]);
      const byKey = new Map(catchUps.map((p) => [`${p.s.tenant}\u0000${p.s.queue}\u0000${p.s.schedule_key}`, p]));
      for (const row of w.rows) byKey.get(`${row.tenant}\u0000${row.queue}\u0000${row.schedule_key}`)!.skipped++;
    }
    if (plans.length === 0) return out;
    const m = await tx.query<{ materialized: number; earliest_ms: number | null }>(MATERIALIZE_SQL, [
      plans.map((p) => p.s.tenant),
      plans.map((p) => p.s.queue),
      plans.map((p) => p.s.schedule_key),
      plans.map((p) => p.atMs),
      plans.map((p) => p.nextMs),
      plans.map((p) => p.skipped),
      plans.map((p) => p.timerKey),
      plans.map((p) => occurrenceTxn(p.s.definition, p.atMs)),
      MATERIALIZE_LOOKAHEAD_MS,
    ]);
    out.materialized = m.rows[0].materialized;
    out.skipped = plans.reduce((n, p) => n + p.skipped, 0);
    out.earliestMs = m.rows[0].earliest_ms === null ? null : Number(m.rows[0].earliest_ms);
    return out;
  }
}

/** The occurrence to materialize now: next_at, or the latest of those already past (the others skipped). */
function plan(s: DueSchedule, nowMs: number): Plan {
  const spec = { cron: s.cron, timezone: s.timezone };
  const nextAt = Number(s.next_ms);
  let atMs = nextAt;
  let skipped = 0;
  if (nextAt <= nowMs) {
    atMs = latestOccurrence(spec, nextAt, nowMs);
    if (atMs > nextAt) skipped = countOccurrences(spec, nextAt, atMs);
  }
  return {
    s,
    atMs,
    nextMs: nextOccurrence(spec, atMs),
    skipped,
    catchUp: atMs > nextAt,
    timerKey: occurrenceTimerKey(s.schedule_key, atMs),
  };
}
