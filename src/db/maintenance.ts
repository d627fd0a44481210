// Housekeeping PostgreSQL's autovacuum does on a server and embedded PGlite never does: without it
// dead row versions of the churning tables (timers, consumer cursors, verdicts) pile up forever and
// the planner's statistics stay those of an empty database. The hot statements do not depend on
// statistics (src/db/plans.ts), but every other query does, and dead rows cost every scan.
// Runs only on the embedded database, on the broker's one connection, every
// QUEEN_EMBEDDED_MAINTENANCE_MS; each run takes as long as the tables are large, and requests
// queue behind it meanwhile.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './index.ts';

/** vacuumAnalyze — no parameters. Locks: SHARE UPDATE EXCLUSIVE on each table, briefly. */
const VACUUM_ANALYZE_SQL =
  'VACUUM (ANALYZE) timers, messages, partitions, partition_consumers, message_deliveries, dead_letters, consumer_groups';

export interface Maintenance {
  /** Runs one pass now (tests); resolves when it is done. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startEmbeddedMaintenance(db: Database, everyMs: number, log: FastifyBaseLogger): Maintenance {
  let running: Promise<void> = Promise.resolve();
  const runOnce = () => {
    running = running.then(async () => {
      const started = performance.now();
      try {
        await db.pool.query(VACUUM_ANALYZE_SQL);
        log.debug({ ms: Math.round(performance.now() - started) }, 'embedded maintenance: vacuumed and analysed');
      } catch (err) {
        log.warn({ err }, 'embedded maintenance failed; retried at the next interval');
      }
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
