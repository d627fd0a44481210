// `npm run bench -- log`: the log at speed. The HTTP load runs in a child process
// (bench/client.mjs) so that the broker's CPU (this process, and embedded PGlite with it) is
// measured without the load generator's. One JSON line per measure:
//   (first, unreported: 5,000 frames pushed and drained, so the measures run on a warm broker)
//   logPush       20,000 frames over HTTP, batches of 100, 4 in flight, 8 partitions: msg/s
//   logDrain      the same frames drained by 4 consumers (pop batch=100 + ack/batch), then again
//                 with autoAck: msg/s, and the count of non-2xx answers
//   logBacklog    100,000 frames in one partition, popped batch=1000 and acked by a named group
//                 to the end: the first and the last pop's latency
//   logPartitions 10,000 partitions with one frame each, never consumed: 200 pops (--log-pops=N),
//                 p50/p99
//   logAckBatch   one ack/batch of 1,000 frames: latency
//   logIdle       1,000 idle long-polls: the broker's CPU (share of one core) over 10 s; schedule
//                 latency (50 single-op POST /api/v1/timers per second, from the client process)
//                 without and with them;
//                 push-to-waiter latency of 300 frames pushed one by one, 30 ms apart
//   logTrickle    the fire lag of a trickle (as `trickle`) while 4 consumers drain at full speed
//                 and 1,000 long-polls wait on another queue (also alone: `trickle-busy`)
//   logGroupBootstrap  5,000 partitions with one frame each: the first pop of a new named group
//                 with subscriptionMode=new, with subscriptionFrom=<an instant after the frames>,
//                 and (the reference) with neither; then 5,000 frames pushed one per partition and
//                 drained by the `new` group, which must receive exactly those; then the same
//                 three first pops over 5,000 partitions of which 100 hold a frame and 4,900 were
//                 created ahead and are empty (as a schedule creates them): their cost and the
//                 cursor rows they wrote, beside a pop of a group already registered
//                 (also alone: `npm run bench -- log-bootstrap`)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { mintToken } from '../src/auth.ts';
import type { Broker } from '../src/broker.ts';

const CLIENT = fileURLToPath(new URL('./client.mjs', import.meta.url));

export interface LogBenchContext {
  /** Pops timed on 10,000 partitions (fewer for a slow build). */
  partitionPops: number;
  broker: Broker;
  sql: pg.Pool;
  base: string;
  secret: string;
  emit: (o: Record<string, unknown>) => void;
  trickle: (queueLoad: () => Promise<unknown>) => Promise<unknown>;
  /** How long the busy trickle's load must last (from its start to the trickle's last fire), and its backlog. */
  busyMs: number;
  backlog: number;
}

/** Runs one job of bench/client.mjs in a child process; resolves with its JSON result. */
export function client(job: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        const result = JSON.parse(out.trim().split('\n').pop() ?? '{}');
        if (result.error) reject(new Error(`client ${job.kind}: ${result.error}`));
        else resolve(result);
      } catch (err) {
        reject(new Error(`client ${job.kind} printed no result: ${out.slice(0, 300)} (${(err as Error).message})`));
      }
    });
  });
}

/** Empties the log between measures; each measure uses queue names of its own (the broker caches groups). */
export async function resetLog(sql: pg.Pool) {
  const groups = (await sql.query(`SELECT to_regclass('consumer_groups') IS NOT NULL AS present`)).rows[0].present;
  await sql.query(
    `TRUNCATE messages, partition_consumers, message_deliveries, dead_letters, partitions, queues, timers${groups ? ', consumer_groups' : ''}`,
  );
}

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

function percentiles(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return s.length ? { p50: round(at(0.5), 2), p95: round(at(0.95), 2), p99: round(at(0.99), 2), max: round(s[s.length - 1], 2) } : {};
}

/** A bench tenant's token, its REST caller and its pusher (bench/client.mjs). */
async function benchCaller(ctx: Pick<LogBenchContext, 'broker' | 'base' | 'secret'>) {
  const token = await mintToken(ctx.secret, { tenant: 'bench', sub: 'bench', grants: ['produce', 'consume', 'read', 'admin'] });
  await ctx.broker.services.tenants.ensure('bench');
  const url = ctx.base;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const pushAll = (queue: string, total: number, partitions: number, batch = 100, inFlight = 4) =>
    client({ kind: 'push', url, token, queue, total, batch, inFlight, partitions });
  return { token, url, call, pushAll };
}

/**
 * The trickle's fire lag (`trickle`, emitted as logTrickle) while 4 consumers drain a backlog at
 * full speed and 1,000 long-polls wait on an idle queue, all from a client process. The backlog is
 * sized to outlast the trickle (`busyMs`, from the load's start to the trickle's last fire), and the
 * drain stops at that deadline: the load covers the whole trickle, not only its start. In the
 * line, `load.received` below `load.backlog` says the consumers were still draining when the
 * trickle ended; equal to it, that they ran dry after `load.seconds`. Also alone: `npm run bench --
 * trickle-busy [--busy-backlog=N]`.
 */
export async function measureBusyTrickle(
  ctx: Pick<LogBenchContext, 'broker' | 'sql' | 'base' | 'secret' | 'trickle' | 'busyMs' | 'backlog'>,
) {
  const { sql, busyMs, backlog } = ctx;
  const { pushAll, url, token } = await benchCaller(ctx);
  await resetLog(sql);
  await pushAll('busy', backlog, 8, 1000);
  // The backlog's own writes settled before the measure: its frames' hint bits set (VACUUM), every
  // page written and flushed (CHECKPOINT). Left to the kernel, about 200 MB of them were written
  // back at once when the first were 30 s old (vm.dirty_expire_centisecs), inside the trickle in
  // some runs and not in others, and every COMMIT waiting on a WAL flush behind them stalled for 100 ms and more: a cost
  // of loading the backlog in bulk just before, not of draining it (docs/benchmarks.md).
  await sql.query('VACUUM messages');
  await sql.query('CHECKPOINT');
  const idle = client({ kind: 'idle', url, token, queue: 'idle', waiters: 1000, holdMs: busyMs + 5_000 });
  await new Promise((r) => setTimeout(r, 2_000)); // the long-polls are in
  await ctx.trickle(async () => ({
    backlog,
    ...(await client({
      kind: 'drain',
      url,
      token,
      queue: 'busy',
      consumers: 4,
      batch: 100,
      autoAck: false,
      expect: backlog,
      limitMs: busyMs,
    })),
  }));
  await idle;
}

/**
 * Queen's testCgBootstrapNew / testCgBootstrapTimestamp as a measure: the cost of a new group's
 * first pop over 5,000 partitions that hold only frames the group skips. Each first pop is timed
 * beside the reference (a group that reads from the beginning registers on the same partitions).
 */
export async function measureGroupBootstrap(ctx: Pick<LogBenchContext, 'broker' | 'sql' | 'base' | 'secret' | 'emit'>) {
  const { sql, emit } = ctx;
  const { call, pushAll, url, token } = await benchCaller(ctx);
  const P = 5_000;
  await resetLog(sql);
  await pushAll('boot', P, P, 1000, 2);
  const instant = (await sql.query(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`)).rows[0]
    .at;
  const firstPop = async (group: string, extra: string, queue = 'boot') => {
    const t0 = performance.now();
    const r = await call('GET', `/api/v1/pop/queue/${queue}?batch=1&wait=false&consumerGroup=${group}${extra}`);
    return { ms: performance.now() - t0, status: r.status };
  };
  const all = await firstPop('boot-all', '');
  const fresh = await firstPop('boot-new', '&subscriptionMode=new');
  const since = await firstPop('boot-ts', `&subscriptionFrom=${encodeURIComponent(instant)}`);
  await pushAll('boot', P, P, 1000, 2);
  const d = await client({
    kind: 'drain',
    url,
    token,
    queue: 'boot',
    group: 'boot-new',
    consumers: 4,
    batch: 100,
    autoAck: true,
    expect: P,
    limitMs: 120_000,
  });
  // 204: the group got the new frames and none of the old (had it got old ones, new ones would be left).
  const after = await call('GET', '/api/v1/pop/queue/boot?batch=1&wait=false&consumerGroup=boot-new');
  const mostlyEmpty = await measureMostlyEmptyBootstrap(sql, pushAll, firstPop, P, 100);
  emit({
    measure: 'logGroupBootstrap',
    partitions: P,
    allMs: round(all.ms),
    newMs: round(fresh.ms),
    sinceMs: round(since.ms),
    newRatio: round(fresh.ms / all.ms, 2),
    sinceRatio: round(since.ms / all.ms, 2),
    firstPopStatuses: [all.status, fresh.status, since.status],
    newGroupDrained: d.received,
    newGroupAfterDrain: after.status,
    drainSeconds: round(d.seconds, 2),
    mostlyEmpty,
  });
}

/**
 * The first pops of new groups over `total` partitions of which only `full` hold a frame: the
 * others were created ahead, empty (rows put in SQL, as a schedule's ensurePartitions writes
 * them). The cost should follow the partitions with frames, not the total.
 */
async function measureMostlyEmptyBootstrap(
  sql: pg.Pool,
  pushAll: (queue: string, total: number, partitions: number) => Promise<unknown>,
  firstPop: (group: string, extra: string, queue?: string) => Promise<{ ms: number; status: number }>,
  total: number,
  full: number,
) {
  await pushAll('boot-empty', full, full);
  await sql.query(
    `INSERT INTO partitions (tenant, queue, name) SELECT 'bench', 'boot-empty', 'empty-' || g FROM generate_series(1, $1) g`,
    [total - full],
  );
  const instant = (await sql.query(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`)).rows[0]
    .at;
  const all = await firstPop('e-all', '', 'boot-empty');
  const fresh = await firstPop('e-new', '&subscriptionMode=new', 'boot-empty');
  const since = await firstPop('e-ts', `&subscriptionFrom=${encodeURIComponent(instant)}`, 'boot-empty');
  // The reference: a pop of a group already registered (the same request, without the bootstrap).
  const known = await firstPop('e-all', '', 'boot-empty');
  const rows = (await sql.query(`SELECT count(*)::int AS n FROM partition_consumers WHERE tenant = 'bench' AND queue = 'boot-empty'`))
    .rows[0].n;
  return {
    partitions: total,
    withFrames: full,
    allMs: round(all.ms),
    newMs: round(fresh.ms),
    sinceMs: round(since.ms),
    registeredGroupPopMs: round(known.ms),
    firstPopStatuses: [all.status, fresh.status, since.status],
    cursorRows: rows,
  };
}

export async function measureLog(ctx: LogBenchContext) {
  const { sql, emit } = ctx;
  const { call, pushAll, url, token } = await benchCaller(ctx);

  // --- push and drain ---------------------------------------------------------------------
  // A warm-up first, unreported: a broker in service has its hot paths compiled, and the first
  // thousands of requests of a fresh process run in V8's interpreter (about 15 % slower here).
  await pushAll('warm-up', 5_000, 8);
  await client({ kind: 'drain', url, token, queue: 'warm-up', consumers: 4, batch: 100, autoAck: false, expect: 5_000, limitMs: 60_000 });
  const N = 20_000;
  for (const autoAck of [false, true]) {
    await resetLog(sql);
    const queue = autoAck ? 'drain-auto' : 'drain-ack';
    const pushed = await pushAll(queue, N, 8);
    if (!autoAck) emit({ measure: 'logPush', n: N, msgPerSec: Math.round(N / pushed.seconds) });
    const d = await client({ kind: 'drain', url, token, queue, consumers: 4, batch: 100, autoAck, expect: N, limitMs: 120_000 });
    emit({
      measure: 'logDrain',
      autoAck,
      n: N,
      received: d.received,
      seconds: round(d.seconds, 2),
      msgPerSec: Math.round(d.received / d.seconds),
      errors: d.errors,
      popMs: d.popMs,
      ackMs: d.ackMs,
    });
  }

  // --- a long history in one partition ------------------------------------------------------
  await resetLog(sql);
  await pushAll('backlog', 100_000, 1, 1000, 2);
  const b = await client({ kind: 'backlog', url, token, queue: 'backlog', batch: 1000, group: 'history', limitMs: 300_000 });
  emit({
    measure: 'logBacklog',
    n: 100_000,
    batches: b.batches,
    firstMs: round(b.first),
    lastMs: round(b.last),
    ratio: round(b.last / b.first, 2),
    errors: b.errors,
  });

  // --- many partitions nobody consumed ------------------------------------------------------
  await resetLog(sql);
  await pushAll('wide', 10_000, 10_000, 1000, 2);
  const popTimes: number[] = [];
  const statuses: Record<number, number> = {};
  for (let i = 0; i < ctx.partitionPops; i++) {
    const t0 = performance.now();
    const r = await call('GET', '/api/v1/pop/queue/wide?autoAck=true');
    popTimes.push(performance.now() - t0);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  }
  emit({ measure: 'logPartitions', partitions: 10_000, pops: ctx.partitionPops, statuses, ...percentiles(popTimes) });

  // --- one ack/batch of 1,000 ----------------------------------------------------------------
  await resetLog(sql);
  await pushAll('acks', 1000, 1, 1000, 1);
  const popped = await call('GET', '/api/v1/pop/queue/acks?batch=1000');
  const acks = popped.body.messages.map((f: any) => ({ transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId }));
  const t0 = performance.now();
  const acked = await call('POST', '/api/v1/ack/batch', { acknowledgments: acks });
  emit({
    measure: 'logAckBatch',
    n: acks.length,
    status: acked.status,
    ms: round(performance.now() - t0),
    successful: acked.body?.successful,
  });

  // --- 1,000 idle long-polls ------------------------------------------------------------------
  await resetLog(sql);
  const scheduleLatency = async (prefix: string) =>
    percentiles((await client({ kind: 'schedule', url, token, perSecond: 50, seconds: 10, prefix })).times);
  const without = await scheduleLatency('a');
  const waiters = 1000;
  const idle = client({ kind: 'idle', url, token, queue: 'idle', waiters, holdMs: 40_000 });
  await new Promise((r) => setTimeout(r, 3_000));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await new Promise((r) => setTimeout(r, 10_000));
  const cpu = process.cpuUsage(cpu0);
  const coreShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0);
  const withWaiters = await scheduleLatency('b');
  await client({ kind: 'pings', url, token, queue: 'idle', count: 300, gapMs: 30 });
  const idled = await idle;
  emit({
    measure: 'logIdle',
    waiters,
    brokerCpuShareOfCore: round(coreShare, 3),
    scheduleMsWithout: without,
    scheduleMsWith: withWaiters,
    p50Ratio: round((withWaiters as any).p50 / (without as any).p50, 2),
    pushToWaiterMs: percentiles(idled.latencies),
    delivered: idled.latencies.length,
    statuses: idled.statuses,
  });

  // --- the fire while consumers drain at full speed and 1,000 long-polls wait -------------------
  await measureBusyTrickle(ctx);

  // --- a new consumer group over 5,000 partitions -----------------------------------------------
  await measureGroupBootstrap(ctx);
}
