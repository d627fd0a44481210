// Test brokers on a real database: an in-memory PGlite when DATABASE_URL is unset, or a fresh
// database created on the DATABASE_URL server for each broker (dropped at close), so test files
// never see each other's rows.
import pg from 'pg';
import { mintToken, type Grant } from '../../src/auth.ts';
import { createBroker, type Broker } from '../../src/broker.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createScratchDatabase as createScratch } from '../../src/db/scratch.ts';
import { createSweeper, type Sweeper } from '../../src/sweeper/index.ts';

export const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
export const SERVER_URL = process.env.DATABASE_URL || undefined;
export const onRealPostgres = Boolean(SERVER_URL);

/** An empty database of its own on the DATABASE_URL server (dropped by the caller). */
export const createScratchDatabase = (serverUrl = SERVER_URL!) => createScratch(serverUrl);

/**
 * `pool`, listening for errors as the broker's pools do (src/db/index.ts): a pool over a scratch
 * database must. pg-pool's end() resolves before its connections have closed, and dropping the
 * database terminates them: an idle connection's error then goes to the pool, which throws it
 * uncaught when nothing listens.
 */
export function heedingErrors<P extends pg.Pool>(pool: P): P {
  pool.on('error', () => {});
  return pool;
}

export interface TestBroker {
  broker: Broker;
  config: Config;
  /** Base URL when listening (listen: true), else ''. */
  url: string;
  /** A pg pool on the broker's database, for asserting and arranging state in SQL. */
  sql: pg.Pool;
  /** With `sweeper: 'driven'`: a sweeper without its loop, which the test drives with sweepOnce(); stopped by close(). */
  sweeper?: Sweeper;
  token(o?: { tenant?: string; sub?: string; grants?: Grant[]; expiresIn?: string }): Promise<string>;
  /** A credential of the operator tenant with the admin grant: what the admin routes take. */
  operatorToken(): Promise<string>;
  close(): Promise<void>;
}

export interface TestBrokerOptions {
  env?: Record<string, string>;
  listen?: boolean;
  /** Reuse a database URL (several brokers on one database); embedded mode ignores it. */
  databaseUrl?: string;
  /** true: the broker's own sweeper loop; 'driven': none, and `sweeper` for the test to drive pass by pass. */
  sweeper?: boolean | 'driven';
  /** Log lines (pino JSON, level info and up unless logLevel says otherwise) go here; none are written without it. */
  logLines?: string[];
  logLevel?: 'debug' | 'info';
}

export async function startTestBroker(o: TestBrokerOptions = {}): Promise<TestBroker> {
  let scratch: { url: string; drop(): Promise<void> } | undefined;
  let databaseUrl = o.databaseUrl;
  if (!databaseUrl && SERVER_URL) {
    scratch = await createScratchDatabase();
    databaseUrl = scratch.url;
  }
  const config = loadConfig({
    QUEEN_JWT_SECRET: SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    QUEEN_SWEEPER_ENABLED: o.sweeper === true ? 'true' : 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...o.env,
  });
  let broker: Broker;
  let address: string;
  try {
    const lines = o.logLines;
    const logger = lines ? { level: o.logLevel ?? 'info', stream: { write: (line: string) => void lines.push(line) } } : false;
    broker = await createBroker(config, { dataDir: 'memory://', listen: o.listen ?? false, logger });
    address = await broker.start();
  } catch (err) {
    await scratch?.drop();
    throw err;
  }
  const sweeper = o.sweeper === 'driven' ? createSweeper(broker.services) : undefined;
  return {
    broker,
    config,
    url: address,
    sql: broker.db.pool,
    sweeper,
    token: (t = {}) =>
      mintToken(SECRET, {
        tenant: t.tenant ?? 'acme',
        sub: t.sub ?? 'tester',
        grants: t.grants ?? ['produce', 'consume', 'read', 'admin'],
        expiresIn: t.expiresIn,
      }),
    operatorToken: () => mintToken(SECRET, { tenant: config.QUEEN_OPERATOR_TENANT, sub: 'operator', grants: ['admin'] }),
    async close() {
      await sweeper?.stop();
      await broker.close();
      await scratch?.drop();
    },
  };
}

/** api() with the operator's credential: the admin routes. */
export async function admin(
  tb: TestBroker,
  method: 'GET' | 'PUT',
  url: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return api(tb, method, url, { ...o, token: await tb.operatorToken() });
}

/**
 * Polls `check` until it returns a truthy value (returned) or the timeout elapses (throws). The
 * default is a ceiling for a machine shared with the Citus suites' clusters, not a speed target.
 */
export async function waitFor<T>(check: () => Promise<T> | T, { timeout = 30_000, interval = 10 } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`waitFor timed out after ${timeout} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** inject() with a bearer token and JSON body. */
export async function api(
  tb: TestBroker,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  o: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
) {
  const token = o.token === undefined ? await tb.token() : o.token;
  const res = await tb.broker.app.inject({
    method,
    url,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...o.headers,
    },
    payload: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
  });
  let json: any;
  try {
    json = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, body: json, headers: res.headers, raw: res.body };
}
