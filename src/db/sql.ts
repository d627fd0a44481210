// SQL fragments shared by statements across services and the sweeper.

/** Renders a timestamptz column as the wire's instant: ISO 8601, UTC, microseconds. */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Byte order of two keys, as PostgreSQL compares text COLLATE "C" (UTF-8 bytes). */
export const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Stored bytes (bytea, pg's Buffer) as a Buffer, whichever form the driver handed back. */
export const bytesOf = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));
