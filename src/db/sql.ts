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

/** The instant of microsSql as isoSql renders it (6 fraction digits, UTC, years 1970–9999). */
export function isoFromMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

/** Byte order of two keys, as PostgreSQL compares text COLLATE "C" (UTF-8 bytes). */
export const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Stored bytes (bytea, pg's Buffer) as a Buffer, whichever form the driver handed back. */
export const bytesOf = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));
