// Planner settings for statements whose plan must not depend on statistics. Each setting works by
// adding disable_cost to the plans it rules out, so what is left is the index-driven plan the
// statement was written for, from the first run on a table analysed while empty (embedded PGlite
// never analyses by itself) to one with millions of rows. jit is off with them: a plan carrying
// disable_cost crosses jit_above_cost, and JIT compilation costs more than these statements run
// (docs/benchmarks.md). Every set of planner settings is defined here, once.

/** For statements that look rows up by key or walk one index range: no scans of whole tables. */
export const INDEX_PLANS = {
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
  enable_hashjoin: 'off',
  enable_mergejoin: 'off',
  enable_sort: 'off',
  jit: 'off',
} as const;

/**
 * For the sweeper's statements (src/sweeper/db.ts): the claim walks timers_deliver_at_idx in order
 * and stops after the batch, every other statement addresses rows by ctid; the join methods are
 * left to the planner, as they always were for the sweeper.
 */
export const SWEEPER_PLANS = {
  enable_sort: 'off',
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
  jit: 'off',
} as const;

/** The settings as `SET LOCAL …` statements, for the transaction runner's setup. */
export const setLocal = (settings: Readonly<Record<string, string>>) =>
  Object.entries(settings)
    .map(([k, v]) => `SET LOCAL ${k} = ${v}`)
    .join('; ');

/** The settings as session options of a connection (`-c name=value …`), for a pool's `options`. */
export const sessionOptions = (settings: Readonly<Record<string, string>>) =>
  Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
