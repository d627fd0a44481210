// One database handle per broker: a pg pool, Prisma Client on top of that same pool (through
// @prisma/adapter-pg), and — when DATABASE_URL is unset — the embedded PGlite behind it, served
// over the Postgres wire protocol so that the application code is identical for both.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { lockFolder } from './folderLock.ts';
import { keepsStatements } from './transaction.ts';
import { createPool } from './primary.ts';

export type Prisma = InstanceType<typeof PrismaClient>;

export interface Database {
  url: string;
  embedded: boolean;
  pool: pg.Pool;
  /**
   * The server itself, for what needs a session of its own: migrations, LISTEN, the sweeper
   * (planner settings on its connections) and maintenance (a session advisory lock, VACUUM).
   * QUEEN_DIRECT_DATABASE_URL when DATABASE_URL points at a transaction-pooling PgBouncer;
   * otherwise the same URL as `url`, and `direct` is `pool`.
   */
  directUrl: string;
  direct: pg.Pool;
  prisma: Prisma;
  close(): Promise<void>;
}

// bigint columns (seq, counters) come back as JS strings by default; they stay below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * PGlite is one backend. pglite-socket 0.2.17 can multiplex several sockets onto it, but it queues
 * each protocol message on its own, not each Parse…Sync group: two connections running
 * parameterised queries at once interleave their messages and fail with SQLSTATE 26000 ("unnamed
 * prepared statement does not exist") or wedge the backend mid-protocol. So the embedded broker
 * uses exactly one connection, shared by the request path and the sweeper; pg queues the rest.
 * Consequence: nothing may hold a transaction (a checked-out client) while awaiting another query
 * on the pool — it would wait for itself (connectionTimeoutMillis turns that into an error).
 */
const EMBEDDED_POOL_SIZE = 1;
/** Sockets the embedded server accepts: the broker's one, plus room for a psql session or a test. */
const EMBEDDED_MAX_SOCKETS = 4;

/** PGlite 0.5's own start parameters (its `defaultStartParams`), which `startParams` replaces. */
const PGLITE_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  ...['search_path=public', 'exit_on_error=false', 'log_checkpoints=false', 'io_method=sync'],
  ...['max_worker_processes=0', 'max_parallel_workers=0', 'max_parallel_workers_per_gather=0', 'max_parallel_maintenance_workers=0'],
].flatMap((p) => (p.startsWith('-') ? [p] : ['-c', p]));

/**
 * The embedded server's memory settings. PGlite's WebAssembly memory only ever grows, and
 * PostgreSQL allocates shared_buffers inside it at start: a dev broker's working set is a few
 * megabytes of pages, so the server default (128MB) only adds resident memory. The WAL and
 * temporary-table buffers shrink with it (the broker writes little and uses no temporary tables).
 */
function embeddedStartParams(sharedBuffers: string): string[] {
  return [...PGLITE_START_PARAMS, '-c', `shared_buffers=${sharedBuffers}`, '-c', 'wal_buffers=1MB', '-c', 'temp_buffers=1MB'];
}

/**
 * Creates a new embedded database folder in a child process. PGlite runs initdb in a second
 * PGlite instance and a WebAssembly initdb of its own; their memories stay resident in the
 * process after initdb ends (WebAssembly memory is never returned to the system), several times
 * what the broker's own instance holds (docs/benchmarks.md). A child that exits gives it all back.
 */
async function initEmbeddedFolder(dataDir: string, startParams: string[]): Promise<void> {
  const script = `const { PGlite } = await import(process.argv[1]);
const db = await PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) });
await db.close();`;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, pglite, dataDir, JSON.stringify(startParams)], {
    timeout: 120_000,
  });
}

/**
 * V8 flag for the embedded broker's WebAssembly: Liftoff, V8's baseline compiler, for every
 * function, without the background tier-up to TurboFan. PGlite's PostgreSQL is a 9 MB module:
 * under load V8 recompiles its hot functions with TurboFan on worker threads, whose compile memory
 * stays in glibc's per-thread malloc arenas after the compiles end (never given back to the system).
 * Measured on PGlite alone under a write load for 15 s: 73 MB of thread arenas and 241 MB RSS with
 * tier-up, 8 MB and 167 MB without it, at the same query rate within the noise (docs/benchmarks.md).
 * Set once, before the first embedded database compiles its module; it applies to the modules
 * compiled after it in this process (Prisma's query compiler too), never to a broker on
 * DATABASE_URL, which does not set it.
 */
export const EMBEDDED_WASM_FLAG = '--liftoff-only';

export interface OpenOptions {
  url?: string;
  /** A direct connection to the server when `url` goes through a pooler (see Database.directUrl). */
  directUrl?: string;
  /** Embedded only: a folder, or 'memory://' for a throwaway database. */
  dataDir?: string;
  poolSize?: number;
  /** Embedded only: PostgreSQL's shared_buffers (e.g. '16MB'); see QUEEN_EMBEDDED_SHARED_BUFFERS. */
  sharedBuffers?: string;
  /** Called with pool errors (idle client lost); the pool replaces the client itself. */
  onPoolError?: (err: Error) => void;
}

/**
 * Gives every client of the pool an 'error' listener for its whole life. pg-pool listens on idle
 * clients only, and hands a new one to `await pool.connect()` through a promise: when the
 * server's FATAL (a restart's 57P01) arrives in the same read as the client's first
 * ReadyForQuery, the error is emitted before the caller's continuation can listen, and an
 * unheard 'error' kills the process. The failure itself still reaches the query or the pool.
 */
export function guardClients(pool: pg.Pool): void {
  pool.on('connect', (client) => client.on('error', () => {}));
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  let url = opts.url;
  let stopEmbedded = async () => {};
  if (!url) {
    v8.setFlagsFromString(EMBEDDED_WASM_FLAG);
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const dataDir = opts.dataDir ?? 'memory://';
    const startParams = embeddedStartParams(opts.sharedBuffers ?? '16MB');
    let unlock = async () => {};
    if (!dataDir.startsWith('memory://')) {
      await mkdir(dataDir, { recursive: true });
      unlock = await lockFolder(dataDir);
      if (!existsSync(join(dataDir, 'PG_VERSION'))) {
        await initEmbeddedFolder(dataDir, startParams).catch(async (err) => {
          await unlock();
          throw err;
        });
      }
    }
    const lite = await PGlite.create(dataDir, { startParams }).catch(async (err) => {
      await unlock();
      throw err;
    });
    const server = new PGLiteSocketServer({ db: lite, port: 0, host: '127.0.0.1', maxConnections: EMBEDDED_MAX_SOCKETS });
    await server.start();
    const port = (server as unknown as { port: number }).port;
    url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
    stopEmbedded = async () => {
      await server.stop();
      await lite.close();
      await unlock();
    };
  }
  const embedded = !opts.url;
  const max = embedded ? EMBEDDED_POOL_SIZE : (opts.poolSize ?? 10);
  // PostgreSQL connections pipeline (pg's `pipeline`): a query is written as soon as it is issued,
  // not when the previous one is answered, so the runner's BEGIN travels with a transaction's first
  // statement (src/db/transaction.ts). Not embedded: PGlite's socket server is kept to one query
  // in flight, the protocol it was measured with (see EMBEDDED_POOL_SIZE).
  // Every connection to the URL's primary, when it lists several hosts (src/db/primary.ts).
  const pool = createPool(url, { max, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000, pipeline: !embedded });
  pool.on('error', (err) => opts.onPoolError?.(err));
  guardClients(pool);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const directUrl = embedded ? url : (opts.directUrl ?? url);
  // The server itself: the request path's hottest statements are named, parsed once per connection
  // (a schedule batch's four took 16% less of PostgreSQL's CPU: docs/benchmarks.md). Not embedded:
  // one connection shared with the sweeper, which names nothing there either (src/sweeper/db.ts).
  if (!embedded && directUrl === url) keepsStatements(pool);
  let direct = pool;
  if (directUrl !== url) {
    // Few and long-lived: one migration at a time, a maintenance run now and then.
    direct = createPool(directUrl, { max: 2, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
    direct.on('error', (err) => opts.onPoolError?.(err));
    guardClients(direct);
  }
  return {
    url,
    embedded,
    pool,
    directUrl,
    direct,
    prisma,
    async close() {
      await prisma.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
      if (direct !== pool) await direct.end().catch(() => {});
      await stopEmbedded();
    },
  };
}
