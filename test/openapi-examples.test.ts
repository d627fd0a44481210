// The examples of the OpenAPI document are true: every request body and every response has one,
// each parses with the zod schema the server validates with and validates against the JSON Schema
// the document gives beside it, and the tour's schedule and the error examples are what the server
// itself answers.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchInputExample, batchOutputExample, errorExamplesByStatus, FIELD_EXAMPLES } from '../src/contract/examples.ts';
import { CONTRACT_ROUTES } from '../src/contract/index.ts';
import { ERRORS } from '../src/errors.ts';
import { buildOpenApiDocument } from '../src/openapi.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';

const doc = buildOpenApiDocument() as any;

/** A local `$ref` resolved; anything else as it is. */
const deref = (node: any): any =>
  typeof node?.$ref === 'string'
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((o: any, k: string) => o[k], doc)
    : node;

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, any>).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, method, path, op })),
);

/** Every example in the document with the schema it must satisfy, named by where it is. */
function examplesInDocument() {
  const found: { at: string; schema: any; value: unknown }[] = [];
  const walk = (node: any, at: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`));
    // A schema's `examples` is an array of values (a media type's would be a map of Example objects).
    if (Array.isArray(node.examples))
      node.examples.forEach((value: unknown, i: number) => found.push({ at: `${at}/examples/${i}`, schema: node, value }));
    // A media type's or a parameter's `example` illustrates its `schema`; a schema's, itself.
    if ('example' in node) found.push({ at: `${at}/example`, schema: node.schema ?? node, value: node.example });
    for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'example') walk(v, `${at}/${k}`);
  };
  walk(doc, '#');
  return found;
}

describe('the OpenAPI examples', () => {
  it('give every request body, every response and every error status an example', () => {
    const missing: string[] = [];
    for (const { at, op } of operations) {
      const body = op.requestBody?.content['application/json'];
      if (body && !deref(body.schema).examples?.length) missing.push(`${at} request body`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const media = response.content?.['application/json'];
        const has = Number(status) >= 400 ? media?.example !== undefined : Boolean(deref(media?.schema).examples?.length);
        if (!has) missing.push(`${at} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('validate against the JSON Schema the document gives beside each of them', () => {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; the examples sit in annotations Ajv ignores.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const found = examplesInDocument();
    const invalid = found.flatMap(({ at, schema, value }) => {
      const validate = ajv.compile({ ...schema, components: doc.components });
      return validate(value) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
    // Bodies, responses, errors and the fields they share: a walk that found none proves nothing.
    expect(found.length).toBeGreaterThan(50);
  });

  it("parse unchanged with each route's own zod schemas, the server's validation", () => {
    const failures: string[] = [];
    for (const [name, def] of Object.entries(CONTRACT_ROUTES)) {
      const output = def.output.meta()?.examples?.[0];
      const parsedOutput = def.output.safeParse(output);
      if (!parsedOutput.success) failures.push(`${name} output: ${parsedOutput.error.message}`);
      // Outputs strip keys they do not know: an example with a misspelt key would not come back whole.
      else expect(parsedOutput.data, `${name} output`).toEqual(output);
      if (def.method !== 'POST' && def.method !== 'PUT') continue;
      const params = [...def.path.matchAll(/\{(\w+)\}/g)].map(([, param]) => param);
      const body = def.input.meta()?.examples?.[0] as Record<string, unknown> | undefined;
      if (body === undefined) {
        if (!params.includes('id')) failures.push(`${name} input: no example`); // replay's input is all path
        continue;
      }
      const input = { ...Object.fromEntries(params.map((p) => [p, FIELD_EXAMPLES[p as keyof typeof FIELD_EXAMPLES]])), ...body };
      const parsedInput = def.input.safeParse(input);
      if (!parsedInput.success) failures.push(`${name} input: ${parsedInput.error.message}`);
    }
    expect(failures).toEqual([]);
  });

  it("give each error status a code of the registry's with that status", () => {
    for (const [status, example] of Object.entries(errorExamplesByStatus)) {
      expect(ERRORS[example.code as keyof typeof ERRORS], example.code).toBe(Number(status));
    }
  });
});

describe("the OpenAPI examples against the server's answers", () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker();
  });
  afterAll(async () => {
    await tb?.close();
  });

  it("schedules the tour's timer from the schedule example as shipped (200)", async () => {
    const res = await api(tb, 'POST', '/api/v1/timers', { body: batchInputExample });
    expect(res.status).toBe(200);
    const [example] = batchOutputExample.results;
    expect(res.body).toEqual({ results: [{ ...example, messageId: expect.any(String), deliverAt: expect.any(String) }] });
  });

  it('answers the 400 example to a schedule that names an absolute instant', async () => {
    const [op] = batchInputExample.operations;
    const res = await api(tb, 'POST', '/api/v1/timers', { body: { operations: [{ ...op, deliverAt: '2026-12-07T07:59:39Z' }] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorExamplesByStatus[400]);
  });

  it('answers the 401 example to a schedule without a credential', async () => {
    const res = await api(tb, 'POST', '/api/v1/timers', { body: batchInputExample, token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorExamplesByStatus[401]);
  });

  it('answers the 403 example to a schedule 100 days ahead (the default horizon is 90 days)', async () => {
    const [op] = batchInputExample.operations;
    const res = await api(tb, 'POST', '/api/v1/timers', { body: { operations: [{ ...op, delayMs: 8_640_000_000 }] } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorExamplesByStatus[403]);
  });
});
