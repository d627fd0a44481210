// `npm run bench -- dashboard [--pending=5000000]`: the dashboard's read routes on one queue
// holding --pending timers (inserted in SQL, spread over the next 90 days, 1 % overdue), timed over
// HTTP like a browser's calls, beside a peek of one timer in the same run as the reference.
// Target: the overview of that queue answers within 200 ms (p50 and p99 of 20 calls).
import type pg from 'pg';
import { mintToken } from '../src/auth.ts';

export const OVERVIEW_TARGET_MS = 200;
const CALLS = 20;
const CHUNK = 500_000;

interface DashboardBench {
  sql: pg.Pool;
  base: string;
  secret: string;
  pending: number;
  emit(line: Record<string, unknown>): void;
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function load(sql: pg.Pool, pending: number): Promise<number> {
  const started = performance.now();
  await sql.query(`INSERT INTO tenants (tenant) VALUES ('dash') ON CONFLICT DO NOTHING`);
  await sql.query(`INSERT INTO queues (tenant, name) VALUES ('dash', 'big') ON CONFLICT DO NOTHING`);
  await sql.query(`INSERT INTO partitions (tenant, queue, name) VALUES ('dash', 'big', 'Default') ON CONFLICT DO NOTHING`);
  const payload = Buffer.from('{"kind":"reminder","user":12345}');
  for (let from = 1; from <= pending; from += CHUNK) {
    const to = Math.min(pending, from + CHUNK - 1);
    // 1 % overdue by up to a minute, the rest spread over 90 days.
    await sql.query(
      `INSERT INTO timers (tenant, queue, partition, timer_key, deliver_at, txn, message_id, payload, producer_sub)
       SELECT 'dash', 'big', 'Default', 'user/' || i, now() + CASE WHEN i % 100 = 0 THEN -random() * interval '1 minute'
                                                                ELSE random() * interval '90 days' END,
              'txn-' || i, gen_random_uuid(), $1, 'bench'
         FROM generate_series($2::int, $3::int) AS i`,
      [payload, from, to],
    );
  }
  await sql.query('VACUUM ANALYZE timers');
  return (performance.now() - started) / 1000;
}

async function time(base: string, token: string, path: string): Promise<{ p50: number; p99: number; max: number; body: any }> {
  const ms: number[] = [];
  let body: any;
  for (let i = 0; i < CALLS + 2; i++) {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    body = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    if (i >= 2) ms.push(performance.now() - t0); // two warm-up calls
  }
  ms.sort((a, b) => a - b);
  return { p50: round(pct(ms, 0.5)), p99: round(pct(ms, 0.99)), max: round(ms[ms.length - 1]!), body };
}

export async function measureDashboard(o: DashboardBench): Promise<void> {
  const loadSeconds = await load(o.sql, o.pending);
  const token = await mintToken(o.secret, { tenant: 'dash', sub: 'bench', grants: ['read'] });
  const peek = await time(o.base, token, '/api/v1/timers/big/user/42');
  const overview = await time(o.base, token, '/api/v1/overview?queue=big');
  const forecast = await time(o.base, token, '/api/v1/forecast/big');
  const fireLag = await time(o.base, token, '/api/v1/fire-lag?queue=big&minutes=60');
  const byDeliverAt = await time(o.base, token, '/api/v1/timers/big?order=deliverAt&limit=100');
  const byKey = await time(o.base, token, '/api/v1/timers/big?limit=100');
  const byPrefix = await time(o.base, token, '/api/v1/timers/big?prefix=user/4242&limit=100');
  const row = overview.body.rows[0];
  const strip = (t: { p50: number; p99: number; max: number }) => ({ p50: t.p50, p99: t.p99, max: t.max });
  o.emit({
    measure: 'dashboard',
    pending: o.pending,
    loadSeconds: round(loadSeconds),
    overviewMs: strip(overview),
    overviewOverPeek: round(overview.p50 / peek.p50, 1),
    peekMs: strip(peek),
    forecastMs: strip(forecast),
    fireLagMs: strip(fireLag),
    listByKeyMs: strip(byKey),
    listByDeliverAtMs: strip(byDeliverAt),
    listByPrefixMs: strip(byPrefix),
    overviewSays: { pending: row.pending, overdue: row.overdue, nextDay: row.due.nextDay },
    forecastDaysEstimated: forecast.body.byDay.filter((b: any) => b.count.basis === 'estimate').length,
    targetMs: OVERVIEW_TARGET_MS,
    withinTarget: overview.p99 <= OVERVIEW_TARGET_MS,
  });
}
