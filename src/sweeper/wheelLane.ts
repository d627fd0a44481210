// The hand-off window's own lane: in a broker's sweeper loop (startSweeper), the wheel's timers are
// fired by this loop, beside the passes (pass.ts), not by them. Fired by the passes, a timer whose
// instant came while the pass before was claiming (a commit) or firing the instant before (another
// commit) waited for that commit, and every fire paid the round trip of its partitions' locks after
// the instant: most of the trickle's p95 and p99 (docs/benchmarks.md).
//
// Here a run (the wheel's timers due at its next instant, of one claim) is started LEAD_MS before
// its instant: its transaction takes its partitions' locks (append.ts), then sends a statement that
// waits in PostgreSQL until PostgreSQL's own clock has passed the instant, with the fire statement
// and its COMMIT right behind it (fireClaimed.ts WAIT_UNTIL_SQL): the fire starts the moment the
// wait ends, not when a backend asleep on its socket wakes for a statement sent at the instant. The
// cost: a partition's appends (a push, another fire) may wait up to LEAD_MS longer for its lock, and
// the wait spins up to 1.5 ms of a server core per instant. The fire statement still refuses a timer
// not due on PostgreSQL's clock, so no frame is early whatever the estimate (pgClock.ts) says.
//
// Order: the lane starts the next run once the one before holds its locks (or has ended): within a
// partition the fires commit, and so number their frames, in the order the runs were taken,
// deliverAt order. At most MAX_IN_FLIGHT fires are in flight (the sweeper's pool, db.ts, has room
// for them beside a claim and fireDue's stripes). A fire that fails is held by the pass (pass.ts
// `held`) and retried by the next pass, so under a failing database a later timer of its partition
// may enter the log before it.
import type { PgClock } from './pgClock.ts';
import type { TimingWheel, WheelRun } from './wheel.ts';

/** How long before its instant (on the estimate of PostgreSQL's clock) a run's fire starts. */
export const LEAD_MS = 3;

/** Wheel fires in flight at once. */
export const MAX_IN_FLIGHT = 2;

export interface LaneHost {
  readonly wheel: TimingWheel;
  readonly clock: PgClock;
  /**
   * Starts the fire of `run`, ahead of its instant: `locked` resolves once it holds its partitions'
   * locks or has ended, `done` once it has ended; neither rejects (the host holds and reports a
   * failed fire).
   */
  fire(run: WheelRun): { locked: Promise<void>; done: Promise<void> };
}

export class WheelLane {
  private stopped = false;
  private wakeSleeper: (() => void) | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: Promise<void>;

  constructor(private readonly host: LaneHost) {
    this.loop = this.run();
  }

  /** The wheel's head may have moved earlier (timers were added): a sleeping lane reads it again. */
  poke(): void {
    clearTimeout(this.sleepTimer);
    const wake = this.wakeSleeper;
    this.wakeSleeper = undefined;
    wake?.();
  }

  /** Starts no new fire; resolves once the fires in flight have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async run(): Promise<void> {
    const { wheel, clock } = this.host;
    while (!this.stopped) {
      const next = wheel.nextDueMs;
      const waitMs = next === undefined ? Infinity : clock.toLocalLatest(next) - clock.local();
      if (waitMs > LEAD_MS) {
        await this.sleep(waitMs - LEAD_MS);
        continue;
      }
      for (const run of wheel.takeDue(next!)) {
        while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
        const { locked, done } = this.host.fire(run);
        this.inFlight.add(done);
        void done.finally(() => this.inFlight.delete(done));
        await locked;
      }
    }
  }

  /** Sleeps `ms` (Infinity: until poked), or until poked or stopped. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeSleeper = resolve;
      if (ms !== Infinity) this.sleepTimer = setTimeout(() => this.poke(), ms);
    });
  }
}
