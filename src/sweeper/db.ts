// The sweeper's own small connection pool (real PostgreSQL), so a saturated request path never
// delays a fire and the claim can carry planner settings without touching request-path sessions.
//
// Why planner settings: after a burst of due timers into a table analysed while empty, the claim
// was planned as a bitmap scan of every due row plus a sort — each batch then read and sorted the
// whole backlog (docs/benchmarks.md). With sort, bitmap and seq scans disabled, the only plan
// left walks timers_deliver_at_idx in order and stops after the batch: the index is used from the
// first cycle of a burst, whatever the statistics say (test/sweeper.test.ts EXPLAINs it). Every
// other sweeper statement addresses rows by ctid (TID scan). The settings themselves are defined
// with the others in src/db/plannerSettings.ts (SWEEPER_PLANS).
//
// Real PostgreSQL: the settings are session options of the sweeper's connections (no round trip).
// Embedded PGlite: the broker has exactly one connection (src/db/index.ts: pglite-socket
// interleaves concurrent connections' protocol messages), shared with the request path, so the
// sweeper borrows it and the claim runs in a short transaction with SET LOCAL (nothing else is
// awaited while it holds the connection).
import pg from 'pg';
import { guardClients, type Database } from '../db/index.ts';
import { SWEEPER_PLANS, setLocal } from '../db/plannerSettings.ts';
import { inTransaction, type Queryable } from '../db/transaction.ts';
import { createSweeperPool } from './connection.ts';

/** Real PostgreSQL: a fire, the next batch's claim beside it, and one to spare. */
export const SWEEPER_POOL_SIZE = 3;

export class SweeperDb implements Queryable {
  readonly embedded: boolean;
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;

  /** The sweeper's connections to the broker's database (see above for embedded). */
  constructor(db: Pick<Database, 'directUrl' | 'embedded' | 'pool'>, onError: (err: Error) => void) {
    this.embedded = db.embedded;
    this.ownsPool = !db.embedded;
    if (db.embedded) {
      this.pool = db.pool;
      return;
    }
    this.pool = createSweeperPool(db.directUrl, SWEEPER_POOL_SIZE);
    // An idle connection killed under us (pg_terminate_backend, failover): the pool replaces it.
    this.pool.on('error', onError);
    guardClients(this.pool);
  }

  query(text: string, values?: unknown[]): Promise<pg.QueryResult<any>> {
    return this.pool.query(text, values);
  }

  /** Runs a statement whose plan depends on SWEEPER_PLANS. */
  async planned<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    if (!this.embedded) return fn(this.pool);
    return inTransaction(this.pool, fn, { setup: setLocal(SWEEPER_PLANS), replay: false });
  }

  /** `name` for a statement of the sweeper's own connections (runStatement); none on the embedded database's shared one. */
  named(name: string): string | undefined {
    return this.embedded ? undefined : name;
  }

  /** A transaction, not replayed (the sweeper retries by its own rules), whose plans depend on SWEEPER_PLANS. */
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn, { setup: this.embedded ? setLocal(SWEEPER_PLANS) : undefined, replay: false });
  }

  async end(): Promise<void> {
    if (this.ownsPool) await this.pool.end().catch(() => {});
  }
}
