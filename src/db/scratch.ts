// Throwaway databases on a PostgreSQL server, for tests and benchmarks: each run gets an empty
// database of its own (created here, dropped by the caller), so runs never see each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<pid>_<random>` on the server at serverUrl and returns its URL. */
export async function createScratchDatabase(serverUrl: string, prefix = 'qt_test'): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
