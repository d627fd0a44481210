// Applies prisma/migrations/<stamp>_<name>/migration.sql in name order, each in its own
// transaction, recorded in _queen_migrations. The Prisma CLI's `migrate` needs a schema-engine
// binary that cannot be downloaded on our machines, so the broker does this itself at boot.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { PACKAGE_ROOT } from '../root.ts';

export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'prisma', 'migrations');

/**
 * Advisory-lock key serialising migrations across concurrently booting brokers
 * ("QTMG" as ASCII). Taken per transaction, so a crashed broker never leaves it held.
 */
export const MIGRATION_LOCK_KEY = 0x51544d47;

export const MIGRATIONS_TABLE = '_queen_migrations';

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<{ name: string; sql: string }[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(join(dir, name, 'migration.sql'), 'utf8') })));
}

/** Applies every pending migration; returns the names applied by this call. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const applied: string[] = [];
  const client = await pool.connect();
  // A dying connection also emits 'error'; the failing query reports it (see inTransaction).
  const onError = () => {};
  client.on('error', onError);
  try {
    for (const m of migrations) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (name text COLLATE "C" PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const done = await client.query(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [m.name]);
        if (done.rowCount === 0) {
          await client.query(m.sql);
          await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES ($1)`, [m.name]);
          applied.push(m.name);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    client.off('error', onError);
    client.release();
  }
  return applied;
}
