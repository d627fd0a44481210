// The fire thread: the hand-off window's fires leave from a worker thread of their own, at their
// instants, so a busy main thread does not make them late.
//
// On the main thread a wheel's fire waits for the event loop: under load (consumers draining at
// full speed) its turns ran 3.6 ms late at the median and 35 ms at p99 on a 2-core machine, most
// of the trickle's lag (docs/benchmarks.md). So the pass builds each fire a little ahead of its
// instant (FIRE_LEAD_MS, pass.ts) as a written transaction (db/transaction.ts: BEGIN, the
// one-write fire and COMMIT, as fireAndCommit issues them) and sends it here; this thread holds
// connections of the sweeper's own (connection.ts; two, fireThreadWorker.ts says why) and writes
// the three at the instant. The answer comes back to the pass, which does with it what it does
// with a fire of its own; a loop's pass does not wait for it, and meanwhile sends the next
// instants' fires or claims.
//
// Nothing about exactly-once changes: the statements are the ones the main thread would send,
// guarded by the claim's token and refusing what is not yet due on PostgreSQL's clock. Whatever
// fails here (the statement, the connection, the thread) fails the fire, and the pass fires the
// rows its usual way (pass.ts), as it would after a failure of its own.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WrittenTransaction, type Queryable, type StatementOutcome, type StatementText } from '../db/transaction.ts';

/**
 * What the thread runs: a transaction's statements, written at once at `at` (preciseNow, pgClock.ts),
 * and run only once each job sent ahead of it that shares one of its `keys` (the partitions it appends to) has ended.
 */
export interface FireJob {
  kind: 'fire';
  id: number;
  at: number;
  keys: string[];
  queries: StatementText[];
}

export type ToThread = FireJob | { kind: 'close' };

/** What the thread sends: a job's answer, or once, that its connections are open (or failed to open). */
export type FromThread = JobOutcome | { kind: 'running' };

/** A job's answer: each statement's outcome, when they were written and when the last answer came (preciseNow). */
export interface JobOutcome {
  id: number;
  outcomes: StatementOutcome[];
  sentAt: number;
  receivedAt: number;
}

export interface ThreadData {
  url: string;
}

/** A transaction run on the thread: what the function returned, and the round trip's ends (preciseNow). */
export interface Deferred<T> {
  result: T;
  sentAt: number;
  receivedAt: number;
}

/**
 * The module the thread runs. From source (`.ts`, run through tsx), the thread registers tsx
 * itself: a worker started from a test runner does not inherit a loader.
 */
function threadEntry(): { entry: string | URL; eval: boolean } {
  const self = new URL(import.meta.url);
  if (!self.pathname.endsWith('.ts')) return { entry: new URL('./fireThreadWorker.js', self), eval: false };
  // tsx's ESM entry (its CommonJS one cannot register from here), by its package's own map.
  const require = createRequire(self);
  const pkg = require.resolve('tsx/package.json');
  const api = new URL(require('tsx/package.json').exports['./esm/api'].import.default, pathToFileURL(pkg)).href;
  const worker = new URL('./fireThreadWorker.ts', self).href;
  return { entry: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); })`, eval: true };
}

export class FireThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (o: JobOutcome) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Set once the thread failed or exited: every later job fails at once. */
  private failure: Error | undefined;
  /** Its modules loaded and its connections opened: a job sent now leaves at its instant. */
  private started = false;

  /** A thread with connections of its own to `url` (the database's own server, as the sweeper's pool's). */
  constructor(url: string, onFailure: (err: Error) => void) {
    const { entry, eval: isEval } = threadEntry();
    this.worker = new Worker(entry, { eval: isEval, workerData: { url } satisfies ThreadData });
    // The sweeper closes it (close()); a broker that never does is not held open by it.
    this.worker.unref();
    this.worker.on('message', (o: FromThread) => {
      if ('kind' in o) {
        this.started = true;
        return;
      }
      const w = this.waiting.get(o.id);
      this.waiting.delete(o.id);
      w?.resolve(o);
    });
    this.worker.on('error', (err) => {
      onFailure(err);
      this.fail(err);
    });
    this.worker.on('exit', () => this.fail(new Error('the fire thread exited')));
  }

  /** Whether jobs may still be sent. */
  get alive(): boolean {
    return this.failure === undefined;
  }

  /** Alive, and done starting: a job sent while it still loads waits for it (several hundred milliseconds). */
  get running(): boolean {
    return this.started && this.alive;
  }

  /**
   * Runs what `fn` issues on its transaction (all of it before its first await: fireAndCommit's
   * one-write fire) at `at` on the thread: BEGIN, `fn`'s statements, in one write; run once every
   * job sent before it that shares one of its `keys` has ended. No default: a fire that left its
   * partitions out would race the fire before it for their append locks; [] says it has none.
   */
  async transaction<T>(at: number, fn: (tx: Queryable) => Promise<T>, keys: string[]): Promise<Deferred<T>> {
    const tx = new WrittenTransaction();
    const result = fn(tx);
    result.catch(() => {});
    let outcome: JobOutcome;
    try {
      outcome = await this.send(at, keys, tx.close());
    } catch (err) {
      tx.settle(undefined, err as Error);
      throw err;
    }
    tx.settle(outcome.outcomes);
    return { result: await result, sentAt: outcome.sentAt, receivedAt: outcome.receivedAt };
  }

  /** Lets the jobs in flight finish, then ends the thread's connections and the thread. */
  async close(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((r) => this.worker.once('exit', r));
    this.worker.postMessage({ kind: 'close' } satisfies ToThread);
    await exited;
  }

  private send(at: number, keys: string[], queries: StatementText[]): Promise<JobOutcome> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'fire', id, at, keys, queries } satisfies ToThread);
    });
  }

  private fail(cause: Error): void {
    // A connection-level failure (SQLSTATE class 08) to the sweeper: the fire's outcome is unknown,
    // and the pass treats it as it treats a lost connection of its own.
    this.failure ??= Object.assign(new Error(`fire thread: ${cause.message}`), { code: '08006' });
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }
}
