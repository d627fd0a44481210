// The fire thread itself (fireThread.ts is its other side): holds two sweeper connections, and
// runs each transaction it is sent at the instant it is sent for, earliest instant first. It knows
// nothing of timers: what to run comes ready-made from the broker's main thread.
//
// Two connections, so that a fire whose answer is slow (its backend waited for a core) does not
// hold up the next instant's: the next goes out on the other. Not two fires of one partition at
// once: the later would race the earlier for the partition's append lock, and its frames could
// enter the log first. A job waits for every job ahead of it that shares one of its keys.
//
// Jobs that waited (for a connection, or behind a slow fire of their partition: a COMMIT waiting
// for a WAL flush, a backend waiting for a core) and are due by the time one is free leave
// together, as one transaction (groupOf): one round trip and one commit for all of them, where one
// after the other each added its own. Under the busy trickle's load (docs/benchmarks.md) the
// fires behind a stall of 50–100 ms had been most of the p99.
import { parentPort, workerData } from 'node:worker_threads';
import type pg from 'pg';
import { createSweeperPool } from './connection.ts';
import { preciseNow } from './pgClock.ts';
import type { StatementOutcome } from '../db/transaction.ts';
import type { FireJob, FromThread, JobOutcome, ThreadData, ToThread } from './fireThread.ts';

const port = parentPort!;
/** Fires in flight at once, each on a connection of its own. */
const CONNECTIONS = 2;

// Its connections are opened now and kept while idle: opening one at an instant, on a loaded
// machine, made that fire a few hundred milliseconds late.
const pool = createSweeperPool((workerData as ThreadData).url, CONNECTIONS, 'queen-timers-fire-thread', 0);
// An idle connection killed under us: the pool replaces it; a job's own failure is reported with it.
pool.on('error', () => {});
// One that fails to open is opened by a job, which reports what fails. Either way the thread is
// running now, and the sweeper starts sending it the wheel's fires (fireThread.ts `running`).
void Promise.allSettled(Array.from({ length: CONNECTIONS }, () => pool.connect())).then((opened) => {
  for (const o of opened) if (o.status === 'fulfilled') o.value.release();
  port.postMessage({ kind: 'running' } satisfies FromThread);
});

/** Jobs not run yet, by instant (those sent for one instant in the order sent). */
const queue: FireJob[] = [];
/** Jobs writing or awaiting their answer: each group on a connection. */
const running = new Set<FireJob[]>();
let closing = false;
let timer: NodeJS.Timeout | undefined;

/**
 * Most fires one transaction takes (groupOf): enough to clear what queued behind a slow commit in
 * one round trip; what is beyond waits for the next.
 */
const GROUP_MAX = 16;

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
 * under a millisecond away and a connection is free, with the jobs due by then that may join it
 * (groupOf); until then a timer waits (re-armed when a job comes first or one ends).
 */
function next(): void {
  clearTimeout(timer);
  if (running.size === CONNECTIONS) return;
  if (queue.length === 0) {
    if (closing && running.size === 0) void pool.end().finally(() => port.close());
    return;
  }
  // The keys of the running jobs and, as the queue is walked, of each job left waiting.
  const blocked = new Set<string>();
  for (const g of running) for (const j of g) for (const k of j.keys) blocked.add(k);
  let i = 0;
  for (; i < queue.length && queue[i].keys.some((k) => blocked.has(k)); i++) for (const k of queue[i].keys) blocked.add(k);
  if (i === queue.length) return; // each waits for a job of its keys, whose end calls next()
  const ms = queue[i].at - preciseNow();
  if (ms >= 1) {
    timer = setTimeout(next, Math.floor(ms));
    return;
  }
  const group = groupOf(i, blocked);
  running.add(group);
  void runGroup(group).then((outcomes) => {
    for (const o of outcomes) port.postMessage(o);
    running.delete(group);
    next();
  });
  next();
}

/**
 * Takes the job at `first` off the queue, with the jobs after it already due by its instant whose
 * keys are not `blocked` (held by a running job or a job left waiting ahead of them, next()) nor
 * by one left waiting between: they were waiting for a connection or for a fire of their
 * partitions (or are due at its own instant, of other partitions), and one transaction fires them
 * all, in the queue's order (so in deliverAt order within a partition). Only jobs written as one
 * transaction (BEGIN … COMMIT) join another.
 */
function groupOf(first: number, blocked: Set<string>): FireJob[] {
  const head = queue[first];
  const group = [head];
  if (whole(head)) {
    const until = Math.max(head.at, preciseNow());
    for (let i = first + 1; i < queue.length && group.length < GROUP_MAX; i++) {
      const j = queue[i];
      if (j.at > until) break;
      if (whole(j) && j.keys.every((k) => !blocked.has(k))) group.push(j);
      else for (const k of j.keys) blocked.add(k);
    }
  }
  for (const j of group) queue.splice(queue.indexOf(j), 1);
  return group;
}

/**
 * Whether a job is a whole transaction: its statements (which a written transaction, db/transaction.ts,
 * always begins with BEGIN) end with COMMIT, so they may run inside another's.
 */
const whole = (job: FireJob) => job.queries[job.queries.length - 1].text === 'COMMIT';

/**
 * Runs a group's jobs as one transaction: BEGIN, each job's statements in turn, COMMIT. Each job's
 * answer is what it would have had alone. When a job's statement fails, PostgreSQL rolls the whole
 * transaction back: that job's answer is its failure, and the others run again, one by one.
 */
async function runGroup(group: FireJob[]): Promise<JobOutcome[]> {
  if (group.length === 1) return [await run(group[0])];
  // The first job's BEGIN and COMMIT around every job's statements.
  const first = group[0].queries;
  const body = group.map((j) => j.queries.slice(1, -1));
  const merged: FireJob = { ...group[0], queries: [first[0], ...body.flat(), first[first.length - 1]] };
  const { outcomes, sentAt, receivedAt } = await run(merged);
  const begin = outcomes[0];
  const commit = outcomes[outcomes.length - 1];
  let at = 1;
  const own = body.map((b) => {
    const mine = outcomes.slice(at, at + b.length);
    at += b.length;
    return mine;
  });
  const failed = own.findIndex((mine) => mine.some((o) => !o.ok));
  if (failed < 0) return group.map((j, i) => ({ id: j.id, outcomes: [begin, ...own[i], commit], sentAt, receivedAt }));
  const answers: JobOutcome[] = [{ id: group[failed].id, outcomes: [begin, ...own[failed], commit], sentAt, receivedAt }];
  for (const j of group) if (j !== group[failed]) answers.push(await run(j));
  return answers;
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
