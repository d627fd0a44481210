import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/index.ts';
import { runStatement, statementName, type Queryable } from '../src/db/transaction.ts';
import { listMigrations, migrate, MIGRATIONS_TABLE } from '../src/db/migrate.ts';
import { createPool, KEEPALIVE_IDLE_MS, locatorFor, NoPrimaryError, parseDatabaseUrl } from '../src/db/primary.ts';
import { loadConfig } from '../src/config.ts';
import { createServer } from 'node:net';
import { admin, createScratchDatabase, heedingErrors, onRealPostgres, SERVER_URL, startTestBroker, waitFor } from './helpers/broker.ts';
import { startProxy } from './helpers/proxy.ts';
import { batch, sched } from './helpers/timers.ts';
import { MAINTENANCE_LOCK_KEY, vacuumDuty } from '../src/maintenance/vacuum.ts';
import { isConnectionError } from '../src/errors.ts';

/** A fresh, unmigrated database: a scratch database on the server, or an in-memory PGlite. */
async function freshDatabase(): Promise<{ db: Database; drop(): Promise<void> }> {
  if (onRealPostgres) {
    const scratch = await createScratchDatabase();
    const db = await openDatabase({ url: scratch.url });
    return { db, drop: async () => (await db.close(), await scratch.drop()) };
  }
  const db = await openDatabase({ dataDir: 'memory://' });
  return { db, drop: () => db.close() };
}

describe('migrations', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(() => fresh?.drop());

  it('applies every migration exactly once when two brokers boot at the same time', async () => {
    // Embedded PGlite serves one connection at a time (src/db/index.ts): there the two migrators
    // share the broker's pool and queue behind each other; on a server they race for real.
    const second = onRealPostgres ? heedingErrors(new pg.Pool({ connectionString: fresh.db.url, max: 2 })) : fresh.db.pool;
    try {
      const [a, b] = await Promise.all([migrate(fresh.db.pool), migrate(second)]);
      const all = (await listMigrations()).map((m) => m.name);
      expect([...a, ...b].sort()).toEqual(all);
      const recorded = await fresh.db.pool.query(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`);
      expect(recorded.rows.map((r) => r.name)).toEqual(all);
      expect(await migrate(second)).toEqual([]);
    } finally {
      if (second !== fresh.db.pool) await second.end();
    }
  });

  it("the fire's hot tables keep their empty pages: no VACUUM truncates them under an exclusive lock", async () => {
    await migrate(fresh.db.pool);
    const { rows } = await fresh.db.pool.query(
      `SELECT relname FROM pg_class
        WHERE relname = ANY ($1::text[]) AND 'vacuum_truncate=false' = ANY (coalesce(reloptions, '{}')) ORDER BY relname`,
      [['timers', 'messages', 'partitions', 'partition_consumers']],
    );
    expect(rows.map((r) => r.relname)).toEqual(['messages', 'partition_consumers', 'partitions', 'timers']);
  });

  it('matches prisma/schema.prisma: every model, column, type, nullability and primary key', async () => {
    const require = createRequire(import.meta.url);
    const wasm = require('@prisma/prisma-schema-wasm');
    const schema = readFileSync(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
    const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]] })));
    const SQL_TYPE: Record<string, string> = {
      String: 'text',
      Int: 'integer',
      BigInt: 'bigint',
      Boolean: 'boolean',
      DateTime: 'timestamp with time zone',
      Bytes: 'bytea',
      Json: 'jsonb',
    };
    const expected: Record<string, Record<string, { type: string; nullable: boolean }>> = {};
    const expectedKeys: Record<string, string[]> = {};
    for (const model of dmmf.datamodel.models) {
      const table = model.dbName ?? model.name;
      expected[table] = {};
      const colOf = (name: string) => model.fields.find((f: any) => f.name === name)?.dbName ?? name;
      for (const f of model.fields.filter((f: any) => f.kind === 'scalar')) {
        // A list (BigInt[]) is an array column: information_schema says ARRAY, whatever the element.
        const type = f.isList ? 'ARRAY' : f.nativeType?.[0] === 'Uuid' ? 'uuid' : SQL_TYPE[f.type];
        expected[table][f.dbName ?? f.name] = { type, nullable: !f.isRequired };
      }
      const pk = model.primaryKey?.fields ?? model.fields.filter((f: any) => f.isId).map((f: any) => f.name);
      expectedKeys[table] = pk.map(colOf).sort();
    }

    const cols = await fresh.db.pool.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> $1`,
      [MIGRATIONS_TABLE],
    );
    const actual: typeof expected = {};
    for (const c of cols.rows) {
      (actual[c.table_name] ??= {})[c.column_name] = { type: c.data_type, nullable: c.is_nullable === 'YES' };
    }
    expect(actual).toEqual(expected);

    const keys = await fresh.db.pool.query(
      `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu USING (constraint_schema, constraint_name)
       WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = 'public' AND tc.table_name <> $1`,
      [MIGRATIONS_TABLE],
    );
    const actualKeys: Record<string, string[]> = {};
    for (const k of keys.rows) (actualKeys[k.table_name] ??= []).push(k.column_name);
    for (const t of Object.keys(actualKeys)) actualKeys[t].sort();
    expect(actualKeys).toEqual(expectedKeys);
  });

  it('keys every tenant table by tenant first and compares text keys in byte order (COLLATE "C")', async () => {
    const r = await fresh.db.pool.query(
      `SELECT c.relname AS table, a.attname AS first_key
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
       WHERE i.indisprimary AND n.nspname = 'public' AND c.relname NOT IN ($1, 'cluster_flags')`,
      [MIGRATIONS_TABLE],
    );
    for (const row of r.rows) expect(row, row.table).toMatchObject({ first_key: 'tenant' });
    const collations = await fresh.db.pool.query(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name IN ('tenant', 'timer_key', 'queue', 'transaction_id', 'txn')`,
    );
    for (const c of collations.rows) expect(c, `${c.table_name}.${c.column_name}`).toMatchObject({ collation_name: 'C' });
  });
});

describe('a database that goes away', () => {
  it('answers 503 database_unavailable while it is unreachable, logs the outage once at warn, and recovers by itself', async () => {
    // The broker reaches its database through a proxy the test can cut.
    let target: { url: string; close(): Promise<void> };
    if (onRealPostgres) {
      const scratch = await createScratchDatabase();
      target = { url: scratch.url, close: scratch.drop };
    } else {
      const lite = await openDatabase({ dataDir: 'memory://' });
      target = { url: lite.url, close: () => lite.close() };
    }
    const u = new URL(target.url);
    const proxy = await startProxy(u.hostname, Number(u.port || 5432));
    u.host = `127.0.0.1:${proxy.port}`;
    const lines: string[] = [];
    const tb = await startTestBroker({ databaseUrl: u.toString(), logLines: lines });
    const logged = (msg: string) => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);
    try {
      expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).status).toBe(200);
      await proxy.cut();
      // Fresh tenants force queries (the cluster flags are cached for a second).
      for (const t of ['t1', 't2', 't3']) {
        const down = await admin(tb, 'GET', `/api/v1/admin/tenants/${t}`);
        expect(down.status).toBe(503);
        expect(down.body.code).toBe('database_unavailable');
        expect(down.headers['retry-after']).toBe('1');
      }
      await proxy.restore();
      await waitFor(async () => (await admin(tb, 'GET', '/api/v1/admin/tenants/t1')).status === 200, { timeout: 20_000, interval: 200 });
      expect(logged('database unavailable: answering 503 until it is back').map((l) => l.level)).toEqual([40]);
      expect(logged('request failed')).toEqual([]);
      expect(logged('database reachable again')).toHaveLength(1);
    } finally {
      await tb.close();
      await proxy.close();
      await target.close();
    }
  });
});

/** A port nothing listens on now (the OS picked it, then it was closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a database URL: several hosts, a Unix-domain socket', () => {
  it('is parsed in the libpq form: host:port pairs in order, 5432 by default, IPv6 in brackets', () => {
    expect(parseDatabaseUrl('postgresql://app:pw@db1:5433,db2,[::1]:6000/cell?sslmode=disable')).toEqual({
      hosts: [
        { host: 'db1', port: 5433 },
        { host: 'db2', port: 5432 },
        { host: '::1', port: 6000 },
      ],
      single: 'postgresql://app:pw@db1:5433/cell?sslmode=disable',
    });
  });

  it('is accepted by the configuration for DATABASE_URL and QUEEN_DIRECT_DATABASE_URL; a malformed host is refused naming the variable', () => {
    const url = 'postgresql://app@db1:5432,db2:5432/cell';
    const config = loadConfig({ DATABASE_URL: url, QUEEN_DIRECT_DATABASE_URL: url, QUEEN_JWT_SECRET: 'x'.repeat(32) });
    expect([config.DATABASE_URL, config.QUEEN_DIRECT_DATABASE_URL]).toEqual([url, url]);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://app@db1:port,db2/cell', QUEEN_JWT_SECRET: 'x'.repeat(32) })).toThrow(
      /DATABASE_URL: a PostgreSQL URL \(postgresql:\/\/user@host:port\/db, or several host:port separated by commas\): "db1:port" is not a host or host:port/,
    );
  });

  it('names a Unix-domain socket as libpq does: the directory percent-encoded as the host, or ?host= (and ?port=) with none before the path', () => {
    expect(parseDatabaseUrl('postgresql://app@%2Fvar%2Frun%2Fpostgresql:5433/cell')).toEqual({
      hosts: [{ host: '/var/run/postgresql', port: 5433 }],
      single: 'postgresql://app@%2Fvar%2Frun%2Fpostgresql:5433/cell',
    });
    expect(parseDatabaseUrl('postgresql://app@/cell?host=/run/pg,db2&port=5433,6000&sslmode=disable')).toEqual({
      hosts: [
        { host: '/run/pg', port: 5433 },
        { host: 'db2', port: 6000 },
      ],
      single: 'postgresql://app@%2Frun%2Fpg:5433/cell?sslmode=disable',
    });
    expect(parseDatabaseUrl('postgresql:///cell?host=%2Frun%2Fpg').hosts).toEqual([{ host: '/run/pg', port: 5432 }]);
    expect(parseDatabaseUrl('postgresql:///cell?host=/run/pg,db2&port=6000').hosts).toEqual([
      { host: '/run/pg', port: 6000 },
      { host: 'db2', port: 6000 },
    ]);
    const env = { QUEEN_JWT_SECRET: 'x'.repeat(32) };
    expect(() => loadConfig({ ...env, DATABASE_URL: 'postgresql://app@/cell' })).toThrow(
      /DATABASE_URL: .*names no host: write host\[:port\] after the @, or a socket directory as \?host=\/var\/run\/postgresql/,
    );
    expect(() => loadConfig({ ...env, DATABASE_URL: 'postgresql://app@/cell?host=a,b,c&port=1,2' })).toThrow(
      /DATABASE_URL: .*\?port= lists 2 ports for 3 hosts: give one, or one for each/,
    );
  });

  // The test server's socket where Debian's PostgreSQL keeps it (CI's server); a server elsewhere skips.
  const socketDir = '/var/run/postgresql';
  const hasSocket = SERVER_URL !== undefined && existsSync(`${socketDir}/.s.PGSQL.${new URL(SERVER_URL).port || 5432}`);
  it.skipIf(!hasSocket)("connects over the server's Unix-domain socket when the URL names its directory", async () => {
    const { db, drop } = await freshDatabase();
    const u = new URL(db.url);
    try {
      for (const url of [
        `postgresql://${u.username}@${encodeURIComponent(socketDir)}:${u.port}${u.pathname}`,
        `postgresql://${u.username}@${u.pathname}?host=${socketDir}&port=${u.port}`,
      ]) {
        const pool = heedingErrors(createPool(url, { max: 1 }));
        try {
          // A socket connection has no client address.
          expect((await pool.query('SELECT client_addr IS NULL AS local FROM pg_stat_activity WHERE pid = pg_backend_pid()')).rows).toEqual(
            [{ local: true }],
          );
        } finally {
          await pool.end();
        }
      }
    } finally {
      await drop();
    }
  });

  it('connects past a host that refuses to the one that answers as a primary, with TCP keepalive', async () => {
    const { db, drop } = await freshDatabase();
    const u = new URL(db.url);
    const url = `postgresql://${u.username}@127.0.0.1:${await closedPort()},${u.host}${u.pathname}`;
    const pool = heedingErrors(createPool(url, { max: 1 }));
    try {
      const client = await pool.connect();
      try {
        expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        const stream = (client as unknown as { connection: { stream: unknown; _keepAlive: boolean; _keepAliveInitialDelayMillis: number } })
          .connection;
        expect([stream._keepAlive, stream._keepAliveInitialDelayMillis]).toEqual([true, KEEPALIVE_IDLE_MS]);
      } finally {
        client.release();
      }
      expect(await locatorFor(url).primary()).toEqual({ host: u.hostname, port: Number(u.port) });
    } finally {
      await pool.end();
      await drop();
    }
  });

  it('fails a connection with NoPrimaryError (SQLSTATE 08001, naming each host) when none answers', async () => {
    const [a, b] = [await closedPort(), await closedPort()];
    const pool = createPool(`postgresql://postgres@127.0.0.1:${a},127.0.0.1:${b}/none`, { max: 1 });
    try {
      const err = await pool.query('SELECT 1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NoPrimaryError);
      expect(err).toMatchObject({ code: '08001' });
      expect((err as Error).message).toContain(`no primary among 127.0.0.1:${a}, 127.0.0.1:${b} (`);
    } finally {
      await pool.end();
    }
  });

  it.skipIf(!onRealPostgres)(
    'answers 503, not 500, while its server refuses writes (25006, as a standby does), and writes again once it takes them',
    async () => {
      const tb = await startTestBroker();
      const database = new URL(tb.config.DATABASE_URL!).pathname.slice(1);
      const server = new pg.Client({ connectionString: process.env.DATABASE_URL });
      server.on('error', () => {});
      await server.connect();
      try {
        expect((await batch(tb, [sched('ro', 'before')])).status).toBe(200);
        // Every connection opened from now on is read-only; the broker's open ones are cut.
        await server.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
        await server.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
        for (const key of ['ro-1', 'ro-2', 'ro-3']) {
          const r = await batch(tb, [sched('ro', key)]);
          expect({ status: r.status, code: r.body.code }).toEqual({ status: 503, code: 'database_unavailable' });
        }
        // Writable again: the connections that met the read-only server are discarded (below), and
        // the new ones write.
        await server.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
        await waitFor(async () => (await batch(tb, [sched('ro', 'after')])).status === 200, { timeout: 30_000, interval: 50 });
      } finally {
        await server.end();
        await tb.close();
      }
    },
  );

  it.skipIf(!onRealPostgres)('never reuses a connection that met a read-only server (25006), even one released as healthy', async () => {
    const scratch = await createScratchDatabase();
    const database = new URL(scratch.url).pathname.slice(1);
    const server = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await server.connect();
    await server.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    const pool = heedingErrors(createPool(scratch.url, { max: 2 }));
    try {
      const readOnly = await pool.connect();
      const err = await readOnly.query('CREATE TABLE t (x int)').catch((e: unknown) => e);
      // The transaction runner releases a client whose statement failed as healthy; this one goes.
      readOnly.release();
      expect(err).toMatchObject({ code: '25006' });
      expect(pool.totalCount).toBe(0);
      await server.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
      const healthy = await pool.connect();
      await healthy.query('SELECT 1');
      healthy.release();
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
      await server.end();
      await scratch.drop();
    }
  });

  it.skipIf(!onRealPostgres)('serves a broker whose DATABASE_URL names a host that is down first', async () => {
    const scratch = await createScratchDatabase();
    const u = new URL(scratch.url);
    const tb = await startTestBroker({ databaseUrl: `postgresql://${u.username}@127.0.0.1:${await closedPort()},${u.host}${u.pathname}` });
    try {
      expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).status).toBe(200);
    } finally {
      await tb.close();
      await scratch.drop();
    }
  });
});

describe('named statements on the request path (statementName)', () => {
  const namedOn = async (client: Queryable) => {
    await runStatement(client, 'SELECT 1', [], statementName(client, 'qt_named_probe'));
    return (await client.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'qt_named_probe'`)).rows[0].n;
  };

  it('names them on the server itself; not on the embedded database, whose one connection the sweeper shares', async () => {
    const { db, drop } = await freshDatabase();
    const client = await db.pool.connect();
    try {
      expect(statementName(db.pool, 'qt_named_probe')).toBe(onRealPostgres ? 'qt_named_probe' : undefined);
      expect(await namedOn(client)).toBe(onRealPostgres ? 1 : 0);
    } finally {
      client.release();
      await drop();
    }
  });

  it.skipIf(!onRealPostgres)('names none when DATABASE_URL goes through a pooler (QUEEN_DIRECT_DATABASE_URL set)', async () => {
    const scratch = await createScratchDatabase();
    // Another URL for the same server stands for the pooler: what counts is that the two differ.
    const db = await openDatabase({ url: `${scratch.url}?application_name=pooled`, directUrl: scratch.url });
    const client = await db.pool.connect();
    try {
      expect(statementName(client, 'qt_named_probe')).toBeUndefined();
      expect(await namedOn(client)).toBe(0);
    } finally {
      client.release();
      await db.close();
      await scratch.drop();
    }
  });
});

describe.skipIf(!onRealPostgres)('the maintenance lock (a session advisory lock)', () => {
  it('is lost with its connection: the run stops with that failure, gives nothing back, and the next run takes the lock anew', async () => {
    const tb = await startTestBroker();
    const server = new pg.Client({ connectionString: tb.config.DATABASE_URL });
    server.on('error', () => {});
    await server.connect();
    const log = tb.broker.app.log as unknown as Parameters<ReturnType<typeof vacuumDuty>['run']>[0];
    const duty = vacuumDuty(tb.broker.db, 60_000);
    try {
      // The timers table due for ANALYZE (more than 50 rows changed since the last one).
      await batch(
        tb,
        Array.from({ length: 100 }, (_, i) => sched('maint', `k${i}`)),
      );
      await waitFor(
        async () =>
          (await server.query(`SELECT n_mod_since_analyze > 60 AS due FROM pg_stat_user_tables WHERE relname = 'timers'`)).rows[0]?.due,
        { timeout: 30_000, interval: 200 },
      );
      // The run takes the lock, then waits behind this transaction's lock on the table; its
      // connection is then cut, as a failover cuts it.
      await server.query('BEGIN');
      await server.query('LOCK TABLE timers IN SHARE UPDATE EXCLUSIVE MODE');
      const run = duty.run(log).then(
        () => undefined,
        (err: unknown) => err,
      );
      const holder = await waitFor(
        async () =>
          (
            await tb.sql.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ~ '^(VACUUM|ANALYZE)'`,
            )
          ).rows[0]?.pid,
        { timeout: 30_000, interval: 50 },
      );
      await tb.sql.query('SELECT pg_terminate_backend($1)', [holder]);
      // The run fails with the lost connection (57P01 or a reset socket): a lost lock.
      expect(isConnectionError(await run)).toBe(true);
      await server.query('ROLLBACK');
      expect((await server.query('SELECT pg_try_advisory_lock($1) AS free', [MAINTENANCE_LOCK_KEY])).rows[0].free).toBe(true);
      await server.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_KEY]);
      await duty.run(log);
    } finally {
      await server.end();
      await tb.close();
    }
  });
});

describe.skipIf(onRealPostgres)('the embedded database', () => {
  it('creates a new folder with the memory settings it runs with: shared_buffers from the option, small WAL and temp buffers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'queen-embedded-'));
    try {
      const db = await openDatabase({ dataDir: join(dir, 'pgdata'), sharedBuffers: '8MB' });
      try {
        const { rows } = await db.pool.query<{ name: string; setting: string; unit: string }>(
          `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'wal_buffers', 'temp_buffers') ORDER BY name`,
        );
        expect(rows).toEqual([
          { name: 'shared_buffers', setting: '1024', unit: '8kB' },
          { name: 'temp_buffers', setting: '128', unit: '8kB' },
          { name: 'wal_buffers', setting: '128', unit: '8kB' },
        ]);
        expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
