// The one loop every background duty runs on (retention, the queue gauges, the pending gauge,
// vacuum): a run every `everyMs`, each wait jittered by ±10 % so the brokers of a cell drift apart
// instead of running their duties in step; timers unref'd, so a duty never keeps the process
// alive; runs never overlap (runOnce() queues behind the one in flight); stop() cancels the next
// run and awaits the one in flight. A failed run is counted in
// queen_maintenance_failures_total{duty} and logged through the duty's child logger
// ({ component: name }), and the loop carries on: a duty's failure never reaches the broker.
//
// The schedules' materializer is not one of these: it runs inside the sweeper's pass, before the
// claim, so an occurrence caught up fires in the same pass, and the sweeper sleeps until the next
// schedule is due (src/sweeper/materializeDue.ts); a fixed interval would delay both.
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';

/** Each wait is everyMs × (1 ± JITTER). */
export const JITTER = 0.1;

export interface DutySpec<T> {
  /** What the duty is: its logger's `component` and its `duty` label on the failures counter. */
  name: string;
  /** The interval between runs, before jitter. */
  everyMs: number;
  /** One run; `log` is the duty's child logger. */
  run(log: Logger): Promise<T>;
  /** Runs once at start too (a gauge: /metrics has figures from the first scrape). */
  runAtStart?: boolean;
  /** The level a failure is logged at: warn (default), or debug for a gauge that retries in seconds. */
  failureLevel?: 'warn' | 'debug';
}

export interface Duty<T> {
  readonly name: string;
  /**
   * Runs now, after the run in flight. Resolves with the run's result; rejects with its error
   * (which the loop has counted and logged) for a caller that wants to know — tests, an operator.
   */
  runOnce(): Promise<T>;
  /** Cancels the next run and awaits the one in flight. */
  stop(): Promise<void>;
}

export interface LoopDeps {
  log: Logger;
  metrics: Pick<Metrics, 'maintenanceFailures'>;
  /** The jitter's source, in [0, 1): Math.random unless a test pins it. */
  random?: () => number;
}

/** A wait of everyMs ± JITTER, from `r` in [0, 1). */
export function jittered(everyMs: number, r: number): number {
  return Math.round(everyMs * (1 - JITTER + 2 * JITTER * r));
}

export function startDuty<T>(spec: DutySpec<T>, deps: LoopDeps): Duty<T> {
  const log = deps.log.child({ component: spec.name });
  const random = deps.random ?? Math.random;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const runOnce = (): Promise<T> => {
    const run = running.then(() => spec.run(log));
    running = run.catch((err: unknown) => {
      deps.metrics.maintenanceFailures.inc({ duty: spec.name });
      log[spec.failureLevel ?? 'warn']({ err }, `${spec.name} failed; retried at the next interval`);
    });
    return run;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        runOnce().catch(() => {}); // counted and logged by runOnce
        void running.then(schedule);
      },
      jittered(spec.everyMs, random()),
    );
    timer.unref();
  };

  if (spec.runAtStart) runOnce().catch(() => {});
  schedule();
  return {
    name: spec.name,
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
