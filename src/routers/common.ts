// Field schemas shared by the log and timer routes.
import { z } from 'zod';

// PostgreSQL text cannot hold NUL; other control characters are refused so keys print cleanly.
const printable = /^[^\u0000-\u001f\u007f]*$/;

/** A queue name is a path segment: no '/', no control characters. */
export const queueName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^/\u0000-\u001f\u007f]+$/, "must not contain '/' or control characters")
  .describe('queue name (created on first use)');

export const partitionName = z
  .string()
  .min(1)
  .max(256)
  .regex(printable, 'must not contain control characters')
  .describe("partition within the queue (default 'Default')");

export const txnSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(printable, 'must not contain control characters')
  .describe('transaction id: the log deduplicates on it per queue and partition');

export const consumerGroupName = z
  .string()
  .min(1)
  .max(256)
  .regex(printable, 'must not contain control characters')
  .describe("consumer group; '__QUEUE_MODE__' = competing consumers");

/** Base64 of the exact payload bytes. */
export const base64Payload = z.base64().describe('the exact payload bytes, base64');

/** Instants are rendered by PostgreSQL: ISO 8601, UTC, microseconds. */
export const instant = z.string().describe('ISO 8601 instant in UTC with microseconds, on PostgreSQL clock');

/** SQL fragment rendering a timestamptz column as the wire's instant string. */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
