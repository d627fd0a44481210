// Brokers as separate processes (src/server.ts), for tests that kill one with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { guardClients } from '../../src/db/index.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createScratchDatabase, SECRET, waitFor } from './broker.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BrokerProcess {
  proc: ChildProcess;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string | null>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | string | null>;
}

export function spawnBroker(databaseUrl: string, env: Record<string, string> = {}): BrokerProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      QUEEN_JWT_SECRET: SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string | null>((resolve) => proc.on('exit', (code, sig) => resolve(code ?? sig)));
  return {
    proc,
    exited,
    output: () => out,
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export interface Cluster {
  /** The scratch database's URL (dropped by the cleanups). */
  url: string;
  /** A small pool on it, for arranging and asserting in SQL. */
  sql: pg.Pool;
  /** Three broker processes, each with its sweeper; replace one to restart it. */
  brokers: BrokerProcess[];
  /** Their environment beyond the defaults, for a restarted one. */
  env: Record<string, string>;
}

/**
 * Three broker processes on a migrated scratch database of their own (or on `databaseUrl`), resolved once all three
 * sweepers are connected. Short leases (3 s): a killed broker's claims come back quickly. What it
 * starts is pushed onto `cleanups`, to be run in reverse order.
 */
export async function startCluster(cleanups: (() => Promise<unknown>)[], databaseUrl?: string): Promise<Cluster> {
  let url = databaseUrl;
  if (!url) {
    const scratch = await createScratchDatabase();
    cleanups.push(() => scratch.drop());
    url = scratch.url;
  }
  const sql = new pg.Pool({ connectionString: url, max: 2 });
  guardClients(sql);
  sql.on('error', () => {});
  cleanups.push(() => sql.end());
  await migrate(sql);
  const env = { QUEEN_SWEEPER_LEASE_MS: '3000', QUEEN_DB_STARTUP_TIMEOUT_MS: '120000' };
  const brokers: BrokerProcess[] = [0, 1, 2].map(() => spawnBroker(url, env));
  cleanups.push(() => Promise.all(brokers.map((b) => b.kill('SIGKILL'))));
  await waitFor(
    async () =>
      (
        await sql.query(`SELECT count(DISTINCT client_port) >= 3 AS ok FROM pg_stat_activity
                          WHERE datname = current_database() AND application_name = 'queen-timers-sweeper'`)
      ).rows[0].ok,
    { timeout: 60_000, interval: 100 },
  );
  return { url, sql, brokers, env };
}

/** A port free on 127.0.0.1 now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
