// The SDK against a scripted fetch: what it sends, how it retries, what it throws. No broker.
import { context as otelContext, ROOT_CONTEXT, trace as otelTrace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, decodePayload, encodePayload, QueenTimersError, timerKeyPath, type ClientOptions } from '../sdk/src/index.ts';
import { decodePathSegment } from '../src/http/rest.ts';

interface Sent {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: any;
}

/** A fetch that records each request and answers from a script (the last answer repeats). */
type Answer = Response | ((input: RequestInfo | URL, init?: RequestInit) => Response) | Error;

function scriptedFetch(answers: Answer[]) {
  const sent: Sent[] = [];
  let i = 0;
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    sent.push({
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const a = answers[Math.min(i++, answers.length - 1)];
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a(input, init) : a.clone();
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const refusal = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { ok: false, error: `${code} happened`, code }, headers);

const scheduled = (op: any) => ({
  ok: true,
  status: 'scheduled',
  queue: op.queue,
  timerKey: op.timerKey,
  txn: op.txn,
  messageId: '5f0c5b8e-4d8e-4f43-9a8e-0a1b2c3d4e5f',
  deliverAt: '2030-01-01T00:00:00.000000Z',
});
/** Answers a POST /api/v1/timers with `scheduled` for each op it was sent. */
const echoBatch: Answer = (_input, init) => json(200, { results: JSON.parse(String(init!.body)).operations.map(scheduled) });

function client(fetch: typeof globalThis.fetch, o: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: 'http://broker.test:6632/', token: 'tok', fetch, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...o });
}

describe('timer keys in paths', () => {
  it('keeps slashes as written and percent-encodes %, ? and #', () => {
    expect(timerKeyPath('tenant/42')).toBe('tenant/42');
    expect(timerKeyPath('trial:acme:day7')).toBe('trial:acme:day7');
    expect(timerKeyPath('50%off?x=1#frag')).toBe('50%25off%3Fx%3D1%23frag');
    expect(timerKeyPath('a b/ü')).toBe('a%20b/%C3%BC');
  });

  it('refuses a key with a dot segment before sending: the URL would address another key', () => {
    expect(new URL('http://h/api/v1/timers/q/a/../b').pathname).toBe('/api/v1/timers/q/b');
    for (const key of ['a/../b', '..', '.', './x', 'x/.']) expect(() => timerKeyPath(key), key).toThrow(TypeError);
    expect(timerKeyPath('a/.../b.')).toBe('a/.../b.');
  });

  it('refuses "." and ".." as a queue name before sending: the URL would address another route', async () => {
    const client = createClient({
      baseUrl: 'http://127.0.0.1:1',
      token: 't',
      fetch: (() => {
        throw new Error('no request may be sent');
      }) as any,
    });
    await expect(client.timers.cancel('..', 'other/k')).rejects.toThrow(TypeError);
    await expect(client.timers.peek('.', 'k')).rejects.toThrow(TypeError);
  });

  it('round-trips every key through a URL and the broker’s catch-all decoding', () => {
    const prefix = '/api/v1/timers/q/';
    fc.assert(
      fc.property(
        fc
          .string({
            unit: fc.constantFrom('a', 'Z', '/', '%', '?', '#', '.', ' ', ':', '+', '&', '=', 'é', '😀', '4', '1', '\\'),
            minLength: 1,
            maxLength: 12,
          })
          .filter((k) => !k.split('/').some((s) => s === '.' || s === '..')),
        (key) => {
          const pathname = new URL(`http://h${prefix}${timerKeyPath(key)}`).pathname;
          expect(pathname.startsWith(prefix)).toBe(true);
          expect(decodePathSegment(pathname.slice(prefix.length))).toBe(key);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('payloads', () => {
  it('sends bytes as they are, text as UTF-8 and other JSON values as JSON', () => {
    expect(encodePayload(new Uint8Array([0, 255, 1]))).toBe('AP8B');
    expect(encodePayload('héllo')).toBe(btoa('h\u00c3\u00a9llo'));
    expect(encodePayload({ kind: 'day7' })).toBe('eyJraW5kIjoiZGF5NyJ9');
    expect(encodePayload(42)).toBe(btoa('42'));
    expect(encodePayload(null)).toBe(btoa('null'));
  });

  it('decodes a frame’s base64 to bytes, text and JSON', () => {
    const d = decodePayload('eyJraW5kIjoiZGF5NyJ9');
    expect(d.json()).toEqual({ kind: 'day7' });
    expect(d.text()).toBe('{"kind":"day7"}');
    expect(d.bytes.length).toBe(15);
    expect(() => decodePayload('AP8B').text()).toThrow(TypeError);
  });

  it('round-trips a payload larger than one String.fromCharCode chunk', () => {
    const bytes = new Uint8Array(200_000).map((_, i) => (i * 7) % 256);
    expect(decodePayload(encodePayload(bytes)).bytes).toEqual(bytes);
  });
});

describe('timers.schedule', () => {
  it('posts one schedule op with a base64 payload and a minted txn, with the bearer token', async () => {
    const { fetch, sent } = scriptedFetch([echoBatch]);
    const r = await client(fetch).timers.schedule({
      queue: 'reminders',
      timerKey: 'tenant/42',
      delayMs: 1000,
      payload: { a: 1 },
      partition: 'acme',
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].method).toBe('POST');
    expect(sent[0].url.href).toBe('http://broker.test:6632/api/v1/timers');
    expect(sent[0].headers.authorization).toBe('Bearer tok');
    expect(sent[0].body).toEqual({
      operations: [
        {
          op: 'schedule',
          queue: 'reminders',
          timerKey: 'tenant/42',
          delayMs: 1000,
          payload: encodePayload({ a: 1 }),
          partition: 'acme',
          txn: expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      ],
    });
    expect(r).toMatchObject({ ok: true, status: 'scheduled', txn: sent[0].body.operations[0].txn });
  });

  it('retries a 503 with the same txn, so the retry cannot deliver twice', async () => {
    const { fetch, sent } = scriptedFetch([refusal(503, 'not_ready', { 'retry-after': '0' }), echoBatch]);
    const r = await client(fetch).timers.schedule({ queue: 'q', timerKey: 'k', delayMs: 0, payload: 'x' });
    expect(sent).toHaveLength(2);
    expect(sent[1].body).toEqual(sent[0].body);
    expect(r.status).toBe('scheduled');
  });

  it('treats a schedule verdict outside scheduled|rescheduled|too_late as an unexpected response', async () => {
    const { fetch } = scriptedFetch([json(200, { results: [{ ok: true, status: 'cancelled', queue: 'q', timerKey: 'k', txn: 't' }] })]);
    await expect(client(fetch).timers.schedule({ queue: 'q', timerKey: 'k', delayMs: 0, payload: 'x' })).rejects.toMatchObject({
      code: 'unexpected_response',
    });
  });
});

describe('timers.cancel', () => {
  it('always uses DELETE on the catch-all route, the key written naturally and ?txn= echoed', async () => {
    const body = { ok: false, status: 'absent', queue: 'reminders', timerKey: 'tenant/42', txn: 't-1' };
    const { fetch, sent } = scriptedFetch([json(200, body)]);
    const r = await client(fetch).timers.cancel('reminders', 'tenant/42', { txn: 't-1' });
    expect(sent[0].method).toBe('DELETE');
    expect(sent[0].url.pathname).toBe('/api/v1/timers/reminders/tenant/42');
    expect(sent[0].url.search).toBe('?txn=t-1');
    expect(sent[0].body).toBeUndefined();
    expect(r).toEqual(body);
  });
});

describe('timers.batch', () => {
  it('splits 600 ops into calls of 256, 256 and 88 and returns the verdicts in op order', async () => {
    const { fetch, sent } = scriptedFetch([echoBatch]);
    const batch = client(fetch).timers.batch();
    for (let i = 0; i < 600; i++) batch.schedule({ queue: 'q', timerKey: `k${i}`, delayMs: 10, payload: i });
    const results = await batch.send();
    expect(sent.map((s) => s.body.operations.length)).toEqual([256, 256, 88]);
    expect(results.map((r) => r.timerKey)).toEqual(Array.from({ length: 600 }, (_, i) => `k${i}`));
  });

  it('reports the verdicts of chunks already applied when a later chunk is refused', async () => {
    const { fetch, sent } = scriptedFetch([echoBatch, refusal(403, 'storage_limit_exceeded')]);
    const batch = client(fetch).timers.batch();
    for (let i = 0; i < 300; i++) batch.reschedule({ queue: 'q', timerKey: `k${i}`, delayMs: 10, payload: i });
    const err = await batch.send().catch((e) => e);
    expect(err).toBeInstanceOf(QueenTimersError);
    expect(err).toMatchObject({ status: 403, code: 'storage_limit_exceeded' });
    expect(sent).toHaveLength(2);
    expect(err.appliedResults).toHaveLength(256);
  });

  it('has no cancel unless asked by name; then the cancel goes into the POST body', async () => {
    const { fetch, sent } = scriptedFetch([
      json(200, { results: [{ ok: true, status: 'cancelled', queue: 'q', timerKey: 'a/b', txn: 't' }] }),
    ]);
    const c = client(fetch);
    expect(() => (c.timers.batch() as any).cancel('q', 'a/b')).toThrow(/allowCancelViaScheduleRoute/);
    const results = await c.timers.batch({ allowCancelViaScheduleRoute: true }).cancel('q', 'a/b', { txn: 't' }).send();
    expect(sent[0].body).toEqual({ operations: [{ op: 'cancel', queue: 'q', timerKey: 'a/b', txn: 't' }] });
    expect(results[0].status).toBe('cancelled');
  });
});

describe('timers.list', () => {
  it('iterates every page by its nextAfter cursor', async () => {
    const row = (k: string) => ({ queue: 'q', timerKey: k });
    const { fetch, sent } = scriptedFetch([
      json(200, { rows: [row('a'), row('b')], truncated: true, nextAfter: 'b' }),
      json(200, { rows: [row('c')], truncated: false, nextAfter: 'c' }),
    ]);
    const keys: string[] = [];
    for await (const r of client(fetch).timers.listAll('q', { limit: 2 })) keys.push(r.timerKey);
    expect(keys).toEqual(['a', 'b', 'c']);
    expect(sent.map((s) => s.url.search)).toEqual(['?limit=2', '?after=b&limit=2']);
  });
});

describe('errors and retries', () => {
  for (const [status, code] of [
    [400, 'validation_failed'],
    [401, 'token_invalid'],
    [403, 'grant_missing'],
  ] as const) {
    it(`never retries a ${status}`, async () => {
      const { fetch, sent } = scriptedFetch([refusal(status, code), json(200, { found: false })]);
      const err = await client(fetch)
        .timers.peek('q', 'k')
        .catch((e) => e);
      expect(sent).toHaveLength(1);
      expect(err).toBeInstanceOf(QueenTimersError);
      expect(err).toMatchObject({ status, code, message: `${code} happened` });
    });
  }

  it('carries the x-queen-timers-hint header and the field of a refused batch', async () => {
    const { fetch } = scriptedFetch([
      json(
        400,
        { ok: false, error: 'no', code: 'server_owned_field', field: 'operations.0.producerSub' },
        { 'x-queen-timers-hint': 'DELETE /api/v1/timers/:queue/*timerKey' },
      ),
    ]);
    const err = await client(fetch)
      .timers.batch({ allowCancelViaScheduleRoute: true })
      .cancel('q', 'k')
      .send()
      .catch((e) => e);
    expect(err).toMatchObject({
      status: 400,
      code: 'server_owned_field',
      field: 'operations.0.producerSub',
      hint: 'DELETE /api/v1/timers/:queue/*timerKey',
    });
  });

  it('honours Retry-After on a 429: the retry waits at least that long', async () => {
    const delays: number[] = [];
    const { fetch, sent } = scriptedFetch([refusal(429, 'rate_limited', { 'retry-after': '1' }), json(200, { found: false })]);
    const started = Date.now();
    const r = await client(fetch, { retry: { onRetry: ({ delayMs }) => delays.push(delayMs) } }).timers.peek('q', 'k');
    expect(r).toEqual({ found: false });
    expect(sent).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('gives up after maxAttempts and throws the last refusal with its Retry-After', async () => {
    const { fetch, sent } = scriptedFetch([refusal(503, 'produce_blocked', { 'retry-after': '0' })]);
    const err = await client(fetch, { retry: { maxAttempts: 3, baseDelayMs: 1 } })
      .timers.peek('q', 'k')
      .catch((e) => e);
    expect(sent).toHaveLength(3);
    expect(err).toMatchObject({ status: 503, code: 'produce_blocked', retryAfterMs: 0 });
  });

  it('does not sleep through a Retry-After longer than maxRetryAfterMs', async () => {
    const { fetch, sent } = scriptedFetch([refusal(429, 'pending_quota_exceeded', { 'retry-after': '120' })]);
    const err = await client(fetch)
      .timers.peek('q', 'k')
      .catch((e) => e);
    expect(sent).toHaveLength(1);
    expect(err).toMatchObject({ status: 429, code: 'pending_quota_exceeded', retryAfterMs: 120_000 });
  });

  it('retries network errors, then throws network_error with status 0', async () => {
    const { fetch, sent } = scriptedFetch([new TypeError('fetch failed')]);
    const err = await client(fetch)
      .timers.peek('q', 'k')
      .catch((e) => e);
    expect(sent).toHaveLength(4);
    expect(err).toMatchObject({ status: 0, code: 'network_error' });
    expect(err.cause).toBeInstanceOf(TypeError);
  });

  it('does not retry at all with retry: false', async () => {
    const { fetch, sent } = scriptedFetch([refusal(503, 'not_ready', { 'retry-after': '0' })]);
    await expect(client(fetch, { retry: false }).timers.peek('q', 'k')).rejects.toMatchObject({ code: 'not_ready' });
    expect(sent).toHaveLength(1);
  });

  it('stops retrying when the call is aborted', async () => {
    const { fetch, sent } = scriptedFetch([refusal(503, 'not_ready', { 'retry-after': '5' })]);
    const ac = new AbortController();
    const p = client(fetch).timers.peek('q', 'k', { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('stop')), 20);
    await expect(p).rejects.toThrow('stop');
    expect(sent).toHaveLength(1);
  });
});

describe('traceparent', () => {
  const ACTIVE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const GIVEN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const op = { queue: 'q', timerKey: 'k', delayMs: 0, payload: 'x' };
  // The real OpenTelemetry API with a context manager, as an app that traces registers them; the
  // SDK itself imports none of it.
  const inActiveSpan = <T>(fn: () => Promise<T>) =>
    otelContext.with(
      otelTrace.setSpanContext(ROOT_CONTEXT, { traceId: ACTIVE.slice(3, 35), spanId: ACTIVE.slice(36, 52), traceFlags: 1 }),
      fn,
    );

  it('sends none when the app registered no OpenTelemetry context manager', async () => {
    const { fetch, sent } = scriptedFetch([echoBatch]);
    await inActiveSpan(() => client(fetch).timers.schedule(op));
    expect(sent[0].headers.traceparent).toBeUndefined();
  });

  describe('with the OpenTelemetry API registered', () => {
    const manager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      otelContext.setGlobalContextManager(manager.enable());
    });
    afterAll(() => {
      otelContext.disable();
    });

    it('sends the active span’s traceparent on every call', async () => {
      const { fetch, sent } = scriptedFetch([echoBatch, json(200, [{ index: 0, transactionId: 't', status: 'queued' }])]);
      const qt = client(fetch);
      await inActiveSpan(async () => {
        await qt.timers.schedule(op);
        await qt.log.push({ queue: 'q', payload: 1 });
      });
      expect(sent.map((s) => s.headers.traceparent)).toEqual([ACTIVE, ACTIVE]);
      // Outside any span: none.
      await qt.log.push({ queue: 'q', payload: 1 });
      expect(sent[2].headers.traceparent).toBeUndefined();
    });

    it('a call’s own traceparent wins; null sends none; a malformed one is not sent; traceContext: false reads no span', async () => {
      const { fetch, sent } = scriptedFetch([echoBatch]);
      await inActiveSpan(async () => {
        await client(fetch).timers.schedule(op, { traceparent: GIVEN });
        await client(fetch, { headers: { traceparent: GIVEN } }).timers.schedule(op, { traceparent: null });
        await client(fetch).timers.schedule(op, { traceparent: 'not-a-traceparent\r\nx-evil: 1' });
        await client(fetch, { traceContext: false }).timers.schedule(op);
        await client(fetch, { traceContext: false }).timers.schedule(op, { traceparent: GIVEN });
      });
      expect(sent.map((s) => s.headers.traceparent)).toEqual([GIVEN, undefined, undefined, undefined, GIVEN]);
    });

    it('consume acks with the frame’s traceparent, not the context it runs in', async () => {
      const frame = {
        id: 'm1',
        transactionId: 't1',
        partitionId: '0f0c5b8e-4d8e-4f43-9a8e-0a1b2c3d4e5f',
        leaseId: 'l1',
        consumerGroup: '__QUEUE_MODE__',
        payload: 'MQ==',
        traceparent: GIVEN,
      };
      const ac = new AbortController();
      const { fetch, sent } = scriptedFetch([
        json(200, { messages: [frame] }),
        (() => {
          ac.abort();
          return json(200, [{ transactionId: 't1', status: 'completed', success: true }]);
        }) as Answer,
      ]);
      await inActiveSpan(() => client(fetch).log.consume('q', () => undefined, { signal: ac.signal }));
      expect(sent.map((s) => [s.method, s.headers.traceparent])).toEqual([
        ['GET', ACTIVE],
        ['POST', GIVEN],
      ]);
    });
  });
});
