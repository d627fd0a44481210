// Tracing (docs/tracing.md): with an SDK registered, the broker's spans continue the caller's W3C
// traceparent; a malformed traceparent is ignored (a new trace), never refused.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normaliseTraceparent, parseTraceparent, traceIdAsUuid } from '../src/tracing.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

let tb: TestBroker;
beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  tb = await startTestBroker();
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
