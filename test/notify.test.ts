// Wake-ups across brokers: the LISTEN connection comes back after it is lost, after a jittered pause;
// a timer is announced to the other brokers only when it is due soon.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { ANNOUNCE_WITHIN_MS, Notifier, RECONNECT_BASE_MS, RECONNECT_CAP_MS, reconnectDelayMs } from '../src/notify.ts';
import { api, heedingErrors, onRealPostgres, SERVER_URL, startTestBroker, waitFor } from './helpers/broker.ts';

describe('reconnectDelayMs', () => {
  it('is half fixed, half random: between full/2 and full of a doubling step', () => {
    expect(reconnectDelayMs(0, () => 0)).toBe(RECONNECT_BASE_MS / 2);
    expect(reconnectDelayMs(0, () => 1)).toBe(RECONNECT_BASE_MS);
    expect(reconnectDelayMs(3, () => 0)).toBe((RECONNECT_BASE_MS * 8) / 2);
    expect(reconnectDelayMs(3, () => 1)).toBe(RECONNECT_BASE_MS * 8);
  });

  it('is capped, however many attempts failed', () => {
    expect(reconnectDelayMs(1_000, () => 1)).toBe(RECONNECT_CAP_MS);
    expect(reconnectDelayMs(1_000, () => 0)).toBe(RECONNECT_CAP_MS / 2);
  });
});

describe.skipIf(!onRealPostgres)('Notifier on real PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let pool: pg.Pool;
  const notifiers: Notifier[] = [];
  beforeAll(async () => {
    scratch = await createScratchDatabase(SERVER_URL!);
    pool = heedingErrors(new pg.Pool({ connectionString: scratch.url, max: 2 }));
  });
  afterAll(async () => {
    for (const n of notifiers) await n.stop();
    await pool?.end();
    await scratch?.drop();
  });

  it('listens again after its connection is terminated, says so once (waiters and sweeper look again), and hears the other broker', async () => {
    const listening = new Notifier(pool, true);
    const publishing = new Notifier(pool, true);
    notifiers.push(listening, publishing);
    await listening.start(scratch.url);
    const heard: string[] = [];
    listening.onMessages((e) => heard.push(e.queue));
    let reconnects = 0;
    listening.onReconnect(() => reconnects++);

    const listeners = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN queen_timers'";
    const killed = await pool.query(`SELECT pg_terminate_backend(pid) FROM (${listeners}) l`);
    expect(killed.rowCount).toBe(1);

    // A NOTIFY sent while nobody listens is lost (a wake-up is only a hint): publish until heard.
    await waitFor(
      async () => {
        publishing.messagesPushed('acme', 'after-reconnect');
        await new Promise((r) => setTimeout(r, 50));
        return heard.includes('after-reconnect');
      },
      { timeout: 30_000 },
    );
    const now = await pool.query(listeners);
    expect(now.rowCount).toBe(1);
    // What was notified in the gap is lost: the reconnect itself wakes the waiters and the sweeper.
    expect(reconnects).toBe(1);
  });
});

/**
 * Two notifiers on a database of their own, as two brokers would hold them: `listening` LISTENs,
 * `publishing` sends over a pool of `connections`.
 */
async function withTwoNotifiers(connections: number, fn: (listening: Notifier, publishing: Notifier) => Promise<void>) {
  const scratch = await createScratchDatabase(SERVER_URL!);
  const pool = heedingErrors(new pg.Pool({ connectionString: scratch.url, max: connections }));
  const listening = new Notifier(pool, true);
  const publishing = new Notifier(pool, true);
  try {
    await listening.start(scratch.url);
    await fn(listening, publishing);
  } finally {
    await listening.stop();
    await publishing.stop();
    await pool.end();
    await scratch.drop();
  }
}

describe.skipIf(!onRealPostgres)('a timer written', () => {
  it('wakes this broker whenever it is due, and the other brokers only when it is due within ANNOUNCE_WITHIN_MS', async () => {
    // One connection: the NOTIFYs commit, and are heard, in the order they are sent.
    await withTwoNotifiers(1, async (listening, publishing) => {
      const heard: number[] = [];
      listening.onTimer((e) => heard.push(e.deliverAtMs));
      const local: number[] = [];
      publishing.onTimer((e) => local.push(e.deliverAtMs));
      const now = 1_700_000_000_000;
      publishing.timerScheduled(now + ANNOUNCE_WITHIN_MS + 1, now);
      publishing.timerScheduled(now + ANNOUNCE_WITHIN_MS, now);
      expect(local).toEqual([now + ANNOUNCE_WITHIN_MS + 1, now + ANNOUNCE_WITHIN_MS]);
      await waitFor(() => heard.length > 0, { timeout: 30_000 });
      expect(heard).toEqual([now + ANNOUNCE_WITHIN_MS]);
    });
  });
});

describe.skipIf(!onRealPostgres)('a fire over many queues', () => {
  it('is heard by the other broker queue by queue, in notifications under the payload limit, with its partitions', async () => {
    await withTwoNotifiers(2, async (listening, publishing) => {
      const heard = new Map<string, string[] | undefined>();
      listening.onMessages((e) => heard.set(`${e.tenant}/${e.queue}`, e.partitions));
      let local = 0;
      publishing.onMessages(() => local++);
      // 400 queues of 400 tenants, each with two partitions: about 24,000 characters, so several
      // notifications; one over PostgreSQL's 8,000-byte limit would fail and never be heard.
      const pushed = Array.from({ length: 400 }, (_, i) => ({
        tenant: `tenant-${i}`,
        queue: `queue-${i}`,
        partitions: ['Default', `p-${i}`],
      }));
      publishing.messagesPushedMany(pushed);
      expect(local).toBe(400); // this broker's own waiters at once
      await waitFor(() => heard.size === 400, { timeout: 30_000 });
      expect(heard.get('tenant-7/queue-7')).toEqual(['Default', 'p-7']);
    });
  });
});

describe.skipIf(!onRealPostgres)('a LISTEN connection that comes back', () => {
  it('wakes every waiting long-poll, which finds what was pushed while nobody listened', async () => {
    // Broker A's waiters have no periodic probe within the test (an hour): only a wake-up ends
    // their wait before its 30 s timeout (at which it looks once more, and would find the frame late).
    const a = await startTestBroker({ env: { QUEEN_LONGPOLL_PROBE_MS: '3600000' } });
    const b = await startTestBroker({ databaseUrl: a.config.DATABASE_URL });
    const database = new URL(a.config.DATABASE_URL!).pathname.slice(1);
    const server = new pg.Client({ connectionString: SERVER_URL });
    server.on('error', () => {});
    await server.connect();
    try {
      // B's request pool is connected before new connections are refused below.
      expect((await api(b, 'POST', '/api/v1/push', { body: { items: [{ queue: 'other', payload: { warm: true } }] } })).status).toBe(201);
      const started = Date.now();
      const pop = api(a, 'GET', '/api/v1/pop/queue/gap?wait=true&timeout=30000&autoAck=true');
      await waitFor(() => a.broker.services.waiters.count === 1, { timeout: 10_000 });

      // A's LISTEN connection is cut and cannot come back until the push is done: its NOTIFY is lost.
      await server.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      await server.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN queen_timers'`, [
        database,
      ]);
      expect((await api(b, 'POST', '/api/v1/push', { body: { items: [{ queue: 'gap', payload: { lost: 'notify' } }] } })).status).toBe(201);
      await server.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);

      const r = await pop;
      expect(r.status).toBe(200);
      expect(r.body.messages.map((m: { data: unknown }) => m.data)).toEqual([{ lost: 'notify' }]);
      // Answered by the wake-up, not by the wait running out (a bound of the logic, not of speed).
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      await server.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => {});
      await server.end();
      await b.close();
      await a.close();
    }
  });
});
