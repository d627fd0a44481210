// The fire thread itself (fireThread.ts is its other side): holds two sweeper connections, and
// runs each transaction it is sent at the instant it is sent for, earliest instant first. It knows
// nothing of timers: what to run comes ready-made from the broker's main thread.
//
// Two connections, so that a fire whose answer is slow (its backend waited for a core) does not
// hold up the next instant's: the next goes out on the other. Not two fires of one partition at
// once: the later would race the earlier for the partition's append lock, and its frames could
// enter the log first. A job waits for every job ahead of it that shares one of its keys.
import { parentPort, workerData } from 'node:worker_threads';
import type pg from 'pg';
import { createSweeperPool } from './connection.ts';
import { preciseNow } from './pgClock.ts';
import type { StatementOutcome } from '../db/transaction.ts';
import type { FireJob, JobOutcome, ThreadData, ToThread } from './fireThread.ts';

const port = parentPort!;
/** Fires in flight at once, each on a connection of its own. */
const CONNECTIONS = 2;

// Its connections are opened now and kept while idle: opening one at an instant, on a loaded
// machine, made that fire a few hundred milliseconds late.
const pool = createSweeperPool((workerData as ThreadData).url, CONNECTIONS, 'queen-timers-fire-thread', 0);
// An idle connection killed under us: the pool replaces it; a job's own failure is reported with it.
pool.on('error', () => {});
// One that fails to open is opened by a job, which reports what fails.
void Promise.allSettled(Array.from({ length: CONNECTIONS }, () => pool.connect())).then((opened) => {
  for (const o of opened) if (o.status === 'fulfilled') o.value.release();
});

/** Jobs not run yet, by instant (those sent for one instant in the order sent). */
const queue: FireJob[] = [];
/** Jobs writing or awaiting their answer, each on a connection. */
const running = new Set<FireJob>();
let closing = false;
let timer: NodeJS.Timeout | undefined;

port.on('message', (m: ToThread) => {
  if (m.kind === 'close') closing = true;
  else {
    let i = queue.length;
    while (i > 0 && queue[i - 1].at > m.at) i--;
    queue.splice(i, 0, m);
  }
  next();
});

/**
 * Runs the first job free to run (no job running or ahead of it shares a key) once its instant is
 * under a millisecond away and a connection is free; until then a timer waits (re-armed when a job
 * comes first or one ends).
 */
function next(): void {
  clearTimeout(timer);
  if (running.size === CONNECTIONS) return;
  if (queue.length === 0) {
    if (closing && running.size === 0) void pool.end().finally(() => port.close());
    return;
  }
  const taken = new Set<string>();
  for (const j of running) for (const k of j.keys) taken.add(k);
  const i = queue.findIndex((j) => {
    const free = j.keys.every((k) => !taken.has(k));
    for (const k of j.keys) taken.add(k);
    return free;
  });
  if (i < 0) return; // each waits for a job of its keys, whose end calls next()
  const job = queue[i];
  const ms = job.at - preciseNow();
  if (ms >= 1) {
    timer = setTimeout(next, Math.floor(ms));
    return;
  }
  running.add(job);
  queue.splice(i, 1);
  void run(job).then((outcome) => {
    port.postMessage(outcome);
    running.delete(job);
    next();
  });
  next();
}

/**
 * Takes the idle connection (or connects), spins until the instant, then writes the job's
 * statements at once: BEGIN, the fire, COMMIT, one round trip.
 */
async function run(job: FireJob): Promise<JobOutcome> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    const failed: StatementOutcome = { ok: false, error: plain(err) };
    return { id: job.id, outcomes: job.queries.map(() => failed), sentAt: preciseNow(), receivedAt: preciseNow() };
  }
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  while (preciseNow() < job.at); // under a millisecond: a timer would wake a millisecond or more late
  const sentAt = preciseNow();
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  stream?.cork?.();
  const issued = job.queries.map((q) => client.query(q));
  stream?.uncork?.();
  const settled = await Promise.allSettled(issued);
  const receivedAt = preciseNow();
  const outcomes = settled.map((s): StatementOutcome =>
    s.status === 'fulfilled' ? { ok: true, rows: s.value.rows } : { ok: false, error: plain(s.reason) },
  );
  // The last statement is the COMMIT: after a failed fire PostgreSQL answers it with a rollback,
  // and the connection is ready for the next job; if the COMMIT itself failed, it is not.
  client.off('error', onError);
  client.release(broken || !outcomes[outcomes.length - 1].ok);
  return { id: job.id, outcomes, sentAt, receivedAt };
}

/** An error as plain data (a thread boundary keeps only an Error's message): what the sweeper's classifiers read. */
function plain(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { message: err instanceof Error ? err.message : String(err) };
  for (const k of ['name', 'code', 'severity', 'detail', 'hint', 'kind', 'routine']) if (typeof e[k] === 'string') out[k] = e[k];
  return out;
}
