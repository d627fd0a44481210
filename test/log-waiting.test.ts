// Consumers that wait, die, or lose their database: long-polls wait in memory and are woken only
// when they can be served; a consumer killed mid-batch loses nothing; a database that goes away
// under hundreds of waiting long-polls answers each with 204 or 503, never 500.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { needsMaintenance } from '../src/maintenance/vacuum.ts';
import { Waiter } from '../src/services/log/waiters.ts';
import { createScratchDatabase, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { configure, pop, push } from './helpers/log.ts';
import { startProxy } from './helpers/proxy.ts';

describe('who a frame wakes', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    // No periodic probe during these tests: only events wake waiters.
    tb = await startTestBroker({ env: { QUEEN_LONGPOLL_PROBE_MS: '600000' } });
  });
  afterAll(() => tb?.close());

  it('one waiter per consumer group, not every waiter of the queue', async () => {
    const wakes = vi.spyOn(Waiter.prototype, 'wake');
    try {
      const competing = Array.from({ length: 5 }, () => pop(tb, '/api/v1/pop/queue/wakes?wait=true&timeout=20000&autoAck=true'));
      const other = pop(tb, '/api/v1/pop/queue/wakes?wait=true&timeout=20000&autoAck=true&consumerGroup=audit');
      await waitFor(() => tb.broker.services.waiters.count === 6);
      expect((await push(tb, [{ queue: 'wakes', payload: 'one', transactionId: 'only' }])).status).toBe(201);
      const audit = await other;
      expect(audit.body.messages.map((m: any) => m.transactionId)).toEqual(['only']);
      await waitFor(() => tb.broker.services.waiters.count === 4);
      expect(wakes).toHaveBeenCalledTimes(2);
      // The four left are still waiting; a second frame takes exactly one more of them.
      await push(tb, [{ queue: 'wakes', payload: 'two', transactionId: 'second' }]);
      await waitFor(() => tb.broker.services.waiters.count === 3);
      expect(wakes).toHaveBeenCalledTimes(3);
      tb.broker.services.waiters.drain();
      const answers = await Promise.all(competing);
      const got = answers.filter((a) => a.status === 200).flatMap((a) => a.body.messages.map((m: any) => m.transactionId));
      expect(got.sort()).toEqual(['only', 'second']);
    } finally {
      wakes.mockRestore();
    }
  });
});

describe('a consumer killed mid-batch', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker({ listen: true });
  });
  afterAll(() => tb?.close());

  it('its unacked frames come back to the next consumer once the lease expires; nothing is skipped or repeated', async () => {
    await configure(tb, 'crash', { leaseTime: 1 });
    const txns = Array.from({ length: 10 }, (_, i) => `c${i + 1}`);
    await push(
      tb,
      txns.map((t) => ({ queue: 'crash', payload: t, transactionId: t })),
    );
    // A real consumer process: pops five, acks two, then hangs until it is killed.
    const consumer = `
      const h = { authorization: 'Bearer ${await tb.token()}', 'content-type': 'application/json' };
      const r = await fetch('${tb.url}/api/v1/pop/queue/crash?batch=5', { headers: h });
      const { messages } = await r.json();
      for (const f of messages.slice(0, 2)) {
        const a = await fetch('${tb.url}/api/v1/ack', { method: 'POST', headers: h,
          body: JSON.stringify({ transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId }) });
        if (a.status !== 200) process.exit(3);
      }
      console.log(messages.map((f) => f.transactionId).join(','));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', consumer], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await waitFor(() => out.includes('\n'), { timeout: 20_000 });
    expect(out.trim()).toBe('c1,c2,c3,c4,c5');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    // The next consumer long-polls: the partition is leased until the dead one's lease expires.
    const delivered: string[] = [];
    for (;;) {
      const res = await pop(tb, '/api/v1/pop/queue/crash?batch=10&wait=true&timeout=15000&autoAck=true');
      if (res.status === 204) break;
      delivered.push(...res.body.messages.map((m: any) => m.transactionId));
      if (delivered.length >= 8) break;
    }
    expect(delivered).toEqual(['c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']);
    expect((await pop(tb, '/api/v1/pop/queue/crash?batch=10')).status).toBe(204);
  });
});

// Real PostgreSQL only: embedded PGlite lives in the broker's process and does not restart under
// it. (Cutting its socket mid-transaction, as this test would, also stalls pglite-socket 0.2.17:
// the transaction of the dead connection stays open and its queue waits for it forever.)
describe.skipIf(!onRealPostgres)('a database that goes away under waiting long-polls', () => {
  it('answers every one of 200 long-polls with 204 or 503, never 500, and recovers', async () => {
    const scratch = await createScratchDatabase();
    const target = { url: scratch.url, close: scratch.drop };
    const u = new URL(target.url);
    const proxy = await startProxy(u.hostname, Number(u.port || 5432));
    u.host = `127.0.0.1:${proxy.port}`;
    const tb = await startTestBroker({ databaseUrl: u.toString(), env: { QUEEN_LONGPOLL_PROBE_MS: '100' } });
    // Long enough for all of them to be waiting before the outage on a slow machine.
    const waiting = (n: number) => Array.from({ length: n }, () => pop(tb, '/api/v1/pop/queue/outage?wait=true&timeout=8000&autoAck=true'));
    try {
      await push(tb, [{ queue: 'outage', payload: 'warm-up' }]);
      expect((await pop(tb, '/api/v1/pop/queue/outage?autoAck=true')).status).toBe(200);
      const before = waiting(100);
      await waitFor(() => tb.broker.services.waiters.count === 100, { timeout: 60_000 });
      // What a restart does to the broker: its sessions are terminated (SQLSTATE 57P01), then new
      // connections are refused until the server is back.
      if (onRealPostgres) {
        const admin = new pg.Client({ connectionString: target.url });
        await admin.connect();
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        await admin.end();
      }
      await proxy.cut();
      const during = waiting(100);
      const duringAnswers = await Promise.all(during);
      await new Promise((r) => setTimeout(r, 300));
      await proxy.restore();
      const answers = [...(await Promise.all(before)), ...duringAnswers];
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 204 && s !== 503)).toEqual([]);
      for (const a of answers.filter((x) => x.status === 503)) {
        expect(a.body.code).toBe('database_unavailable');
        expect(a.headers['retry-after']).toBe('1');
      }
      expect(duringAnswers.every((a) => a.status === 503)).toBe(true);
      await waitFor(async () => (await push(tb, [{ queue: 'outage', payload: 'after', transactionId: 'after' }])).status === 201, {
        timeout: 20_000,
        interval: 200,
      });
      const after = await pop(tb, '/api/v1/pop/queue/outage?autoAck=true');
      expect(after.body.messages.map((m: any) => m.transactionId)).toEqual(['after']);
    } finally {
      await tb.close();
      await proxy.close();
      await target.close();
    }
  });
});

describe('maintenance where autovacuum does not run', () => {
  it('vacuums and analyses the log and timer tables on its schedule (embedded; a server with autovacuum off)', async () => {
    const tb = await startTestBroker({ env: { QUEEN_MAINTENANCE_MS: '1000' } });
    if (!(await needsMaintenance(tb.broker.db))) {
      // A server whose autovacuum runs: the broker leaves the tables to it.
      expect(tb.broker.maintenance).toBeUndefined();
      await tb.close();
      return;
    }
    try {
      await push(tb, [{ queue: 'm', payload: 1 }]);
      const maintained = async () =>
        (
          await tb.sql.query(
            `SELECT relname FROM pg_stat_user_tables
              WHERE relname IN ('timers', 'messages', 'partition_consumers', 'message_deliveries')
                AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL ORDER BY relname`,
          )
        ).rows.map((x) => x.relname);
      // Nothing in the broker or this test vacuums but the broker's own interval.
      if (tb.broker.db.embedded) {
        // Embedded: every table, every interval.
        await waitFor(async () => (await maintained()).length === 4, { timeout: 30_000, interval: 200 });
        expect(await maintained()).toEqual(['message_deliveries', 'messages', 'partition_consumers', 'timers']);
      } else {
        // A server with autovacuum off: the tables autovacuum's rule says are due — timers, with 200
        // dead rows — and not one nothing touched.
        await tb.sql.query(
          `INSERT INTO timers (tenant, queue, timer_key, deliver_at, txn, message_id, payload, producer_sub)
           SELECT 'acme', 'churn', 'k' || i, now() + interval '1 day', 'k' || i, gen_random_uuid(), '\\x7b7d', 'tester'
             FROM generate_series(1, 200) i`,
        );
        await tb.sql.query(`DELETE FROM timers WHERE queue = 'churn'`);
        await waitFor(async () => (await maintained()).includes('timers'), { timeout: 30_000, interval: 200 });
        expect(await maintained()).not.toContain('message_deliveries');
      }
    } finally {
      await tb.close();
    }
  });
});
