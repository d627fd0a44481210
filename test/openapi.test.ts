import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { QUERY_INT_MAX } from '../src/contract/common.ts';
import { CONTRACT_ROUTES } from '../src/contract/index.ts';
import { buildOpenApiDocument, renderOpenApiJson } from '../src/openapi.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const doc = buildOpenApiDocument() as any;

const queryParams = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, any>).flatMap(([method, op]) =>
    (op.parameters ?? [])
      .filter((p: any) => p.in === 'query')
      .map((p: any) => ({ at: `${method.toUpperCase()} ${path} ?${p.name}`, method, path, p })),
  ),
);

/** The zod schema the server parses one query parameter with. */
function zodField(method: string, path: string, name: string): z.ZodType {
  const def = Object.values(CONTRACT_ROUTES).find((d) => d.method === method.toUpperCase() && d.path === path)!;
  return (def.input as unknown as z.ZodObject).shape[name] as z.ZodType;
}

describe('openapi.json', () => {
  it("carries the package's version (what Swagger UI shows)", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
    const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(committed.info.version).toBe(pkg.version);
  });

  it('is up to date with the zod schemas (run `npm run openapi` when this fails)', () => {
    const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(renderOpenApiJson());
  });

  it('names every component schema: no generated `__schema0` names, no library leftovers', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.filter((n) => !/^[A-Z][A-Za-z]+$/.test(n))).toEqual([]);
    // and every reference points at one of them
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map(([, ref]) => ref);
    expect(refs.filter((ref) => !names.includes(ref.replace('#/components/schemas/', '')))).toEqual([]);
  });

  it('describes every query parameter', () => {
    expect(queryParams.filter(({ p }) => !p.description).map(({ at }) => at)).toEqual([]);
  });

  it("documents pop's, list's and the DLQ's numeric and boolean query parameters as integers and booleans, with their defaults", () => {
    const typed = Object.fromEntries(queryParams.map(({ at, p }) => [at, { type: p.schema.type, default: p.schema.default }]));
    for (const path of ['/api/v1/pop/queue/{queue}', '/api/v1/pop/queue/{queue}/partition/{partition}']) {
      expect(typed[`GET ${path} ?batch`]).toEqual({ type: 'integer', default: 1 });
      expect(typed[`GET ${path} ?timeout`]).toEqual({ type: 'integer', default: 30_000 });
      expect(typed[`GET ${path} ?partitions`]).toEqual({ type: 'integer', default: 1 });
      expect(typed[`GET ${path} ?wait`]).toEqual({ type: 'boolean', default: false });
      expect(typed[`GET ${path} ?autoAck`]).toEqual({ type: 'boolean', default: false });
    }
    expect(typed['GET /api/v1/timers/{queue} ?limit']).toEqual({ type: 'integer', default: 100 });
    expect(typed['GET /api/v1/dlq ?limit']).toEqual({ type: 'integer', default: 100 });
    expect(typed['GET /api/v1/dlq ?offset']).toEqual({ type: 'integer', default: 0 });
  });

  it('documents the bounds the server enforces on integer query parameters, and the values it takes for booleans', () => {
    const bounded = queryParams.filter(({ p }) => p.schema.type === 'integer' && p.schema.minimum !== undefined);
    // batch, timeout, partitions on both pops; limit and offset on the DLQ; the fire-lag chart's
    // minutes and a schedule's occurrences (both clamped, never refused)
    expect(bounded.length).toBe(10);
    for (const { at, method, path, p } of bounded) {
      const field = zodField(method, path, p.name);
      expect([p.schema.minimum, p.schema.maximum], at).toEqual([0, QUERY_INT_MAX]);
      const accepts = (v: string) => field.safeParse(v).success;
      expect([accepts('0'), accepts(String(QUERY_INT_MAX)), accepts(String(p.schema.default))], at).toEqual([true, true, true]);
      expect([accepts('-1'), accepts(`${QUERY_INT_MAX}0`), accepts('1.5'), accepts('1e1')], at).toEqual([false, false, false, false]);
    }
    const booleans = queryParams.filter(({ p }) => p.schema.type === 'boolean');
    expect(booleans.length).toBe(4);
    for (const { at, method, path, p } of booleans) {
      const field = zodField(method, path, p.name);
      expect(
        ['true', 'false', '1', '0', 'yes'].map((v) => field.safeParse(v).data),
        at,
      ).toEqual([true, false, true, false, undefined]);
    }
  });
});

describe('the served document and Swagger UI', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker();
  });
  afterAll(async () => {
    await tb?.close();
  });

  it('serves the document at /openapi.json and at /docs/json, the same one', async () => {
    const [root, docs] = await Promise.all([
      tb.broker.app.inject({ method: 'GET', url: '/openapi.json' }),
      tb.broker.app.inject({ method: 'GET', url: '/docs/json' }),
    ]);
    expect([root.statusCode, docs.statusCode]).toEqual([200, 200]);
    expect(root.headers['content-type']).toMatch(/^application\/json/);
    expect(root.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(docs.json()).toEqual(root.json());
  });

  it('titles the page "queen-timers API" and lays it out without the top bar (Fastify logo, Explore box)', async () => {
    const page = await tb.broker.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>queen-timers API</title>');
    const init = await tb.broker.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain('"layout":"BaseLayout"');
  });
});
