// A broker: database, migrations, services, HTTP app and sweeper, with an orderly start and
// stop. src/server.ts runs one from the environment; tests start several in one process.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp, type AppState } from './app.ts';
import { createVerifier } from './auth.ts';
import { isTransientDbError, sqlState } from './errors.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/index.ts';
import { distribute } from './db/citus.ts';
import { migrate } from './db/migrate.ts';
import { createMetrics, PACKAGE_VERSION } from './metrics.ts';
import { Notifier } from './notify.ts';
import { PayloadCipher } from './payload.ts';
import { startDuty, type Duty, type DutySpec } from './maintenance/loop.ts';
import { FireHistory, fireHistoryFlushDuty, fireHistoryPruneDuty } from './maintenance/fireHistory.ts';
import { pendingGaugeDuty } from './maintenance/pendingGauge.ts';
import { queueGaugesDuty } from './maintenance/queueGauges.ts';
import { retentionDuty, type RetentionPass } from './maintenance/retention.ts';
import { needsMaintenance, vacuumDuty } from './maintenance/vacuum.ts';
import { KnownGroups } from './services/log/groups.ts';
import { Waiters } from './services/log/waiters.ts';
import { ClusterFlagsCache } from './services/cluster.ts';
import { PendingCounts } from './plans/pendingCounts.ts';
import { TenantDirectory } from './plans/tenants.ts';
import { startSweeper, type Sweeper } from './sweeper/index.ts';
import type { Services } from './services/index.ts';

export interface Broker {
  app: FastifyInstance;
  services: Services;
  state: AppState;
  db: Database;
  sweeper: Sweeper | undefined;
  /** Every background duty running, on the maintenance loop (src/maintenance/loop.ts); stopped on close. */
  duties: Duty<unknown>[];
  /** Embedded, or a server with autovacuum off: the scheduled VACUUM/ANALYZE (src/maintenance/vacuum.ts). */
  maintenance: Duty<void> | undefined;
  /** The log's retention passes (src/maintenance/retention.ts). */
  retention: Duty<RetentionPass> | undefined;
  /** The per-queue gauges of /metrics (src/maintenance/queueGauges.ts). */
  queueStats: Duty<void> | undefined;
  /** Adds this broker's fire-lag counts to fire_lag_minutes (where a sweeper runs). */
  fireHistory: Duty<number> | undefined;
  /** Listens, migrates, then opens the boot flag and starts the sweeper. */
  start(): Promise<string>;
  /** Closes the boot flag, stops the sweeper (releasing its claims), closes everything. */
  close(): Promise<void>;
}

export interface BrokerOptions {
  logger?: FastifyServerOptions['logger'];
  /** Embedded only: where PGlite keeps its files ('memory://' in tests). */
  dataDir?: string;
  /** false: do not listen (tests using inject()). */
  listen?: boolean;
}

/** The JWT secret of an embedded broker: kept in its data folder so dev tokens survive restarts. */
export async function embeddedSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'jwt-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const secret = randomBytes(32).toString('hex');
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, secret + '\n', { mode: 0o600 });
    return secret;
  }
}

/** The database could not be reached at start within QUEEN_DB_STARTUP_TIMEOUT_MS. */
export class DatabaseUnreachableError extends Error {}

/**
 * Waits for the database at start: a connection failure (refused, DNS, starting up, too many
 * connections) is retried with backoff (250 ms doubling, at most 5 s) until `timeoutMs`; any
 * other error (bad password, no such database) is not going to heal and fails at once.
 */
async function reachDatabase(db: Database, timeoutMs: number, log: FastifyBaseLogger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const [pool, url] of new Map([
    [db.pool, db.url],
    [db.direct, db.directUrl],
  ])) {
    const where = db.embedded ? 'the embedded database' : `the database at ${redactUrl(url)}`;
    await reach(pool, where, deadline, log);
  }
}

async function reach(pool: Database['pool'], where: string, deadline: number, log: FastifyBaseLogger): Promise<void> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      await pool.query('SELECT 1');
      return;
    } catch (err) {
      const reason = err instanceof Error ? err.message || String(err) : String(err);
      if (!isTransientDbError(err) || Date.now() + delay > deadline) {
        throw new DatabaseUnreachableError(`cannot reach ${where}: ${reason}`, { cause: err });
      }
      log.warn({ reason, retryInMs: delay }, `waiting for ${where}`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** A connection URL without its password, for messages. */
const redactUrl = (url: string) => url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');

export async function createBroker(config: Config, opts: BrokerOptions = {}): Promise<Broker> {
  const state: AppState = { ready: false };
  const verify = createVerifier(config);
  // An unusable QUEEN_JWT_PUBLIC_KEY stops the start instead of answering 401 to everyone.
  await verify.ready;
  const dataDir = opts.dataDir ?? join(config.QUEEN_DATA_DIR, 'pgdata');
  const db = await openDatabase({
    url: config.DATABASE_URL,
    directUrl: config.QUEEN_DIRECT_DATABASE_URL,
    dataDir,
    poolSize: config.QUEEN_DB_POOL_SIZE,
    sharedBuffers: config.QUEEN_EMBEDDED_SHARED_BUFFERS,
  });
  const metrics = createMetrics({ version: PACKAGE_VERSION, database: db.embedded ? 'embedded' : 'postgres' });
  // The app's logger is created by Fastify; services log through it once it exists.
  const services = {
    config,
    db,
    verify,
    metrics,
    cluster: new ClusterFlagsCache(db),
    tenants: new TenantDirectory(db, config),
    pendingCounts: new PendingCounts(),
    fireHistory: new FireHistory(),
    knownGroups: new KnownGroups(),
    cipher: config.QUEEN_ENCRYPTION_KEY ? new PayloadCipher(config.QUEEN_ENCRYPTION_KEY) : undefined,
  } as Services;
  const app = await buildApp(services, state, { logger: opts.logger });
  services.log = app.log;
  // Only what an operator reads: pg attaches the whole client (its buffers, its queues) to the error.
  for (const pool of new Set([db.pool, db.direct])) {
    pool.removeAllListeners('error');
    pool.on('error', (err) => app.log.warn({ code: sqlState(err), reason: err.message }, 'idle database connection lost'));
  }
  services.notifier = new Notifier(db.pool, !db.embedded, (err: Error) => app.log.warn({ err }, 'notification channel error'));
  services.waiters = new Waiters(
    db,
    services.notifier,
    (err) => app.log.warn({ err }, 'long-poll probe failed'),
    config.QUEEN_LONGPOLL_PROBE_MS,
  );

  const broker: Broker = {
    app,
    services,
    state,
    db,
    sweeper: undefined,
    duties: [],
    maintenance: undefined,
    retention: undefined,
    queueStats: undefined,
    fireHistory: undefined,
    async start() {
      const address = opts.listen === false ? '' : await app.listen({ port: config.PORT, host: config.HOST });
      await reachDatabase(db, config.QUEEN_DB_STARTUP_TIMEOUT_MS, app.log);
      await migrate(db.direct);
      const distributed = await distribute(db.direct, config.QUEEN_DISTRIBUTED);
      if (distributed && distributed.distributed.length + distributed.reference.length > 0) {
        app.log.info(distributed, 'citus: tables distributed by tenant, and reference tables made');
      }
      await services.notifier.start(db.directUrl);
      state.ready = true;
      if (config.QUEEN_SWEEPER_ENABLED) broker.sweeper = startSweeper(services);
      // The background duties, each on the maintenance loop; close() stops them all.
      const onLoop = <T>(spec: DutySpec<T>): Duty<T> => {
        const duty = startDuty(spec, { log: app.log, metrics });
        broker.duties.push(duty);
        return duty;
      };
      if (await needsMaintenance(db)) {
        if (!db.embedded)
          app.log.warn('autovacuum is off on this server: the brokers vacuum their tables themselves (QUEEN_MAINTENANCE_MS)');
        broker.maintenance = onLoop(vacuumDuty(db, config.QUEEN_MAINTENANCE_MS));
      }
      broker.retention = onLoop(retentionDuty({ db, config, metrics }));
      // QUEEN_METRICS_TENANT_LABELS=false: the per-queue gauges, whose labels name tenants and
      // queues, stay empty; the cell-wide series remain.
      if (config.QUEEN_METRICS_TENANT_LABELS)
        broker.queueStats = onLoop(
          queueGaugesDuty(db, metrics, { everyMs: config.QUEEN_METRICS_QUEUE_INTERVAL_MS, series: config.QUEEN_METRICS_QUEUES }),
        );
      // The cell-wide pending gauge, sampled where a sweeper runs (as it always was).
      if (config.QUEEN_SWEEPER_ENABLED) onLoop(pendingGaugeDuty(db.pool, metrics));
      // The fire-lag history: counts of this broker's fires added every few seconds; old minutes pruned.
      if (config.QUEEN_SWEEPER_ENABLED) broker.fireHistory = onLoop(fireHistoryFlushDuty(db.pool, services.fireHistory));
      onLoop(fireHistoryPruneDuty(db.pool));
      return address;
    },
    async close() {
      state.ready = false;
      services.notifier.drain();
      await broker.sweeper?.stop();
      // The last fires' counts reach the table before the connections close.
      await broker.fireHistory?.runOnce().catch(() => {});
      await Promise.all(broker.duties.map((d) => d.stop()));
      await app.close();
      services.waiters.stop();
      await services.notifier.stop();
      await db.close();
    },
  };
  return broker;
}
