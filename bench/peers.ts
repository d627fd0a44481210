// npm run bench -- peers [--quick] [--n=20000] [--trickle=2000] [--only=graphile-worker,bullmq]
// queen-timers beside three job queues for Node.js that hold delayed jobs: graphile-worker and pg-boss
// (on PostgreSQL) and BullMQ (on Redis), each with its default settings and its fastest documented
// ones, measuring what `npm run bench` measures, in its order:
//   fire      N jobs already due when the worker starts: jobs/s from the worker's start until the
//             last is handed to a handler (queen-timers: until the last frame is in the log)
//   trickle   a warm-up of 200 jobs over 2 s, then T jobs scheduled one at a time over S seconds,
//             each due 50 ms – 2 s later: lag of the handler's start behind the due instant,
//             p50/p95/p99/max (queen-timers: the log's created_at − deliver_at)
//   schedule  N jobs due an hour out, 256 per batch call, 8 calls in flight (queen-timers: the same
//             shape over HTTP, POST /api/v1/timers), jobs/s; no worker running
// Each configuration runs in a child process of its own on a scratch database of its own (created
// and dropped here) on the PostgreSQL server at DATABASE_URL (default 127.0.0.1:5432); BullMQ gets
// a redis-server of its own on a free private port, with the AOF fsynced every second as BullMQ's
// production guide asks, in a temporary directory, stopped and removed after its run.
// The peers' packages live in bench/peers/ (cd bench/peers && npm ci), apart from the broker's.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { backendCpuMs, cpuBetween, cpuOf, type CpuReading } from './cpu.ts';
import { scheduleWarmupBatches } from './warmup.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const PEERS_DIR = join(HERE, 'peers');
const SELF = fileURLToPath(import.meta.url);
const DEFAULT_SERVER = 'postgresql://postgres@127.0.0.1:5432/postgres';

interface Options {
  quick: boolean;
  n: number;
  trickle: number;
  trickleSpanMs: number;
  fireCapMs: number;
  trickleGraceMs: number;
  concurrency: number;
  only: string[] | undefined;
}

function options(args: string[]): Options {
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const quick = args.includes('--quick');
  const num = (name: string, full: number, smoke: number) => Number(flag(name) ?? (quick ? smoke : full));
  return {
    quick,
    n: num('n', 20_000, 2_000),
    trickle: num('trickle', 2_000, 200),
    trickleSpanMs: num('trickle-span', 18_000, 4_000),
    // pg-boss hands out at most batchSize jobs per polling interval (50/s at its defaults): the
    // fire and trickle phases stop waiting after these caps and report what was handed out by then.
    fireCapMs: num('fire-cap-s', 45, 10) * 1000,
    trickleGraceMs: num('trickle-grace-s', 30, 10) * 1000,
    // The same number of jobs in flight for every peer (their own defaults differ: 1 for
    // graphile-worker and BullMQ, batchSize 1 for pg-boss), in the 50–100 their guides suggest
    // for I/O-bound handlers.
    concurrency: num('concurrency', 100, 100),
    only: flag('only')?.split(','),
  };
}

// ---------------------------------------------------------------- configurations --

type System = 'graphile-worker' | 'pg-boss' | 'bullmq';

interface Setting {
  system: System;
  setting: string;
  /** What differs from the library's defaults, for the table. */
  label: string;
  graphile?: { pollInterval?: number; preset?: Record<string, unknown> };
  pgBoss?: { pollingIntervalSeconds?: number };
}

const SETTINGS: Setting[] = [
  { system: 'graphile-worker', setting: 'default', label: 'pollInterval 2000 ms (default), LISTEN for new jobs', graphile: {} },
  // No documented minimum for pollInterval; 100 ms is the lowest floor pg-boss ever documented.
  { system: 'graphile-worker', setting: 'fast', label: 'pollInterval 100 ms', graphile: { pollInterval: 100 } },
  // The configuration of graphile-worker's Performance page: a local queue fed by one poller
  // per pool, completions batched.
  {
    system: 'graphile-worker',
    setting: 'fast+batching',
    label: 'pollInterval 100 ms, localQueue 500, completeJobBatchDelay 0, failJobBatchDelay 0',
    graphile: { pollInterval: 100, preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } } },
  },
  { system: 'pg-boss', setting: 'default', label: 'pollingIntervalSeconds 2 (default)', pgBoss: {} },
  // v10's documented minimum ("must be >=0.5"), asserted by its code.
  { system: 'pg-boss', setting: 'fast', label: 'pollingIntervalSeconds 0.5 (documented minimum)', pgBoss: { pollingIntervalSeconds: 0.5 } },
  // BullMQ does not poll for due jobs (the worker blocks on Redis until the next is due): its
  // defaults are its fastest settings.
  { system: 'bullmq', setting: 'default', label: 'defaults (no polling: blocks until the next due job)' },
];

// ---------------------------------------------------------------- one peer, in a child --

interface JobData {
  i: number;
  due: number;
  warm?: boolean;
}

/** One library behind the three measures; `due` instants are the producer's clock (Date.now()). */
interface Peer {
  addBatch(queue: string, jobs: JobData[]): Promise<void>;
  addOne(queue: string, job: JobData): Promise<void>;
  startWorker(queue: string, onJob: (job: JobData, startedAt: number) => void): Promise<void>;
  stopWorker(queue: string): Promise<void>;
  /** Planner statistics for the jobs table, as the queen-timers fire measure's VACUUM gives its own. */
  vacuum(): Promise<void>;
  close(): Promise<void>;
  version: string;
}

const peerRequire = createRequire(join(PEERS_DIR, 'package.json'));
const versionOf = (name: string) => JSON.parse(readFileSync(peerRequire.resolve(`${name}/package.json`), 'utf8')).version as string;

async function openGraphile(s: Setting, o: Options, url: string): Promise<Peer> {
  const gw = peerRequire('graphile-worker');
  // With 100 in flight graphile-worker asks for a pool of concurrency + 2; 20 connections keep the
  // six runs of this bench and other work on the server within max_connections (earlier runs on
  // this machine found 10–50 made no difference). Its warning about it is expected.
  const maxPoolSize = 20;
  const logger = new gw.Logger(() => (level: string, message: string) => {
    if (level === 'warning' && /maxPoolSize/.test(message)) return;
    if (level === 'error' || level === 'warning') console.error(`[graphile-worker ${level}] ${message}`);
  });
  const utils = await gw.makeWorkerUtils({ connectionString: url, logger, maxPoolSize: 10 });
  await utils.migrate();
  const runners = new Map<string, any>();
  return {
    version: versionOf('graphile-worker'),
    addBatch: (queue, jobs) => utils.addJobs(jobs.map((j) => ({ identifier: queue, payload: j, runAt: new Date(j.due) }))),
    addOne: (queue, job) => utils.addJob(queue, job, { runAt: new Date(job.due) }),
    async startWorker(queue, onJob) {
      const runner = await gw.run({
        connectionString: url,
        logger,
        concurrency: o.concurrency,
        maxPoolSize,
        noHandleSignals: true,
        ...(s.graphile?.pollInterval !== undefined ? { pollInterval: s.graphile.pollInterval } : {}),
        ...(s.graphile?.preset ? { preset: s.graphile.preset } : {}),
        taskList: { [queue]: async (payload: JobData) => onJob(payload, Date.now()) },
      });
      runners.set(queue, runner);
    },
    async stopWorker(queue) {
      await runners.get(queue)?.stop();
      runners.delete(queue);
    },
    vacuum: () => utils.withPgClient((c: pg.Client) => c.query('VACUUM ANALYZE graphile_worker._private_jobs')),
    async close() {
      for (const runner of runners.values()) await runner.stop();
      await utils.release();
    },
  };
}

async function openPgBoss(s: Setting, o: Options, url: string): Promise<Peer> {
  const PgBoss = peerRequire('pg-boss');
  const boss = new PgBoss({ connectionString: url });
  boss.on('error', (err: Error) => console.error('[pg-boss error]', err.message));
  await boss.start();
  for (const q of ['schedule', 'fire', 'trickle']) await boss.createQueue(q);
  // v10 has no concurrency option: one work() call fetching batchSize jobs per poll. One call of
  // 100 rather than 100 of 1: its fetch sorts the whole due backlog, once per call and poll.
  const work = { batchSize: o.concurrency, ...s.pgBoss };
  return {
    version: versionOf('pg-boss'),
    addBatch: (queue, jobs) => boss.insert(jobs.map((j) => ({ name: queue, data: j, startAfter: new Date(j.due) }))),
    addOne: (queue, job) => boss.send(queue, job, { startAfter: new Date(job.due) }),
    async startWorker(queue, onJob) {
      await boss.work(queue, work, async (jobs: { data: JobData }[]) => {
        const now = Date.now();
        for (const j of jobs) onJob(j.data, now);
      });
    },
    async stopWorker(queue) {
      await boss.offWork(queue);
    },
    vacuum: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query('VACUUM ANALYZE pgboss.job');
      } finally {
        await c.end();
      }
    },
    close: () => boss.stop({ graceful: false, wait: true, close: true }),
  };
}

async function openBullMQ(o: Options, redisPort: number): Promise<Peer> {
  const { Queue, Worker } = peerRequire('bullmq');
  const connection = { host: '127.0.0.1', port: redisPort };
  const queues = new Map<string, any>();
  const workers = new Map<string, any>();
  const queueFor = (name: string) => {
    if (!queues.has(name)) {
      const q = new Queue(name, { connection });
      q.on('error', (err: Error) => console.error('[bullmq queue]', err.message));
      queues.set(name, q);
    }
    return queues.get(name);
  };
  // A job is due at its timestamp + delay, both the producer's: the timestamp is passed so that
  // the due instant is exactly the one chosen, however long building the Job objects takes. A
  // delay ≥ 1 ms puts every job in the delayed set, the path a timer takes (fire's jobs are due
  // in the past: timestamp + 1 ms).
  const opts = (j: JobData) => {
    const now = Date.now();
    return j.due > now ? { timestamp: now, delay: j.due - now } : { timestamp: j.due - 1, delay: 1 };
  };
  return {
    version: versionOf('bullmq'),
    addBatch: (queue, jobs) => queueFor(queue).addBulk(jobs.map((j) => ({ name: queue, data: j, opts: opts(j) }))),
    addOne: (queue, job) => queueFor(queue).add(queue, job, opts(job)),
    async startWorker(queue, onJob) {
      const w = new Worker(queue, async (job: { data: JobData }) => onJob(job.data, Date.now()), {
        connection,
        concurrency: o.concurrency,
      });
      w.on('error', (err: Error) => console.error('[bullmq worker]', err.message));
      workers.set(queue, w);
      await w.waitUntilReady();
    },
    async stopWorker(queue) {
      await workers.get(queue)?.close();
      workers.delete(queue);
    },
    vacuum: async () => {},
    async close() {
      for (const w of workers.values()) await w.close();
      for (const q of queues.values()) await q.close();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, digits = 0) => Math.round(v * 10 ** digits) / 10 ** digits;

/** percentile_cont's linear interpolation, as the queen-timers trickle computes its own. */
function percentile(sorted: number[], p: number): number {
  const at = p * (sorted.length - 1);
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

async function waitUntil(done: () => boolean, deadline: number) {
  while (!done() && Date.now() < deadline) await sleep(5);
}

/** `serverCpu` reads the CPU of what serves the peer (its database's backends, its redis-server). */
async function measurePeer(peer: Peer, o: Options, serverCpu: () => Promise<CpuReading>) {
  // fire: N jobs due a second ago, then the worker starts.
  const dueAt = Date.now() - 1000;
  for (let from = 0; from < o.n; from += 5_000) {
    await peer.addBatch(
      'fire',
      Array.from({ length: Math.min(5_000, o.n - from) }, (_, k) => ({ i: from + k, due: dueAt })),
    );
  }
  await peer.vacuum();
  const seen = new Set<number>();
  let last = 0;
  let early = 0;
  const fireStarted = Date.now();
  await peer.startWorker('fire', (job, at) => {
    seen.add(job.i);
    last = Math.max(last, at);
  });
  await waitUntil(() => seen.size >= o.n, fireStarted + o.fireCapMs);
  const fired = seen.size;
  const fireEnded = fired >= o.n ? last : Date.now();
  await peer.stopWorker('fire');
  const fireSeconds = (fireEnded - fireStarted) / 1000;
  const fire = { n: o.n, fired, capped: fired < o.n, seconds: round(fireSeconds, 3), jobsPerSec: round(fired / fireSeconds) };

  // trickle: one job at a time, each due 50 ms – 2 s after it is scheduled.
  const lags = new Map<number, number>();
  await peer.startWorker('trickle', (job, at) => {
    if (!job.warm && !lags.has(job.i)) lags.set(job.i, at - job.due);
    if (at < job.due) early++;
  });
  const run = async (n: number, spanMs: number, isWarm: boolean) => {
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      const wait = started + (i * spanMs) / n - Date.now();
      if (wait > 0) await sleep(wait);
      // Whole milliseconds: Date and BullMQ's delay hold no fraction of one.
      await peer.addOne('trickle', { i, due: Math.round(Date.now() + 50 + Math.random() * 1950), ...(isWarm ? { warm: true } : {}) });
    }
  };
  await run(200, 2_000, true);
  await run(o.trickle, o.trickleSpanMs, false);
  await waitUntil(() => lags.size >= o.trickle, Date.now() + 2_000 + o.trickleGraceMs);
  await peer.stopWorker('trickle');
  const sorted = [...lags.values()].sort((a, b) => a - b);
  const trickle = {
    n: o.trickle,
    fired: sorted.length,
    p50Ms: round(percentile(sorted, 0.5), 1),
    p95Ms: round(percentile(sorted, 0.95), 1),
    p99Ms: round(percentile(sorted, 0.99), 1),
    maxMs: round(sorted[sorted.length - 1], 1),
    minMs: round(sorted[0], 1),
    earlyJobs: early,
  };
  // schedule: 256 jobs a call, 8 calls in flight, no worker running.
  const batches: JobData[][] = [];
  const inAnHour = Date.now() + 3_600_000;
  for (let from = 0; from < o.n; from += 256) {
    batches.push(Array.from({ length: Math.min(256, o.n - from) }, (_, k) => ({ i: from + k, due: inAnHour })));
  }
  // The first batches untimed (connections, prepared statements, the JIT), as queen-timers' own.
  const warm = Math.max(1, scheduleWarmupBatches(batches.length));
  let next = 0;
  const postBatches = (until: number) =>
    Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < until) await peer.addBatch('schedule', batches[next++]);
      }),
    );
  await postBatches(warm);
  const timed = batches.slice(warm).reduce((n, b) => n + b.length, 0);
  const serverBefore = await serverCpu();
  const cpuBefore = process.cpuUsage();
  const scheduleStarted = performance.now();
  await postBatches(batches.length);
  const scheduleSeconds = (performance.now() - scheduleStarted) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serverMs = cpuBetween(serverBefore, await serverCpu());
  const schedule = {
    n: timed,
    warmupBatches: warm,
    seconds: round(scheduleSeconds, 3),
    jobsPerSec: round(timed / scheduleSeconds),
    // As queen-timers' processCpuUsPerOp and databaseCpuUsPerOp (bench/run.ts).
    producerCpuUsPerJob: round((cpu.user + cpu.system) / timed, 1),
    ...(serverMs === undefined ? {} : { serverCpuUsPerJob: round((serverMs * 1000) / timed, 1) }),
  };

  return { schedule, fire, trickle };
}

/** `--child=system:setting --db=url | --redis-port=p --redis-pid=p`: one configuration, one JSON line on stdout. */
async function child(args: string[]) {
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const [system, setting] = flag('child')!.split(':');
  const s = SETTINGS.find((x) => x.system === system && x.setting === setting);
  if (!s) throw new Error(`unknown configuration ${system}:${setting}`);
  const o = options(args);
  const peer =
    s.system === 'graphile-worker'
      ? await openGraphile(s, o, flag('db')!)
      : s.system === 'pg-boss'
        ? await openPgBoss(s, o, flag('db')!)
        : await openBullMQ(o, Number(flag('redis-port')));
  // The database's backends are listed by a connection of this process's own (idle meanwhile).
  const side = flag('db') ? new pg.Client({ connectionString: flag('db') }) : undefined;
  try {
    await side?.connect();
    const serverCpu = side ? () => backendCpuMs(side) : async () => cpuOf([Number(flag('redis-pid'))]);
    const result = await measurePeer(peer, o, serverCpu);
    console.log(JSON.stringify({ system, setting, version: peer.version, ...result }));
  } finally {
    await side?.end();
    await peer.close();
  }
}

// ---------------------------------------------------------------- Redis for BullMQ --

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setTimeout(1000, () => (sock.destroy(), resolve(false)));
    sock.on('error', () => resolve(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => (sock.destroy(), resolve(d.toString().startsWith('+PONG'))));
  });
}

function redisVersion(): string | undefined {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? /v=(\S+)/.exec(r.stdout)?.[1] : undefined;
}

/**
 * A redis-server of BullMQ's own: AOF with fsync every second and noeviction, as BullMQ's "Going to
 * production" guide asks; no RDB snapshots, so that no fork lands inside a measure.
 */
async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(os.tmpdir(), 'qt-peers-redis-'));
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--logfile', join(dir, 'redis.log')].concat([
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
    ]),
    { stdio: 'ignore' },
  );
  let exited = false;
  const gone = new Promise<void>((r) => proc.on('exit', () => ((exited = true), r())));
  const stop = async () => {
    if (!exited) {
      proc.kill('SIGTERM');
      await Promise.race([gone, sleep(10_000)]);
      if (!exited) proc.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const started = Date.now();
  while (!(await ping(port))) {
    if (exited || Date.now() - started > 10_000) {
      const log = existsSync(join(dir, 'redis.log')) ? readFileSync(join(dir, 'redis.log'), 'utf8').slice(-500) : '';
      await stop();
      throw new Error(`redis-server did not start on port ${port}: ${log}`);
    }
    await sleep(50);
  }
  return { port, pid: proc.pid!, stop };
}

// ---------------------------------------------------------------- the driver --

function runChild(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...argv], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    running.add(p);
    p.on('exit', () => running.delete(p));
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv.slice(0, 2).join(' ')} exited with ${code}`))));
  });
}

interface Row {
  name: string;
  label: string;
  clock: string;
  scheduleJobsPerSec?: number;
  /** CPU per scheduled job (µs): the producing process's (queen-timers: the broker's and its HTTP client's), and the server's. */
  producerCpu?: number;
  serverCpu?: number;
  fireJobsPerSec?: number;
  fireNote?: string;
  p50?: number;
  p95?: number;
  p99?: number;
  max?: number;
  trickleNote?: string;
  error?: string;
}

async function machine(server: string) {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  let pgVersion: string;
  try {
    pgVersion = (await c.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await c.end();
  }
  return {
    nproc: os.cpus().length,
    cpu,
    pgVersion,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

/** Processes of other users of the machine busy enough to move the figures (not this bench's own). */
function busyProcesses(): string {
  const ps = spawnSync('ps', ['-eo', 'pid,ppid,pcpu,args', '--sort=-pcpu'], { encoding: 'utf8' }).stdout?.split('\n').slice(1) ?? [];
  const procs = ps.filter((l) => l.trim()).map((l) => l.trim().split(/\s+/));
  const parent = new Map(procs.map(([pid, ppid]) => [Number(pid), Number(ppid)]));
  const ours = new Set<number>();
  for (let pid = process.pid; pid > 1 && !ours.has(pid); pid = parent.get(pid) ?? 0) ours.add(pid); // npm, tsx, this
  const mine = (pid: number): boolean => pid === process.pid || (pid > 1 && parent.has(pid) && mine(parent.get(pid)!));
  return procs
    .filter(([pid, , cpu]) => Number(cpu) > 5 && !ours.has(Number(pid)) && !mine(Number(pid)))
    .filter(([, , , cmd]) => cmd !== 'ps')
    .slice(0, 8)
    .map(([pid, , cpu, ...cmd]) => `${pid.padStart(7)} ${cpu.padStart(5)}%  ${cmd.join(' ').slice(0, 110)}`)
    .join('\n');
}

/** The measuring child in flight, stopped on an interrupt before its database or Redis goes. */
const running = new Set<ChildProcess>();
/** Drops the scratch database or stops the redis-server of the configuration in flight. */
let onInterrupt: (() => Promise<void>) | undefined;
let interrupted = false;

export async function runPeers(args: string[]): Promise<number> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`# ${signal}: cleaning up`);
      interrupted = true;
      for (const p of running) p.kill('SIGKILL');
      void (onInterrupt?.() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  }
  if (!existsSync(join(PEERS_DIR, 'node_modules'))) {
    console.error(
      'The peers are not installed. Install them first (their own lockfile, apart from the broker):\n  cd bench/peers && npm ci',
    );
    return 1;
  }
  const o = options(args);
  const server = process.env.DATABASE_URL || DEFAULT_SERVER;
  const m = await machine(server);
  const redis = redisVersion();
  const started = new Date();
  const othersAtStart = busyProcesses();
  console.error(`# peers bench${o.quick ? ' (--quick)' : ''}: N = ${o.n}, trickle ${o.trickle} over ${o.trickleSpanMs / 1000} s`);
  const sizeArgs = [`--n=${o.n}`, `--trickle=${o.trickle}`, `--trickle-span=${o.trickleSpanMs}`];
  const rows: Row[] = [];
  const want = (system: string) => !o.only || o.only.includes(system);

  // queen-timers runs first and again last: on a shared machine the load drifts within the run, and
  // the peers are compared with the mean of the two.
  const runQueen = async (when: string): Promise<Row> => {
    console.error(`# queen-timers (${when}) …`);
    const name = `queen-timers ${JSON.parse(readFileSync(join(HERE, '..', 'package.json'), 'utf8')).version} (${when})`;
    try {
      const out = await runChild([join(HERE, 'run.ts'), 'fire', 'trickle', 'schedule', ...sizeArgs], {
        ...process.env,
        DATABASE_URL: server,
        LOG_LEVEL: 'warn',
      });
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const get = (measure: string) => lines.find((l) => l.measure === measure) ?? {};
      const t = get('trickle');
      return {
        name,
        label: 'defaults; schedule over HTTP (POST /api/v1/timers)',
        clock: "database's",
        scheduleJobsPerSec: get('schedule').opsPerSec,
        producerCpu: get('schedule').processCpuUsPerOp,
        serverCpu: get('schedule').databaseCpuUsPerOp,
        fireJobsPerSec: get('fire').framesPerSec,
        p50: t.p50Ms,
        p95: t.p95Ms,
        p99: t.p99Ms,
        max: t.maxMs,
      };
    } catch (err) {
      return { name, label: 'defaults', clock: "database's", error: (err as Error).message };
    }
  };
  if (want('queen-timers')) rows.push(await runQueen('first'));

  for (const s of SETTINGS.filter((x) => want(x.system))) {
    if (interrupted) break;
    const name = `${s.system} ${s.setting}`;
    console.error(`# ${name} …`);
    const row: Row = { name, label: s.label, clock: "producer's" };
    let cleanup = async () => {};
    onInterrupt = () => cleanup();
    try {
      let where: string[];
      if (s.system === 'bullmq') {
        if (!redis) {
          console.error('# BullMQ skipped: redis-server is not installed (Debian: apt-get install redis-server)');
          rows.push({ ...row, error: 'skipped: redis-server not installed' });
          continue;
        }
        const r = await startRedis();
        cleanup = r.stop;
        where = [`--redis-port=${r.port}`, `--redis-pid=${r.pid}`];
        row.label += `; Redis ${redis}, AOF everysec`;
      } else {
        const db = await createScratchDatabase(server, 'qt_peers');
        cleanup = db.drop;
        where = [`--db=${db.url}`];
      }
      const out = await runChild(
        [SELF, `--child=${s.system}:${s.setting}`, ...where, `--concurrency=${o.concurrency}`, ...sizeArgs].concat([
          `--fire-cap-s=${o.fireCapMs / 1000}`,
          `--trickle-grace-s=${o.trickleGraceMs / 1000}`,
        ]),
      );
      const r = JSON.parse(out.trim().split('\n').pop()!);
      row.name = `${s.system} ${r.version} ${s.setting}`;
      row.scheduleJobsPerSec = r.schedule.jobsPerSec;
      row.producerCpu = r.schedule.producerCpuUsPerJob;
      row.serverCpu = r.schedule.serverCpuUsPerJob;
      row.fireJobsPerSec = r.fire.jobsPerSec;
      if (r.fire.capped) row.fireNote = `${r.fire.fired} of ${r.fire.n} in ${o.fireCapMs / 1000} s`;
      Object.assign(row, { p50: r.trickle.p50Ms, p95: r.trickle.p95Ms, p99: r.trickle.p99Ms, max: r.trickle.maxMs });
      const notes = [];
      if (r.trickle.fired < r.trickle.n)
        notes.push(`${r.trickle.n - r.trickle.fired} of ${r.trickle.n} not handed out ${o.trickleGraceMs / 1000} s after the last was due`);
      if (r.trickle.earlyJobs > 0) notes.push(`${r.trickle.earlyJobs} handed out before due, by up to ${-r.trickle.minMs} ms`);
      if (notes.length) row.trickleNote = notes.join('; ');
      console.error(`# ${out.trim()}`);
    } catch (err) {
      row.error = (err as Error).message;
    } finally {
      onInterrupt = undefined;
      await cleanup();
    }
    rows.push(row);
  }

  if (want('queen-timers')) rows.push(await runQueen('last'));
  const minutes = ((Date.now() - started.getTime()) / 60_000).toFixed(1);
  const othersAtEnd = busyProcesses();
  const queens = rows.filter((r) => r.name.startsWith('queen-timers') && !r.error);
  const scheduleCpu = (r: Row) => (r.producerCpu === undefined || r.serverCpu === undefined ? undefined : r.producerCpu + r.serverCpu);
  // A mean of the queen-timers runs; undefined when a run lacks the figure.
  const mean = (get: (r: Row) => number | undefined) => {
    const values = queens.map(get);
    return values.includes(undefined) ? undefined : values.reduce((sum: number, v) => sum + v!, 0) / values.length;
  };
  const queen = queens.length
    ? {
        scheduleJobsPerSec: mean((r) => r.scheduleJobsPerSec),
        scheduleCpu: mean(scheduleCpu),
        fireJobsPerSec: mean((r) => r.fireJobsPerSec),
        p50: mean((r) => r.p50),
        p99: mean((r) => r.p99),
        max: mean((r) => r.max),
      }
    : undefined;
  const fmt = (v: number | undefined, digits = 0) => (v === undefined ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));
  const ratio = (v: number | undefined, ref: number | undefined) =>
    v === undefined || !ref ? '–' : `${(v / ref).toFixed(v / ref < 0.1 ? 3 : 2)}×`;
  const out: string[] = [];
  out.push(
    `\`npm run bench -- peers${o.quick ? ' --quick' : ''}\`, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${minutes} min.`,
  );
  out.push(
    `Machine: ${m.nproc} cores (${m.cpu}), PostgreSQL ${m.pgVersion}${redis ? `, Redis ${redis}` : ''}, Node ${process.version}; load average ${m.load} at the start.`,
  );
  out.push(
    `N = ${o.n} jobs for schedule and fire, trickle of ${o.trickle} over ${o.trickleSpanMs / 1000} s; peers run ${o.concurrency} jobs in flight. ` +
      'The producer, the workers and the database (or Redis) share the same cores; other work on the machine at the same time shows in the figures.',
  );
  for (const [when, list] of [
    ['start', othersAtStart],
    ['end', othersAtEnd],
  ]) {
    if (list) out.push('', `Other processes above 5 % CPU (lifetime average) at the ${when} of the run:`, '', '```', list, '```');
  }
  out.push('');
  out.push(
    "Schedule CPU is µs per job while scheduling: the producing process (for queen-timers, the broker and the HTTP client on its thread) + the server (the database's backends, or redis-server), from /proc.",
    '',
  );
  out.push('| system | settings | schedule jobs/s | schedule CPU µs/job | fire jobs/s | trickle p50 ms | p95 | p99 | max | lag clock |');
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    if (r.error) {
      out.push(`| ${r.name} | ${r.label} | ${r.error} | | | | | | | |`);
      continue;
    }
    const cpu = scheduleCpu(r) === undefined ? '–' : `${fmt(r.producerCpu, 1)} + ${fmt(r.serverCpu, 1)} = ${fmt(scheduleCpu(r), 1)}`;
    const fire = `${fmt(r.fireJobsPerSec)}${r.fireNote ? ` (capped: ${r.fireNote})` : ''}`;
    const p50 = `${fmt(r.p50, 1)}${r.trickleNote ? ` (${r.trickleNote})` : ''}`;
    out.push(
      `| ${r.name} | ${r.label} | ${fmt(r.scheduleJobsPerSec)} | ${cpu} | ${fire} | ${p50} | ${fmt(r.p95, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${r.clock} |`,
    );
  }
  if (queen) {
    out.push(
      '',
      `Against queen-timers in the same run, the mean of its ${queens.length === 2 ? 'first and last runs' : 'run'} ` +
        '(throughput: peer ÷ queen-timers, higher is faster; CPU and lag: peer ÷ queen-timers, higher is costlier and slower):',
      '',
    );
    out.push('| system | schedule | schedule CPU | fire | trickle p50 | p99 | max |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows.filter((x) => !queens.includes(x) && !x.error)) {
      out.push(
        `| ${r.name} | ${ratio(r.scheduleJobsPerSec, queen.scheduleJobsPerSec)} | ${ratio(scheduleCpu(r), queen.scheduleCpu)} | ` +
          `${ratio(r.fireJobsPerSec, queen.fireJobsPerSec)} | ` +
          `${ratio(r.p50, queen.p50)} | ${ratio(r.p99, queen.p99)} | ${ratio(r.max, queen.max)} |`,
      );
    }
  }
  console.log(out.join('\n'));
  return rows.some((r) => r.error && !r.error.startsWith('skipped')) ? 1 : 0;
}

if (process.argv[1] === SELF && process.argv.some((a) => a.startsWith('--child='))) {
  child(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
