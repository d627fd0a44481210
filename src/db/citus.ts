// Citus: after the migrations, on a database where the citus extension is installed (or where
// QUEEN_DISTRIBUTED=citus requires it), every table keyed by tenant is distributed on its tenant
// column, all colocated with `tenants` (a tenant's rows of every table live in one shard group, so
// a statement pinned to one tenant runs on one worker), and the cell-wide tables (one row for the
// whole cell: cluster_flags) become reference tables, copied to every node. The bookkeeping table
// of the migrations stays on the coordinator. Idempotent: a table Citus already knows is left as it
// is, so a second broker start does nothing. On plain PostgreSQL (no extension) nothing happens.
import type pg from 'pg';
import { MIGRATION_LOCK_KEY, MIGRATIONS_TABLE } from './migrate.ts';

export type DistributedMode = 'auto' | 'citus' | 'none';

/** The table every tenant-keyed table is colocated with. */
export const COLOCATION_ANCHOR = 'tenants';

/** The cell-wide tables: no tenant column, read by every broker, written rarely. */
export const REFERENCE_TABLES = ['cluster_flags'];

export interface Distribution {
  /** Tables distributed by this call, by tenant (the anchor first), and made reference tables. */
  distributed: string[];
  reference: string[];
}

/** Whether the citus extension is installed in the database the pool reaches. */
export async function citusInstalled(pool: pg.Pool): Promise<boolean> {
  return (await pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rows.length > 0;
}

/** Whether `table` is a distributed table of a Citus coordinator (false on plain PostgreSQL). */
export async function citusDistributed(pool: pg.Pool, table: string): Promise<boolean> {
  if (!(await citusInstalled(pool))) return false;
  return (
    (await pool.query(`SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass AND partmethod = 'h'`, [table])).rows.length > 0
  );
}

/**
 * Distributes the schema when the database is a Citus coordinator (mode 'auto': the extension is
 * installed; 'citus': it must be; 'none': never). Undefined when nothing is to be distributed.
 */
export async function distribute(pool: pg.Pool, mode: DistributedMode): Promise<Distribution | undefined> {
  if (mode === 'none') return undefined;
  if (!(await citusInstalled(pool))) {
    if (mode === 'citus') {
      throw new Error('QUEEN_DISTRIBUTED=citus, but the citus extension is not installed in the database (CREATE EXTENSION citus)');
    }
    return undefined;
  }
  const client = await pool.connect();
  const onError = () => {};
  client.on('error', onError);
  try {
    // One broker at a time, as for the migrations (an advisory lock of the coordinator's).
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const known = new Set(
        (await client.query<{ name: string }>(`SELECT logicalrelid::regclass::text AS name FROM pg_dist_partition`)).rows.map(
          (r) => r.name,
        ),
      );
      const keyed = (
        await client.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> $1
              AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant' AND NOT a.attisdropped)
            ORDER BY c.relname <> $2, c.relname`,
          [MIGRATIONS_TABLE, COLOCATION_ANCHOR],
        )
      ).rows.map((r) => r.name);
      const done: Distribution = { distributed: [], reference: [] };
      for (const table of keyed) {
        if (known.has(table)) continue;
        await client.query(
          table === COLOCATION_ANCHOR
            ? `SELECT create_distributed_table($1, 'tenant')`
            : `SELECT create_distributed_table($1, 'tenant', colocate_with => '${COLOCATION_ANCHOR}')`,
          [table],
        );
        done.distributed.push(table);
      }
      for (const table of REFERENCE_TABLES) {
        if (known.has(table)) continue;
        await client.query('SELECT create_reference_table($1)', [table]);
        done.reference.push(table);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.off('error', onError);
    client.release();
  }
}
