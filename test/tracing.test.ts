// Tracing (docs/tracing.md): with an SDK registered, the broker's spans continue the caller's W3C
// traceparent; a malformed traceparent is ignored (a new trace), never refused.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type Message } from '../sdk/src/index.ts';
import { normaliseTraceparent, parseTraceparent, traceIdAsUuid, tracingInstalled } from '../src/tracing.ts';
import { api, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { rejectQueue } from './helpers/timers.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

let tb: TestBroker;
beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  tb = await startTestBroker({ sweeper: true, listen: true });
});
afterAll(async () => {
  await tb?.close();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const spanNamed = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name);

describe('traceparent parsing', () => {
  it('reads a version-00 traceparent and refuses the malformed ones the W3C spec names', () => {
    expect(parseTraceparent(CALLER)).toMatchObject({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: 1 });
    for (const bad of [
      '',
      'garbage',
      `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`,
      `00-${TRACE_ID}-00f067aa0ba902b-01`,
    ]) {
      expect(parseTraceparent(bad), bad).toBeUndefined();
    }
    expect(normaliseTraceparent(`01-${TRACE_ID}-00f067aa0ba902b7-03-future`)).toBe(`00-${TRACE_ID}-00f067aa0ba902b7-01`);
    expect(traceIdAsUuid(CALLER)).toBe('4bf92f35-77b3-4da6-a3ce-929d0e0e4736');
  });
});

describe('HTTP spans', () => {
  it('a request continues the caller traceparent in a SERVER span named by its route template', async () => {
    const res = await api(tb, 'POST', '/api/v1/push', {
      body: { items: [{ queue: 'trace-http', payload: { n: 1 } }] },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(201);
    const span = spanNamed('POST /api/v1/push');
    expect(span).toBeDefined();
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span!.attributes).toMatchObject({
      'http.route': '/api/v1/push',
      'http.request.method': 'POST',
      'http.response.status_code': 201,
    });
  });

  it('a malformed traceparent is ignored: the request succeeds in a new trace', async () => {
    const res = await api(tb, 'POST', '/api/v1/push', {
      body: { items: [{ queue: 'trace-http', payload: { n: 2 } }] },
      headers: { traceparent: '00-not-a-trace-01' },
    });
    expect(res.status).toBe(201);
    const span = spanNamed('POST /api/v1/push');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
  });
});

/** The attributes of a span, its links and its events: where a payload must never appear. */
const everyAttribute = (span: ReadableSpan) =>
  JSON.stringify([span.attributes, span.links.map((l) => l.attributes ?? {}), span.events.map((e) => e.attributes ?? {})]);

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The SERVER span of the request whose route template is `route`, the last one finished. */
const serverSpan = (route: string) =>
  exporter
    .getFinishedSpans()
    .filter((s) => s.kind === SpanKind.SERVER && s.name === route)
    .at(-1);

/** Pops `queue`'s one frame (waiting for the fire, if any), in requests of their own. */
async function popFrame(queue: string) {
  const res = await waitFor(async () => {
    const r = await api(tb, 'GET', `/api/v1/pop/queue/${queue}?wait=false`);
    return r.status === 200 ? r : undefined;
  });
  expect(res.body.messages).toHaveLength(1);
  return res.body.messages[0];
}

/**
 * The consumer's half of the chain, from the frame a producer's request stored `storedSpanId`
 * for: the pop links to that span and is a child of its own request; the ack, sent with the
 * frame's traceparent as a consumer continuing it does, is in the producer's trace, its request a
 * child of the producer's span. Both carry the attributes a user filters by.
 */
async function consumeAndCheck(queue: string, storedSpanId: string) {
  const frame = await popFrame(queue);
  expect(frame.traceparent).toBe(`00-${TRACE_ID}-${storedSpanId}-01`);
  expect(frame.traceId).toBe(traceIdAsUuid(CALLER));

  const pop = exporter
    .getFinishedSpans()
    .find(
      (s) =>
        s.name === 'pop' && s.attributes['messaging.destination.name'] === queue && s.attributes['messaging.batch.message_count'] === 1,
    )!;
  expect(pop.kind).toBe(SpanKind.CONSUMER);
  expect(pop.attributes).toMatchObject({
    'messaging.system': 'queen-timers',
    'messaging.operation.type': 'receive',
    'messaging.consumer.group.name': '__QUEUE_MODE__',
    'queen.tenant': 'acme',
    'queen.partition': frame.partition ?? 'Default',
    'queen.txn': frame.transactionId,
    'messaging.message.id': frame.id,
  });
  expect(pop.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[TRACE_ID, storedSpanId]]);
  const popRequest = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === pop.parentSpanContext?.spanId)!;
  expect(popRequest.name).toBe('GET /api/v1/pop/queue/{queue}');
  expect(popRequest.attributes['queen.tenant']).toBe('acme');

  const acked = await api(tb, 'POST', '/api/v1/ack', {
    body: { transactionId: frame.transactionId, partitionId: frame.partitionId, leaseId: frame.leaseId, status: 'completed' },
    headers: { traceparent: frame.traceparent },
  });
  expect(acked.status).toBe(200);
  const ackRequest = serverSpan('POST /api/v1/ack')!;
  expect(ackRequest.spanContext().traceId).toBe(TRACE_ID);
  expect(ackRequest.parentSpanContext?.spanId).toBe(storedSpanId);
  expect(ackRequest.attributes['queen.tenant']).toBe('acme');
  const ack = exporter.getFinishedSpans().find((s) => s.name === 'ack' && s.attributes['queen.txn'] === frame.transactionId)!;
  expect(ack.kind).toBe(SpanKind.CONSUMER);
  expect(ack.parentSpanContext?.spanId).toBe(ackRequest.spanContext().spanId);
  expect(ack.attributes).toMatchObject({
    'messaging.system': 'queen-timers',
    'messaging.operation.type': 'settle',
    'messaging.destination.name': queue,
    'queen.tenant': 'acme',
    'queen.partition': 'Default',
    'queen.status': 'completed',
    'queen.refused': 0,
  });
  return frame;
}

/** The fire batch that fired `timerKey`: its link to the scheduling span, the claim it is a child of. */
function checkFire(queue: string, timerKey: string, storedSpanId: string, frame: { transactionId: string; id: string }) {
  const fire = exporter.getFinishedSpans().find((s) => s.name === 'fire timers' && s.links.some((l) => l.context.spanId === storedSpanId))!;
  expect(fire).toBeDefined();
  expect(fire.kind).toBe(SpanKind.PRODUCER);
  expect(fire.attributes).toMatchObject({
    'messaging.system': 'queen-timers',
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'fire',
    'queen.fired': 1,
  });
  const link = fire.links.find((l) => l.context.spanId === storedSpanId)!;
  expect(link.context.traceId).toBe(TRACE_ID);
  expect(link.attributes).toEqual({
    'queen.tenant': 'acme',
    'messaging.destination.name': queue,
    'queen.partition': 'Default',
    'queen.timer_key': timerKey,
    'queen.txn': frame.transactionId,
    'messaging.message.id': frame.id,
  });
  // Due when the sweeper found it, the timer was locked by the fire's own transaction, not claimed
  // ahead (src/sweeper/fireDue.ts): the fire is a root span, and no claim span took it.
  expect(fire.parentSpanContext).toBeUndefined();
}

describe('a traceparent carried from the producer to the consumer, end to end', () => {
  it('a timer: schedule → claim → fire → pop → ack, linked and in one trace, no payload in any attribute', async () => {
    const payload = b64('{"secret":"timer-payload"}');
    const res = await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'trace-timer', timerKey: 'k1', delayMs: 0, payload }] },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(200);
    const server = serverSpan('POST /api/v1/timers')!;
    expect(server.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(server.attributes).toMatchObject({ 'queen.tenant': 'acme', 'http.route': '/api/v1/timers', 'http.response.status_code': 200 });
    const stored = server.spanContext().spanId;

    const frame = await consumeAndCheck('trace-timer', stored);
    checkFire('trace-timer', 'k1', stored, frame);

    // The SDK this file registers is seen, so the one statement below returns the fired timers for the links.
    expect(tracingInstalled()).toBe(true);
    // Its partition holds a frame now: on PostgreSQL the next due timer is chosen and fired by one
    // statement, whose span is recorded once it has run (src/sweeper/fireDue.ts); linked the same way.
    await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'trace-timer', timerKey: 'k2', delayMs: 0, payload }] },
      headers: { traceparent: CALLER },
    });
    const second = serverSpan('POST /api/v1/timers')!.spanContext().spanId;
    expect(second).not.toBe(stored);
    checkFire('trace-timer', 'k2', second, await popFrame('trace-timer'));
    for (const span of exporter.getFinishedSpans()) {
      expect(everyAttribute(span)).not.toContain(payload);
      expect(everyAttribute(span)).not.toContain('timer-payload');
    }
  });

  it('a push: push → pop → ack; a traceId the producer gave wins for Queen’s field', async () => {
    const res = await api(tb, 'POST', '/api/v1/push', {
      body: { items: [{ queue: 'trace-push', payload: { secret: 'push-payload' } }] },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(201);
    const server = serverSpan('POST /api/v1/push')!;
    expect(server.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(server.attributes['queen.tenant']).toBe('acme');
    await consumeAndCheck('trace-push', server.spanContext().spanId);

    await api(tb, 'POST', '/api/v1/push', {
      body: { items: [{ queue: 'trace-push-id', payload: 2, traceId: '11111111-2222-4333-8444-555555555555' }] },
      headers: { traceparent: CALLER },
    });
    const own = await popFrame('trace-push-id');
    expect(own.traceId).toBe('11111111-2222-4333-8444-555555555555');
    expect(own.traceparent).toBe(`00-${TRACE_ID}-${serverSpan('POST /api/v1/push')!.spanContext().spanId}-01`);
    for (const span of exporter.getFinishedSpans()) expect(everyAttribute(span)).not.toContain('push-payload');
  });

  it('a schedule’s occurrence: PUT → materialize → claim → fire → pop → ack, the fire linked to the PUT', async () => {
    const payload = b64('{"secret":"schedule-payload"}');
    const res = await api(tb, 'PUT', '/api/v1/schedules/trace-sched/beat', {
      body: { cron: '* * * * *', payload },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(200);
    const server = serverSpan('PUT /api/v1/schedules/{queue}/{scheduleKey}')!;
    expect(server.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(server.attributes['queen.tenant']).toBe('acme');
    const stored = server.spanContext().spanId;
    expect((await tb.sql.query(`SELECT traceparent FROM schedules WHERE queue = 'trace-sched'`)).rows).toEqual([
      { traceparent: `00-${TRACE_ID}-${stored}-01` },
    ]);
    // Its first occurrence is due within the minute: materialize it now rather than wait for the
    // lookahead, and make that one occurrence due now.
    await tb.sql.query(`UPDATE schedules SET materialize_at = now() WHERE queue = 'trace-sched'`);
    const occurrence = await waitFor(
      async () =>
        (await tb.sql.query(`SELECT timer_key, traceparent FROM timers WHERE queue = 'trace-sched' ORDER BY deliver_at, timer_key LIMIT 1`))
          .rows[0],
    );
    expect(occurrence.traceparent).toBe(`00-${TRACE_ID}-${stored}-01`);
    await tb.sql.query(`UPDATE timers SET deliver_at = now() WHERE queue = 'trace-sched' AND timer_key = $1`, [occurrence.timer_key]);
    tb.broker.services.notifier.timerScheduled(Date.now(), Date.now());

    const frame = await consumeAndCheck('trace-sched', stored);
    // The frame is that occurrence's: the log keeps the timer key it fired from.
    const fired = await tb.sql.query(`SELECT timer_key FROM messages WHERE transaction_id = $1`, [frame.transactionId]);
    expect(fired.rows).toEqual([{ timer_key: occurrence.timer_key }]);
    checkFire('trace-sched', occurrence.timer_key, stored, frame);
    for (const span of exporter.getFinishedSpans()) {
      expect(everyAttribute(span)).not.toContain(payload);
      expect(everyAttribute(span)).not.toContain('schedule-payload');
    }
  });
});

describe('a fire that fails', () => {
  // A broker of its own, its sweeper driven pass by pass: nothing else claims the timer first.
  let fb: TestBroker;
  beforeAll(async () => {
    fb = await startTestBroker({ sweeper: 'driven' });
  });
  afterAll(() => fb?.close());

  it('records its span with status ERROR and the database’s message: the due fire’s, then the claimed batch’s, linked', async () => {
    // The partition has held a frame, so on PostgreSQL the due timer is first taken by the one
    // statement (fireDue.ts, firedSpan); its failure sends the pass to claim it and fire the claimed
    // batch (pass.ts, fireSpan), which fails too and backs the timer off.
    expect((await api(fb, 'POST', '/api/v1/push', { body: { items: [{ queue: 'trace-fail', payload: 1 }] } })).status).toBe(201);
    await rejectQueue(fb.sql, 'trace-fail');
    const res = await api(fb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'trace-fail', timerKey: 'f1', delayMs: 0, payload: b64('1') }] },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(200);
    const stored = serverSpan('POST /api/v1/timers')!.spanContext().spanId;
    expect(await fb.sweeper!.sweepOnce()).toEqual({ claimed: 1, fired: 0, failed: 1 });
    const timer = (await fb.sql.query(`SELECT attempts, last_error FROM timers WHERE queue = 'trace-fail'`)).rows[0];
    expect(timer.attempts).toBe(1);
    expect(timer.last_error).toMatch(/^permanent: P0001: queue trace-fail rejects frames/);

    const failed = exporter.getFinishedSpans().filter((s) => s.name === 'fire timers' && s.status.code === SpanStatusCode.ERROR);
    expect(failed).toHaveLength(2);
    for (const span of failed) {
      expect(span.kind).toBe(SpanKind.PRODUCER);
      expect(span.status.message).toMatch(/queue trace-fail rejects frames/);
      expect(span.attributes).toMatchObject({ 'messaging.system': 'queen-timers', 'messaging.operation.name': 'fire' });
      // Nothing fired: no outcome is claimed for it.
      expect(span.attributes['queen.fired']).toBeUndefined();
    }
    // First the due timer's own fire, a root span: on PostgreSQL the one statement's, which knows no
    // timers (it never returned them); embedded, the two statements', linked.
    const [due, claimed] = failed;
    expect(due.parentSpanContext).toBeUndefined();
    expect(due.links.map((l) => l.context.spanId)).toEqual(onRealPostgres ? [] : [stored]);
    // Then the claimed batch's: a child of its claim, linked to the request that scheduled the timer.
    expect(claimed.links.map((l) => l.context.spanId)).toEqual([stored]);
    expect(claimed.attributes).toMatchObject({ 'messaging.batch.message_count': 1, 'queen.timer_key': 'f1' });
    const claim = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === claimed.parentSpanContext?.spanId);
    expect(claim?.name).toBe('claim timers');
  });
});

describe('a bad traceparent is ignored, never refused', () => {
  const BAD = [
    'garbage',
    '00-not-a-trace-01',
    `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`,
    `00-${TRACE_ID}-00f067aa0ba902b7-01${'x'.repeat(4000)}`,
    '',
  ];

  it('on every route that stores one: the request succeeds in a new trace and stores that, not the header', async () => {
    for (const [i, bad] of BAD.entries()) {
      exporter.reset();
      const headers = { traceparent: bad };
      const timers = await api(tb, 'POST', '/api/v1/timers', {
        body: { operations: [{ op: 'schedule', queue: 'trace-bad', timerKey: `t${i}`, delayMs: 3_600_000, payload: b64('1') }] },
        headers,
      });
      const push = await api(tb, 'POST', '/api/v1/push', { body: { items: [{ queue: 'trace-bad', payload: i }] }, headers });
      const schedule = await api(tb, 'PUT', `/api/v1/schedules/trace-bad/s${i}`, {
        body: { cron: '0 0 1 1 *', payload: b64('1') },
        headers,
      });
      const pop = await api(tb, 'GET', '/api/v1/pop/queue/trace-bad?wait=false', { headers });
      const ack = await api(tb, 'POST', '/api/v1/ack', {
        body: {
          transactionId: pop.body.messages[0].transactionId,
          partitionId: pop.body.messages[0].partitionId,
          leaseId: pop.body.messages[0].leaseId,
          status: 'completed',
        },
        headers,
      });
      expect([timers.status, push.status, schedule.status, pop.status, ack.status], JSON.stringify(bad.slice(0, 40))).toEqual([
        200, 201, 200, 200, 200,
      ]);
      const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
      expect(servers).toHaveLength(5);
      for (const span of servers) {
        expect(span.parentSpanContext).toBeUndefined();
        expect(span.spanContext().traceId).not.toBe(TRACE_ID);
      }
      // What was stored is the new trace's span, never the header.
      const own = (route: string) => `00-${serverSpan(route)!.spanContext().traceId}-${serverSpan(route)!.spanContext().spanId}-01`;
      expect(pop.body.messages[0].traceparent).toBe(own('POST /api/v1/push'));
      const timer = await tb.sql.query(`SELECT traceparent FROM timers WHERE queue = 'trace-bad' AND timer_key = $1`, [`t${i}`]);
      expect(timer.rows).toEqual([{ traceparent: own('POST /api/v1/timers') }]);
      const sched = await tb.sql.query(`SELECT traceparent FROM schedules WHERE queue = 'trace-bad' AND schedule_key = $1`, [`s${i}`]);
      expect(sched.rows).toEqual([{ traceparent: own('PUT /api/v1/schedules/{queue}/{scheduleKey}') }]);
    }
  });
});

describe('the SDK carries the trace', () => {
  it('a call inside an active span sends its traceparent; consume acks in the frame’s trace', async () => {
    const qt = createClient({ baseUrl: tb.url, token: await tb.token() });
    const tracer = trace.getTracer('test-app');
    const checkout = await tracer.startActiveSpan('checkout', async (span) => {
      await qt.timers.schedule({ queue: 'trace-sdk', timerKey: 'order-1', delayMs: 0, payload: { order: 1 } });
      span.end();
      return span.spanContext();
    });
    const server = serverSpan('POST /api/v1/timers')!;
    expect(server.spanContext().traceId).toBe(checkout.traceId);
    expect(server.parentSpanContext?.spanId).toBe(checkout.spanId);

    const ac = new AbortController();
    let handled: Message | undefined;
    await qt.log.consume(
      'trace-sdk',
      (m) => {
        handled = m;
        ac.abort();
      },
      { signal: ac.signal, timeoutMs: 1_000 },
    );
    expect(handled!.traceparent).toBe(`00-${checkout.traceId}-${server.spanContext().spanId}-01`);
    const ackRequest = await waitFor(() => serverSpan('POST /api/v1/ack'));
    expect(ackRequest.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(ackRequest.spanContext().traceId).toBe(checkout.traceId);
  });
});
