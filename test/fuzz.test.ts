// Random requests at every route: whatever the input, the broker answers with a 2xx, 3xx or a
// 4xx carrying the error shape — never a 5xx, never a crash.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectRoutes } from '../src/http/rest.ts';
import { CONTRACT_ROUTES } from '../src/contract/index.ts';
import { buildOpenApiDocument } from '../src/openapi.ts';
import { createContext } from '../src/context.ts';
import { createCaller } from '../src/routers/_app.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_ENCRYPTION_KEY: 'ab'.repeat(32) } });
  token = await tb.token();
});
afterAll(() => tb?.close());

// Field names the routes know, the server-owned ones, and some nobody knows.
const KEYS = [
  'op',
  'queue',
  'timerKey',
  'delayMs',
  'payload',
  'txn',
  'partition',
  'operations',
  'items',
  'transactionId',
  'partitionId',
  'status',
  'consumerGroup',
  'leaseId',
  'options',
  'encryptionEnabled',
  'leaseTime',
  'retryLimit',
  'after',
  'limit',
  'batch',
  'period',
  'horizonSeconds',
  'maxPayloadBytes',
  'produceBlocked',
  'sweeperPaused',
  'acknowledgments',
  'error',
  'autoAck',
  'offset',
  'producerSub',
  'messageId',
  'tenant',
  '_meta',
  'zzz',
];

const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('schedule', 'reschedule', 'cancel', 'completed', 'failed', 'dlq', 'q', 'a/b', 'Default', 'aGk=', ''),
  fc.integer({ min: -5, max: 5_000 }),
  fc.constantFrom(0, -1, 1e20, 2 ** 53, 0.5, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant(null),
);
const record = fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })), { maxKeys: 7 });
const body = fc.oneof(
  record,
  fc.record({ operations: fc.array(record, { maxLength: 4 }) }),
  fc.record({ items: fc.array(record, { maxLength: 4 }) }),
  fc.record({ acknowledgments: fc.array(record, { maxLength: 4 }) }),
  fc.record({ queue: fc.constantFrom('q', 'fuzz'), options: record }),
  fc.jsonValue({ maxDepth: 3 }),
);
const segment = fc.oneof(
  fc.constantFrom('q', 'fuzz', 'a b', '%', '%zz', '%2F', 'ü', '..', 'x'.repeat(300), 'Default', '00000000-0000-0000-0000-000000000000'),
  fc.string({ minLength: 1, maxLength: 10 }).map(encodeURIComponent),
);

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** "METHOD path" of every operation of an OpenAPI document, sorted. */
function operationsOf(doc: { paths?: Record<string, object> }): string[] {
  return Object.entries(doc.paths ?? {})
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => HTTP_METHODS.has(k))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

describe('fuzz: no input makes the broker answer 5xx', () => {
  const routes = collectRoutes(CONTRACT_ROUTES);
  const fuzzed = routes.map((r) => `${r.method} ${r.path}`);

  it('fuzzes each operation once: exactly those of the OpenAPI document of the router, and of the committed openapi.json', () => {
    const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(new Set(fuzzed).size).toBe(fuzzed.length);
    expect([...fuzzed].sort()).toEqual(operationsOf(buildOpenApiDocument()));
    expect([...fuzzed].sort()).toEqual(operationsOf(committed));
  });

  it('routes each contract entry to a procedure of the router under the same path', async () => {
    // The HTTP layer calls a route's procedure as caller[area][name] (src/app.ts). A path the
    // router lacks throws NOT_FOUND when called; one it has runs its middleware, which refuses a
    // call without a credential (or with an empty body) long before anything is written.
    const ctx = createContext(tb.broker.services, {
      log: tb.broker.app.log,
      authorization: undefined,
      signal: new AbortController().signal,
    });
    const caller = createCaller(ctx) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
    const codes: Record<string, string> = {};
    for (const route of routes) {
      const [area, name, ...rest] = route.procedurePath.split('.');
      expect(rest, route.procedurePath).toEqual([]);
      codes[route.procedurePath] = await caller[area][name]({}).then(
        () => 'answered',
        (err: { code?: string }) => err.code ?? 'thrown',
      );
    }
    expect(Object.values(codes)).not.toContain('NOT_FOUND');
    const missing = await caller.timers.noSuchProcedure({}).catch((err: { code?: string }) => err.code);
    expect(missing).toBe('NOT_FOUND');
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 3, maxLength: 3 }),
          fc.dictionary(fc.constantFrom(...KEYS.filter((k) => k !== 'wait')), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
          body,
          fc.constantFrom('valid', 'none', 'garbage'),
          async (segments, query, payload, auth) => {
            let i = 0;
            const path = route.path.replace(/\{[^}]+\}/g, () => segments[i++]);
            const qs = new URLSearchParams(query).toString();
            const res = await tb.broker.app.inject({
              method: route.method as any,
              url: qs ? `${path}?${qs}` : path,
              headers: {
                ...(auth === 'valid' ? { authorization: `Bearer ${token}` } : auth === 'garbage' ? { authorization: 'Bearer x.y.z' } : {}),
                ...(route.bodyInput ? { 'content-type': 'application/json' } : {}),
              },
              payload: route.bodyInput ? JSON.stringify(payload) : undefined,
            });
            if (res.statusCode >= 500) throw new Error(`${res.statusCode} ${res.body}`);
            if (res.statusCode >= 400) {
              const json = res.json();
              expect(json.ok).toBe(false);
              expect(typeof json.code).toBe('string');
              expect(typeof json.error).toBe('string');
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  }
});
