// Raw SQL helpers. The request path runs in Prisma interactive transactions
// (db.prisma.$transaction) with raw SQL inside where Prisma cannot express a statement; shared
// helpers take a Queryable so they serve a Prisma transaction (viaPrisma) and a pg client alike.
import type pg from 'pg';

/** Anything that runs a parameterised query: the pool, or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Runs fn inside BEGIN/COMMIT on one pooled connection; rolls back on any error.
 * Never await another connection inside fn: embedded PGlite runs one transaction at a time.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client whose connection dies (pg_terminate_backend, a restart) emits 'error'
  // besides failing its query; unheard, that event would crash the process. The query's own
  // rejection carries the failure; the client is discarded at release.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** A Prisma transaction client as a Queryable, for shared raw-SQL helpers (still parameterised). */
export function viaPrisma(tx: { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> }): Queryable {
  return {
    async query(text: string, values: unknown[] = []) {
      const rows = (await tx.$queryRawUnsafe<any[]>(text, ...values)) ?? [];
      return { rows, rowCount: rows.length, command: '', oid: 0, fields: [] } as any;
    },
  };
}
