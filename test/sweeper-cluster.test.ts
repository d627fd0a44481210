// The sweeper under failure, against a real PostgreSQL only (skipped when DATABASE_URL is unset):
// several brokers in separate processes, one killed with SIGKILL mid-run; PostgreSQL connections
// killed with pg_terminate_backend mid-run; a PostgreSQL server of the test's own crashed
// (`pg_ctl stop -m immediate`) and restarted mid-run. Nothing may be lost, duplicated or delivered
// early.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { guardClients } from '../src/db/index.ts';
import { api, onRealPostgres, startTestBroker, waitFor } from './helpers/broker.ts';
import { Node, PG_BIN } from './helpers/failover.ts';
import { freePort, spawnBroker, startCluster } from './helpers/procs.ts';
import { insertTimers } from './helpers/timers.ts';

const TIMERS = 20_000;
const run = promisify(execFile);

/** '' when a private PostgreSQL server can be started here, else why not (the restart test is skipped, saying so). */
function whyNoServer(): string {
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_ctl')))
    return `needs PostgreSQL 15's initdb and pg_ctl in ${PG_BIN}`;
  if (process.getuid?.() !== 0) return 'needs root (initdb and pg_ctl run as the postgres user through runuser)';
  return '';
}
const noServer = whyNoServer();
if (onRealPostgres && noServer) console.warn(`test/sweeper-cluster.test.ts: the PostgreSQL restart test is skipped: ${noServer}`);

/** A PostgreSQL server of this test's own on a free port (this machine's PostgreSQL 15 binaries), database `queen`. */
async function startServer(): Promise<{ node: Node; url: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'queen-restart-'));
  await run('chown', ['postgres:postgres', dir]);
  const node = new Node('r0', join(dir, 'r0'), await freePort());
  const close = async () => {
    await node.stop('immediate').catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run('runuser', ['-u', 'postgres', '--', join(PG_BIN, 'initdb'), '-D', node.dir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    const conf = [
      "listen_addresses = '127.0.0.1'",
      `port = ${node.port}`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off', // a crash of the server, not of the machine: its files stay in the page cache
      'shared_buffers = 64MB',
      'max_connections = 100',
      'log_min_messages = warning',
    ];
    await appendFile(join(node.dir, 'postgresql.conf'), `${conf.join('\n')}\n`);
    await node.start();
    await node.query('CREATE DATABASE queen');
    return { node, url: `postgresql://postgres@127.0.0.1:${node.port}/queen`, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Every timer's frame exactly once, none early, and no timer left behind. */
async function assertDeliveredExactlyOnce(sql: pg.Pool, n: number) {
  const r = (
    await sql.query(
      `
      SELECT (SELECT count(*) FROM timers)::int AS pending,
             (SELECT count(*) FROM messages)::int AS frames,
             (SELECT count(DISTINCT transaction_id) FROM messages)::int AS txns,
             (SELECT count(*) FROM messages WHERE transaction_id ~ '^txn-k[0-9]+$'
                AND substring(transaction_id from 6)::int BETWEEN 1 AND $1)::int AS expected,
             (SELECT count(*) FROM messages WHERE created_at < deliver_at)::int AS early,
             (SELECT count(*) FROM dead_letters)::int AS dead`,
      [n],
    )
  ).rows[0];
  expect(r).toEqual({ pending: 0, frames: n, txns: n, expected: n, early: 0, dead: 0 });
}

describe.skipIf(!onRealPostgres)('sweeper reliability on real PostgreSQL', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it(`three broker processes fire ${TIMERS} maturing timers exactly once while one is SIGKILLed and restarted`, async () => {
    // Three brokers, all sweepers connected; short leases, so a killed broker's claims come back within 3 s.
    const { url, sql, brokers, env } = await startCluster(cleanups);
    await insertTimers(sql, { count: TIMERS, dueInMs: 500, spreadMs: 4000 });

    // Kill one broker once a quarter of the frames are in, mid-run, and start a new one.
    await waitFor(async () => (await sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n >= TIMERS / 4, {
      timeout: 30_000,
      interval: 20,
    });
    await brokers[0].kill('SIGKILL');
    brokers[0] = spawnBroker(url, env);

    await waitFor(async () => (await sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n === 0, {
      timeout: 60_000,
      interval: 100,
    });
    await assertDeliveredExactlyOnce(sql, TIMERS);
    for (const b of brokers.slice(1)) expect(b.proc.exitCode).toBeNull();
  });

  it(`the sweeper recovers by itself when its PostgreSQL connections are killed mid-run (${TIMERS} timers)`, async () => {
    const tb = await startTestBroker({ sweeper: true });
    cleanups.push(() => tb.close());
    const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    killer.on('error', () => {});
    await killer.connect();
    cleanups.push(() => killer.end());
    const dbName = new URL(tb.broker.db.url).pathname.slice(1);
    const check = new pg.Pool({ connectionString: tb.broker.db.url, max: 1, application_name: 'qt-check' });
    // This test's own connections see the storm too (a connection being opened has no
    // application_name yet): an 'error' on an idle one must not end the test process.
    guardClients(check);
    check.on('error', () => {});
    cleanups.push(() => check.end());

    await insertTimers(check, { count: TIMERS, dueInMs: 200, spreadMs: 3000 });
    // Every 150 ms for 4 s, terminate every backend of the broker's database but this test's: the
    // sweeper's connections (mid-claim, mid-fire, idle), the request pool's and the LISTEN one.
    let killed = 0;
    for (let i = 0; i < 27; i++) {
      await new Promise((r) => setTimeout(r, 150));
      const r = await killer.query(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
         WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> 'qt-check'`,
        [dbName],
      );
      killed += r.rows[0].n;
    }
    expect(killed).toBeGreaterThan(10);
    const probe = async () => {
      try {
        return (await check.query('SELECT count(*)::int AS n FROM timers')).rows[0].n === 0;
      } catch {
        return false;
      }
    };
    await waitFor(probe, { timeout: 60_000, interval: 100 });
    await assertDeliveredExactlyOnce(check, TIMERS);
  });

  it.skipIf(noServer !== '')(
    `three broker processes fire ${TIMERS} maturing timers exactly once while their PostgreSQL crashes and restarts`,
    async () => {
      // A server of its own (a crash of the machine's shared one would fail every other test).
      const server = await startServer();
      cleanups.push(() => server.close());
      // The hand-off window at its default: the crash finds timers in the brokers' wheels, claimed
      // and not yet fired, and fires whose COMMIT's answer is lost.
      const { sql, brokers } = await startCluster(cleanups, server.url);
      await insertTimers(sql, { count: TIMERS, dueInMs: 1000, spreadMs: 5000 });
      await waitFor(async () => (await sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n >= TIMERS / 4, {
        timeout: 30_000,
        interval: 20,
      });
      // A crash: in-flight transactions are lost, committed ones kept (WAL replay at start).
      await server.node.stop('immediate');
      await server.node.start();
      await waitFor(async () => (await sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n === 0, {
        timeout: 90_000,
        interval: 100,
      });
      await assertDeliveredExactlyOnce(sql, TIMERS);
      for (const b of brokers) expect(b.proc.exitCode).toBeNull();
    },
  );

  it("a schedule on another broker wakes this broker's sleeping sweeper through LISTEN/NOTIFY", async () => {
    const sweeping = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' } });
    cleanups.push(() => sweeping.close());
    const other = await startTestBroker({ databaseUrl: sweeping.broker.db.url });
    cleanups.push(() => other.close());
    // Once the loop sleeps for its maximum, only the notification can fire the timer within 10 s.
    await waitFor(() => (sweeping.broker.sweeper as unknown as { wakeSleeper?: unknown }).wakeSleeper !== undefined);
    const [t] = await insertTimers(other.sql, { dueInMs: 200 });
    other.broker.services.notifier.timerScheduled(t.deliverAtMs, t.deliverAtMs - 200);
    const frame = await waitFor(async () => (await sweeping.sql.query('SELECT created_at, deliver_at FROM messages')).rows[0], {
      timeout: 10_000,
    });
    expect(frame.created_at.getTime()).toBeGreaterThanOrEqual(frame.deliver_at.getTime());
  });

  it('a batch scheduled on another broker announces its earliest timer when it is due soon, not the one due in an hour', async () => {
    const sweeping = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' } });
    cleanups.push(() => sweeping.close());
    const other = await startTestBroker({ databaseUrl: sweeping.broker.db.url });
    cleanups.push(() => other.close());
    const heard: number[] = [];
    sweeping.broker.services.notifier.onTimer((e) => heard.push(e.deliverAtMs));
    await waitFor(() => (sweeping.broker.sweeper as unknown as { wakeSleeper?: unknown }).wakeSleeper !== undefined);
    const schedule = (timerKey: string, delayMs: number) =>
      api(other, 'POST', '/api/v1/timers', {
        body: { operations: [{ op: 'schedule', queue: 'announced', timerKey, delayMs, payload: 'e30=' }] },
      });
    // Scheduled first: were it announced, its notification would leave well before the other's.
    expect((await schedule('later', 3_600_000)).status).toBe(200);
    const soon = await schedule('soon', 300);
    expect(soon.status).toBe(200);
    // Only the notification can fire it within 10 s: the sweeping loop sleeps a minute.
    const frame = await waitFor(
      async () => (await sweeping.sql.query(`SELECT created_at, deliver_at FROM messages WHERE queue = 'announced'`)).rows[0],
      { timeout: 10_000 },
    );
    expect(frame.created_at.getTime()).toBeGreaterThanOrEqual(frame.deliver_at.getTime());
    // The one heard is the soon timer's instant (whole milliseconds, rounded up from its microseconds).
    expect(heard).toHaveLength(1);
    const soonAt = Date.parse(soon.body.results[0].deliverAt);
    expect(heard[0]).toBeGreaterThanOrEqual(soonAt);
    expect(heard[0]).toBeLessThanOrEqual(soonAt + 1);
  });
});
