// npm run bench [-- fire trickle schedule log] [--n=100000] [--tracing | --tracing=compare [--pairs=2]]
// Runs one broker in this process, on the embedded database or on a scratch database created on
// DATABASE_URL's server (dropped afterwards), and prints one JSON line per measure:
//   schedule  100,000 timers through POST /api/v1/timers in 256-op batches over HTTP, ops/s
//   fire      100,000 timers all due at once, one broker: frames/s until the last is in the log,
//             beside the raw-SQL limit (one DELETE … RETURNING → INSERT statement moving as many
//             rows, run before and after the sweeper's fire; their mean) and the ratio sweeper ÷ limit;
//             the broker process's CPU per frame while it fires
//   trickle   2,000 timers scheduled over ~20 s with random delays: fire lag p50/p95/p99/max (ms),
//             from the log's created_at − deliver_at (PostgreSQL's clock); run with the hand-off
//             window at its setting (QUEEN_SWEEPER_HANDOFF_MS) and again at 0 (`trickleWindow0`),
//             each line with the load average beside it
//   trickle-new-partitions  the same with each timer in a partition of its own, created ahead as the
//             schedule route creates it: every fire is its partition's first frame (not in the
//             default set)
//   log       the log at speed: push, drain, history, partitions, ack/batch, idle long-polls and
//             the trickle under consumer load, a new consumer group over 5,000 partitions
//             (bench/log.ts; not in the default set; `log-bootstrap` runs the last one alone,
//             `trickle-busy` the trickle while consumers drain and 1,000 long-polls wait)
//   volume    schedule, peek/list and trickle on an empty table and, alternating with it, on a
//             second database holding --pending=N timers (default 10,000,000) pending weeks out,
//             and the ratios (not in the default set)
//   soak      --minutes=N of steady schedule + fire + push + pop/ack with retention on, sampled
//             every --sample-seconds (bench/soak.ts; not in the default set)
//   footprint production's install size and its embedded broker's RSS under light load for
//             --minutes=N (default 5), beside the full install and an idle node (bench/footprint.ts;
//             no broker here; not in the default set)
//   peers     queen-timers beside graphile-worker, pg-boss and BullMQ, each with its default and its
//             fastest documented settings, on the three measures above; one markdown table
//             (bench/peers.ts; --quick for a smoke run; needs `cd bench/peers && npm ci` first)
//   failover  a primary and two synchronous standbys of the machine's PostgreSQL 15, three compiled
//             brokers on a multi-host DATABASE_URL, --n=20000 schedules over --seconds=25 with
//             consumers, the primary killed mid-load and a standby promoted: the failover window and
//             schedules/s before and after (bench/failover.ts; root; not in the default set)
//   dashboard the dashboard's read routes on one queue of --pending=N timers (default 5,000,000)
//             inserted in SQL: overview, forecast, fire lag, lists, beside a peek (bench/dashboard.ts;
//             not in the default set). Target: overview p99 ≤ 200 ms
//   fire-tenants  the fire with one tenant, with 10,000 tenants holding N/10,000 due timers each,
//             and with one tenant again: the ratio many ÷ one (not in the default set)
//   fire-history  the fire twice with the fire-lag history recorded and flushed every 5 s and
//             twice without, alternating, and the ratio (not in the default set)
//   queue-index  schedule and fire without and with the timers (tenant, queue, deliver_at) index,
//             alternating, and the ratios (not in the default set)
//   cli       the queen-timers CLI's start: `--help` through the compiled bin, 10 runs, median
//             beside plain `node -e ''`, and beside `npx queen-timers` and the sources through tsx
//             (no broker; not in the default set)
// Targets (2 cores, PostgreSQL on the same box): schedule ≥ 20,000 ops/s and ≥ 1.0× graphile-worker's
// fastest in-process add (`peers`); fire ≥ 75% of the limit; trickle p50 ≤ 2 ms, p99 ≤ 5 ms,
// max ≤ 20 ms, never early, and p99 ≤ 10 ms while consumers drain and 1,000 long-polls wait
// (`trickle-busy`). Volume: schedule ≥ 0.9× and trickle
// p99 within +5 ms of the empty table; peek and list p99 ≤ 10 ms. Soak (30 min): tables ≤ 1.2×,
// lag p99 ≤ 1.2×, RSS ≤ 1.1× of the first 5 minutes. CLI: `--help` ≤ 0.5 s, every call.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance as nodePerformance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { mintToken } from '../src/auth.ts';
import { createBroker, type Broker } from '../src/broker.ts';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_PARTITION } from '../src/contract/common.ts';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { ensurePartitions } from '../src/services/queues.ts';
import { startSweeper } from '../src/sweeper/index.ts';
import { FireHistory, fireHistoryFlushDuty } from '../src/maintenance/fireHistory.ts';
import { startDuty } from '../src/maintenance/loop.ts';
import { backendCpuMs, cpuBetween } from './cpu.ts';
import { measureDashboard } from './dashboard.ts';
import { measureFootprint } from './footprint.ts';
import { client, measureBusyTrickle, measureGroupBootstrap, measureLog } from './log.ts';
import { measureSoak } from './soak.ts';
import { scheduleWarmupBatches } from './warmup.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? def);
const chosen = args.filter((a) => !a.startsWith('--'));
const measures = chosen.length > 0 ? chosen : ['fire', 'trickle', 'schedule'];
const N = flag('n', 100_000);
const TRICKLE = flag('trickle', 2_000);
const TRICKLE_SPAN = flag('trickle-span', 18_000);
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';
const serverUrl = process.env.DATABASE_URL || undefined;
const dbKind = serverUrl ? 'postgres' : 'embedded';
// The busy trickle's load lasts from before the trickle's warm-up (2 s) to after its last fire (due
// at most 2 s after its schedule), and its backlog is sized so that 4 consumers do not empty it by
// then: they took about 21,000 frames a second on PostgreSQL on the benchmarks' machine, and about
// 9,500 embedded (where 100,000 ran dry 12 s into the 23).
const BUSY_MS = 2_000 + TRICKLE_SPAN + 3_000;
const BUSY_BACKLOG = flag('busy-backlog', dbKind === 'embedded' ? 300_000 : 800_000);

// --tracing: an OpenTelemetry SDK registered as an operator would (docs/tracing.md), its batching
// processor exporting to a sink that drops the spans: what recording and batching spans costs,
// beside the same measures run without the flag (the API's no-op).
const TRACING = args.includes('--tracing');
// --traceparents: every timer the fire measure inserts, and every schedule request, carries a
// W3C traceparent, so a recording fire has a link to make per timer (--tracing=compare sets it on
// both sides).
const TRACEPARENTS = args.includes('--traceparents');

function emit(o: Record<string, unknown>) {
  console.log(JSON.stringify({ db: dbKind, ...(TRACING ? { tracing: true } : {}), ...o }));
}

async function registerTracing(): Promise<void> {
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const sink = {
    exported: 0,
    export(spans: unknown[], done: (r: { code: number }) => void) {
      this.exported += spans.length;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(sink)] }));
}

/**
 * Inserts n timers in SQL (chunks of 50,000), deliver_at = now() + offset + random spread, over
 * `tenants` tenants (one: 'bench'; more: 'bench-<i>', each with its partitions created, as its
 * schedules would have).
 */
async function insertTimers(sql: pg.Pool, n: number, prefix: string, dueInMs: number, spreadMs: number, payloadBytes = 64, tenants = 1) {
  const payload = Buffer.from(JSON.stringify({ p: 'x'.repeat(Math.max(0, payloadBytes - 8)) }));
  for (let from = 1; from <= n; from += 50_000) {
    const to = Math.min(n, from + 49_999);
    await sql.query(
      `INSERT INTO timers (tenant, queue, partition, timer_key, deliver_at, txn, message_id, payload, producer_sub, traceparent)
       SELECT CASE WHEN $8 = 1 THEN 'bench' ELSE 'bench-' || (i % $8) END, 'q' || (i % 8), 'Default', $1 || i,
              now() + ($2 + random() * $3) * interval '1 millisecond',
              $1 || i, gen_random_uuid(), $4, 'bench',
              CASE WHEN $7 THEN '00-' || md5($1 || i) || '-' || left(md5('s' || i), 16) || '-01' END
       FROM generate_series($5::int, $6::int) AS i`,
      [prefix, dueInMs, spreadMs, payload, from, to, TRACEPARENTS, tenants],
    );
  }
  if (tenants > 1) {
    await sql.query(
      `INSERT INTO partitions (tenant, queue, name) SELECT DISTINCT tenant, queue, partition FROM timers ON CONFLICT DO NOTHING`,
    );
  }
}

/** The databases holding the volume bench's pending timers (tenant 'bulk'), which reset() keeps. */
const holdingBulk = new WeakSet<pg.Pool>();

async function reset(sql: pg.Pool) {
  const bulk = holdingBulk.has(sql);
  if (bulk) await sql.query(`DELETE FROM timers WHERE tenant <> 'bulk'`);
  await sql.query(bulk ? 'TRUNCATE messages, dead_letters' : 'TRUNCATE timers, messages, dead_letters');
  await sql.query('VACUUM ANALYZE timers');
  await sql.query('VACUUM ANALYZE messages');
}

async function pgNow(sql: pg.Pool): Promise<number> {
  return (await sql.query(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t`)).rows[0].t;
}

/** N timers due a second ago over `tenants` tenants, on emptied tables. */
async function dueTimers(sql: pg.Pool, tenants: number) {
  await reset(sql);
  await insertTimers(sql, N, 'f', -1000, 0, 64, tenants);
  await sql.query('VACUUM timers');
}

/**
 * The raw-SQL limit: N due timers moved into the log by one statement (no lock order,
 * no lease, no exactly-once guarantee), rows per second.
 */
async function rawFireRate(sql: pg.Pool, tenants: number): Promise<number> {
  await dueTimers(sql, tenants);
  const started = performance.now();
  const raw = await sql.query(
    `WITH d AS (DELETE FROM timers WHERE deliver_at <= now() RETURNING *)
     INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub, timer_key, deliver_at)
     SELECT tenant, message_id, queue, partition, txn, payload, encrypted, producer_sub, timer_key, deliver_at
     FROM d ORDER BY deliver_at ON CONFLICT DO NOTHING`,
  );
  const rawSeconds = (performance.now() - started) / 1000;
  if (raw.rowCount !== N) throw new Error(`raw: moved ${raw.rowCount}`);
  return N / rawSeconds;
}

/**
 * The sweeper's fire of N due timers, between two runs of its raw-SQL reference (rawFireRate): the
 * ratio is to their mean, so that the machine's drift over the measure falls on both sides.
 */
async function measureFire(broker: Broker, sql: pg.Pool, label = 'fire', tenants = 1): Promise<number> {
  const rawBefore = await rawFireRate(sql, tenants);
  await dueTimers(sql, tenants);
  const m = broker.services.metrics.fired;
  const before = (await m.get()).values[0]?.value ?? 0;
  const t0 = await pgNow(sql);
  // The broker's process CPU while it fires (this process's: its other threads and the polling
  // here included), beside the rate: what the sweeper takes from the cores PostgreSQL fires on.
  const cpuBefore = process.cpuUsage();
  const sweeper = startSweeper(broker.services);
  for (;;) {
    const v = (await m.get()).values[0]?.value ?? 0;
    if (v - before >= N) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = process.cpuUsage(cpuBefore);
  await sweeper.stop();
  const r = (await sql.query(`SELECT count(*)::int AS n, (extract(epoch FROM max(created_at)) * 1000)::float8 AS last FROM messages`))
    .rows[0];
  if (r.n !== N) throw new Error(`fire: expected ${N} frames, found ${r.n}`);
  const seconds = (r.last - t0) / 1000;
  const rawAfter = await rawFireRate(sql, tenants);
  const rate = N / seconds;
  const rawRate = (rawBefore + rawAfter) / 2;
  emit({
    measure: label,
    n: N,
    tenants,
    batchSize: broker.services.config.QUEEN_SWEEPER_BATCH_SIZE,
    seconds: round(seconds, 3),
    framesPerSec: Math.round(rate),
    rawFramesPerSec: Math.round(rawRate),
    rawBeforeAndAfter: [Math.round(rawBefore), Math.round(rawAfter)],
    ratio: round(rate / rawRate, 3),
    processCpuUsPerFrame: round((cpu.user + cpu.system) / N, 1),
    loadAverage: loadavg().map((l) => round(l, 2)),
  });
  return rate;
}

/**
 * `queue-index`: what timers_queue_deliver_at (the dashboard's per-queue deliverAt index) costs the
 * schedule and the fire: each measured without the index and with it, alternating twice, and the
 * ratios of the summed rates. The index is dropped and rebuilt on the empty table between runs.
 */
async function measureQueueIndex(broker: Broker, sql: pg.Pool, base: string) {
  const drop = 'DROP INDEX IF EXISTS timers_queue_deliver_at';
  const create = 'CREATE INDEX IF NOT EXISTS timers_queue_deliver_at ON timers (tenant, queue, deliver_at)';
  const sum = { scheduleWithout: 0, scheduleWith: 0, fireWithout: 0, fireWith: 0 };
  try {
    for (let i = 0; i < 2; i++) {
      for (const withIndex of [false, true]) {
        await sql.query('TRUNCATE timers');
        await sql.query(withIndex ? create : drop);
        const s = await measureSchedule(broker, sql, base);
        const f = await measureFire(broker, sql, withIndex ? 'fireWithQueueIndex' : 'fireWithoutQueueIndex');
        if (withIndex) {
          sum.scheduleWith += s.opsPerSec ?? 0;
          sum.fireWith += f;
        } else {
          sum.scheduleWithout += s.opsPerSec ?? 0;
          sum.fireWithout += f;
        }
      }
    }
  } finally {
    await sql.query(create);
  }
  emit({
    measure: 'queue-index',
    scheduleWithOverWithout: round(sum.scheduleWith / sum.scheduleWithout, 3),
    fireWithOverWithout: round(sum.fireWith / sum.fireWithout, 3),
  });
}

/**
 * `fire-history`: the fire with the fire-lag history as a sweeping broker keeps it (recorded per
 * fire, flushed every 5 s by its duty) and with a recorder that drops everything, alternating
 * off/on twice so the machine's drift falls on both; the ratio of the summed rates.
 */
async function measureFireHistory(broker: Broker, sql: pg.Pool) {
  const real = broker.services.fireHistory;
  const dropped = new FireHistory();
  dropped.record = () => {};
  let off = 0;
  let on = 0;
  for (let i = 0; i < 2; i++) {
    broker.services.fireHistory = dropped;
    off += await measureFire(broker, sql, 'fireWithoutHistory');
    broker.services.fireHistory = real;
    const duty = startDuty(fireHistoryFlushDuty(broker.db.pool, real), { log: broker.app.log, metrics: broker.services.metrics });
    try {
      on += await measureFire(broker, sql, 'fireWithHistory');
    } finally {
      await duty.stop();
      await duty.runOnce();
    }
  }
  const rows = (await sql.query(`SELECT coalesce(sum(fired), 0)::float8 AS n FROM fire_lag_minutes`)).rows[0].n;
  emit({ measure: 'fire-history', withOverWithout: round(on / off, 3), historyRows: rows, expectedFired: 2 * N });
}

/**
 * The trickle; `load`, when given, runs beside it (started before the warm-up, awaited after)
 * and the line is emitted as `measure` with its result.
 */
async function measureTrickle(
  broker: Broker,
  sql: pg.Pool,
  load?: () => Promise<unknown>,
  measure = 'trickle',
  partitionPerTimer = false,
): Promise<Record<string, any>> {
  if (!load) await reset(sql);
  const loaded = load?.();
  const sweeper = startSweeper(broker.services);
  // 2,000 schedules spread over 18 s (--trickle, --trickle-span), each due 50 ms – 2 s later; each is announced the way the
  // schedule route does it (events.timerScheduled), so the sweeper's wake-ups are exercised too.
  // A 2 s warm-up on the same queue runs first and is not measured (its keys are warmup-<i>): the
  // first second of a fresh process (V8 and, embedded, PGlite's wasm still compiling hot paths)
  // showed 50–120 ms lags, and a partition's first frame takes a path of its own once (it creates
  // the partition's consumer rows; 10–36 ms late on the benchmarks' machine).
  // partitionPerTimer: each measured timer in a partition of its own, created ahead as the schedule
  // route creates one (named after the measure too, so each measure's are new), so that each fire
  // is its partition's first frame.
  const schedule = async (key: string, delay: number) => {
    const partition = partitionPerTimer && key.startsWith('trickle-') ? `${measure}-${key}` : DEFAULT_PARTITION;
    if (partition !== DEFAULT_PARTITION) await ensurePartitions(sql, 'bench', [{ queue: 'trickle', partition }]);
    const r = await sql.query(
      `INSERT INTO timers (tenant, queue, timer_key, partition, deliver_at, txn, message_id, payload, producer_sub)
       VALUES ('bench', 'trickle', $1, $3, now() + $2 * interval '1 millisecond', $1, gen_random_uuid(), '\\x7b7d', 'bench')
       RETURNING (extract(epoch FROM deliver_at) * 1000)::float8 AS d`,
      [key, delay, partition],
    );
    broker.services.notifier.timerScheduled(r.rows[0].d, r.rows[0].d - delay);
  };
  const run = async (prefix: string, n: number, spanMs: number) => {
    const started = Date.now();
    for (let i = 0; i < n; i++) {
      const wait = started + (i * spanMs) / n - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await schedule(`${prefix}-${i}`, 50 + Math.random() * 1950);
    }
  };
  const measured = `tenant = 'bench' AND queue = 'trickle' AND timer_key LIKE 'trickle-%'`;
  await run('warmup', 200, 2_000);
  await run('trickle', TRICKLE, TRICKLE_SPAN);
  for (;;) {
    const n = (await sql.query(`SELECT count(*)::int AS n FROM messages WHERE ${measured}`)).rows[0].n;
    if (n >= TRICKLE) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await sweeper.stop();
  const loadResult = await loaded;
  if (process.env.BENCH_DEBUG) {
    const worst = await sql.query(`SELECT timer_key, round(extract(epoch FROM created_at - deliver_at)::numeric * 1000, 1) AS lag_ms,
      round(extract(epoch FROM created_at - min(created_at) OVER ())::numeric, 3) AS at_s, to_char(created_at, 'HH24:MI:SS.MS') AS at FROM messages WHERE ${measured} ORDER BY 2 DESC LIMIT 15`);
    console.error(worst.rows);
  }
  const q = (
    await sql.query(`
      SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY lag) AS p, max(lag) AS max, min(lag) AS min
      FROM (SELECT extract(epoch FROM created_at - deliver_at)::float8 * 1000 AS lag FROM messages WHERE ${measured}) x`)
  ).rows[0];
  const line = {
    measure,
    ...(load ? { load: loadResult } : {}),
    handoffMs: broker.services.config.QUEEN_SWEEPER_HANDOFF_MS,
    loadAverage: loadavg().map((l) => round(l, 2)),
    n: TRICKLE,
    p50Ms: round(q.p[0], 2),
    p95Ms: round(q.p[1], 2),
    p99Ms: round(q.p[2], 2),
    maxMs: round(q.max, 2),
    minMs: round(q.min, 3),
  };
  emit(line);
  return line;
}

/** The trickle with the hand-off window as configured, then the same probe with the window at 0. */
async function measureTrickleWindows(broker: Broker, sql: pg.Pool, measure = 'trickle', partitionPerTimer = false): Promise<void> {
  const cfg = broker.services.config;
  const configured = cfg.QUEEN_SWEEPER_HANDOFF_MS;
  await measureTrickle(broker, sql, undefined, measure, partitionPerTimer);
  if (configured === 0) return;
  cfg.QUEEN_SWEEPER_HANDOFF_MS = 0;
  try {
    await measureTrickle(broker, sql, undefined, `${measure}Window0`, partitionPerTimer);
  } finally {
    cfg.QUEEN_SWEEPER_HANDOFF_MS = configured;
  }
}

async function measureSchedule(broker: Broker, sql: pg.Pool, base: string): Promise<Record<string, any>> {
  await reset(sql);
  const token = await mintToken(SECRET, { tenant: 'bench', sub: 'bench', grants: ['produce', 'consume', 'read', 'admin'] });
  await broker.services.tenants.ensure('bench');
  const batches = Math.ceil(N / 256);
  const bodies: string[] = [];
  for (let b = 0; b < batches; b++) {
    const ops = [];
    for (let i = b * 256; i < Math.min(N, (b + 1) * 256); i++) {
      ops.push({ op: 'schedule', queue: `q${i % 8}`, timerKey: `s${i}`, delayMs: 3_600_000, payload: 'eyJoZWxsbyI6IndvcmxkIn0=' });
    }
    bodies.push(JSON.stringify({ operations: ops }));
  }
  const post = async (body: string) => {
    const res = await fetch(`${base}/api/v1/timers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /api/v1/timers → ${res.status} ${text.slice(0, 300)}`);
  };
  try {
    await post(bodies[0]);
  } catch (err) {
    const line = { measure: 'schedule', skipped: (err as Error).message };
    emit(line);
    return line;
  }
  await sql.query(`DELETE FROM timers WHERE tenant = 'bench'`);
  // The HTTP client runs on a worker thread so that it does not share the broker's event loop. It
  // posts the first SCHEDULE_WARMUP_BATCHES untimed (the broker's JIT and pools warm, the thread
  // started), then the rest, timed; the peers' schedule (bench/peers.ts) does the same.
  const concurrency = flag('concurrency', 8);
  const warm = scheduleWarmupBatches(batches);
  const timedOps = N - warm * 256;
  let started = 0;
  let cpuBefore = process.cpuUsage();
  let eluBefore = nodePerformance.eventLoopUtilization();
  let dbCpuBefore = new Map<number, number>();
  const failed = await new Promise<void>((resolve, reject) => {
    const traceparent = TRACEPARENTS ? '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' : undefined;
    const workerData = { url: `${base}/api/v1/timers`, token, bodies, warm, concurrency, traceparent };
    const w = new Worker(CLIENT_WORKER, { eval: true, workerData });
    w.on('message', async (m) => {
      if (m === 'warm') {
        // CPU per op beside the wall-clock rate: less moved by other work on a shared machine. The
        // process's CPU includes the client's thread; the event loop's active time is the broker's alone.
        dbCpuBefore = await backendCpuMs(sql);
        cpuBefore = process.cpuUsage();
        eluBefore = nodePerformance.eventLoopUtilization();
        started = performance.now();
        w.postMessage('go');
      } else if (m === 'done') resolve();
      else reject(new Error(String(m)));
    });
    w.on('error', reject);
  }).then(
    () => undefined,
    (err: Error) => err.message,
  );
  if (failed) {
    const line = { measure: 'schedule', error: failed };
    emit(line);
    return line;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const elu = nodePerformance.eventLoopUtilization(eluBefore);
  const dbCpuMs = cpuBetween(dbCpuBefore, await backendCpuMs(sql));
  const n = (await sql.query(`SELECT count(*)::int AS n FROM timers WHERE tenant = 'bench'`)).rows[0].n;
  const line = {
    measure: 'schedule',
    n,
    batches,
    warmupBatches: warm,
    concurrency,
    seconds: round(seconds, 3),
    opsPerSec: Math.round(timedOps / seconds),
    processCpuUsPerOp: round((cpu.user + cpu.system) / timedOps, 1),
    brokerLoopUsPerOp: round((elu.active * 1000) / timedOps, 1),
    ...(dbCpuMs === undefined ? {} : { databaseCpuUsPerOp: round((dbCpuMs * 1000) / timedOps, 1) }),
  };
  emit(line);
  return line;
}

/**
 * Peeks (2,000, random keys) and list pages (1,000 of 100 rows, random start) of the timers measureSchedule left:
 * latency over HTTP, from a client process of its own (bench/client.mjs, as the log bench does, so
 * the client's CPU is not the broker's event loop's), then the same paths from fetch in this
 * process (the figures named `...InProcess`, which include the client's own CPU).
 */
async function measureReads(base: string): Promise<Record<string, any>> {
  const token = await mintToken(SECRET, { tenant: 'bench', sub: 'bench', grants: ['read'] });
  const pick = () => Math.floor(Math.random() * N);
  // Enough requests that the p99 is a percentile, not the second-worst of a few hundred.
  const peekPaths = Array.from({ length: 2000 }, () => {
    const k = pick();
    return `/api/v1/timers/q${k % 8}/s${k}`;
  });
  const listPaths = Array.from({ length: 1000 }, (_, i) => `/api/v1/timers/q${i % 8}?limit=100&after=s${pick()}`);
  const peeks: number[] = (await client({ kind: 'reads', url: base, token, paths: peekPaths })).times;
  const lists: number[] = (await client({ kind: 'reads', url: base, token, paths: listPaths })).times;
  const timed = async (path: string) => {
    const t = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}`);
    return performance.now() - t;
  };
  const peeksInProcess: number[] = [];
  for (const path of peekPaths) peeksInProcess.push(await timed(path));
  const listsInProcess: number[] = [];
  for (const path of listPaths) listsInProcess.push(await timed(path));
  const pct = (v: number[], p: number) => round([...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(p * v.length))], 2);
  const line = {
    measure: 'reads',
    peekP50Ms: pct(peeks, 0.5),
    peekP99Ms: pct(peeks, 0.99),
    listP50Ms: pct(lists, 0.5),
    listP99Ms: pct(lists, 0.99),
    peekP99MsInProcess: pct(peeksInProcess, 0.99),
    listP99MsInProcess: pct(listsInProcess, 0.99),
  };
  emit(line);
  return line;
}

/**
 * `volume --pending=N`: schedule, reads and trickle on an empty table beside the same on a table
 * holding N timers pending 30–60 days out (tenant 'bulk', loaded in SQL), and the ratios. The two
 * tables are two databases on the same server, each with its broker in this process, and the
 * measures alternate between them (empty then loaded, loaded then empty, …): the machine's speed
 * drifts by ±20 % within a run here, and measured one half after the other, that drift was the ratio.
 */
async function measureVolume(empty: Bench) {
  const pending = flag('pending', 10_000_000);
  const full = await openBench();
  try {
    const loadStarted = performance.now();
    for (let from = 1; from <= pending; from += 500_000) {
      await full.sql.query(
        `INSERT INTO timers (tenant, queue, partition, timer_key, deliver_at, txn, message_id, payload, producer_sub)
         SELECT 'bulk', 'bulk-q' || (i % 16), 'Default', 'b' || i, now() + interval '30 days' + random() * interval '30 days',
                'b' || i, gen_random_uuid(), '\\x7b226b223a317d', 'bench'
           FROM generate_series($1::int, $2::int) AS i`,
        [from, Math.min(pending, from + 499_999)],
      );
    }
    holdingBulk.add(full.sql);
    await full.sql.query('VACUUM ANALYZE timers');
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const tableMb = (await full.sql.query(`SELECT pg_total_relation_size('timers')::float8 / 1048576 AS mb`)).rows[0].mb;
    emit({ measure: 'volumeLoaded', pending, seconds: round(loadSeconds, 1), timersTableMb: Math.round(tableMb) });
    // A checkpoint first: otherwise the measures run while the checkpointer writes out the 2.5 GB
    // the load just dirtied, and every commit's WAL flush waits behind it (seen here: 0.68–0.85×
    // and +32–73 ms) — the cost of loading ten million rows in three minutes, not of holding
    // them. A deployment accumulates them over days.
    const t = performance.now();
    await full.sql.query('CHECKPOINT');
    const checkpointSeconds = round((performance.now() - t) / 1000, 1);
    // Each measure on both sides, [empty, loaded]; which side goes first flips at every call, so
    // that neither always runs second, on a machine that warms up (or slows down) as it goes.
    let calls = 0;
    const both = async <T>(f: (b: Bench) => Promise<T>): Promise<[T, T]> => {
      if (calls++ % 2 === 0) return [await f(empty), await f(full)];
      const loaded = await f(full);
      return [await f(empty), loaded];
    };
    // One schedule run on each is not counted (the first after the checkpoint writes a full-page
    // image of every page it touches first, and a fresh broker warms up); then three on each, and
    // the median of each side.
    const warmUp = await both((b) => measureSchedule(b.broker, b.sql, b.base));
    const runs: [number[], number[]] = [[], []];
    for (let i = 0; i < 3; i++) {
      const [e, f] = await both((b) => measureSchedule(b.broker, b.sql, b.base));
      runs[0].push(e.opsPerSec);
      runs[1].push(f.opsPerSec);
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[1];
    const schedule = runs.map(median);
    const reads = await both((b) => measureReads(b.base));
    const trickle = await both((b) => measureTrickle(b.broker, b.sql));
    emit({
      measure: 'volume',
      pending,
      scheduleOpsPerSec: schedule,
      scheduleRuns: runs,
      scheduleWarmUp: warmUp.map((w) => w.opsPerSec),
      scheduleRatio: round(schedule[1] / schedule[0], 3),
      trickleP99Ms: trickle.map((x) => x.p99Ms),
      trickleP99DeltaMs: round(trickle[1].p99Ms - trickle[0].p99Ms, 2),
      peekP99Ms: reads.map((x) => x.peekP99Ms),
      listP99Ms: reads.map((x) => x.listP99Ms),
      peekP99MsInProcess: reads.map((x) => x.peekP99MsInProcess),
      listP99MsInProcess: reads.map((x) => x.listP99MsInProcess),
      checkpointSeconds,
    });
  } finally {
    await full.close();
  }
}

// node:http with keep-alive rather than fetch, as bench/client.mjs: the client shares the
// machine's two cores with the broker and PostgreSQL, and fetch spent about a third of the
// process's CPU per op here (twice node:http's), which the broker's figure then paid for.
const CLIENT_WORKER = `
const http = require('node:http');
const { parentPort, workerData: { url, token, bodies, warm, concurrency, traceparent } } = require('node:worker_threads');
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
let next = 0;
const headers = { 'content-type': 'application/json', authorization: 'Bearer ' + token, ...(traceparent ? { traceparent } : {}) };
const post = (body) => new Promise((resolve, reject) => {
  const req = http.request(
    { agent, method: 'POST', host: target.hostname, port: target.port, path: target.pathname, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error('POST /api/v1/timers -> ' + res.statusCode + ' ' + Buffer.concat(chunks).toString('utf8').slice(0, 300)));
        else resolve();
      });
      res.on('error', reject);
    },
  );
  req.on('error', reject);
  req.end(body);
});
const run = (until) => Promise.all(Array.from({ length: concurrency }, async () => { while (next < until) await post(bodies[next++]); }));
run(warm).then(
  () => {
    parentPort.once('message', () => run(bodies.length).then(() => parentPort.postMessage('done'), (err) => parentPort.postMessage(err.message)));
    parentPort.postMessage('warm');
  },
  (err) => parentPort.postMessage(err.message),
);
`;

function round(v: number, digits: number) {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** Wall times of a command over `runs` runs, fastest first (ms). */
function runTimesMs(cmd: string, argv: string[], runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(cmd, argv, { stdio: 'ignore' });
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b).map((t) => round(t, 1));
}

/** Median wall time of a command, over `runs` runs (ms). */
function medianRunMs(cmd: string, argv: string[], runs = 10): number {
  return runTimesMs(cmd, argv, runs)[runs >> 1]!;
}

/** The CLI's start target, every call (issue: first call included): `queen-timers --help` compiled. */
const CLI_TARGET_MS = 500;

/**
 * `cli`: the CLI's start as users meet it (compiled, npm install built it), beside node alone, the
 * sources through tsx and `npx queen-timers` in this checkout (npm's own start on top; no rebuild:
 * scripts/postinstall.mjs does nothing under npm exec).
 */
function measureCli() {
  const node = medianRunMs(process.execPath, ['-e', '']);
  const compiledRuns = runTimesMs(process.execPath, ['bin/queen-timers.mjs', '--help'], 10);
  const compiled = compiledRuns[5]!;
  const slowest = compiledRuns[9]!;
  const npx = medianRunMs('npx', ['--no-install', 'queen-timers', '--help'], 3);
  const tsx = medianRunMs(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--help'], 3);
  // No database in this measure: printed without emit's db field.
  console.log(
    JSON.stringify({
      measure: 'cli',
      nodeAloneMs: node,
      compiledHelpMs: compiled,
      compiledHelpMaxMs: slowest,
      npxHelpMs: npx,
      tsxHelpMs: tsx,
      compiledOverNode: round(compiled / node, 2),
      targetMs: CLI_TARGET_MS,
      withinTarget: compiled <= CLI_TARGET_MS && slowest <= CLI_TARGET_MS,
    }),
  );
}

interface Bench {
  broker: Broker;
  sql: pg.Pool;
  base: string;
  close(): Promise<void>;
}

/** A broker (sweeper off: measures start their own) on its own scratch database or in memory. */
async function openBench(): Promise<Bench> {
  const scratch = serverUrl ? await createScratchDatabase(serverUrl, 'qt_bench') : undefined;
  const config = loadConfig({
    ...process.env,
    QUEEN_JWT_SECRET: SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    QUEEN_SWEEPER_ENABLED: 'false',
    DATABASE_URL: scratch?.url ?? '',
  });
  const broker = await createBroker(config, { dataDir: 'memory://', logger: { level: config.LOG_LEVEL } });
  const base = await broker.start();
  // Embedded: the broker's one connection (a second would interleave with it, see src/db/index.ts).
  const sql = broker.db.embedded ? broker.db.pool : new pg.Pool({ connectionString: broker.db.url, max: 2 });
  return {
    broker,
    sql,
    base,
    close: async () => {
      if (sql !== broker.db.pool) await sql.end();
      await broker.close();
      await scratch?.drop();
    },
  };
}

/** The figure each measure is compared by, with or without the SDK, and whether higher is better. */
const COMPARED: Record<string, { field: string; higherIsBetter: boolean }[]> = {
  fire: [
    { field: 'framesPerSec', higherIsBetter: true },
    { field: 'ratio', higherIsBetter: true },
  ],
  schedule: [{ field: 'opsPerSec', higherIsBetter: true }],
  trickle: [{ field: 'p99Ms', higherIsBetter: false }],
};

/**
 * `--tracing=compare`: the chosen measures (default fire and schedule) in child processes of this
 * script, without the SDK and with it (--tracing), alternating which goes first in each of
 * --pairs=N pairs (the machine drifts within a run), every timer and request carrying a
 * traceparent on both sides. Prints each child's lines, then one line per pair and measure: both
 * figures, the ratio with ÷ without, and the load average before the pair.
 */
async function compareTracing(): Promise<void> {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const pairs = flag('pairs', 2);
  const chosenHere = chosen.length > 0 ? chosen : ['fire', 'schedule'];
  const passOn = args.filter((a) => a.startsWith('--') && !a.startsWith('--tracing') && !a.startsWith('--pairs'));
  const runOnce = (tracing: boolean): Record<string, Record<string, any>> => {
    const argv = [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      ...chosenHere,
      ...passOn,
      '--traceparents',
      ...(tracing ? ['--tracing'] : []),
    ];
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`bench child (tracing ${tracing}) exited ${r.status}`);
    const lines: Record<string, Record<string, any>> = {};
    for (const text of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
      console.log(text);
      const line = JSON.parse(text);
      lines[line.measure] = line;
    }
    return lines;
  };
  for (let pair = 1; pair <= pairs; pair++) {
    const load = loadavg().map((l) => round(l, 2));
    const withFirst = pair % 2 === 0;
    const first = runOnce(withFirst);
    const second = runOnce(!withFirst);
    const [withSdk, without] = withFirst ? [first, second] : [second, first];
    for (const m of chosenHere) {
      const figures: Record<string, unknown> = {};
      for (const { field } of COMPARED[m] ?? []) {
        const w = withSdk[m]?.[field];
        const o = without[m]?.[field];
        figures[field] = {
          withSdk: w,
          without: o,
          ratio: typeof w === 'number' && typeof o === 'number' && o !== 0 ? round(w / o, 3) : null,
        };
      }
      emit({ measure: 'tracingCost', of: m, pair, order: withFirst ? 'with first' : 'without first', loadAverage: load, ...figures });
    }
  }
}

async function main() {
  if (args.includes('--tracing=compare')) return compareTracing();
  if (TRACING) await registerTracing();
  if (measures.includes('peers')) {
    // Brokers and peers each in child processes of their own (bench/peers.ts): nothing opened here.
    const { runPeers } = await import('./peers.ts');
    process.exitCode = await runPeers(args);
    return;
  }
  if (measures.includes('failover')) {
    // Its own servers and brokers, each in a process of its own: nothing opened here.
    const { measureFailover } = await import('./failover.ts');
    await measureFailover({ timers: flag('n', 20_000), seconds: flag('seconds', 25), emit });
    return;
  }
  if (measures.includes('cli')) measureCli();
  if (measures.includes('footprint')) {
    const missed = await measureFootprint({ minutes: flag('minutes', 5), emit: (line) => console.log(JSON.stringify(line)) });
    for (const m of missed) console.error(`footprint over target: ${m}`);
    if (missed.length > 0) process.exitCode = 1;
  }
  if (measures.every((m) => m === 'cli' || m === 'footprint')) return;
  const bench = await openBench();
  const { broker, sql, base } = bench;
  try {
    for (const m of measures) {
      if (m === 'cli' || m === 'footprint')
        continue; // measured above, without a broker
      else if (m === 'fire') await measureFire(broker, sql);
      else if (m === 'fire-tenants') {
        // One tenant, then 10,000 tenants holding N/10,000 due timers each, then one tenant again.
        const one = [await measureFire(broker, sql, 'fire', 1)];
        const many = await measureFire(broker, sql, 'fireTenants', 10_000);
        one.push(await measureFire(broker, sql, 'fire', 1));
        emit({ measure: 'fire-tenants', tenants: 10_000, manyOverOne: round(many / ((one[0] + one[1]) / 2), 3) });
      } else if (m === 'trickle') await measureTrickleWindows(broker, sql);
      else if (m === 'trickle-new-partitions') await measureTrickleWindows(broker, sql, 'trickleNewPartitions', true);
      else if (m === 'schedule') await measureSchedule(broker, sql, base);
      else if (m === 'volume') await measureVolume(bench);
      else if (m === 'fire-history') await measureFireHistory(broker, sql);
      else if (m === 'queue-index') await measureQueueIndex(broker, sql, base);
      else if (m === 'dashboard') await measureDashboard({ sql, base, secret: SECRET, pending: flag('pending', 5_000_000), emit });
      else if (m === 'soak') {
        await measureSoak({
          broker,
          sql,
          base,
          secret: SECRET,
          emit,
          minutes: flag('minutes', 30),
          sampleSeconds: flag('sample-seconds', 60),
          schedulePerSecond: flag('schedule-rate', 2_000),
          pushPerSecond: flag('push-rate', 2_000),
        });
      } else if (m === 'trickle-busy') {
        // As configured, then with the window at 0 (emitted as logTrickleWindow0).
        const cfg = broker.services.config;
        const configured = cfg.QUEEN_SWEEPER_HANDOFF_MS;
        for (const [label, window] of [
          ['logTrickle', configured],
          ['logTrickleWindow0', 0],
        ] as const) {
          cfg.QUEEN_SWEEPER_HANDOFF_MS = window;
          try {
            await measureBusyTrickle({
              broker,
              sql,
              base,
              secret: SECRET,
              trickle: (load) => measureTrickle(broker, sql, load, label),
              busyMs: BUSY_MS,
              backlog: BUSY_BACKLOG,
            });
          } finally {
            cfg.QUEEN_SWEEPER_HANDOFF_MS = configured;
          }
        }
      } else if (m === 'log-bootstrap') {
        await measureGroupBootstrap({ broker, sql, base, secret: SECRET, emit });
      } else if (m === 'log') {
        await measureLog({
          partitionPops: flag('log-pops', 200),
          broker,
          sql,
          base,
          secret: SECRET,
          emit,
          trickle: (load) => measureTrickle(broker, sql, load, 'logTrickle'),
          busyMs: BUSY_MS,
          backlog: BUSY_BACKLOG,
        });
      } else throw new Error(`unknown measure ${m}`);
    }
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
