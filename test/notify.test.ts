// Wake-ups across brokers: the LISTEN connection comes back after it is lost, after a jittered pause.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { Notifier, RECONNECT_BASE_MS, RECONNECT_CAP_MS, reconnectDelayMs } from '../src/notify.ts';
import { onRealPostgres, SERVER_URL, waitFor } from './helpers/broker.ts';

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
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
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
