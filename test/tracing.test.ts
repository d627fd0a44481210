// Tracing (docs/tracing.md): with an SDK registered, the broker's spans continue the caller's W3C
// traceparent; a malformed traceparent is ignored (a new trace), never refused.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normaliseTraceparent, parseTraceparent, traceIdAsUuid } from '../src/tracing.ts';
import { api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

let tb: TestBroker;
beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  tb = await startTestBroker({ sweeper: true });
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

describe('a traceparent carried from the producer to the consumer', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const popFrame = async (queue: string) => {
    const res = await waitFor(async () => {
      const r = await api(tb, 'GET', `/api/v1/pop/queue/${queue}?wait=false`);
      return r.status === 200 ? r : undefined;
    });
    return res.body.messages[0];
  };

  it('a timer keeps the traceparent of the request that scheduled it, its frame carries it out on pop', async () => {
    const res = await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'trace-timer', timerKey: 'k1', delayMs: 0, payload: b64('{"a":1}') }] },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(200);
    const server = spanNamed('POST /api/v1/timers')!;
    expect(server.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    const stored = `00-${TRACE_ID}-${server.spanContext().spanId}-01`;
    const frame = await popFrame('trace-timer');
    expect(frame.traceparent).toBe(stored);
    expect(frame.traceId).toBe(traceIdAsUuid(CALLER));

    // The fire batch links to the schedule's span, with the timer's attributes on the link.
    const fire = exporter.getFinishedSpans().find((s) => s.name === 'fire timers' && s.links.length > 0)!;
    expect(fire.attributes).toMatchObject({ 'messaging.system': 'queen-timers', 'messaging.operation.type': 'send' });
    expect(fire.links[0].context.spanId).toBe(server.spanContext().spanId);
    expect(fire.links[0].attributes).toMatchObject({
      'queen.tenant': 'acme',
      'messaging.destination.name': 'trace-timer',
      'queen.timer_key': 'k1',
      'queen.partition': 'Default',
    });
    // The pop is a child of its request, linked to the schedule's span.
    const pop = exporter.getFinishedSpans().find((s) => s.name === 'pop' && s.attributes['messaging.batch.message_count'] === 1)!;
    expect(pop.attributes).toMatchObject({
      'messaging.system': 'queen-timers',
      'messaging.operation.type': 'receive',
      'messaging.destination.name': 'trace-timer',
      'queen.tenant': 'acme',
      'queen.partition': 'Default',
      'queen.txn': frame.transactionId,
    });
    expect(pop.links.map((l) => l.context.spanId)).toEqual([server.spanContext().spanId]);
    expect(
      exporter
        .getFinishedSpans()
        .some((s) => s.spanContext().spanId === pop.parentSpanContext?.spanId && s.name.startsWith('GET /api/v1/pop')),
    ).toBe(true);

    // The consumer continues the frame's traceparent: its ack is in the producer's trace.
    const acked = await api(tb, 'POST', '/api/v1/ack', {
      body: { transactionId: frame.transactionId, partitionId: frame.partitionId, leaseId: frame.leaseId, status: 'completed' },
      headers: { traceparent: frame.traceparent },
    });
    expect(acked.status).toBe(200);
    const ack = spanNamed('ack')!;
    expect(ack.spanContext().traceId).toBe(TRACE_ID);
    expect(ack.attributes).toMatchObject({
      'messaging.operation.type': 'settle',
      'queen.txn': frame.transactionId,
      'queen.status': 'completed',
    });
    // No payload in any attribute.
    for (const span of exporter.getFinishedSpans()) expect(JSON.stringify(span.attributes)).not.toContain('eyJhIjoxfQ');
  });

  it('a push keeps the traceparent; a traceId the producer gave wins for Queen’s field', async () => {
    const res = await api(tb, 'POST', '/api/v1/push', {
      body: {
        items: [
          { queue: 'trace-push', payload: { n: 1 } },
          { queue: 'trace-push', payload: { n: 2 }, traceId: '11111111-2222-4333-8444-555555555555' },
        ],
      },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBe(201);
    const server = spanNamed('POST /api/v1/push')!;
    const popped = (await api(tb, 'GET', '/api/v1/pop/queue/trace-push?batch=2&wait=false')).body.messages;
    expect(popped.map((f: { traceparent: string }) => f.traceparent)).toEqual([
      `00-${TRACE_ID}-${server.spanContext().spanId}-01`,
      `00-${TRACE_ID}-${server.spanContext().spanId}-01`,
    ]);
    expect(popped.map((f: { traceId: string }) => f.traceId)).toEqual([traceIdAsUuid(CALLER), '11111111-2222-4333-8444-555555555555']);
  });

  it('a schedule keeps the traceparent of its PUT and each occurrence timer carries it', async () => {
    const res = await api(tb, 'PUT', '/api/v1/schedules/trace-sched/beat', {
      body: { cron: '* * * * *', payload: b64('{"beat":1}') },
      headers: { traceparent: CALLER },
    });
    expect(res.status).toBeLessThan(300);
    const server =
      spanNamed('PUT /api/v1/schedules/:queue/*scheduleKey') ?? exporter.getFinishedSpans().find((s) => s.name.startsWith('PUT '));
    const stored = `00-${TRACE_ID}-${server!.spanContext().spanId}-01`;
    const schedule = await tb.sql.query(`SELECT traceparent FROM schedules WHERE queue = 'trace-sched'`);
    expect(schedule.rows).toEqual([{ traceparent: stored }]);
    // Its first occurrence is due within the minute: materialize it now rather than wait for the lookahead.
    await tb.sql.query(`UPDATE schedules SET materialize_at = now() WHERE queue = 'trace-sched'`);
    const timer = await waitFor(async () => (await tb.sql.query(`SELECT traceparent FROM timers WHERE queue = 'trace-sched'`)).rows[0]);
    expect(timer).toEqual({ traceparent: stored });
  });

  it('without a traceparent nothing is stored and the frame says null', async () => {
    await api(tb, 'POST', '/api/v1/push', { body: { items: [{ queue: 'trace-none', payload: 1 }] }, headers: { traceparent: 'nonsense' } });
    const frame = await popFrame('trace-none');
    // The SDK records a new trace for the request: the frame carries that one, never the malformed header.
    expect(frame.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(frame.traceparent).not.toContain('nonsense');
  });
});
