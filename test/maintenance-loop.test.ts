// The maintenance loop (src/maintenance/loop.ts): the one helper every background duty runs on.
// Driven by fake timers and pinned jitter, so nothing here depends on the machine's speed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../src/logger.ts';
import { JITTER, jittered, startDuty } from '../src/maintenance/loop.ts';
import { createMetrics } from '../src/metrics.ts';

/** A logger that keeps its lines, with the bindings of the child that wrote them. */
function recordingLogger(lines: { level: string; bindings: Record<string, unknown>; obj: unknown; msg?: string }[]) {
  const make = (bindings: Record<string, unknown>): Logger => {
    const at =
      (level: string) =>
      (obj: unknown, msg?: string): void => {
        lines.push(typeof obj === 'string' ? { level, bindings, obj: undefined, msg: obj } : { level, bindings, obj, msg });
      };
    return {
      error: at('error'),
      warn: at('warn'),
      info: at('info'),
      debug: at('debug'),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return make({});
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const failures = async (metrics: ReturnType<typeof createMetrics>, duty: string) =>
  (await metrics.maintenanceFailures.get()).values.find((v) => v.labels.duty === duty)?.value ?? 0;

describe('maintenance loop', () => {
  let metrics: ReturnType<typeof createMetrics>;
  beforeEach(() => {
    metrics = createMetrics({ version: 'test', database: 'embedded' });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stop() resolves only after the run in flight has finished', async () => {
    const gate = deferred();
    let finished = false;
    const duty = startDuty(
      {
        name: 'slow',
        everyMs: 3_600_000,
        run: async () => {
          await gate.promise;
          finished = true;
        },
      },
      { log: recordingLogger([]), metrics },
    );
    const run = duty.runOnce();
    let stopped = false;
    const stopping = duty.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(finished).toBe(true);
    expect(stopped).toBe(true);
    await run;
  });

  it('a throwing run is counted and logged under its duty, and the loop runs again at the next interval', async () => {
    vi.useFakeTimers();
    const lines: Parameters<typeof recordingLogger>[0] = [];
    let runs = 0;
    const duty = startDuty(
      {
        name: 'flaky',
        everyMs: 1_000,
        run: async () => {
          runs++;
          if (runs === 1) throw new Error('boom');
        },
      },
      { log: recordingLogger(lines), metrics, random: () => 0.5 },
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    expect(await failures(metrics, 'flaky')).toBe(1);
    expect(lines).toEqual([
      {
        level: 'warn',
        bindings: { component: 'flaky' },
        obj: { err: expect.objectContaining({ message: 'boom' }) },
        msg: 'flaky failed; retried at the next interval',
      },
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    expect(await failures(metrics, 'flaky')).toBe(1);
    await duty.stop();
  });

  it('runOnce() rejects with the error of a failed run, which is counted all the same', async () => {
    const duty = startDuty(
      {
        name: 'broken',
        everyMs: 3_600_000,
        failureLevel: 'debug',
        run: async () => {
          throw new Error('no database');
        },
      },
      { log: recordingLogger([]), metrics },
    );
    await expect(duty.runOnce()).rejects.toThrow('no database');
    expect(await failures(metrics, 'broken')).toBe(1);
    await duty.stop();
  });

  it('runs at start only when asked, then once per jittered interval, and not after stop()', async () => {
    vi.useFakeTimers();
    let runs = 0;
    const duty = startDuty(
      {
        name: 'gauge',
        everyMs: 1_000,
        runAtStart: true,
        run: async () => {
          runs++;
        },
      },
      { log: recordingLogger([]), metrics, random: () => 0 },
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    // random() = 0: the shortest wait, 900 ms.
    await vi.advanceTimersByTimeAsync(899);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await duty.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(2);
  });

  it('jitter keeps every wait within ±10 % of the interval', () => {
    expect(JITTER).toBe(0.1);
    expect(jittered(1_000, 0)).toBe(900);
    expect(jittered(1_000, 0.5)).toBe(1_000);
    expect(jittered(1_000, 0.999_999)).toBe(1_100);
    for (let i = 0; i < 1_000; i++) {
      const ms = jittered(60_000, Math.random());
      expect(ms).toBeGreaterThanOrEqual(54_000);
      expect(ms).toBeLessThanOrEqual(66_000);
    }
  });
});
