// The sweeper's own connections to real PostgreSQL: its pool (db.ts) and the fire thread's one
// (fireThread.ts), configured alike. The server itself, never a transaction pooler: the planner
// settings (SWEEPER_PLANS, db.ts says why) are session options, which PgBouncer would refuse (or,
// told to ignore them, drop). Its primary, when the URL lists several (createPool).
//
// Only light imports here: the fire thread loads this module on its own.
import type pg from 'pg';
import { createPool } from '../db/primary.ts';
import { SWEEPER_PLANS, sessionOptions } from '../db/plannerSettings.ts';

/**
 * On plain PostgreSQL each of the sweeper's connections keeps one generic plan per named statement.
 * Left to the plan cache, the claim, the backlog's lock statement and the wheel's one-write fire
 * were planned anew at every bind (PostgreSQL's log: bind 0.14, 0.22 and 1.1 ms, beside 0.03–0.06
 * ms with one plan): their generic plans are costed above the custom ones by the ten rows the
 * planner assumes for each unnest of a parameter, yet execute as fast (the same log). Not on a
 * Citus coordinator: there a statement's shard comes from its tenant parameter, and with generic
 * plans the sweeper fired nothing (test/citus-sweeper.test.ts). A database with the extension
 * counts as one, its tables distributed or not (QUEEN_DISTRIBUTED=none): plans as before there.
 */
const ONE_PLAN_EACH = `SELECT set_config('plan_cache_mode', 'force_generic_plan', false)
  WHERE NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`;

/**
 * A pool of `max` sweeper connections to `directUrl`, named `name` in pg_stat_activity; an idle one
 * is closed after `idleTimeoutMillis` (0: kept).
 */
export function createSweeperPool(directUrl: string, max: number, name = 'queen-timers-sweeper', idleTimeoutMillis = 60_000): pg.Pool {
  return createPool(directUrl, {
    max,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis,
    application_name: name,
    pipeline: true, // as the broker's pool (src/db/index.ts)
    options: sessionOptions(SWEEPER_PLANS),
    onConnect: (client) => client.query(ONE_PLAN_EACH),
  });
}
