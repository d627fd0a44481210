import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/index.ts';
import { listMigrations, migrate, MIGRATIONS_TABLE } from '../src/db/migrate.ts';
import { admin, createScratchDatabase, onRealPostgres, startTestBroker, waitFor } from './helpers/broker.ts';
import { startProxy } from './helpers/proxy.ts';

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
    const second = onRealPostgres ? new pg.Pool({ connectionString: fresh.db.url, max: 2 }) : fresh.db.pool;
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
