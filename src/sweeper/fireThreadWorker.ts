// The fire thread itself (fireThread.ts is its other side): holds two sweeper connections, and
// runs each transaction it is sent at the instant it is sent for, earliest instant first. It knows
// nothing of timers: what to run comes ready-made from the broker's main thread.
//
// Two connections, so that a fire whose answer is slow (its backend waited for a core) does not
// hold up the next instant's of another partition: that one goes out on the other. Never two fires
// of one partition on both at once: the later would race the earlier for the partition's append
// lock, and its frames could enter the log first. A job due while a job of one of its keys runs is
// written behind it on its connection (one backend runs them in order), or waits for its answer.
//
// Jobs that waited (for a connection, or behind slow fires of their partition: a COMMIT waiting
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
/** Connections, each with its own backend: fires of different partitions run at once on them. */
const CONNECTIONS = 2;
/**
 * Transactions written on one connection before the first has answered. A fire due while its
 * partition's last fire is still running is written behind it on that fire's connection, at its
 * instant: its backend runs it as soon as the one ahead commits, where waiting for that answer
 * first added a round trip and two wake-ups (the quiet trickle's p99, docs/benchmarks.md). Not
 * deeper: what comes due while two are written waits, and leaves as one transaction with what
 * else came due by then (groupOf), one commit where each would have had its own.
 */
const DEPTH = 2;

// Its connections are opened now and kept while idle: opening one at an instant, on a loaded
// machine, made that fire a few hundred milliseconds late.
const pool = createSweeperPool((workerData as ThreadData).url, CONNECTIONS, 'queen-timers-fire-thread', 0);
// An idle connection killed under us: the pool replaces it; a job's own failure is reported with it.
pool.on('error', () => {});

/** A connection and what is written on it. */
interface Lane {
  /** Opened at the start, or by the first job after it was dropped (broken, or its COMMIT failed). */
  client: Promise<pg.PoolClient> | undefined;
  /** The groups written on it and not yet answered, in the order written: its backend runs them in it. */
  groups: FireJob[][];
}
const lanes: Lane[] = Array.from({ length: CONNECTIONS }, () => ({ client: undefined, groups: [] }));

/** The lane's connection, opened if it has none; one that fails to open is tried again by the next job. */
function connection(lane: Lane): Promise<pg.PoolClient> {
  if (lane.client) return lane.client;
  const opening = pool.connect().then((client) => {
    // A connection lost between jobs: the next job's statements fail, and drop it (run()).
    client.on('error', () => {});
    return client;
  });
  lane.client = opening;
  opening.catch(() => {
    if (lane.client === opening) lane.client = undefined;
  });
  return opening;
}

// One that fails to open is opened by a job, which reports what fails. Either way the thread is
// running now, and the sweeper starts sending it the wheel's fires (fireThread.ts `running`).
void Promise.allSettled(lanes.map(connection)).then(() => port.postMessage({ kind: 'running' } satisfies FromThread));

/** Jobs not written yet, by instant (those sent for one instant in the order sent). */
const queue: FireJob[] = [];
let closing = false;
/** The end of closeAll, once begun: a second `close`, or a call of next() after the end, finds it. */
let closed: Promise<void> | undefined;
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
 * Writes the first job that may be written (laneFor) once its instant is under a millisecond away,
 * with the jobs due by then that may join it (groupOf); until then a timer waits (re-armed when a
 * job comes first or one ends).
 */
function next(): void {
  clearTimeout(timer);
  if (queue.length === 0) {
    if (closing && lanes.every((l) => l.groups.length === 0)) closed ??= closeAll();
    return;
  }
  // The keys of the jobs left waiting, as the queue is walked: a job sharing one waits behind them.
  const waiting = new Set<string>();
  let i = 0;
  let lane: Lane | undefined;
  for (; i < queue.length && !(lane = laneFor(queue[i], waiting)); i++) for (const k of queue[i].keys) waiting.add(k);
  if (!lane) return; // each waits for a lane, whose next answer calls next()
  const ms = queue[i].at - preciseNow();
  if (ms >= 1) {
    timer = setTimeout(next, Math.floor(ms));
    return;
  }
  const group = groupOf(i, lane, waiting);
  lane.groups.push(group);
  void runGroup(group, lane).then((outcomes) => {
    for (const o of outcomes) port.postMessage(o);
    lane.groups.splice(lane.groups.indexOf(group), 1);
    next();
  });
  next();
}

/** Whether any of `job`'s keys is one of `keys`'. */
const shares = (job: FireJob, keys: string[]) => job.keys.some((k) => keys.includes(k));

/**
 * The lane `job` may be written on now, if any. When a lane has a job of one of its keys, that
 * lane, behind it: its backend runs the job after that one's COMMIT, so a partition's fires run
 * in instant order and never race for its append lock. Only with room (DEPTH), and only behind
 * single fires that commit: a transaction left open would take the job in, and a group whose job
 * fails runs the others again, which must not come after a job written behind them. With none, an
 * idle lane. None while a job left waiting ahead shares a key, or when two lanes have its keys.
 */
function laneFor(job: FireJob, waiting: Set<string>): Lane | undefined {
  if (job.keys.some((k) => waiting.has(k))) return undefined;
  const holding = lanes.filter((l) => l.groups.some((g) => g.some((j) => shares(j, job.keys))));
  if (holding.length === 0) return lanes.find((l) => l.groups.length === 0);
  const [lane] = holding;
  const behindOne = lane.groups.length < DEPTH && lane.groups.every((g) => g.length === 1 && whole(g[0]));
  return holding.length === 1 && behindOne ? lane : undefined;
}

/**
 * Takes the job at `first` off the queue, with the jobs after it already due by its instant that
 * may go on `lane` with it: none of their keys on another lane, nor `waiting` (a job left waiting
 * ahead of them has it), nor of one left waiting between; and, on a lane that is running jobs,
 * only those sharing a key with them or with the group (the others go beside, on an idle lane).
 * They were waiting for a lane (or are due at its own instant), and one transaction fires them
 * all, in the queue's order (so in deliverAt order within a partition). Only jobs written as one
 * transaction (BEGIN … COMMIT) join another.
 */
function groupOf(first: number, lane: Lane, waiting: Set<string>): FireJob[] {
  const head = queue[first];
  const group = [head];
  if (whole(head)) {
    const elsewhere = lanes.filter((l) => l !== lane).flatMap((l) => l.groups.flat());
    const here = lane.groups.flat();
    const joins = (j: FireJob) =>
      whole(j) &&
      !j.keys.some((k) => waiting.has(k)) &&
      !elsewhere.some((o) => shares(o, j.keys)) &&
      (here.length === 0 || here.some((o) => shares(o, j.keys)) || group.some((o) => shares(o, j.keys)));
    const until = Math.max(head.at, preciseNow());
    for (let i = first + 1; i < queue.length && group.length < GROUP_MAX; i++) {
      const j = queue[i];
      if (j.at > until) break;
      if (joins(j)) group.push(j);
      else for (const k of j.keys) waiting.add(k);
    }
  }
  for (const j of group) queue.splice(queue.indexOf(j), 1);
  return group;
}

/**
 * Whether a job is a whole transaction: its statements (which a written transaction, db/transaction.ts,
 * always begins with BEGIN) end with COMMIT, so they may run inside another's, or another behind them.
 */
const whole = (job: FireJob) => job.queries[job.queries.length - 1].text === 'COMMIT';

/**
 * Runs a group's jobs as one transaction: BEGIN, each job's statements in turn, COMMIT. Each job's
 * answer is what it would have had alone. When a job's statement fails, PostgreSQL rolls the whole
 * transaction back: that job's answer is its failure, and the others run again, one by one.
 */
async function runGroup(group: FireJob[], lane: Lane): Promise<JobOutcome[]> {
  if (group.length === 1) return [await run(group[0], lane)];
  // The first job's BEGIN and COMMIT around every job's statements.
  const first = group[0].queries;
  const body = group.map((j) => j.queries.slice(1, -1));
  const merged: FireJob = { ...group[0], queries: [first[0], ...body.flat(), first[first.length - 1]] };
  const { outcomes, sentAt, receivedAt } = await run(merged, lane);
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
  for (const j of group) if (j !== group[failed]) answers.push(await run(j, lane));
  return answers;
}

/**
 * Spins until the instant on the lane's connection, then writes the job's statements at once:
 * BEGIN, the fire, COMMIT, one write.
 */
async function run(job: FireJob, lane: Lane): Promise<JobOutcome> {
  const opening = connection(lane);
  let client: pg.PoolClient;
  try {
    client = await opening;
  } catch (err) {
    const failed: StatementOutcome = { ok: false, error: plain(err) };
    return { id: job.id, outcomes: job.queries.map(() => failed), sentAt: preciseNow(), receivedAt: preciseNow() };
  }
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
  // and the connection is ready for the next job. If the COMMIT itself failed (the connection
  // lost, most often) it is not: dropped, and a job written behind on it fails with it.
  if (!outcomes[outcomes.length - 1].ok && lane.client === opening) {
    lane.client = undefined;
    client.release(true);
  }
  return { id: job.id, outcomes, sentAt, receivedAt };
}

/** Once closing and nothing is left: hands the connections back, ends them, and the thread. */
async function closeAll(): Promise<void> {
  for (const lane of lanes) {
    const client = lane.client;
    lane.client = undefined;
    if (client)
      await client.then(
        (c) => c.release(),
        () => {},
      );
  }
  await pool.end().finally(() => port.close());
}

/** An error as plain data (a thread boundary keeps only an Error's message): what the sweeper's classifiers read. */
function plain(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { message: err instanceof Error ? err.message : String(err) };
  for (const k of ['name', 'code', 'severity', 'detail', 'hint', 'kind', 'routine']) if (typeof e[k] === 'string') out[k] = e[k];
  return out;
}
