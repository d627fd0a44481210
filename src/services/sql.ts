// Raw SQL on the request path: a pg client checked out of the broker's pool, in a transaction.
// Prisma's interactive transactions add a round trip per statement through the driver adapter's
// query compiler; the hot routes (schedule, push, pop) use pg directly on the same pool.
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
    client.release(broken);
  }
}
