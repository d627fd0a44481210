// One sweep pass (sweepOnce) and the state passes hand to each other: batches held after a database
// failure, claims whose answer was lost, the batch prefetched beside a fire, and what the last
// claim said about the next due timer. The loop around it (index.ts) only decides when to pass.
//
//   sweepOnce():  materializeDue (schedules' occurrences as timers) → claimDue → unpack (zstd) →
//                 fireClaimed → (on failure: isolate) → backOff / deadLetter
//
// Every statement after the claim is guarded by the batch's claim token, so each one can be retried
// after any failure, including one whose outcome was lost with its connection: a row that already
// moved on (fired, backed off, taken by another broker after the lease) no longer carries the token.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { Services } from '../services/index.ts';
import { backOff, type BackOffRow } from './backOff.ts';
import { claimDue, type ClaimedTimer, type ClaimResult } from './claimDue.ts';
import { SweeperDb } from './db.ts';
import { deadLetter, type DeadLetterRow } from './deadLetter.ts';
import {
  PERMANENT_BASE_MS,
  PERMANENT_CAP_MS,
  TRANSIENT_BASE_MS,
  TRANSIENT_CAP_MS,
  backoffMs,
  classify,
  describe,
  isDatabaseLevel,
} from './failures.ts';
import { fireClaimed, type FireResult, type Replacement } from './fireClaimed.ts';
import type { Context } from '../tracing.ts';
import { claimSpan, fireSpan } from './tracing.ts';
import { Materializer } from './materializeDue.ts';
import { releaseClaims } from './releaseClaims.ts';
import { unpack } from './unpack.ts';

export interface SweepResult {
  /** Timers this pass took a lease on (re-tried batches from an earlier pass not included). */
  claimed: number;
  /** Timers deleted by this pass's fires; each has exactly one frame in the log, or a DLQ row (txn_conflict). */
  fired: number;
  /** Timers whose fire failed in this pass (backed off or dead-lettered). */
  failed: number;
}

interface Batch {
  token: string;
  rows: ClaimedTimer[];
  /** Local clock; after the lease the rows may belong to another broker, so we stop retrying. */
  leaseEndsAt: number;
  /** The claim's span (src/sweeper/tracing.ts): the batch's fire spans are its children. */
  trace: Context | undefined;
}

/** A claim's answer, with its token, when it was sent (local clock) and its span's context. */
interface Claimed {
  claim: ClaimResult;
  token: string;
  sentAt: number;
  trace: Context | undefined;
}

interface Failure {
  row: ClaimedTimer;
  err: unknown;
}

/** The sweeper's passes: one at a time, each picking up what the one before left. */
export class SweepPass {
  private readonly db: SweeperDb;
  private readonly cfg: Services['config'];
  private readonly materializer: Materializer;
  /** Batches claimed but not resolved because the database failed; retried first by the next pass. */
  private held: Batch[] = [];
  /** Tokens of claims whose answer was lost with the connection: released by the next pass. */
  private lostClaims: string[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private rowTransientStreak = 0;
  /** The next batch, claimed while the previous one fired. */
  private prefetched: Promise<Claimed> | undefined;
  /** What the last claim said, for the sleep. */
  private last: { sentAt: number; nextDueInMs: number | null; paused: boolean; claimed: number } | undefined;
  /** PostgreSQL clock minus local clock, from the last claim (converts notified deliverAts). */
  private clockOffsetMs = 0;
  /** Earliest deliverAt (PostgreSQL ms) notified since the last claim was sent. */
  private notifiedDueMs = Infinity;

  constructor(
    private readonly services: Services,
    private readonly log: Logger,
  ) {
    this.cfg = services.config;
    this.db = new SweeperDb(services.db, (err) => this.log.warn({ err }, 'idle sweeper connection lost'));
    this.materializer = new Materializer(this.db, services, this.log);
  }

  sweepOnce(): Promise<SweepResult> {
    const pass = this.chain.then(() => this.pass());
    this.chain = pass.catch(() => {});
    return pass;
  }

  /** Paced by a loop: the materializer runs only when due (a pass driven by tests runs it every time). */
  pace(): void {
    this.materializer.paced = true;
  }

  /** No pass in flight or to come claims anything new. */
  halt(): void {
    this.stopping = true;
  }

  /** After halt(): awaits the pass in flight, releases unfired claims, closes the connections. */
  async close(): Promise<void> {
    this.stopping = true;
    await this.chain;
    if (this.prefetched) {
      const p = await this.prefetched.catch(() => undefined);
      if (p) this.lostClaims.push(p.token);
      this.prefetched = undefined;
    }
    const tokens = [...this.held.map((b) => b.token), ...this.lostClaims];
    if (tokens.length > 0) {
      try {
        const n = await releaseClaims(this.db, tokens);
        this.log.info({ released: n }, 'released unfired claims');
      } catch (err) {
        this.log.warn({ err }, `could not release claims; they expire within ${this.cfg.QUEEN_SWEEPER_LEASE_MS} ms`);
      }
    }
    this.held = [];
    this.lostClaims = [];
    await this.db.end();
  }

  /**
   * A timer due at `deliverAtMs` (PostgreSQL's clock) was scheduled: remembered for nextSleepMs()
   * and the materializer. Returns the instant on the local clock.
   */
  notified(deliverAtMs: number): number {
    this.notifiedDueMs = Math.min(this.notifiedDueMs, deliverAtMs);
    this.materializer.notified(deliverAtMs - this.clockOffsetMs);
    return deliverAtMs - this.clockOffsetMs;
  }

  /** How long the loop may sleep before the next pass, from what the last claim said. */
  nextSleepMs(): number {
    const { QUEEN_SWEEPER_MIN_SLEEP_MS: min, QUEEN_SWEEPER_MAX_SLEEP_MS: max, QUEEN_SWEEPER_BATCH_SIZE: batch } = this.cfg;
    const last = this.last;
    if (this.prefetched) return 0;
    if (this.held.length > 0 || this.lostClaims.length > 0) return min;
    if (!last || last.paused) return max;
    // A full batch means a backlog: claim the next one at once (yielding to the event loop only).
    if (last.claimed >= batch) return 0;
    let wakeAt = last.nextDueInMs === null ? Infinity : last.sentAt + last.nextDueInMs;
    if (this.notifiedDueMs !== Infinity) wakeAt = Math.min(wakeAt, this.notifiedDueMs - this.clockOffsetMs);
    wakeAt = Math.min(wakeAt, this.materializer.wakeAt);
    return Math.min(max, Math.max(min, Math.ceil(wakeAt - Date.now())));
  }

  private async pass(): Promise<SweepResult> {
    const started = performance.now();
    const result: SweepResult = { claimed: 0, fired: 0, failed: 0 };
    try {
      if (this.lostClaims.length > 0) {
        await releaseClaims(this.db, this.lostClaims);
        this.lostClaims = [];
      }
      while (this.held.length > 0) {
        const batch = this.held[0];
        if (Date.now() < batch.leaseEndsAt) await this.process(batch, result);
        this.held.shift();
      }
      if (this.stopping) return result;
      await this.materializer.runIfDue(); // before the claim (never throws): a caught-up occurrence fires in this pass

      const pending = this.prefetched;
      this.prefetched = undefined;
      const { claim, token, sentAt, trace } = await (pending ?? this.claim());
      result.claimed = claim.rows.length;
      if (claim.rows.length > 0) {
        // A full batch means a backlog: claim the next batch while this one fires, on a second
        // connection, so PostgreSQL works on both at once (the claim's UPDATE costs nearly as much
        // as the fire; docs/benchmarks.md has the gain). The next pass fires it after this fire has
        // committed, so the deliverAt order within a partition holds; stop() releases it if no pass
        // fires it.
        // Not on embedded PGlite: one backend behind one connection, nothing runs beside anything.
        if (claim.rows.length >= this.cfg.QUEEN_SWEEPER_BATCH_SIZE && !this.stopping && !this.db.embedded) {
          const next = this.claim();
          next.catch(() => {});
          this.prefetched = next;
        }
        const batch: Batch = { token, rows: claim.rows, leaseEndsAt: sentAt + this.cfg.QUEEN_SWEEPER_LEASE_MS, trace };
        try {
          await this.process(batch, result);
        } catch (err) {
          this.held.push(batch);
          throw err;
        }
      }
      return result;
    } finally {
      this.services.metrics.sweepDuration.observe((performance.now() - started) / 1000);
    }
  }

  private async claim(): Promise<Claimed> {
    const token = randomUUID();
    const sentAt = Date.now();
    this.notifiedDueMs = Infinity;
    let claim: ClaimResult;
    const { QUEEN_SWEEPER_BATCH_SIZE: limit, QUEEN_SWEEPER_LEASE_MS: leaseMs } = this.cfg;
    try {
      claim = await claimDue(this.db, token, limit, leaseMs);
    } catch (err) {
      // The claim may have committed with nobody to fire it; give its rows back next pass.
      if (isDatabaseLevel(err)) this.lostClaims.push(token);
      claimSpan(sentAt, limit, leaseMs, undefined, err);
      throw err;
    }
    this.clockOffsetMs = claim.nowMs - sentAt;
    this.last = { sentAt, nextDueInMs: claim.nextDueInMs, paused: claim.paused, claimed: claim.rows.length };
    return { claim, token, sentAt, trace: claimSpan(sentAt, limit, leaseMs, claim.rows.length) };
  }

  /** Unpacks and fires one claimed batch, isolating failing rows; throws on database-level failure. */
  private async process(batch: Batch, result: SweepResult): Promise<void> {
    const replacements = new Map<string, Replacement>();
    const ready: ClaimedTimer[] = [];
    const failures: Failure[] = [];
    for (const row of batch.rows) {
      try {
        const r = await unpack(row, this.services.cipher);
        if (r) replacements.set(row.tid, r);
        ready.push(row);
      } catch (err) {
        failures.push({ row, err });
      }
    }
    await this.fireIsolated(batch, ready, replacements, failures, result, false);
    await this.settleFailures(batch.token, failures, result);
  }

  /**
   * Fires rows in one statement. When it fails for reasons of some rows (a constraint, a trigger,
   * a serialization failure), the rows are ordered by tenant, queue, partition, deliverAt and
   * bisected, left half first: healthy timers still fire, in deliverAt order within each partition,
   * and only the failing ones are charged. One bad timer in a batch of 1,000 costs ~20 statements.
   */
  private async fireIsolated(
    batch: Pick<Batch, 'token' | 'trace'>,
    rows: ClaimedTimer[],
    replacements: Map<string, Replacement>,
    failures: Failure[],
    result: SweepResult,
    sorted: boolean,
  ): Promise<void> {
    if (rows.length === 0) return;
    let fired: FireResult;
    try {
      fired = await fireSpan(rows, batch.trace, () => fireClaimed(this.db, batch.token, rows, replacements));
    } catch (err) {
      if (isDatabaseLevel(err)) throw err;
      if (rows.length === 1) {
        failures.push({ row: rows[0], err });
        return;
      }
      if (!sorted) rows = [...rows].sort(byPartitionThenDeliverAt);
      const mid = rows.length >> 1;
      await this.fireIsolated(batch, rows.slice(0, mid), replacements, failures, result, true);
      await this.fireIsolated(batch, rows.slice(mid), replacements, failures, result, true);
      return;
    }
    this.recordFire(fired, rows.length, result);
  }

  private recordFire(fired: FireResult, sent: number, result: SweepResult): void {
    const m = this.services.metrics;
    result.fired += fired.deleted;
    m.fired.inc(fired.deleted);
    for (const q of fired.queues) {
      for (const lag of q.lags) m.fireLag.observe(lag);
      this.services.fireHistory.record(q.tenant, q.queue, q.lags);
      this.services.notifier.messagesPushed(q.tenant, q.queue, q.partitions);
    }
    if (fired.deleted < sent) this.log.debug({ sent, deleted: fired.deleted }, 'lease lost on some timers; another broker owns them');
    m.deadLettered.inc(fired.collided);
    if (fired.collided > 0) this.log.warn({ collided: fired.collided }, 'timers dead-lettered: another message holds their txn');
    const deduplicated = fired.deleted - fired.inserted - fired.collided;
    if (deduplicated > 0) this.log.debug({ deduplicated }, 'txn already in the log: a retried schedule of a fired timer');
  }

  private async settleFailures(token: string, failures: Failure[], result: SweepResult): Promise<void> {
    if (failures.length === 0) {
      this.rowTransientStreak = 0;
      return;
    }
    const back: BackOffRow[] = [];
    const dead: DeadLetterRow[] = [];
    let transient = false;
    for (const { row, err } of failures) {
      const cls = classify(err);
      const error = `${cls}: ${describe(err)}`;
      if (cls === 'transient') {
        transient = true;
        back.push({ tid: row.tid, cost: 0, error, delayMs: backoffMs(TRANSIENT_BASE_MS, TRANSIENT_CAP_MS, this.rowTransientStreak) });
      } else if (row.attempts + 1 >= this.cfg.QUEEN_SWEEPER_MAX_ATTEMPTS) {
        dead.push({ tid: row.tid, error, attempts: row.attempts + 1 });
      } else {
        back.push({ tid: row.tid, cost: 1, error, delayMs: backoffMs(PERMANENT_BASE_MS, PERMANENT_CAP_MS, row.attempts) });
      }
    }
    this.rowTransientStreak = transient ? this.rowTransientStreak + 1 : 0;
    await backOff(this.db, token, back);
    const deadLettered = await deadLetter(this.db, token, dead);
    const m = this.services.metrics;
    for (const { err } of failures) m.fireFailures.inc({ class: classify(err) });
    m.deadLettered.inc(deadLettered);
    result.failed += failures.length;
    this.log.warn(
      { failed: failures.length, backedOff: back.length, deadLettered, firstError: describe(failures[0].err) },
      'timers failed to fire',
    );
  }
}

function byPartitionThenDeliverAt(a: ClaimedTimer, b: ClaimedTimer): number {
  return (
    cmp(a.tenant, b.tenant) ||
    cmp(a.queue, b.queue) ||
    cmp(a.partition, b.partition) ||
    a.deliverAt - b.deliverAt ||
    cmp(a.timerKey, b.timerKey)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
