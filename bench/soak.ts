// `npm run bench -- soak --minutes=N [--sample-seconds=60]`: a steady mixed load with retention on,
// to see whether anything grows. The HTTP load (bench/client.mjs `soak`: schedules and pushes at
// fixed rates, queue-mode consumers popping and acking everything) runs in a child process; the
// broker (this process) fires with its sweeper and prunes with its retention passes
// (completedRetentionSeconds 60 on the loaded queues). A probe timer every 50 ms, due 1–2 s later,
// goes to a queue nobody consumes: its frames give the fire lag over time. Its frames are kept
// 180 s (retentionSeconds): every sample reads the lags since the previous one and keeps them, so
// the windows' p99 do not depend on frames long pruned — and nothing in the log is kept forever,
// as nothing would be in a deployment whose size is meant to stay flat.
// Every sample: the size of the timers, messages, message_deliveries and partition_consumers tables
// with their indexes, their dead tuples, the probe's fire lag p99 since the previous sample and the
// broker's RSS (this process: the load runs elsewhere). Emits every sample, then the summary: the
// tables' size at the end ÷ after the first window (5 minutes, or a third of a shorter run), the
// lag p99 of the last window ÷ the first, the RSS at the end ÷ after the first window.
import type pg from 'pg';
import { mintToken } from '../src/auth.ts';
import type { Broker } from '../src/broker.ts';
import { startSweeper } from '../src/sweeper/index.ts';
import { client, resetLog } from './log.ts';

export interface SoakContext {
  broker: Broker;
  sql: pg.Pool;
  base: string;
  secret: string;
  emit: (o: Record<string, unknown>) => void;
  minutes: number;
  sampleSeconds: number;
  schedulePerSecond: number;
  pushPerSecond: number;
}

const QUEUES = ['soak-a', 'soak-b', 'soak-c', 'soak-d'];
const TABLES = ['timers', 'messages', 'message_deliveries', 'partition_consumers'];
const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

interface Sample {
  atS: number;
  mb: Record<string, number>;
  totalMb: number;
  deadTuples: Record<string, number>;
  lagP99Ms: number | null;
  rssMb: number;
}

export async function measureSoak(ctx: SoakContext) {
  const { broker, sql, emit } = ctx;
  await resetLog(sql);
  const token = await mintToken(ctx.secret, { tenant: 'bench', sub: 'bench', grants: ['produce', 'consume', 'read'] });
  await broker.services.tenants.ensure('bench');
  for (const queue of QUEUES) {
    const res = await fetch(`${ctx.base}/api/v1/configure`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ queue, options: { completedRetentionSeconds: 60 } }),
    });
    if (!res.ok) throw new Error(`configure ${queue} → ${res.status}`);
  }
  const probeConfigured = await fetch(`${ctx.base}/api/v1/configure`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ queue: 'soak-probe', options: { retentionSeconds: 180 } }),
  });
  if (!probeConfigured.ok) throw new Error(`configure soak-probe → ${probeConfigured.status}`);
  const sweeper = startSweeper(broker.services);
  const seconds = ctx.minutes * 60;
  const t0 = Date.now();
  const load = client({
    kind: 'soak',
    url: ctx.base,
    token,
    seconds,
    schedulePerSecond: ctx.schedulePerSecond,
    pushPerSecond: ctx.pushPerSecond,
    consumers: 4,
    queues: QUEUES,
  });

  let probing = true;
  const probe = (async () => {
    for (let i = 0; probing; i++) {
      const r = await sql.query(
        `INSERT INTO timers (tenant, queue, timer_key, deliver_at, txn, message_id, payload, producer_sub)
         VALUES ('bench', 'soak-probe', $1, now() + (1000 + random() * 1000) * interval '1 millisecond', $1, gen_random_uuid(), '\\x7b7d', 'bench')
         RETURNING (extract(epoch FROM deliver_at) * 1000)::float8 AS d, (extract(epoch FROM now()) * 1000)::float8 AS n`,
        [`probe-${i}`],
      );
      broker.services.notifier.timerScheduled(r.rows[0].d, r.rows[0].n);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();

  // Every probe frame's fire lag, by when it entered the log (read once per sample).
  const lags: { atMs: number; lagMs: number }[] = [];
  const readLags = async (fromMs: number, toMs: number) => {
    const r = await sql.query(
      `SELECT (extract(epoch FROM created_at) * 1000)::float8 AS at, (extract(epoch FROM created_at - deliver_at) * 1000)::float8 AS lag
         FROM messages WHERE tenant = 'bench' AND queue = 'soak-probe'
          AND created_at >= to_timestamp($1 / 1000.0) AND created_at < to_timestamp($2 / 1000.0)`,
      [fromMs, toMs],
    );
    const read = r.rows.map((row) => ({ atMs: row.at as number, lagMs: row.lag as number }));
    lags.push(...read);
    return read;
  };
  const p99 = (values: number[]) => {
    if (values.length === 0) return null;
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  };
  const lagP99 = (fromMs: number, toMs: number) => p99(lags.filter((l) => l.atMs >= fromMs && l.atMs < toMs).map((l) => l.lagMs));
  const samples: Sample[] = [];
  let lagsReadTo = t0;
  const sample = async (): Promise<Sample> => {
    const now = Date.now();
    const sizes = await sql.query(
      `SELECT c.relname AS t, pg_total_relation_size(c.oid)::float8 AS bytes, coalesce(s.n_dead_tup, 0)::float8 AS dead
         FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
        WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r'`,
      [TABLES],
    );
    const mb: Record<string, number> = Object.fromEntries(sizes.rows.map((r) => [r.t as string, round(r.bytes / 2 ** 20)]));
    const s: Sample = {
      atS: Math.round((now - t0) / 1000),
      mb,
      totalMb: round(Object.values(mb).reduce((a, b) => a + b, 0)),
      deadTuples: Object.fromEntries(sizes.rows.map((r) => [r.t, r.dead])),
      lagP99Ms: p99((await readLags(lagsReadTo, now)).map((l) => l.lagMs)),
      rssMb: round(process.memoryUsage().rss / 2 ** 20),
    };
    lagsReadTo = now;
    samples.push(s);
    emit({ measure: 'soakSample', ...s, lagP99Ms: s.lagP99Ms === null ? null : round(s.lagP99Ms) });
    return s;
  };
  while (Date.now() - t0 < seconds * 1000) {
    await new Promise((res) => setTimeout(res, Math.min(ctx.sampleSeconds * 1000, t0 + seconds * 1000 - Date.now())));
    await sample();
  }
  probing = false;
  await probe;
  const loadResult = await load;
  await sweeper.stop();

  const windowS = Math.min(300, seconds / 3);
  const firstWindow = samples.find((s) => s.atS >= windowS) ?? samples[0];
  const last = samples[samples.length - 1];
  const firstLag = lagP99(t0, t0 + windowS * 1000);
  const lastLag = lagP99(t0 + (seconds - windowS) * 1000, t0 + seconds * 1000);
  emit({
    measure: 'soak',
    minutes: ctx.minutes,
    load: loadResult,
    windowSeconds: windowS,
    first: firstWindow,
    last,
    tablesRatio: round(last.totalMb / firstWindow.totalMb),
    timersAndMessagesRatio: round((last.mb.timers + last.mb.messages) / (firstWindow.mb.timers + firstWindow.mb.messages)),
    lagP99FirstMs: firstLag === null ? null : round(firstLag),
    lagP99LastMs: lastLag === null ? null : round(lastLag),
    lagRatio: firstLag && lastLag ? round(lastLag / firstLag) : null,
    rssRatio: round(last.rssMb / firstWindow.rssMb),
  });
}
