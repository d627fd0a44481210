// /metrics as an operator reads it: request latency by route template (docs not counted), the
// per-queue gauges with their bounded series, build info.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePercent, sampleQueueGauges } from '../src/maintenance/queueGauges.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, b64, pop, push } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  // Two series per gauge, so the third queue is left out; sampled by hand (the interval is an hour).
  tb = await startTestBroker({ env: { QUEEN_METRICS_QUEUES: '2', QUEEN_METRICS_QUEUE_INTERVAL_MS: '3600000' } });
});
afterAll(() => tb?.close());

const metrics = async () => (await tb.broker.app.inject({ method: 'GET', url: '/metrics' })).body;
const schedule = (queue: string, timerKey: string, delayMs: number) =>
  api(tb, 'POST', '/api/v1/timers', { body: { operations: [{ op: 'schedule', queue, timerKey, delayMs, payload: b64('{}') }] } });

describe('request metrics', () => {
  it('observes latency by method and route template, and leaves the docs out', async () => {
    await api(tb, 'GET', '/api/v1/timers/reminders/a/b/c');
    await api(tb, 'GET', '/api/v1/timers/reminders/other');
    await tb.broker.app.inject({ method: 'GET', url: '/docs/static/index.html' });
    await tb.broker.app.inject({ method: 'GET', url: '/docs/json' });
    expect((await tb.broker.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    const text = await metrics();
    expect(text).toMatch(
      /queen_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/timers\/\{queue\}\/\{timerKey\}",status="200"\} 2/,
    );
    expect(text).toMatch(/queen_http_requests_total\{method="GET",route="\/api\/v1\/timers\/\{queue\}\/\{timerKey\}",status="200"\} 2/);
    expect(text).not.toMatch(/route="\/docs/);
    expect(text).not.toMatch(/route="\/openapi\.json/);
    expect(text).not.toMatch(/route="GET /);
  });

  it('says which build runs', async () => {
    const version = JSON.parse((await import('node:fs')).readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
    const database = tb.broker.db.embedded ? 'embedded' : 'postgres';
    expect(await metrics()).toContain(`queen_build_info{version="${version}",node="${process.version}",database="${database}"} 1`);
  });
});

describe('per-queue gauges', () => {
  it('report pending timers, the oldest overdue age and dead letters for the largest queues only', async () => {
    for (let i = 0; i < 3; i++) expect((await schedule('big', `k${i}`, 3_600_000)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await schedule('mid', `k${i}`, 3_600_000)).status).toBe(200);
    expect((await schedule('small', 'k0', 3_600_000)).status).toBe(200);
    // One timer overdue by a minute (the sweeper is off in this broker), in queue "late".
    expect((await schedule('late', 'k0', 1)).status).toBe(200);
    await tb.sql.query(`UPDATE timers SET deliver_at = now() - interval '60 seconds' WHERE queue = 'late'`);
    // A dead letter in queue "events".
    await push(tb, [{ queue: 'events', payload: 1 }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/events')).body.messages;
    await ack(tb, frame, { status: 'dlq', error: 'unreadable' });

    await tb.broker.queueStats!.runOnce();
    const text = await metrics();
    expect(text).toContain('queen_queue_timers_pending{tenant="acme",queue="big"} 3');
    expect(text).toContain('queen_queue_timers_pending{tenant="acme",queue="mid"} 2');
    expect(text).not.toContain('queen_queue_timers_pending{tenant="acme",queue="small"}');
    const age = Number(/queen_queue_timers_overdue_age_seconds\{tenant="acme",queue="late"\} (\S+)/.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(60);
    expect(text).toContain('queen_queue_dead_letters{tenant="acme",queue="events"} 1');
    // HELP says what the figures are and how they are bounded.
    expect(text).toMatch(/# HELP queen_queue_timers_pending .*QUEEN_METRICS_QUEUES largest queues/);

    // A queue that emptied drops out at the next sample.
    await tb.sql.query(`DELETE FROM timers WHERE queue = 'big'`);
    await tb.broker.queueStats!.runOnce();
    expect(await metrics()).not.toContain('queue="big"');
  });

  it('estimate a large table from a bounded block sample, scaled to the row estimate', async () => {
    await tb.sql.query(
      `INSERT INTO timers (tenant, queue, partition, timer_key, deliver_at, txn, message_id, payload, producer_sub)
       SELECT 'sampled', CASE WHEN i <= 3000 THEN 'three' ELSE 'one' END, 'Default', 's' || i, now() + interval '1 day',
              's' || i, gen_random_uuid(), '\\x7b7d', 'test'
         FROM generate_series(1, 4000) AS i`,
    );
    await tb.sql.query('ANALYZE timers');
    // Past its exact limit (here 100 rows), with a sample as large as the table: every page read,
    // so the scaled counts are the true ones, whatever the machine.
    await sampleQueueGauges(tb.broker.db, tb.broker.services.metrics, { series: 2, exactRows: 100, samplePages: 1_000_000 });
    const text = await metrics();
    expect(text).toContain('queen_queue_timers_pending{tenant="sampled",queue="three"} 3000');
    expect(text).toContain('queen_queue_timers_pending{tenant="sampled",queue="one"} 1000');
    // The sample reads about samplePages of a table's pages: ten million timers are ~312,000 pages.
    expect(samplePercent(312_000, 256)).toBeCloseTo(0.082, 3);
    expect(samplePercent(100, 256)).toBe(100);
    await tb.sql.query(`DELETE FROM timers WHERE tenant = 'sampled'`);
  });
});
