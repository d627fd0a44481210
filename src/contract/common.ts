// Field schemas shared by the log and timer routes, and the shape of a route of the contract.
import { z } from 'zod';
import { FIELD_EXAMPLES } from './examples.ts';

// PostgreSQL text cannot hold NUL; other control characters are refused so keys print cleanly.
const printable = /^[^\u0000-\u001f\u007f]*$/;

/**
 * A key's length is capped in UTF-8 bytes, the unit PostgreSQL indexes: a btree row holds at most
 * ~2,700 bytes, and a cap in UTF-16 units would let 1,024 CJK characters (~3 KB) through to a 500.
 * The .max(n) in units is implied (a unit is at least one byte) and keeps maxLength in OpenAPI.
 * messages is unique on (tenant, queue, partition, transaction_id): 3 × 256 bytes stays well under.
 */
export const utf8Key = (maxBytes: number) => {
  const message = `must be at most ${maxBytes} bytes (UTF-8)`;
  return (
    z
      .string()
      .min(1)
      .max(maxBytes, message)
      .refine((s) => Buffer.byteLength(s, 'utf8') <= maxBytes, message)
      // A lone surrogate would be stored as U+FFFD: two keys would collide and none would match.
      // (String.prototype.isWellFormed is Node 20's, ES2024; tsconfig's lib is ES2022.)
      .refine((s) => (s as string & { isWellFormed(): boolean }).isWellFormed(), 'must be well-formed Unicode')
  );
};

/** Fields only the server sets: supplying one is refused on every route, lenient or not. */
export const SERVER_OWNED = new Set(['producerSub', 'messageId', 'tenant']);

export const isServerOwned = (key: string) => SERVER_OWNED.has(key) || key.startsWith('_');

/**
 * An object of a Queen route: lenient where Queen is lenient, so a key it does not know is
 * ignored (passed along, read by nothing, never stored) — Queen's client sends options and
 * parameters this broker has no use for. A server-owned key is still refused, as everywhere.
 */
export const queenObject = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject(shape).superRefine((value, ctx) => {
    const owned = Object.keys(value).find((k) => !Object.hasOwn(shape, k) && isServerOwned(k));
    if (owned !== undefined) ctx.addIssue({ code: 'unrecognized_keys', keys: [owned], input: value });
  });

export const NAME_MAX_BYTES = 256;

/** Tenant names (the JWT claim and the admin path): letters, digits and . _ : -, bounded. */
export const tenantName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .refine((t) => t !== '.' && t !== '..', 'must not be "." or ".." (a URL path resolves them away)')
  .meta({ examples: [FIELD_EXAMPLES.tenant] });

/** A queue name is a path segment: no '/', no control characters. */
// '.' and '..' are refused as names that travel in paths: URL clients resolve them away.
const notDotSegment = (s: string) => s !== '.' && s !== '..';

export const queueName = utf8Key(NAME_MAX_BYTES)
  .regex(/^[^/\u0000-\u001f\u007f]+$/, "must not contain '/' or control characters")
  .refine(notDotSegment, "must not be '.' or '..'")
  .meta({ description: 'queue name (created on first use); at most 256 bytes (UTF-8)', examples: [FIELD_EXAMPLES.queue] });

export const partitionName = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .refine(notDotSegment, "must not be '.' or '..'")
  .describe("partition within the queue (default 'Default'); at most 256 bytes (UTF-8)");

export const txnSchema = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .meta({
    description: 'transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)',
    examples: [FIELD_EXAMPLES.txn],
  });

export const consumerGroupName = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .describe("consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8)");

/** Base64 of the exact payload bytes. */
export const base64Payload = z.base64().describe('the exact payload bytes, base64');

/**
 * Query-string integers: digits only (`10`, not `1e1` or `10.5`), at most fifteen of them (exact
 * as a double). The wire is text, so the schema is a string; the document says what it means: an
 * integer in [0, QUERY_INT_MAX], with the default the route applies when it is absent.
 */
export const QUERY_INT_MAX = 999_999_999_999_999;

export const queryInt = (description: string, defaultValue?: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .meta({
      description,
      override: ({ jsonSchema }) => {
        delete jsonSchema.pattern;
        Object.assign(
          jsonSchema,
          { type: 'integer', minimum: 0, maximum: QUERY_INT_MAX },
          defaultValue === undefined ? {} : { default: defaultValue },
        );
      },
    });

/** Query-string booleans: `true`/`false` (also `1`/`0`); anything else is a 400. Absent: `defaultValue` (false unless said). */
export const queryBool = (description: string, defaultValue = false) =>
  z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .meta({
      description: `${description} (\`true\`/\`false\`, also \`1\`/\`0\`; default ${defaultValue})`,
      override: ({ jsonSchema }) => {
        delete jsonSchema.enum;
        Object.assign(jsonSchema, { type: 'boolean', default: defaultValue });
      },
    });

/** Instants are rendered by PostgreSQL: ISO 8601, UTC, microseconds. */
export const instant = z.string().describe('ISO 8601 instant in UTC with microseconds, on PostgreSQL clock');

/** The partition of a push or schedule that names none. */
export const DEFAULT_PARTITION = 'Default';

/**
 * One route of the contract: its place in the REST API, its documentation and its zod schemas.
 * The tRPC procedures (src/routers) take their input, output and OpenAPI meta from here; the REST
 * projection (src/http/rest.ts) routes by it; the OpenAPI document is generated from the procedures.
 */
export interface RouteDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: `/api/${string}`;
  tags: string[];
  summary: string;
  description?: string;
  errorResponses?: number[];
  input: I;
  output: O;
  /** Success status when it is not 200 (e.g. 201 for push). */
  status?: number;
  /** Name of the path parameter that swallows the rest of the path, slashes included. */
  catchAll?: string;
  /**
   * Headers added to every refusal of this route (any 4xx/5xx, including those raised before the
   * procedure runs), computed from the raw, unvalidated input.
   */
  refusalHeaders?: (rawInput: Record<string, unknown>) => Record<string, string>;
}

export const route = <I extends z.ZodType, O extends z.ZodType>(def: RouteDef<I, O>): RouteDef<I, O> => def;

/** The `meta.openapi` of a procedure serving `def` (what trpc-to-openapi documents). */
export function openapiMeta(def: RouteDef) {
  const { method, path, tags, summary, description, errorResponses } = def;
  return { openapi: { method, path, tags, summary, description, errorResponses } };
}
