// The sweeper: fires every due timer into the log exactly once, on time, and keeps doing it
// through failures. One per broker; any number of brokers share the work through row leases.
//
//   sweepOnce():  one pass (pass.ts): materializeDue → claimDue → unpack → fireClaimed → backOff /
//                 deadLetter
//   startSweeper: a thin loop around sweepOnce() that sleeps until the next deliverAt (or schedule
//                 to materialize), clamped to [QUEEN_SWEEPER_MIN_SLEEP_MS, QUEEN_SWEEPER_MAX_SLEEP_MS],
//                 woken earlier by schedules that land before its wake-up (notifier.onTimer).
//
// Catch-up (after downtime or an operator pause) drains the backlog batch by batch in deliverAt
// order: a claim and a fire per batch (QUEEN_SWEEPER_BATCH_SIZE), the event loop yielded between
// batches, the request path on its own connections (embedded: sharing the one connection
// statement by statement), so schedules, pushes and pops are served throughout, and a timer that
// matures during the catch-up takes its place by deliverAt.
//
// The pending gauge is sampled beside the passes, never inside one, as a maintenance duty
// (src/maintenance/pendingGauge.ts).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import type { TimerDue } from '../notify.ts';
import type { Services } from '../services/index.ts';
import { backoffMs } from './failures.ts';
import { SweepPass, type SweeperOptions, type SweepResult } from './pass.ts';

export { TIMER_DLQ_CONSUMER_GROUP } from './deadLetter.ts';
export type { SweepResult, SweeperOptions } from './pass.ts';

export interface Sweeper {
  /** One pass: claim a batch and fire it. Passes never overlap; tests call this directly. */
  sweepOnce(): Promise<SweepResult>;
  /** Stops claiming, awaits the pass in flight, releases unfired claims, closes the connections. */
  stop(): Promise<void>;
}

/**
 * A wait this short or shorter is spun (spin()), not slept: a timer wakes the event loop a
 * millisecond or more late, and the wheel fires at instants. The CPU it costs is at most this much
 * per distinct instant the wheel fires; a longer wait sleeps until this much before its end.
 */
const SPIN_MS = 2;

/** After a failure of the database as a whole: 10 ms, doubling, at most 5 s between passes. */
const DB_RETRY_BASE_MS = 10;
const DB_RETRY_CAP_MS = 5_000;

class TimerSweeper implements Sweeper {
  private readonly log: Logger;
  private readonly passes: SweepPass;
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private sleepTimer: NodeJS.Timeout | undefined;
  private wakeSleeper: (() => void) | undefined;
  private wakeAt = Infinity;
  private unsubscribe: (() => void) | undefined;
  private dbStreak = 0;
  private spinning = false;

  constructor(
    private readonly services: Services,
    opts: SweeperOptions = {},
  ) {
    this.log = services.log.child({ component: 'sweeper' });
    this.passes = new SweepPass(services, this.log, opts);
  }

  sweepOnce(): Promise<SweepResult> {
    return this.passes.sweepOnce();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.passes.halt();
    this.unsubscribe?.();
    this.wake();
    await this.loopDone;
    await this.passes.close();
  }

  startLoop(): void {
    const offTimer = this.services.notifier.onTimer((e) => this.onTimer(e));
    // Schedules notified while LISTEN was down were missed: a pass now finds them.
    const offReconnect = this.services.notifier.onReconnect(() => this.wake());
    this.unsubscribe = () => {
      offTimer();
      offReconnect();
    };
    this.passes.pace();
    this.passes.onWork = () => this.wake();
    this.loopDone = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let pause: number;
      try {
        await this.sweepOnce();
        this.dbStreak = 0;
        pause = this.passes.nextSleepMs();
      } catch (err) {
        pause = backoffMs(DB_RETRY_BASE_MS, DB_RETRY_CAP_MS, this.dbStreak++);
        this.log.warn({ err, retryInMs: Math.round(pause) }, 'sweeper pass failed');
      }
      if (this.stopping) break;
      if (pause <= 0) await yieldToEventLoop();
      else if (pause <= SPIN_MS) await this.spin(pause);
      else await this.sleep(Math.floor(pause - SPIN_MS));
    }
  }

  /**
   * Waits `ms` (< SPIN_MS) by yielding to the event loop until it has passed: requests are served
   * meanwhile, and the pass starts within a few microseconds of its instant instead of a timer's
   * millisecond or more. stop() and a LISTEN reconnect end it early, as they end a sleep (a
   * schedule's notification does not: the pass it is waiting for reads what was notified).
   */
  private async spin(ms: number): Promise<void> {
    const until = performance.now() + ms;
    this.spinning = true;
    try {
      while (this.spinning && !this.stopping && performance.now() < until) await yieldToEventLoop();
    } finally {
      this.spinning = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeSleeper = resolve;
      this.wakeAt = Date.now() + ms;
      this.sleepTimer = setTimeout(() => this.wake(), ms);
    });
  }

  private wake(): void {
    this.spinning = false;
    clearTimeout(this.sleepTimer);
    const resolve = this.wakeSleeper;
    this.wakeSleeper = undefined;
    this.wakeAt = Infinity;
    resolve?.();
  }

  /** A schedule landed: wake earlier if its claim (its deliverAt − the window) is due before the planned wake-up. */
  private onTimer(e: TimerDue): void {
    const claimInMs = this.passes.notified(e.deliverAtMs);
    if (!this.wakeSleeper) return; // a pass is running; nextSleepMs() sees the notified instant
    if (Date.now() + claimInMs >= this.wakeAt) return;
    const ms = Math.max(this.services.config.QUEEN_SWEEPER_MIN_SLEEP_MS, Math.ceil(claimInMs));
    clearTimeout(this.sleepTimer);
    this.wakeAt = Date.now() + ms;
    this.sleepTimer = setTimeout(() => this.wake(), ms);
  }
}

/** A sweeper without its loop: tests drive it with sweepOnce(). */
export function createSweeper(services: Services, opts: SweeperOptions = {}): Sweeper {
  return new TimerSweeper(services, opts);
}

/** The broker's sweeper: passes back to back while there is a backlog, else asleep until the next deliverAt. */
export function startSweeper(services: Services): Sweeper {
  const s = new TimerSweeper(services);
  s.startLoop();
  return s;
}
