// One cohesive thing: a sweep pass is one class whose state (held batches, lost claims, prefetch, the wheel)
// is read and written by each step of the pass; split, each part would need all of it.
// One sweep pass (sweepOnce) and the state passes hand to each other: batches held after a database
// failure, claims whose answer was lost, the batch prefetched beside a fire, the hand-off window's
// wheel, and what the last claim said about the next due timer. The loop around it (index.ts) only
// decides when to pass.
//
//   sweepOnce():  fire the wheel's due timers → materializeDue (schedules' occurrences as timers) →
//                 fireDue (timers already due, locked and fired in one transaction per stripe) →
//                 claimDue (due within QUEEN_SWEEPER_HANDOFF_MS) → the wheel
//                 A due batch whose fire fails is claimed instead (claimDue with the due timers) and
//                 fired through fireClaimed → (on failure: isolate) → backOff / deadLetter.
//
// The hand-off window (docs/operations.md): a claim takes the timers due within the window, so the
// claim's round trip is paid before a timer's instant, not after it, and the wheel (wheel.ts) fires
// each at its instant with one transaction. The instants are on PostgreSQL's clock, estimated from
// round trips (pgClock.ts); the fire statement refuses a timer not due yet on PostgreSQL's own
// clock, and it goes back to the wheel, so nothing is early whatever the broker's clock says.
//
// On Citus, every statement that finds or takes rows is pinned to one shard group
// (shardGroups.ts): a read without locks lists the groups whose tenants have timers to take, and
// fireDue and the claim run once per group; a batch's rows are fired, backed off and dead-lettered
// group by group. On plain PostgreSQL the one group is every tenant, and nothing is read ahead.
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
import { fireAndCommit, fireClaimed, type FireResult, type Replacement } from './fireClaimed.ts';
import type { LockedHere } from '../services/log/append.ts';
import { fireDue } from './fireDue.ts';
import { FireThread } from './fireThread.ts';
import type { Context } from '../tracing.ts';
import { claimSpan, fireSpan } from './tracing.ts';
import { Materializer } from './materializeDue.ts';
import { PgClock, preciseNow } from './pgClock.ts';
import { releaseClaims } from './releaseClaims.ts';
import { ALL_TENANTS, dueGroups, pinnedPerShard, pinOf, type ShardGroup } from './shardGroups.ts';
import { unpack } from './unpack.ts';
import { TimingWheel } from './wheel.ts';

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
  /** A wheel's run sent to the fire thread: the instant it fires at, on the sweeper's clock (PgClock.local). */
  at?: number;
}

/**
 * How many partitions a pass remembers having fired into (framed) before it forgets them all:
 * about a megabyte with keys of 70 characters. Forgetting costs each partition three statements in
 * its next fire's write, once.
 */
const FRAMED_MAX = 10_000;

/** A partition as one string: the fire thread's job key, and what framed holds. */
const partitionKey = (tenant: string, queue: string, partition: string) => `${tenant}\u0000${queue}\u0000${partition}`;

/** The partitions `rows` append to, as the fire thread's job keys (it runs no two fires of one partition at once). */
function partitionKeys(rows: ClaimedTimer[]): string[] {
  return [...new Set(rows.map((r) => partitionKey(r.tenant, r.queue, r.partition)))];
}

/** A claim's answer, with its token, when it was sent (local clock) and its span's context. */
interface Claimed {
  claim: ClaimResult;
  token: string;
  sentAt: number;
  trace: Context | undefined;
}

/** What a test may inject. */
export interface SweeperOptions {
  /** The broker's clock as the wheel reads it (Date.now by default). */
  clock?: () => number;
  /** How long one pass may fire a backlog (FIRE_BUDGET_MS by default): longer for a test that looks at whole passes. */
  fireBudgetMs?: number;
}

interface Failure {
  row: ClaimedTimer;
  err: unknown;
}

/** A batch's rows unpacked: the ones ready to fire with their replacement bytes, and the ones that failed to unpack. */
interface Unpacked {
  ready: ClaimedTimer[];
  replacements: Map<string, Replacement>;
  failures: Failure[];
}

/**
 * fireDue transactions side by side on real PostgreSQL, each on its own stripe of partitions: two
 * keep both of PostgreSQL's cores of the machine this was measured on busy (docs/benchmarks.md);
 * the sweeper's pool (db.ts) has one more connection, for a claim.
 */
const FIRE_STRIPES = 2;

/** How long one pass may keep firing a backlog of due timers before the wheel and the materializer get their turn. */
const FIRE_BUDGET_MS = 50;

/**
 * How long before a wheel's instant its fire is sent to the fire thread (fireThread.ts), which
 * then writes it at the instant: a main thread that wakes up to this much late still has the fire
 * leave on time (under load it woke 13 ms late at p90 and 35 ms at p99, docs/benchmarks.md; with
 * 20 ms, 6–9% of the busy trickle's fires still reached the thread after their instant, with 60
 * ms 0.2–0.5%). At most the window (QUEEN_SWEEPER_HANDOFF_MS) in effect: only claimed timers are
 * in the wheel.
 */
export const FIRE_LEAD_MS = 60;

/**
 * Fires on the fire thread at once, sent and not settled: enough for the lead's instants of a busy
 * stream. What is due beyond them waits in the wheel, and a pass after the next settles takes it:
 * a run of one claim's due timers is one statement, however many. The thread runs the fires that
 * queued behind a slow one as one transaction (fireThreadWorker.ts), so a steady stream of
 * instants does not fall behind one transaction at a time. Before that, unbounded, it did (the
 * soak bench's 1,700 timers a second: fire lag p99 1.4 s after 20 s, 23 s after 60 s), and the
 * bound was 4.
 */
export const ON_THREAD_MAX = 12;

/**
 * Whether a claim due now waits for the wheel's next instant, `wheelIn` ms away: it does when that
 * instant comes before a claim would be done (`claimMs`, how long claims take lately), since a
 * claim in flight at an instant delays that fire by the claim's duration (passes run one at a
 * time) — under load, most of the trickle's p99 (docs/benchmarks.md). It waits only while the
 * next timer it would take (`nextUnclaimedIn` ms away) stays due after the wait plus twice a
 * claim: a dense stream, whose instants never leave room, claims as late as that allows, with more
 * timers per claim, and never late.
 */
export function claimWaitsForWheel(wheelIn: number, claimMs: number, nextUnclaimedIn: number): boolean {
  if (wheelIn > claimMs) return false; // also an empty wheel (Infinity)
  return nextUnclaimedIn > wheelIn + 2 * claimMs + 1;
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
  /** The estimate of PostgreSQL's clock (converts notified deliverAts, schedules the wheel). */
  private readonly clock: PgClock;
  private readonly fireBudgetMs: number;
  /** Timers claimed ahead of their instant (the hand-off window), fired at it. */
  private readonly wheel = new TimingWheel();
  /** How long a claim takes lately (ms): the largest of the recent ones, decaying (deferClaim). */
  private claimMs = 0;
  /** Earliest deliverAt (PostgreSQL ms) notified since the last claim was sent. */
  private notifiedDueMs = Infinity;
  /** Unclaimed timers may be due: the next pass starts with fireDue (a claim said so, a notified instant passed, the last fireDue was full). */
  private dueWaiting = true;
  /** A fireDue failed for reasons of its rows: the next claim takes due timers too, and isolates the failing ones. */
  private isolateDue = false;
  /**
   * The wheel's fires leave from a thread of their own (fireThread.ts), on real PostgreSQL (see
   * lead for when). False with QUEEN_SWEEPER_FIRE_THREAD=false, on the embedded database, on
   * Citus (fireWheel), and after the thread failed.
   */
  private threadAllowed: boolean;
  private fireThread: FireThread | undefined;
  /**
   * Partitions this pass has fired into (partitionKeys' keys): they have held a frame, so a fire of
   * theirs locks them in its one statement (`held`, append.ts LockedHere). A fire of any other may
   * bring its partition's first frame: it goes `joining`, which gives that partition its consumer
   * rows in the same write (three statements more: the partitions' lock, and two that lock and
   * write nothing on a partition that had frames), where `held` refused it and the append took two
   * round trips more (docs/benchmarks.md).
   * A hint, not a record: a partition forgotten (past FRAMED_MAX, or by a new broker) costs those
   * statements once; one deleted and made again since is refused by `held`, and appended as usual.
   */
  private readonly framed = new Set<string>();
  /** Fires sent to the fire thread and not yet settled. */
  private readonly onThread = new Set<Promise<void>>();
  /**
   * Driven by the loop (index.ts, pace()), which decides when to pass: the materializer runs only
   * when due, claims wait for the wheel, fires on the thread are not awaited. False for a sweeper
   * driven by sweepOnce() (tests), whose every pass does all of it.
   */
  private looped = false;
  /** Called when something for the next pass came outside a pass (a fire on the thread settled): the loop wakes (index.ts). */
  onWork: () => void = () => {};

  constructor(
    private readonly services: Services,
    private readonly log: Logger,
    opts: SweeperOptions = {},
  ) {
    this.cfg = services.config;
    this.clock = new PgClock(opts.clock);
    this.fireBudgetMs = opts.fireBudgetMs ?? FIRE_BUDGET_MS;
    this.threadAllowed = this.cfg.QUEEN_SWEEPER_FIRE_THREAD && !services.db.embedded;
    this.db = new SweeperDb(services.db, (err) => this.log.warn({ err }, 'idle sweeper connection lost'));
    this.materializer = new Materializer(this.db, services, this.log);
    services.metrics.handoffWindow.set(this.cfg.QUEEN_SWEEPER_HANDOFF_MS);
  }

  sweepOnce(): Promise<SweepResult> {
    const pass = this.chain.then(() => this.pass());
    this.chain = pass.catch(() => {});
    return pass;
  }

  /** Marks the pass as driven by the loop (`looped`; the fire thread then starts when the loop is first idle). */
  pace(): void {
    this.looped = true;
  }

  /**
   * Starts a loop's fire thread after a pass that left nothing due. Its start costs several hundred
   * milliseconds of CPU (its modules load, on a thread of their own): at the loop's start it ran
   * beside whatever backlog the broker found, on the same cores: the fire bench's 100,000 due
   * timers fired at 0.53–0.67x their raw-SQL limit then, 0.67–0.80x now (docs/benchmarks.md, "The
   * fire thread"). The wheel's fires go there once it is running (lead), not before: one sent to a
   * thread still loading waits for it. Not on Citus, which does without.
   */
  private startThreadWhenIdle(): void {
    if (!this.looped || !this.threadAllowed || this.fireThread || this.stopping || this.backlogged()) return;
    this.threadHere().then(
      (here) => {
        if (here && !this.stopping) this.thread();
      },
      () => {},
    );
  }

  /** Whether the fire thread may run: not on Citus, found once (threadAllowed says so from then on). */
  private async threadHere(): Promise<boolean> {
    if (this.threadAllowed && (await pinnedPerShard(this.db))) this.threadAllowed = false;
    return this.threadAllowed;
  }

  /** Due timers are left for the next pass, which starts at once (nextSleepMs). */
  private backlogged(): boolean {
    return this.prefetched !== undefined || this.dueWaiting || this.isolateDue;
  }

  /** No pass in flight or to come claims anything new. */
  halt(): void {
    this.stopping = true;
  }

  /** After halt(): awaits the pass in flight, releases unfired claims, closes the connections. */
  async close(): Promise<void> {
    this.stopping = true;
    await this.chain;
    await Promise.allSettled([...this.onThread]);
    if (this.prefetched) {
      const p = await this.prefetched.catch(() => undefined);
      if (p) this.lostClaims.push(p.token);
      this.prefetched = undefined;
    }
    // The wheel's timers are handed back: another broker (or this one, restarted) fires them.
    await this.handBack([...this.held.map((b) => b.token), ...this.lostClaims]);
    this.held = [];
    this.lostClaims = [];
    await this.fireThread?.close();
    await this.db.end();
  }

  /** Releases the claims of `tokens` and of every timer in the wheel, which it empties. */
  private async handBack(tokens: string[]): Promise<void> {
    const all = [...new Set([...tokens, ...this.wheel.drain()])];
    this.services.metrics.wheelSize.set(0);
    if (all.length === 0) return;
    try {
      const n = await releaseClaims(this.db, all, this.cfg.QUEEN_SWEEPER_HANDOFF_MS);
      this.log.info({ released: n }, 'released unfired claims');
    } catch (err) {
      this.log.warn({ err }, `could not release claims; they expire within ${this.cfg.QUEEN_SWEEPER_LEASE_MS} ms`);
    }
  }

  /**
   * A timer due at `deliverAtMs` (PostgreSQL's clock) was scheduled: remembered for nextSleepMs()
   * and the materializer. Returns how long from now its claim is due (it enters the window then).
   */
  notified(deliverAtMs: number): number {
    this.notifiedDueMs = Math.min(this.notifiedDueMs, deliverAtMs);
    const inMs = deliverAtMs - this.clock.pgNow();
    if (inMs <= 0) this.dueWaiting = true;
    this.materializer.notified(Date.now() + inMs);
    return inMs - this.cfg.QUEEN_SWEEPER_HANDOFF_MS;
  }

  /**
   * How long the loop may sleep before the next pass: the next claim or the wheel's next instant
   * (fractional milliseconds: the loop spins the last ones, index.ts).
   */
  nextSleepMs(): number {
    const { QUEEN_SWEEPER_MIN_SLEEP_MS: min } = this.cfg;
    if (this.backlogged()) return 0;
    if (this.held.length > 0 || this.lostClaims.length > 0) return min;
    const claimIn = Math.max(min, this.claimDueAt() - Date.now());
    const wheelIn = this.wheelIn();
    // Not clamped by the minimum sleep: the wheel's instants are the point of the window.
    return this.deferClaim(wheelIn) ? wheelIn : Math.min(claimIn, wheelIn);
  }

  /**
   * ms until the wheel's next instant surely came on PostgreSQL's clock, less the lead its fire is
   * sent with (Infinity: the wheel is empty).
   */
  private wheelIn(): number {
    const next = this.wheel.nextDueMs;
    if (next === undefined || this.threadFull()) return Infinity; // a settling fire wakes the loop (onWork)
    return Math.max(0, this.clock.toLocalLatest(next) - this.clock.local() - this.lead);
  }

  /**
   * How long before a wheel's instant its fire is sent: FIRE_LEAD_MS to the fire thread, 0 when
   * it is fired from here. A loop's pass sends to the thread once it is running
   * (startThreadWhenIdle); a pass driven by tests starts it at its first send.
   */
  private get lead(): number {
    return this.threadAllowed && (this.fireThread?.running || !this.looped) ? FIRE_LEAD_MS : 0;
  }

  /** The fire thread holds ON_THREAD_MAX fires: nothing more is sent until one settles. */
  private threadFull(): boolean {
    return this.lead > 0 && this.onThread.size >= ON_THREAD_MAX;
  }

  /** Whether a claim due now waits for the wheel's next instant (claimWaitsForWheel). */
  private deferClaim(wheelIn: number): boolean {
    // The next unclaimed instant, local: the claim is due the window before it.
    const nextUnclaimedIn = this.claimDueAt() + this.cfg.QUEEN_SWEEPER_HANDOFF_MS - Date.now();
    return claimWaitsForWheel(wheelIn, this.claimMs, nextUnclaimedIn);
  }

  /** When the next claim is due (local clock), from what the last claim said. */
  private claimDueAt(): number {
    const { QUEEN_SWEEPER_MIN_SLEEP_MS: min, QUEEN_SWEEPER_MAX_SLEEP_MS: max, QUEEN_SWEEPER_BATCH_SIZE: batch } = this.cfg;
    const handoff = this.cfg.QUEEN_SWEEPER_HANDOFF_MS;
    const last = this.last;
    if (!last) return 0;
    if (last.paused) return last.sentAt + max;
    // A full batch means a backlog: claim the next one at once (yielding to the event loop only).
    if (last.claimed >= batch) return 0;
    // The next timer beyond the window enters it at its deliverAt − the window.
    let at = last.nextDueInMs === null ? Infinity : last.sentAt + last.nextDueInMs - handoff;
    if (this.notifiedDueMs !== Infinity) at = Math.min(at, Date.now() + this.notifiedDueMs - this.clock.pgNow() - handoff);
    at = Math.min(at, this.materializer.wakeAt, last.sentAt + max);
    return Math.max(at, last.sentAt + min);
  }

  private async pass(): Promise<SweepResult> {
    const started = performance.now();
    const result: SweepResult = { claimed: 0, fired: 0, failed: 0 };
    try {
      if (this.lostClaims.length > 0) {
        await releaseClaims(this.db, this.lostClaims, this.cfg.QUEEN_SWEEPER_HANDOFF_MS);
        this.lostClaims = [];
      }
      while (this.held.length > 0) {
        const batch = this.held[0];
        if (Date.now() < batch.leaseEndsAt) await this.process(batch, result);
        this.held.shift();
      }
      if (this.stopping) return result;
      await this.fireWheel(result);
      // Paced by the loop, a pass woken for the wheel claims only when a claim is due and no wheel
      // instant comes before it would be done (claimWaitsForWheel); a pass driven by tests always claims.
      if (
        this.looped &&
        !this.prefetched &&
        !this.dueWaiting &&
        !this.isolateDue &&
        (Date.now() < this.claimDueAt() || this.deferClaim(this.wheelIn()))
      ) {
        return result;
      }
      await this.materializer.runIfDue(!this.looped); // before the fire (never throws): a caught-up occurrence fires in this pass
      if (this.dueWaiting && !this.isolateDue && !this.prefetched) {
        // A full batch: more are due; the next pass fires them at once, claiming nothing meanwhile.
        if (await this.fireDue(result)) return result;
        this.dueWaiting = false;
      }

      const pending = this.prefetched;
      this.prefetched = undefined;
      const isolating = this.isolateDue;
      const { claim, token, sentAt, trace } = await (pending ?? this.claim());
      result.claimed += claim.rows.length;
      const due = this.toWheel(claim, token, sentAt, trace);
      if (due.length > 0) {
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
        const batch: Batch = { token, rows: due, leaseEndsAt: sentAt + this.cfg.QUEEN_SWEEPER_LEASE_MS, trace };
        await this.processOrHold(batch, result);
      }
      if (isolating) {
        // The failing due batch was claimed (and its failures charged) or is no longer due: back to fireDue.
        this.isolateDue = false;
        this.dueWaiting = true;
      } else if (claim.dueWaiting && !this.stopping) {
        // Due timers nobody holds (matured since the last look, or backed off): fired in this pass.
        this.dueWaiting = await this.fireDue(result);
      }
      return result;
    } finally {
      this.services.metrics.sweepDuration.observe((performance.now() - started) / 1000);
      this.services.metrics.wheelSize.set(this.wheel.size);
      this.startThreadWhenIdle();
    }
  }

  private async processOrHold(batch: Batch, result: SweepResult): Promise<void> {
    try {
      await this.process(batch, result);
    } catch (err) {
      this.hold(batch);
      throw err;
    }
  }

  /** A batch that failed with the database: the next pass retries it first, on the sweeper's own connections (no instant on the thread). */
  private hold(batch: Batch): void {
    this.held.push({ ...batch, at: undefined });
  }

  /**
   * Puts the claimed timers not due at the claim's now() into the wheel; returns the due ones. Their
   * lease runs to the claim's now() + the window + the lease (claimDue): on the local clock, it
   * ends no earlier than the last one's instant + the lease.
   */
  private toWheel(claim: ClaimResult, token: string, sentAt: number, trace: Context | undefined): ClaimedTimer[] {
    const due: ClaimedTimer[] = [];
    const ahead: ClaimedTimer[] = [];
    for (const row of claim.rows) (row.deliverAt * 1000 <= claim.nowMs ? due : ahead).push(row);
    if (ahead.length > 0) {
      const lastMs = ahead[ahead.length - 1].deliverAt * 1000 - claim.nowMs;
      const leaseEndsAt = sentAt + Math.max(0, lastMs) + this.cfg.QUEEN_SWEEPER_LEASE_MS;
      this.wheel.add({ token, leaseEndsAt, trace }, ahead);
    }
    return due;
  }

  /**
   * Fires the wheel's timers whose instant has come on (the estimate of) PostgreSQL's clock, one
   * statement per run of one claim, in deliverAt order. A timer the statement finds not yet due
   * goes back to the wheel (fireIsolated). Timers whose lease has run out are dropped: another
   * broker may have fired them.
   *
   * With the fire thread, the runs due within the lead are taken too, each instant a run of its
   * own, and all sent to the thread at once: it fires each at its instant.
   */
  private async fireWheel(result: SweepResult): Promise<void> {
    if (this.wheel.size === 0) return;
    await this.threadHere();
    const batches: Batch[] = [];
    const room = this.lead > 0 ? ON_THREAD_MAX - this.onThread.size : Infinity;
    if (room <= 0) return;
    for (const { claim, rows } of this.wheel.takeDue(this.clock.earliestPgNow(), this.lead, room)) {
      if (Date.now() >= claim.leaseEndsAt) continue;
      const at = this.lead > 0 ? this.clock.toLocalLatest(rows[rows.length - 1].deliverAt * 1000) : undefined;
      batches.push({ token: claim.token, rows, leaseEndsAt: claim.leaseEndsAt, trace: claim.trace, at });
    }
    if (this.lead === 0) {
      for (const batch of batches) await this.processOrHold(batch, result);
      return;
    }
    // Unpacked first, so that nothing awaited comes between the sends: the thread gets them in order.
    const unpacked = await Promise.all(batches.map((b) => this.unpack(b.rows)));
    const fires = batches.map((batch, i) => {
      const fire = this.fireUnpacked(batch, unpacked[i], result).catch((err: unknown) => {
        this.hold(batch);
        this.onWork(); // no pass may be coming: this settled outside one
        throw err;
      });
      this.onThread.add(fire);
      void fire
        .catch(() => {})
        .finally(() => {
          const wasFull = this.threadFull();
          this.onThread.delete(fire);
          if (wasFull) this.onWork();
        });
      return fire;
    });
    // A loop does not wait: its next pass may send the next instants (or claim) while these wait
    // for theirs. What they find is recorded as they settle; a failure is held for the next pass.
    if (this.looped) return;
    const failed = (await Promise.allSettled(fires)).find((f) => f.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The fire thread, started at the first call; undefined once it failed (the wheel then fires from this thread). */
  private thread(): FireThread | undefined {
    const failed = (err: unknown) => {
      this.threadAllowed = false;
      this.log.warn({ err }, 'the fire thread failed: the wheel fires from the main thread');
    };
    if (this.fireThread?.alive === false) {
      if (this.threadAllowed) failed(undefined);
      return undefined;
    }
    try {
      this.fireThread ??= new FireThread(this.services.db.directUrl, failed);
    } catch (err) {
      failed(err); // it could not start (its entry not found)
      return undefined;
    }
    return this.fireThread;
  }

  /**
   * fireDue on every stripe (on Citus: every shard group with due timers), FIRE_STRIPES side by
   * side, each batch after batch until it finds less than a batch due or FIRE_BUDGET_MS has passed
   * (the wheel and the materializer get their turn between passes). Returns whether a stripe's last
   * batch was full (more are due). A stripe that failed for
   * reasons of its rows sets isolateDue: this pass then claims the due timers to find them; one that
   * failed with the database is thrown once every stripe has settled.
   */
  private async fireDue(result: SweepResult): Promise<boolean> {
    const batchSize = this.cfg.QUEEN_SWEEPER_BATCH_SIZE;
    const until = performance.now() + this.fireBudgetMs;
    // Plain PostgreSQL: the hash stripes of one group. Citus: each shard group is a stripe of its own.
    const jobs: { stripe: number; stripes: number; group: ShardGroup }[] = [];
    if (await pinnedPerShard(this.db)) {
      const { groups } = await dueGroups(this.db, 0, batchSize);
      for (const group of groups) jobs.push({ stripe: 0, stripes: 1, group });
    } else {
      const stripes = this.db.embedded ? 1 : FIRE_STRIPES;
      for (let i = 0; i < stripes; i++) jobs.push({ stripe: i, stripes, group: ALL_TENANTS });
    }
    const fireJob = async ({ stripe, stripes, group }: (typeof jobs)[number]): Promise<boolean> => {
      // In one statement until it refuses a batch (fireDue.ts), then the two-statement way for the
      // rest of this pass: at once for a zstd payload, which a backlog holds batch after batch; for
      // first frames, which the refused batch has now appended, after a second refusal in a row (a
      // backlog over partitions that all are new).
      let oneStatement = true;
      let refusedLast = false;
      for (;;) {
        const batch = { size: batchSize, stripe, stripes, tenants: group.tenants };
        const { taken, fired, refused } = await fireDue(this.db, this.services.cipher, batch, oneStatement);
        if (refused === 'zstd' || (refused && refusedLast)) oneStatement = false;
        refusedLast = refused !== false;
        result.claimed += taken;
        if (fired) this.recordFire(fired, taken, result);
        if (taken < batchSize) return false;
        if (this.stopping || performance.now() >= until) return true;
      }
    };
    // FIRE_STRIPES jobs side by side, each taking the next job when it is done.
    const outcomes: PromiseSettledResult<boolean>[] = [];
    let next = 0;
    const runner = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        outcomes.push(...(await Promise.allSettled([fireJob(job)])));
      }
    };
    await Promise.all(Array.from({ length: Math.min(FIRE_STRIPES, jobs.length) }, runner));
    let full = false;
    let databaseFailure: unknown;
    for (const o of outcomes) {
      if (o.status === 'fulfilled') full ||= o.value;
      else if (isDatabaseLevel(o.reason)) databaseFailure ??= o.reason;
      else {
        this.isolateDue = true;
        this.log.debug({ err: o.reason }, 'a due batch failed to fire: claiming it to find the failing timers');
      }
    }
    if (databaseFailure !== undefined) throw databaseFailure;
    return full && !this.isolateDue;
  }

  private async claim(): Promise<Claimed> {
    const token = randomUUID();
    const sentAt = Date.now();
    const localSent = this.clock.local();
    this.notifiedDueMs = Infinity;
    let claim: ClaimResult;
    const { QUEEN_SWEEPER_BATCH_SIZE: limit, QUEEN_SWEEPER_LEASE_MS: leaseMs, QUEEN_SWEEPER_HANDOFF_MS: handoffMs } = this.cfg;
    try {
      claim = (await pinnedPerShard(this.db))
        ? await this.claimPerShard(token, limit, leaseMs, handoffMs)
        : await claimDue(this.db, token, limit, leaseMs, handoffMs, this.isolateDue);
    } catch (err) {
      // The claim may have committed with nobody to fire it; give its rows back next pass.
      if (isDatabaseLevel(err)) this.lostClaims.push(token);
      claimSpan(sentAt, limit, leaseMs, undefined, err);
      throw err;
    }
    const tookMs = this.clock.local() - localSent;
    this.claimMs = Math.max(tookMs, this.claimMs * 0.9);
    this.clock.sample(localSent, this.clock.local(), claim.nowMs);
    this.last = { sentAt, nextDueInMs: claim.nextDueInMs, paused: claim.paused, claimed: claim.rows.length };
    return { claim, token, sentAt, trace: claimSpan(sentAt, limit, leaseMs, claim.rows.length) };
  }

  /**
   * Citus: the claim of every shard group with timers due within the window (one token for all:
   * it guards, it does not route), merged in deliverAt order, each row tagged with its group. The
   * head (now, pause, next instant, unclaimed due timers) is the groups' read's.
   */
  private async claimPerShard(token: string, limit: number, leaseMs: number, handoffMs: number): Promise<ClaimResult> {
    const read = await dueGroups(this.db, handoffMs, limit);
    const rows: ClaimedTimer[] = [];
    for (const g of read.groups) {
      if (rows.length >= limit || this.stopping) break;
      const c = await claimDue(this.db, token, limit - rows.length, leaseMs, handoffMs, this.isolateDue, g.tenants);
      for (const row of c.rows) rows.push({ ...row, shard: g.shard });
    }
    rows.sort((a, b) => a.deliverAt - b.deliverAt);
    return {
      rows,
      nowMs: read.nowMs,
      nextDueInMs: read.nextDueInMs,
      paused: read.paused,
      dueWaiting: !this.isolateDue && read.groups.some((g) => g.dueNow),
    };
  }

  /** Fires one claimed batch, shard group by shard group (one group on plain PostgreSQL). */
  private async process(batch: Batch, result: SweepResult): Promise<void> {
    const groups = new Map<string | null, ClaimedTimer[]>();
    for (const row of batch.rows) {
      const g = groups.get(row.shard);
      if (g) g.push(row);
      else groups.set(row.shard, [row]);
    }
    for (const rows of groups.values()) await this.processGroup(batch, rows, result);
  }

  /** Unpacks and fires rows of one shard group, isolating failing rows; throws on database-level failure. */
  private async processGroup(batch: Batch, rows: ClaimedTimer[], result: SweepResult): Promise<void> {
    await this.fireUnpacked(batch, await this.unpack(rows), result);
  }

  private async unpack(rows: ClaimedTimer[]): Promise<Unpacked> {
    const u: Unpacked = { ready: [], replacements: new Map(), failures: [] };
    for (const row of rows) {
      try {
        const r = await unpack(row, this.services.cipher);
        if (r) u.replacements.set(row.tid, r);
        u.ready.push(row);
      } catch (err) {
        u.failures.push({ row, err });
      }
    }
    return u;
  }

  /** Fires what unpacked (its first statement sent before anything is awaited), then charges what failed. */
  private async fireUnpacked(batch: Batch, { ready, replacements, failures }: Unpacked, result: SweepResult): Promise<void> {
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
    batch: Batch,
    rows: ClaimedTimer[],
    replacements: Map<string, Replacement>,
    failures: Failure[],
    result: SweepResult,
    sorted: boolean,
  ): Promise<void> {
    if (rows.length === 0) return;
    let fired: FireResult;
    try {
      fired = await fireSpan(rows, batch.trace, () => this.fireOnce(batch, rows, replacements));
    } catch (err) {
      if (isDatabaseLevel(err)) throw err;
      if (rows.length === 1) {
        failures.push({ row: rows[0], err });
        return;
      }
      if (!sorted) rows = [...rows].sort(byPartitionThenDeliverAt);
      const mid = rows.length >> 1;
      const here = { ...batch, at: undefined };
      await this.fireIsolated(here, rows.slice(0, mid), replacements, failures, result, true);
      await this.fireIsolated(here, rows.slice(mid), replacements, failures, result, true);
      return;
    }
    if (fired.paused) {
      // The operator paused the sweepers: nothing fires, the wheel's included. Its claims are
      // handed back, so its timers wait unclaimed (a cancel acts on them) until the pause is lifted.
      await this.handBack([batch.token]);
      return;
    }
    if (fired.early.length > 0) {
      const early = new Set(fired.early);
      this.wheel.add(
        batch,
        rows.filter((r) => early.has(r.tid)),
      );
      this.log.debug({ early: early.size }, 'timers not due yet on PostgreSQL clock: back to the wheel');
      this.onWork();
    }
    this.recordFire(fired, rows.length - fired.early.length, result);
  }

  /**
   * One fire statement: on the fire thread at `batch.at` when the batch has an instant there, else
   * (and when the thread's found a partition not ready, fireClaimed) on the sweeper's connections.
   * The statement read PostgreSQL's clock: a sample, which corrects an estimate that ran ahead (a
   * step of either clock); refused timers go back to the wheel for their real instant.
   */
  private async fireOnce(batch: Batch, rows: ClaimedTimer[], replacements: Map<string, Replacement>): Promise<FireResult> {
    const thread = batch.at === undefined ? undefined : this.thread();
    const keys = partitionKeys(rows);
    const here: LockedHere = keys.every((k) => this.framed.has(k)) ? 'held' : 'joining';
    let lockHere: LockedHere | null = here;
    if (thread && batch.at !== undefined && pinOf(rows) === null) {
      const name = this.db.named('qt_fire');
      // The thread keeps time by preciseNow; the sweeper's clock may be another (a test's, run
      // ahead or behind): instants cross between the two by their difference at the crossing.
      const fromLocal = this.clock.local() - preciseNow();
      const {
        result: fired,
        sentAt,
        receivedAt,
      } = await thread.transaction(
        batch.at - fromLocal,
        (tx) => fireAndCommit(tx, batch.token, rows, replacements, name, null, here),
        keys,
      );
      const toLocal = this.clock.local() - preciseNow();
      this.clock.sample(sentAt + toLocal, receivedAt + toLocal, fired.pgNowMs);
      if (!fired.unready) return here === 'joining' ? this.framedBy(fired) : fired;
      lockHere = null; // the thread's statement refused: the usual append, at once
    }
    const sentAt = this.clock.local();
    const fired = await fireClaimed(this.db, batch.token, rows, replacements, { here: lockHere });
    this.clock.sample(sentAt, this.clock.local(), fired.pgNowMs);
    return here === 'joining' ? this.framedBy(fired) : fired;
  }

  /**
   * `fired`, once the partitions it appended to are remembered as framed. Only after a `joining`
   * fire: a `held` one's partitions were all remembered already.
   */
  private framedBy(fired: FireResult): FireResult {
    for (const q of fired.queues) {
      if (this.framed.size + q.partitions.length > FRAMED_MAX) this.framed.clear();
      for (const p of q.partitions) this.framed.add(partitionKey(q.tenant, q.queue, p));
    }
    return fired;
  }

  private recordFire(fired: FireResult, sent: number, result: SweepResult): void {
    const m = this.services.metrics;
    result.fired += fired.deleted;
    m.fired.inc(fired.deleted);
    for (const q of fired.queues) {
      for (const lag of q.lags) m.fireLag.observe(lag);
      this.services.fireHistory.record(q.tenant, q.queue, q.lags);
    }
    this.services.notifier.messagesPushedMany(fired.queues);
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
        back.push({
          tid: row.tid,
          cost: 1,
          error,
          delayMs: backoffMs(PERMANENT_BASE_MS, PERMANENT_CAP_MS, row.attempts),
        });
      }
    }
    this.rowTransientStreak = transient ? this.rowTransientStreak + 1 : 0;
    const tenants = pinOf(failures.map((f) => f.row));
    await backOff(this.db, token, back, tenants);
    const deadLettered = await deadLetter(this.db, token, dead, tenants);
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
