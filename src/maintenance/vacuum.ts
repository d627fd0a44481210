// Housekeeping PostgreSQL's autovacuum does, for databases where it does not run: embedded PGlite
// (it has none) and a server whose `autovacuum` setting is off. Without it the dead row versions
// of the churning tables (timers, consumer cursors, frames pruned by retention, failure counts)
// pile up forever — a soak on such a server grew every table without bound and its fire lag with
// them — and the planner's statistics stay those of an empty database. The hot statements do not
// depend on statistics (src/db/plannerSettings.ts), but every other query does, and dead rows cost every
// scan. Runs every QUEEN_MAINTENANCE_MS. On a server, one broker at a time (a session advisory
// lock; the others skip that round), and only on the tables autovacuum's own rule says are due;
// embedded (where the statistics views are not kept the same way) every table, on the broker's one
// connection, and requests queue behind it meanwhile. Each run takes as long as the tables have
// pages not yet all-visible.
import type { Database } from '../db/index.ts';
import type { DutySpec } from './loop.ts';

const TABLES = ['timers', 'messages', 'partitions', 'partition_consumers', 'message_deliveries', 'dead_letters', 'consumer_groups'];

/** vacuumAnalyze — no parameters. Locks: SHARE UPDATE EXCLUSIVE on each table, briefly. */
const VACUUM_ANALYZE_SQL = `VACUUM (ANALYZE) ${TABLES.join(', ')}`;

/**
 * dueTables — $1 the tables. Which of them autovacuum would process now, by its own rule and the
 * tables' own settings (migration 20261203010000_retention sets them; PostgreSQL's defaults
 * otherwise): vacuum when the dead rows exceed 50 + scale × rows or the rows inserted since the
 * last vacuum exceed 1000 + insert scale × rows; analyse when the rows changed since the last
 * analyse exceed 50 + analyse scale × rows. Locks: none. Rows: one per table that is due.
 */
const DUE_TABLES_SQL = `
WITH t AS (
  SELECT c.relname, greatest(c.reltuples, 0) AS n, s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze,
         (SELECT split_part(o, '=', 2)::float8 FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_vacuum_scale_factor=%') AS vacuum_scale,
         (SELECT split_part(o, '=', 2)::float8 FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_vacuum_insert_scale_factor=%') AS insert_scale,
         (SELECT split_part(o, '=', 2)::float8 FROM unnest(c.reloptions) o WHERE o LIKE 'autovacuum_analyze_scale_factor=%') AS analyze_scale
    FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
   WHERE c.relname = ANY($1::text[]) AND s.schemaname = current_schema()
)
SELECT relname,
       n_dead_tup > 50 + coalesce(vacuum_scale, 0.2) * n OR n_ins_since_vacuum > 1000 + coalesce(insert_scale, 0.2) * n AS vacuum
  FROM t
 WHERE n_dead_tup > 50 + coalesce(vacuum_scale, 0.2) * n
    OR n_ins_since_vacuum > 1000 + coalesce(insert_scale, 0.2) * n
    OR n_mod_since_analyze > 50 + coalesce(analyze_scale, 0.1) * n`;

/**
 * The brokers' own VACUUM on a server is throttled as autovacuum's is by default (2 ms of sleep per
 * 200 cost units): an unthrottled VACUUM (ANALYZE) of a table a fire had just churned took the
 * machine's I/O and a core from the sweeper beside it. The hot tables never give their empty
 * pages back under a lock (migration 20261209100000_vacuum_keeps_hot_tables). Embedded PGlite
 * vacuums unthrottled: there it holds the broker's one connection, so shorter is better.
 */
const VACUUM_COST = `SET vacuum_cost_delay = '2ms'; SET vacuum_cost_limit = 200`;

/** Advisory-lock key of the maintenance run on a server ("QTVM" as ASCII). */
export const MAINTENANCE_LOCK_KEY = 0x5154564d;

/** Whether the broker must vacuum itself: embedded, or a server with autovacuum off. */
export async function needsMaintenance(db: Database): Promise<boolean> {
  if (db.embedded) return true;
  return (await db.direct.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0].autovacuum === 'off';
}

/** One run: VACUUM (ANALYZE) of the tables (embedded), or of those due on a server, under the lock. */
async function vacuumOnce(db: Database): Promise<void> {
  if (db.embedded) return void (await db.pool.query(VACUUM_ANALYZE_SQL));
  // VACUUM runs outside a transaction; the lock is the session's, taken and given back on one
  // connection to the server itself (a transaction pooler would not keep a session's lock). The
  // lock lives as long as that connection: once it is lost (a failover, a restart) another broker
  // may hold the lock on the new primary, so this run stops at once and gives nothing back.
  const client = await db.direct.connect();
  let lost: Error | undefined;
  const onLost = (err: Error) => (lost ??= err);
  client.on('error', onLost);
  const onEnd = () => onLost(new Error('connection ended'));
  client.on('end', onEnd);
  const stillHeld = () => {
    if (lost) throw new Error(`the maintenance lock was lost with its connection: ${lost.message}`, { cause: lost });
  };
  try {
    const { locked } = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MAINTENANCE_LOCK_KEY]))
      .rows[0];
    if (!locked) return;
    try {
      // Only the tables that are due: VACUUM (ANALYZE) of every table every interval read ten
      // million pending timers (ANALYZE's sample) twice a minute for nothing.
      const due = (await client.query<{ relname: string; vacuum: boolean }>(DUE_TABLES_SQL, [TABLES])).rows;
      if (due.length > 0) await client.query(VACUUM_COST);
      for (const t of due) {
        stillHeld();
        await client.query(t.vacuum ? `VACUUM (ANALYZE) ${t.relname}` : `ANALYZE ${t.relname}`);
      }
    } finally {
      if (!lost) await client.query('RESET vacuum_cost_delay; RESET vacuum_cost_limit').catch(() => {});
      if (!lost) await client.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_KEY]);
    }
    stillHeld();
  } finally {
    client.off('error', onLost);
    client.off('end', onEnd);
    // A lost connection is discarded, never handed to the next run.
    client.release(lost);
  }
}

/** The duty: vacuumOnce every QUEEN_MAINTENANCE_MS, on the maintenance loop (loop.ts). */
export function vacuumDuty(db: Database, everyMs: number): DutySpec<void> {
  return {
    name: 'vacuum',
    everyMs,
    async run(log) {
      const started = performance.now();
      await vacuumOnce(db);
      log.debug({ ms: Math.round(performance.now() - started) }, 'vacuumed and analysed');
    },
  };
}
