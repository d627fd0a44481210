// `npm run bench -- soak --minutes=N [--sample-seconds=60]`: a steady mixed load with retention on,
// to see whether anything grows. The HTTP load (bench/client.mjs `soak`: schedules and pushes at
// fixed rates, queue-mode consumers popping and acking everything) runs in a child process; the
// broker (this process) fires with its sweeper and prunes with its retention passes
// (completedRetentionSeconds 60 on the loaded queues). A probe timer every 50 ms, due 1–2 s later,
// goes to a queue without retention: its frames give the fire lag over time.
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
         RETURNING (extract(epoch FROM deliver_at) * 1000)::float8 AS d`,
        [`probe-${i}`],
      );
      broker.services.notifier.timerScheduled(r.rows[0].d);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();

  const lagP99 = async (fromMs: number, toMs: number) =>
    (
      await sql.query(
        `SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - deliver_at) * 1000) AS p
           FROM messages WHERE tenant = 'bench' AND queue = 'soak-probe'
            AND created_at >= to_timestamp($1 / 1000.0) AND created_at < to_timestamp($2 / 1000.0)`,
        [fromMs, toMs],
      )
    ).rows[0].p as number | null;
  const samples: Sample[] = [];
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
      lagP99Ms: await lagP99(samples.length ? t0 + samples[samples.length - 1].atS * 1000 : t0, now),
      rssMb: round(process.memoryUsage().rss / 2 ** 20),
    };
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
  const firstLag = await lagP99(t0, t0 + windowS * 1000);
  const lastLag = await lagP99(t0 + (seconds - windowS) * 1000, t0 + seconds * 1000);
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
