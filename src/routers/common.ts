// Field schemas shared by the log and timer routes.
import { z } from 'zod';

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
  return z
    .string()
    .min(1)
    .max(maxBytes, message)
    .refine((s) => Buffer.byteLength(s, 'utf8') <= maxBytes, message)
    // A lone surrogate would be stored as U+FFFD: two keys would collide and none would match.
    // (String.prototype.isWellFormed is Node 20's, ES2024; tsconfig's lib is ES2022.)
    .refine((s) => (s as string & { isWellFormed(): boolean }).isWellFormed(), 'must be well-formed Unicode');
};

export const NAME_MAX_BYTES = 256;

/** A queue name is a path segment: no '/', no control characters. */
// '.' and '..' are refused as names that travel in paths: URL clients resolve them away.
const notDotSegment = (s: string) => s !== '.' && s !== '..';

export const queueName = utf8Key(NAME_MAX_BYTES)
  .regex(/^[^/\u0000-\u001f\u007f]+$/, "must not contain '/' or control characters")
  .refine(notDotSegment, "must not be '.' or '..'")
  .describe('queue name (created on first use); at most 256 bytes (UTF-8)');

export const partitionName = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .refine(notDotSegment, "must not be '.' or '..'")
  .describe("partition within the queue (default 'Default'); at most 256 bytes (UTF-8)");

export const txnSchema = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .describe('transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)');

export const consumerGroupName = utf8Key(NAME_MAX_BYTES)
  .regex(printable, 'must not contain control characters')
  .describe("consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8)");

/** Base64 of the exact payload bytes. */
export const base64Payload = z.base64().describe('the exact payload bytes, base64');

/** Instants are rendered by PostgreSQL: ISO 8601, UTC, microseconds. */
export const instant = z.string().describe('ISO 8601 instant in UTC with microseconds, on PostgreSQL clock');

/** SQL fragment rendering a timestamptz column as the wire's instant string. */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
