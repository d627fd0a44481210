// A replicated cell on this machine's PostgreSQL 15 binaries, and the failover scenario that
// test/failover.test.ts asserts and `npm run bench -- failover` measures: a primary and two
// standbys (pg_basebackup -R) with `synchronous_standby_names = 'ANY 1 (s1, s2)'`, three compiled
// brokers (dist/) on a multi-host DATABASE_URL, a paced schedule load with a consumer per queue,
// and mid-load the primary killed (`pg_ctl stop -m immediate`), the standby that received the
// most WAL promoted and the other re-pointed at it. Everything listens on 127.0.0.1 on free ports
// and lives in a temporary folder removed by close(). initdb and pg_ctl refuse to run as root:
// as root they run as the postgres user (runuser).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { mintToken } from '../../src/auth.ts';
import { freePort } from './procs.ts';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
export const PG_BIN = '/usr/lib/postgresql/15/bin';
const SECRET = 'failover-secret-0123456789abcdef0123456789abcdef';
const PAYLOAD = Buffer.from('{"failover":true}').toString('base64');

/** '' when the cell can be built here, else why not (the test skips, saying so). */
export function whyNoCell(): string {
  const missing = ['initdb', 'pg_ctl', 'pg_basebackup'].filter((b) => !existsSync(join(PG_BIN, b)));
  if (missing.length) return `needs PostgreSQL 15's ${missing.join(', ')} in ${PG_BIN} (apt-get install postgresql-15)`;
  if (process.getuid?.() !== 0) return 'needs root (initdb and pg_ctl run as the postgres user through runuser)';
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/usr/bin/runuser')) return 'needs runuser (util-linux)';
  if (!existsSync(join(ROOT, 'dist/src/server.js'))) return 'needs the compiled broker (npm run build)';
  return '';
}

/** One of PostgreSQL 15's programs, run as the postgres user (initdb and pg_ctl refuse root). */
export const asPostgres = (bin: string, args: string[]) =>
  run('runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args], { timeout: 120_000 });

/** One PostgreSQL server of the cell. */
export class Node {
  constructor(
    readonly name: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  start = () => asPostgres('pg_ctl', ['-D', this.dir, '-l', `${this.dir}.log`, '-w', '-t', '120', 'start']);
  stop = (mode: 'fast' | 'immediate') => asPostgres('pg_ctl', ['-D', this.dir, '-m', mode, '-w', '-t', '120', 'stop']);
  promote = () => asPostgres('pg_ctl', ['-D', this.dir, '-w', '-t', '120', 'promote']);

  /** One statement on a connection of its own. */
  async query<R extends pg.QueryResultRow = any>(text: string, database = 'postgres'): Promise<R[]> {
    const c = new pg.Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database, connectionTimeoutMillis: 10_000 });
    c.on('error', () => {});
    await c.connect();
    try {
      return (await c.query<R>(text)).rows;
    } finally {
      await c.end().catch(() => {});
    }
  }

  /** The postmaster and every process it started (the WAL receiver among them). */
  async pids(): Promise<number[]> {
    const postmaster = Number((await readFile(join(this.dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
    return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)];
  }

  /**
   * SIGSTOP or SIGCONT to the whole server: stopped, it neither receives nor confirms WAL. A
   * process that exited since pids() listed it (a backend of a connection that closed, such as a
   * broker's probe for the primary) has nothing left to stop or resume.
   */
  async signal(sig: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
    for (const pid of await this.pids()) {
      try {
        process.kill(pid, sig);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
  }
}

interface Broker {
  base: string;
  child: ChildProcess;
  out: string;
}

export interface Cell {
  nodes: Node[];
  /** The cell's DATABASE_URL: every node, the primary first. */
  url: string;
  brokers: Broker[];
  token: string;
  /** The current primary (after a failover, the promoted standby). */
  primary: Node;
  close(): Promise<void>;
}

/** Lines of the servers' configuration, common to the three (a standby keeps its primary's). */
function serverSettings(dir: string, port: number): string {
  return [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    // Every commit waits until one of the two standbys has flushed it (synchronous_commit = on).
    "synchronous_standby_names = 'ANY 1 (s1, s2)'",
    'synchronous_commit = on',
    // Losing the machine is not what is tested (a killed server keeps its files in the page
    // cache): no fsync, so that three servers share two cores without waiting on the disk.
    'fsync = off',
    'shared_buffers = 32MB',
    'max_connections = 200',
    // Enough WAL kept for the standby re-pointed at the promoted one to catch up by streaming.
    'wal_keep_size = 512MB',
    'wal_receiver_status_interval = 1s',
    'log_min_messages = warning',
    '',
  ].join('\n');
}

/** The standby's own port and its primary (the application_name is its name in synchronous_standby_names). */
const standbySettings = (node: Node, primaryPort: number) =>
  `port = ${node.port}\nprimary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=${node.name}'\n`;

async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Builds the cell and starts its brokers. On failure what was started is stopped again. */
export async function startCell(o: { brokers?: number; env?: Record<string, string> } = {}): Promise<Cell> {
  const dir = await mkdtemp(join(tmpdir(), 'queen-failover-'));
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  await chown(dir, uid, gid);
  const [p0, p1, p2] = [await freePort(), await freePort(), await freePort()];
  const nodes = [new Node('p0', join(dir, 'p0'), p0), new Node('s1', join(dir, 's1'), p1), new Node('s2', join(dir, 's2'), p2)];
  const brokers: Broker[] = [];
  const cell: Cell = {
    nodes,
    url: `postgresql://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/queen`,
    brokers,
    token: '',
    primary: nodes[0],
    async close() {
      for (const b of brokers) b.child.kill('SIGKILL');
      for (const n of nodes) {
        await n.signal('SIGCONT').catch(() => {});
        await n.stop('immediate').catch(() => {});
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    const [primary, ...standbys] = nodes;
    await asPostgres('initdb', ['-D', primary.dir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await appendFile(join(primary.dir, 'postgresql.conf'), serverSettings(dir, primary.port));
    await primary.start();
    for (const s of standbys) {
      await asPostgres('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        s.dir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]);
      await appendFile(join(s.dir, 'postgresql.auto.conf'), standbySettings(s, primary.port));
      await s.start();
    }
    // No commit before both standbys stream: until then it would wait for them.
    await waitFor(
      async () => (await primary.query(`SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`))[0].n === 2,
      60_000,
      'both standbys to stream',
    );
    await primary.query('CREATE DATABASE queen');

    for (let i = 0; i < (o.brokers ?? 3); i++) {
      const port = await freePort();
      const child = spawn(process.execPath, ['dist/src/server.js'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: cell.url,
          QUEEN_DIRECT_DATABASE_URL: '',
          QUEEN_JWT_SECRET: SECRET,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'error',
          // Claims a broker made on the lost primary come back within 3 s on the promoted one.
          QUEEN_SWEEPER_LEASE_MS: '3000',
          QUEEN_DB_STARTUP_TIMEOUT_MS: '120000',
          ...o.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const b: Broker = { base: `http://127.0.0.1:${port}`, child, out: '' };
      child.stdout!.on('data', (d) => (b.out += d));
      child.stderr!.on('data', (d) => (b.out += d));
      brokers.push(b);
    }
    for (const b of brokers) {
      await waitFor(
        async () => (await call(b.base, '', 'GET', '/ready')).status === 200,
        120_000,
        `${b.base}/ready (${b.out.slice(-500)})`,
      );
    }
    cell.token = await mintToken(SECRET, { tenant: 'acme', sub: 'failover', grants: ['produce', 'consume', 'read'] });
    return cell;
  } catch (err) {
    await cell.close();
    throw err;
  }
}

// node:http with keep-alive rather than fetch: the load shares two cores with three servers and
// three brokers, and fetch spends about twice the CPU per request.
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/** One request; a failure to get an answer at all is status 0. */
export function call(base: string, token: string, method: string, path: string, body?: unknown, timeoutMs = 60_000): Promise<Answer> {
  const target = new URL(base);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        method,
        host: target.hostname,
        port: target.port,
        path,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
        res.on('error', () => resolve({ status: 0, body: undefined, headers: {} }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: undefined, headers: {} }));
    req.end(data);
  });
}

/** A schedule op of the scenario: its key is its txn, so a retry can never deliver twice. */
export const scheduleOp = (queue: string, key: string, delayMs: number) => ({
  op: 'schedule',
  queue,
  timerKey: key,
  txn: key,
  delayMs,
  payload: PAYLOAD,
});

/** A 2xx whose every op holds a timer that will fire ("too_late": already claimed, it will). */
const acknowledged = (r: Answer) =>
  r.status === 200 && Array.isArray(r.body?.results) && r.body.results.every((x: any) => x.ok || x.status === 'too_late');

export interface FailoverOptions {
  timers: number;
  /** The schedules are paced over this many seconds. */
  seconds: number;
  /** Ops per POST /api/v1/timers. */
  batch: number;
  queues: number;
  /** The primary is killed once this fraction of the schedules is acknowledged. */
  killAt: number;
  log?: (line: string) => void;
}

export interface ErrorSeen {
  what: 'schedule' | 'pop' | 'ack';
  status: number;
  /** Milliseconds since the kill (negative: before it). */
  atMs: number;
  code?: string;
}

export interface FailoverResult {
  acknowledged: number;
  /** Acknowledged keys with no frame in the log. */
  lost: number;
  /** Keys with more than one frame. */
  duplicated: number;
  /** Frames created before their deliver_at. */
  early: number;
  /** Frames handed out again after an ack of them was acknowledged. */
  redeliveredAfterAck: number;
  framesReceived: number;
  refusedAcks: number;
  pendingTimers: number;
  deadLetters: number;
  errors: ErrorSeen[];
  /** Kill → the promoted standby accepting connections, and → the other standby re-pointed. */
  promotedMs: number;
  repointedMs: number;
  /** Kill → the first 2xx of a schedule sent after the kill. */
  firstGoodScheduleMs: number;
  /** Kill → the last error of any request. */
  lastErrorMs: number;
  promoted: string;
  /** Acknowledged ops per second before the kill, and after the first good schedule. */
  schedulesPerSecondBefore: number;
  schedulesPerSecondAfter: number;
}

/** Runs the load, the failover in its middle, and the checks' raw figures (the caller asserts). */
export async function runFailover(cell: Cell, o: FailoverOptions): Promise<FailoverResult> {
  const log = o.log ?? (() => {});
  const batches = Math.ceil(o.timers / o.batch);
  const gapMs = (o.seconds * 1000) / batches;
  const started = performance.now();
  let killAt = Infinity;
  let promotedAt = Infinity;
  let repointedAt = Infinity;
  let promoted = '';
  let acked = 0;
  let firstGoodAfterKill = Infinity;
  const ackedAt: number[] = [];
  const errors: { what: ErrorSeen['what']; status: number; at: number; code?: string }[] = [];
  const brokerFor = (i: number) => cell.brokers[i % cell.brokers.length].base;

  let failover: Promise<void> | undefined;
  const doFailover = async () => {
    const [old, ...standbys] = [cell.primary, ...cell.nodes.filter((n) => n !== cell.primary)];
    killAt = performance.now();
    log(`killing ${old.name} after ${acked} acknowledged schedules`);
    await old.stop('immediate');
    // The standby that received the most WAL holds every commit that was acknowledged: each one
    // waited for one of the two to flush it.
    const lsns = await Promise.all(
      standbys.map(async (s) => (await s.query<{ lsn: string }>('SELECT pg_last_wal_receive_lsn()::text AS lsn'))[0].lsn),
    );
    const asNumber = (lsn: string) => {
      const [hi, lo] = lsn.split('/');
      return BigInt(`0x${hi}`) * 2n ** 32n + BigInt(`0x${lo}`);
    };
    const best = asNumber(lsns[0]) >= asNumber(lsns[1]) ? 0 : 1;
    const next = standbys[best];
    const other = standbys[1 - best];
    await next.promote();
    promotedAt = performance.now();
    promoted = `${next.name} (received ${lsns[best]}; ${other.name} ${lsns[1 - best]})`;
    cell.primary = next;
    log(`promoted ${promoted}`);
    // The other standby follows the new primary (recovery_target_timeline = latest, the default):
    // primary_conninfo is reloadable, its WAL receiver reconnects.
    await other.query(
      `ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=${next.port} user=postgres application_name=${other.name}'`,
    );
    await other.query('SELECT pg_reload_conf()');
    await waitFor(
      async () => (await next.query(`SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`))[0].n === 1,
      120_000,
      `${other.name} to stream from ${next.name}`,
    );
    repointedAt = performance.now();
    log(`${other.name} streams from ${next.name}`);
  };

  // The consumers: one per queue, each popping and acking through the brokers in turn.
  let consuming = true;
  const ackedFrames = new Set<string>();
  const receivedTxns = new Set<string>();
  let redeliveredAfterAck = 0;
  /** Acks answered but refused (e.g. a lease that lapsed meanwhile): those frames come back, as they may. */
  let refusedAcks = 0;
  const consumer = async (queue: string) => {
    for (let i = 0; consuming; i++) {
      const r = await call(brokerFor(i), cell.token, 'GET', `/api/v1/pop/queue/${queue}?batch=200&wait=true&timeout=1000`);
      if (r.status === 204) continue;
      if (r.status !== 200) {
        errors.push({ what: 'pop', status: r.status, at: performance.now(), code: r.body?.code });
        await new Promise((res) => setTimeout(res, 100));
        continue;
      }
      const frames: any[] = r.body.messages;
      for (const f of frames) {
        if (ackedFrames.has(f.id)) redeliveredAfterAck++;
        receivedTxns.add(f.transactionId);
      }
      const acks = frames.map((f) => ({
        transactionId: f.transactionId,
        partitionId: f.partitionId,
        leaseId: f.leaseId,
        status: 'completed',
      }));
      // The ack is retried until answered, under the same lease: an unanswered one leaves the
      // partition leased to this consumer until the lease lapses.
      let a = await call(brokerFor(i + 1), cell.token, 'POST', '/api/v1/ack/batch', { acknowledgments: acks });
      for (let attempt = 2; a.status !== 200; attempt++) {
        errors.push({ what: 'ack', status: a.status, at: performance.now(), code: a.body?.code });
        await new Promise((res) => setTimeout(res, 200));
        a = await call(brokerFor(i + attempt), cell.token, 'POST', '/api/v1/ack/batch', { acknowledgments: acks });
      }
      refusedAcks += a.body.filter((x: any) => !x.success).length;
      a.body.forEach((x: any, k: number) => x.success && ackedFrames.add(frames[k].id));
    }
  };
  const queues = Array.from({ length: o.queues }, (_, q) => `q${q}`);
  // A lease of 5 s: a pop that committed on the old primary but whose answer was lost in the
  // failover (a 503) leaves its partition leased; with the default lease its frames came back only
  // after the 180 s wait for them had given up (seen once in a fresh-clone run: 11,842 of 20,000).
  for (const q of queues) {
    const r = await call(brokerFor(0), cell.token, 'POST', '/api/v1/configure', { queue: q, options: { leaseTime: 5 } });
    if (r.status !== 200) throw new Error(`configure ${q}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const consumers = queues.map((q) => consumer(q));

  // The schedules, paced: batch i leaves no earlier than i × gapMs, each retried until acknowledged.
  let nextBatch = 0;
  const killAfter = Math.floor(o.timers * o.killAt);
  const producer = async () => {
    for (let i = nextBatch++; i < batches; i = nextBatch++) {
      const wait = started + i * gapMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const ops = [];
      for (let k = i * o.batch; k < Math.min(o.timers, (i + 1) * o.batch); k++) {
        ops.push(scheduleOp(queues[k % o.queues], `t${k}`, 1000 + ((k * 7919) % 3000)));
      }
      for (let attempt = 0; ; attempt++) {
        const sentAt = performance.now();
        const r = await call(brokerFor(i + attempt), cell.token, 'POST', '/api/v1/timers', { operations: ops });
        if (acknowledged(r)) {
          const now = performance.now();
          if (sentAt > killAt && now < firstGoodAfterKill) firstGoodAfterKill = now;
          acked += ops.length;
          for (let n = 0; n < ops.length; n++) ackedAt.push(now);
          if (acked >= killAfter && !failover) failover = doFailover();
          break;
        }
        errors.push({
          what: 'schedule',
          status: r.status,
          at: performance.now(),
          code: r.body?.code ?? r.body?.results?.find((x: any) => !x.ok)?.status,
        });
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  };
  await Promise.all(Array.from({ length: 24 }, producer));
  await failover;
  log(`all ${acked} schedules acknowledged; waiting for every frame`);

  const sql = cell.primary;
  const end = performance.now();
  try {
    await waitFor(async () => receivedTxns.size >= o.timers, 180_000, `every frame popped (${receivedTxns.size} of ${o.timers})`);
  } catch (err) {
    log((err as Error).message);
  }
  consuming = false;
  await Promise.all(consumers);

  const [r] = await sql.query<{ frames: number; keys: number; duplicated: number; early: number; pending: number; dead: number }>(
    `SELECT count(*)::int AS frames, count(DISTINCT transaction_id)::int AS keys,
            (SELECT count(*) FROM (SELECT transaction_id FROM messages GROUP BY 1 HAVING count(*) > 1) d)::int AS duplicated,
            count(*) FILTER (WHERE created_at < deliver_at)::int AS early,
            (SELECT count(*) FROM timers)::int AS pending,
            (SELECT count(*) FROM dead_letters)::int AS dead
       FROM messages`,
    'queen',
  );
  const present = new Set((await sql.query<{ t: string }>(`SELECT DISTINCT transaction_id AS t FROM messages`, 'queen')).map((x) => x.t));
  let lost = 0;
  for (let k = 0; k < o.timers; k++) if (!present.has(`t${k}`)) lost++;

  const rate = (from: number, to: number) => {
    const n = ackedAt.filter((t) => t >= from && t < to).length;
    return to > from ? Math.round(n / ((to - from) / 1000)) : 0;
  };
  const since = (t: number) => Math.round(t - killAt);
  return {
    acknowledged: acked,
    lost,
    duplicated: r.duplicated,
    early: r.early,
    redeliveredAfterAck,
    framesReceived: receivedTxns.size,
    refusedAcks,
    pendingTimers: r.pending,
    deadLetters: r.dead,
    errors: errors.map((e) => ({ what: e.what, status: e.status, atMs: since(e.at), ...(e.code ? { code: e.code } : {}) })),
    promotedMs: since(promotedAt),
    repointedMs: since(repointedAt),
    firstGoodScheduleMs: since(firstGoodAfterKill),
    lastErrorMs: errors.length ? Math.max(...errors.map((e) => since(e.at))) : 0,
    promoted,
    schedulesPerSecondBefore: rate(started, killAt),
    schedulesPerSecondAfter: rate(firstGoodAfterKill, end),
  };
}
