// The OpenAPI document, generated from the tRPC router's zod schemas by trpc-to-openapi and
// then corrected where this service's HTTP layer (src/http/rest.ts) differs from the library's
// defaults: the error body (with an example per status), success statuses other than 200,
// catch-all path parameters, and parameters' descriptions (a zod `.optional()` hides them) and
// examples (Swagger UI pre-fills from these). The examples themselves live on the zod schemas
// (src/contract/examples.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { errorExample, errorExamplesByStatus } from './contract/examples.ts';
import { CONTRACT_ROUTES } from './contract/index.ts';
import { ERRORS } from './errors.ts';
import { PACKAGE_ROOT } from './root.ts';
import { appRouter } from './routers/_app.ts';

/** The document's version is the package's: Swagger UI shows it, and the SDK is generated from it. */
export const API_VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const errorSchema = z
  .object({
    ok: z.literal(false),
    error: z.string().describe('what went wrong and how to fix it, naming the field'),
    code: z.enum(Object.keys(ERRORS) as [keyof typeof ERRORS, ...(keyof typeof ERRORS)[]]).describe('stable error code; never reused'),
    field: z.string().optional().describe('the offending input field, when there is one'),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error', examples: [errorExample] });

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed input: the message names the field',
  401: 'No credential, or a malformed, expired or wrongly signed one',
  403: 'Refused; retrying will not help (missing grant, plan limit)',
  404: 'Not found',
  409: 'Conflict with the live state: a lease that is not live, or a frame already committed',
  413: 'Request body too large',
  429: 'Retry later (see Retry-After)',
  500: 'Internal error',
  503: 'Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After)',
};

export function buildOpenApiDocument(): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'queen-timers',
    version: API_VERSION,
    baseUrl: '/',
    description:
      'Send-later timers over a PostgreSQL message log. Press **Authorize** and paste a bearer JWT (claims: sub, ' +
      'tenant, grants; `npm start` prints a dev token). The examples follow the README tour: **Try it out** → ' +
      '**Execute** on `POST /api/v1/timers` schedules timer `trial:acme:day7` in queue `reminders` seven days ahead. ' +
      'Errors are `{ok:false, error:"<message>", code, field?}`. This document is served at `/openapi.json`.',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
  });
  // The error schema as a component, referenced by every error response.
  const { components } = createDocument({
    openapi: '3.1.0',
    info: { title: '', version: '' },
    components: { schemas: { Error: errorSchema } },
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...components?.schemas } };
  // trpc-to-openapi's own error schemas ({message, code, issues}): every error response is
  // replaced by the Error component below, so they describe nothing this service answers.
  for (const name of Object.keys(doc.components.schemas ?? {})) if (name.startsWith('error.')) delete doc.components.schemas![name];
  const errorResponse = (code: number, fallback?: string) => ({
    description: STATUS_TEXT[code] ?? fallback,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: errorExamplesByStatus[code] } },
  });

  const byPath = new Map(Object.values(CONTRACT_ROUTES).map((def) => [`${def.method.toLowerCase()} ${def.path}`, def]));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const def = byPath.get(`${method} ${path}`);
      const responses: Record<string, any> = {};
      for (const [status, resp] of Object.entries(op.responses as Record<string, any>)) {
        const code = Number(status);
        if (code < 400) {
          responses[String(code === 200 && def?.status ? def.status : code)] = resp;
        } else {
          responses[status] = errorResponse(code, resp.description);
        }
      }
      for (const extra of [503, 500]) responses[extra] ??= errorResponse(extra);
      op.responses = responses;
      for (const param of op.parameters ?? []) {
        param.description ??= param.schema?.description;
        // Swagger UI pre-fills "Try it out" from a parameter's own `example`, not its schema's `examples`.
        if (param.schema?.examples) param.example ??= param.schema.examples[0];
      }
      const catchAll = def?.catchAll;
      if (catchAll) {
        for (const param of op.parameters ?? []) {
          if (param.in === 'path' && param.name === catchAll) {
            param.description =
              `Catch-all: the rest of the path after the preceding segment, slashes included, ` +
              `written naturally (e.g. \`tenant/42\`). Percent-encoding is also accepted and decoded.`;
            param['x-catch-all'] = true;
          }
        }
      }
    }
  }
  return doc;
}

/** The committed form of the document: stable key order, marked as generated. */
export function renderOpenApiJson(): string {
  const doc = buildOpenApiDocument() as any;
  doc['x-generated'] = 'generated by `npm run openapi` from the zod schemas — do not edit';
  return JSON.stringify(doc, null, 2) + '\n';
}
