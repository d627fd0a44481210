// SQL fragments shared by statements across services and the sweeper.

/**
 * SQL: `alias`'s tenant is one of parameter `param` (text[]), or `param` is null. On Citus the
 * array holds the tenants of one shard group, and Citus, which binds parameters before it plans,
 * routes the statement to that shard; on plain PostgreSQL the sweeper passes null (one group: every
 * tenant), and the condition folds away instead of steering the plan to the tenant's index
 * (src/sweeper/shardGroups.ts).
 */
export const tenantPin = (alias: string, param: string) => `(${param}::text[] IS NULL OR ${alias}.tenant = ANY (${param}::text[]))`;

/** Renders a timestamptz column as the wire's instant: ISO 8601, UTC, microseconds. */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A timestamptz column as microseconds since the epoch (float8: exact until the year 2255), for
 * isoFromMicros: what a statement returning many instants sends instead of isoSql's text, whose
 * to_char per row is the costlier half on the database's side.
 */
export const microsSql = (column: string) => `(extract(epoch FROM ${column} - timestamptz 'epoch') * 1000000)::float8`;

/** The second isoFromMicros rendered last, and its text up to the fraction: a batch's instants share a few. */
let lastSecond = NaN;
let lastSecondText = '';

/** The instant of microsSql (whole microseconds) as isoSql renders it (6 fraction digits, UTC, years 1970–9999). */
export function isoFromMicros(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== lastSecond) {
    lastSecondText = new Date(second * 1000).toISOString().slice(0, 20);
    lastSecond = second;
  }
  return `${lastSecondText}${String(us - second * 1_000_000).padStart(6, '0')}Z`;
}

const ESCAPED_IN_ARRAY = /["\\]/;

/**
 * A text[] (or uuid[]) parameter as PostgreSQL's array literal, every element quoted: the text the
 * driver builds from a string array (pg's prepareValue), without its two regex replaces on every
 * element, a twentieth of the broker's CPU on a 256-op schedule batch (docs/benchmarks.md). No
 * element may be null.
 */
export function textArray(values: readonly string[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += ESCAPED_IN_ARRAY.test(v) ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${out}}`;
}

/** Byte order of two keys, as PostgreSQL compares text COLLATE "C" (UTF-8 bytes). */
export const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Stored bytes (bytea, pg's Buffer) as a Buffer, whichever form the driver handed back. */
export const bytesOf = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));
