// The fire thread (src/sweeper/fireThread.ts): the hand-off window's fires sent ahead from the
// main thread, written at their instants from a worker thread with connections of its own. Real
// PostgreSQL only: on the embedded database the wheel fires from the main thread. Nothing here is
// timed against a deadline: instants are compared with what PostgreSQL recorded.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSweeper } from '../src/sweeper/index.ts';
import { preciseNow } from '../src/sweeper/pgClock.ts';
import { FireThread } from '../src/sweeper/fireThread.ts';
import { FIRE_LEAD_MS, ON_THREAD_MAX } from '../src/sweeper/pass.ts';
import { ensurePartitions } from '../src/services/queues.ts';
import type { Queryable } from '../src/db/transaction.ts';
import { api, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { acceptQueue, fireThreadBackends, insertTimers, recordFireStatements } from './helpers/timers.ts';

const NOW = `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`;

describe.skipIf(!onRealPostgres)('the fire thread', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker();
  });
  afterAll(async () => {
    await tb?.close();
  });

  /**
   * A thread that is running (one that is still loading gets its first sends at once, late, and
   * runs the one it reads first), and an instant 200 ms from now for `body` to schedule against;
   * the thread is closed after `body`, and returned closed.
   */
  async function withRunningThread(body: (thread: FireThread, at: number) => Promise<void>): Promise<FireThread> {
    const thread = new FireThread(tb.broker.services.db.directUrl, () => {});
    try {
      await thread.transaction(preciseNow(), (tx) => tx.query('SELECT 1'), []);
      await body(thread, preciseNow() + 200);
    } finally {
      await thread.close();
    }
    return thread;
  }

  /**
   * Until a looped broker's fire thread has its connections open: it starts once a pass has left
   * nothing due (several hundred milliseconds of loading, longer on a loaded machine), and a fire
   * sent before goes from the main thread.
   */
  const fireThreadConnected = (looped: TestBroker) =>
    waitFor(async () => (await fireThreadBackends(looped.sql)).length > 0, { timeout: 60_000 });

  it('reports itself running once its connections are open (what the sweeper waits for to send it fires), and not once closed', async () => {
    const thread = new FireThread(tb.broker.services.db.directUrl, () => {});
    // Nothing from the worker is read before a later turn of the event loop.
    expect(thread.running).toBe(false);
    await waitFor(() => thread.running);
    await thread.close();
    expect(thread.running).toBe(false);
  });

  it('closes once when asked twice: both calls end, and the thread reports no failure', async () => {
    const failures: Error[] = [];
    const thread = new FireThread(tb.broker.services.db.directUrl, (err) => failures.push(err));
    await thread.transaction(preciseNow(), (tx) => tx.query('SELECT 1'), []);
    await Promise.all([thread.close(), thread.close()]);
    expect(failures).toEqual([]);
    expect(thread.running).toBe(false);
  });

  it('runs a transaction at its instant, earliest instant first, and reports a failed statement with its SQLSTATE', async () => {
    const closed = await withRunningThread(async (thread, at) => {
      // Sent first, for the later instant; the earlier one is sent second and still runs first.
      const later = thread.transaction(at + 400, (tx) => tx.query(NOW), []);
      const earlier = thread.transaction(at + 100, (tx) => tx.query(NOW), []);
      const [l, e] = await Promise.all([later, earlier]);
      expect(e.sentAt).toBeGreaterThanOrEqual(at + 100);
      expect(l.sentAt).toBeGreaterThanOrEqual(at + 400);
      expect(e.result.rows[0].ms).toBeLessThan(l.result.rows[0].ms);

      const failed = await thread.transaction(preciseNow(), (tx) => tx.query('SELECT 1/0'), []).catch((err: unknown) => err);
      expect(failed).toMatchObject({ code: '22012', message: 'division by zero' });
      // The COMMIT after the failure ended the transaction: the connection serves the next one.
      expect((await thread.transaction(preciseNow(), (tx) => tx.query('SELECT 7 AS n'), [])).result.rows).toEqual([{ n: 7 }]);
    });
    expect(closed.alive).toBe(false);
    // After close, a transaction fails as a lost connection does (SQLSTATE class 08): the sweeper holds its batch.
    await expect(closed.transaction(preciseNow(), (tx) => tx.query(NOW), [])).rejects.toMatchObject({ code: '08006' });
  });

  /** A job written as a fire is: its statement, then COMMIT, both before anything is awaited. */
  const committing =
    (sql: string) =>
    (tx: { query: (q: string) => Promise<{ rows: any[] }> }): Promise<{ rows: any[] }> => {
      const r = tx.query(sql);
      void tx.query('COMMIT').catch(() => {});
      return r;
    };
  const TXID = `SELECT txid_current()::text AS x, (extract(epoch FROM statement_timestamp()) * 1000)::float8 AS ms`;

  it("writes a job of a partition at its instant behind the one running on that one's connection, to run once it has committed; a third waits for the first's answer; a job of another key goes beside them", () =>
    withRunningThread(async (thread, at) => {
      // The slow job reads the clock after its second. The others come 300 ms and more after it:
      // a thread that woke late for it would have taken jobs already due into its group.
      const slow = thread.transaction(
        at,
        (tx) => {
          void tx.query('SELECT pg_sleep(1)');
          return committing(NOW)(tx);
        },
        ['acme/q/p'],
      );
      const behind = thread.transaction(at + 300, committing(NOW), ['acme/q/p']);
      const third = thread.transaction(at + 400, committing(NOW), ['acme/q/p']);
      const other = thread.transaction(at + 300, committing(NOW), ['acme/q/other']);
      const [s, b, t, o] = await Promise.all([slow, behind, third, other]);
      // Written before the slow one answered, and run after it: on the other connection it would
      // have raced it for the append lock.
      expect(b.sentAt).toBeLessThan(s.receivedAt);
      expect(b.result.rows[0].ms).toBeGreaterThanOrEqual(s.result.rows[0].ms);
      // Two are written on a connection at most.
      expect(t.sentAt).toBeGreaterThanOrEqual(s.receivedAt);
      expect(o.sentAt).toBeLessThan(s.receivedAt);
      expect(o.result.rows[0].ms).toBeLessThan(s.result.rows[0].ms);
    }));

  /**
   * A job of `key` that sleeps `seconds`, due at `at`, and one written behind it: its connection
   * holds the two it may, and a later job of `key` waits for the slow one's answer. Returns the
   * slow one.
   */
  const slowWithOneBehind = (thread: FireThread, at: number, key: string, seconds: number) => {
    const slow = thread.transaction(at, committing(`SELECT pg_sleep(${seconds})`), [key]);
    void thread.transaction(at + 1, committing('SELECT 1'), [key]);
    return slow;
  };

  /**
   * withRunningThread, and slowWithOneBehind on partition p for a second, due at `at`. The jobs
   * queued behind them come 300 ms after it: a thread that woke late for it would have taken jobs
   * already due into its group.
   */
  const behindSlow = (body: (thread: FireThread, at: number, slow: ReturnType<FireThread['transaction']>) => Promise<void>) =>
    withRunningThread((thread, at) => body(thread, at, slowWithOneBehind(thread, at, 'acme/q/p', 1)));

  it('runs the jobs that waited behind a slow one of their partition as one transaction, in instant order', () =>
    behindSlow(async (thread, at, slow) => {
      const first = thread.transaction(at + 300, committing(TXID), ['acme/q/p']);
      const second = thread.transaction(at + 305, committing(TXID), ['acme/q/p']);
      const [s, a, b] = await Promise.all([slow, first, second]);
      // Both were due long before the slow one committed: they left together, after it, in one transaction.
      expect(a.sentAt).toBeGreaterThanOrEqual(s.receivedAt);
      expect(b.sentAt).toBe(a.sentAt);
      expect(b.result.rows[0].x).toBe(a.result.rows[0].x);
      // Each statement read its own clock, the earlier instant's first.
      expect(a.result.rows[0].ms).toBeLessThanOrEqual(b.result.rows[0].ms);
    }));

  it('runs a job that does not end with COMMIT in its own transaction, never joined with others', () =>
    behindSlow(async (thread, at, slow) => {
      const rollingBack = (tx: { query: (q: string) => Promise<{ rows: any[] }> }) => {
        const r = tx.query(TXID);
        void tx.query('ROLLBACK').catch(() => {});
        return r;
      };
      const first = thread.transaction(at + 300, rollingBack, ['acme/q/p']);
      const second = thread.transaction(at + 305, rollingBack, ['acme/q/p']);
      const [, a, b] = await Promise.all([slow, first, second]);
      // Both waited behind the slow one, and still left one after the other.
      expect(b.result.rows[0].x).not.toBe(a.result.rows[0].x);
      expect(b.sentAt).toBeGreaterThanOrEqual(a.receivedAt);
    }));

  it('when a job of such a transaction fails, answers it with its failure and runs the others again alone', async () => {
    await tb.sql.query('CREATE TABLE IF NOT EXISTS fire_thread_probe (n int)');
    await tb.sql.query('TRUNCATE fire_thread_probe');
    try {
      await behindSlow(async (thread, at, slow) => {
        const insert = (n: number) => `INSERT INTO fire_thread_probe VALUES (${n}) RETURNING txid_current()::text AS x`;
        const jobs = [
          thread.transaction(at + 300, committing(insert(1)), ['acme/q/p']),
          thread.transaction(at + 301, committing('SELECT 1/0'), ['acme/q/p']),
          thread.transaction(at + 302, committing(insert(3)), ['acme/q/p']),
        ];
        await slow;
        const [one, failed, three] = await Promise.allSettled(jobs);
        expect(failed).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
        // The rolled-back transaction took the inserts with it; each ran again, on its own.
        const ok = [one, three].map((o) => (o.status === 'fulfilled' ? o.value : undefined));
        expect(ok[0]?.result.rows[0].x).not.toBe(ok[1]?.result.rows[0].x);
        const { rows } = await tb.sql.query('SELECT n FROM fire_thread_probe ORDER BY n');
        expect(rows).toEqual([{ n: 1 }, { n: 3 }]);
      });
    } finally {
      await tb.sql.query('DROP TABLE fire_thread_probe');
    }
  });

  it('writes nothing behind a group of several before its answer, as a failure in it runs the others again: a later job of their partition runs after them', async () => {
    await tb.sql.query('CREATE TABLE IF NOT EXISTS fire_thread_order (seq serial, n int)');
    await tb.sql.query('TRUNCATE fire_thread_order');
    try {
      await behindSlow(async (thread, at, slow) => {
        const insert = (n: number) => `INSERT INTO fire_thread_order (n) SELECT ${n} FROM pg_sleep(0.5)`;
        const jobs = [
          // One group, written when the slow one answers (a second in), failing half a second later.
          thread.transaction(at + 300, committing(insert(1)), ['acme/q/p']),
          thread.transaction(at + 301, committing('SELECT 1/0'), ['acme/q/p']),
          // Due while that group runs.
          thread.transaction(at + 1_250, committing(insert(3)), ['acme/q/p']),
        ];
        await slow;
        await Promise.allSettled(jobs);
      });
      const { rows } = await tb.sql.query('SELECT n FROM fire_thread_order ORDER BY seq');
      expect(rows).toEqual([{ n: 1 }, { n: 3 }]);
    } finally {
      await tb.sql.query('DROP TABLE fire_thread_order');
    }
  });

  it('takes at most 16 fires into one transaction; the rest leave in the next', () =>
    behindSlow(async (thread, at, slow) => {
      const queued = Array.from({ length: 20 }, (_, i) => thread.transaction(at + 300 + i, committing(TXID), ['acme/q/p']));
      await slow;
      const txids = (await Promise.all(queued)).map((d) => d.result.rows[0].x as string);
      expect(new Set(txids.slice(0, 16)).size).toBe(1);
      expect(new Set(txids.slice(16)).size).toBe(1);
      expect(txids[16]).not.toBe(txids[0]);
    }));

  it('keeps a job out of a group while a job ahead of it, left waiting, shares one of its partitions', () =>
    withRunningThread(async (thread, at) => {
      // Both connections busy: r's for 2 s, p's for 0.5 s (300 ms later, so that a thread woken late
      // for r's does not find p's due with it and join them).
      const slowR = slowWithOneBehind(thread, at, 'acme/q/r', 2);
      const slowP = slowWithOneBehind(thread, at + 300, 'acme/q/p', 0.5);
      // x waits for r; y (p) may leave when p's connection frees; z (p and s) must not go with it, ahead of x on s.
      const x = thread.transaction(at + 600, committing(TXID), ['acme/q/r', 'acme/q/s']);
      const y = thread.transaction(at + 601, committing(TXID), ['acme/q/p']);
      const z = thread.transaction(at + 602, committing(TXID), ['acme/q/p', 'acme/q/s']);
      const [r, p, dx, dy, dz] = await Promise.all([slowR, slowP, x, y, z]);
      expect(dy.sentAt).toBeGreaterThanOrEqual(p.receivedAt);
      expect(dy.sentAt).toBeLessThan(r.receivedAt);
      expect(dz.sentAt).toBeGreaterThanOrEqual(dx.sentAt);
      expect(dz.result.rows[0].x).not.toBe(dy.result.rows[0].x);
    }));

  it('opens a connection again after its own was lost: a job fails with the loss, and the next on that connection runs', () =>
    withRunningThread(async (thread) => {
      const before = await fireThreadBackends(tb.sql);
      expect(before.length).toBe(2);
      await tb.sql.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before.map((b) => b.pid)]);
      await waitFor(async () => (await fireThreadBackends(tb.sql)).length === 0);
      // One after the other: each goes on the first connection, the first finding it lost.
      const outcomes: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        outcomes.push(
          await thread.transaction(preciseNow(), committing('SELECT 7 AS n'), []).then(
            (d) => d.result.rows,
            (err: unknown) => err,
          ),
        );
      }
      expect(outcomes[0]).toBeInstanceOf(Error);
      expect(outcomes.slice(1)).toEqual([[{ n: 7 }], [{ n: 7 }]]);
    }));

  it('a statement issued after the first await is refused, not left waiting', () =>
    withRunningThread(async (thread) => {
      const out = thread.transaction(
        preciseNow(),
        async (tx) => {
          await tx.query('SELECT 1');
          return tx.query('SELECT 2');
        },
        [],
      );
      await expect(out).rejects.toThrow(/issues all its statements before it awaits one/);
    }));

  it("is started by a sweeper's loop only after a pass left nothing due, not beside the backlog the loop found", async () => {
    const { sql } = tb;
    await sql.query(`INSERT INTO queues (tenant, name) VALUES ('acme', 'held')`);
    await sql.query(`INSERT INTO partitions (tenant, queue, name) VALUES ('acme', 'held', 'Default')`);
    await insertTimers(sql, { queue: 'held', count: 3 });
    // The backlog's partition, held here: the loop's fire of it waits until this transaction ends.
    const holder = await sql.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM partitions WHERE tenant = 'acme' AND queue = 'held' FOR UPDATE`);
    const sweeper = startSweeper(tb.broker.services);
    try {
      await waitFor(
        async () =>
          (
            await sql.query(`SELECT 1 FROM pg_stat_activity
                              WHERE datname = current_database() AND application_name = 'queen-timers-sweeper'
                                AND wait_event_type = 'Lock'`)
          ).rowCount,
      );
      // A thread started with the loop has its connections open well within this (its modules take
      // several hundred milliseconds to load); this one is not started while the backlog waits.
      await sleep(3_000);
      expect(await fireThreadBackends(sql)).toEqual([]);
      await holder.query('COMMIT');
      const fired = async () =>
        (
          await sql.query(
            `SELECT count(*)::int AS n, (extract(epoch FROM max(created_at)) * 1000)::float8 AS last FROM messages WHERE queue = 'held'`,
          )
        ).rows[0] as { n: number; last: number };
      await waitFor(async () => (await fired()).n === 3);
      // Then the pass that found nothing more due started it.
      const thread = await waitFor(async () => (await fireThreadBackends(sql))[0]);
      expect(thread.started).toBeGreaterThan((await fired()).last);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
      await sweeper.stop();
    }
  });

  it("a sweeper's wheel fires through it, and fires every timer once, never early, when its connections are killed midway", async () => {
    const looped = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_HANDOFF_MS: '10000', QUEEN_SWEEPER_LEASE_MS: '3000' } });
    try {
      await acceptQueue(looped.sql, 'q');
      await fireThreadConnected(looped);
      const timers = await insertTimers(looped.sql, { count: 120, dueInMs: 2_000, stepMs: 25 });
      const fired = async () => (await looped.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;
      await waitFor(async () => (await fired()) >= 20, { timeout: 60_000 });
      // The wheel's fires so far went out on the thread's own connections (named in pg_stat_activity),
      // which run nothing else: one has run a statement. Not "its last was COMMIT": both may be
      // inside their next fire at that moment.
      const backends = await fireThreadBackends(looped.sql);
      expect(backends.some((b) => b.query !== '')).toBe(true);
      await looped.sql.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [backends.map((b) => b.pid)]);
      await waitFor(async () => (await fired()) === timers.length, { timeout: 60_000 });
      const { rows } = await looped.sql.query(
        `SELECT count(*)::int AS n, count(DISTINCT timer_key)::int AS keys,
                count(*) FILTER (WHERE created_at < deliver_at)::int AS early
           FROM messages`,
      );
      expect(rows[0]).toEqual({ n: 120, keys: 120, early: 0 });
      expect((await looped.sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n).toBe(0);
    } finally {
      await looped.close();
    }
  });

  it("a partition's first frame leaves from the thread in its one write, with a cursor for its queue's group, and its next in the one statement; one the thread refuses (its partition missing) is appended from the main thread without sending that statement again", async () => {
    const looped = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_HANDOFF_MS: '10000' } });
    // What the thread answered and the named statements each of its jobs wrote, and the fire
    // statements sent from this thread (the pass's fallback runs here; the fire thread's own
    // connections are in its worker, not seen here).
    const send = FireThread.prototype.transaction;
    const answers: unknown[] = [];
    const written: string[][] = [];
    const threadSpy = vi.spyOn(FireThread.prototype, 'transaction').mockImplementation(function (this: FireThread, at, fn, keys) {
      const names: string[] = [];
      written.push(names);
      const recorded = (tx: Queryable) =>
        fn(
          new Proxy(tx, {
            get: (t, p) =>
              p === 'query'
                ? (q: string | { name?: string }, v?: unknown[]) => {
                    if (typeof q === 'object' && q.name) names.push(q.name);
                    return t.query(q as string, v);
                  }
                : Reflect.get(t, p),
          }),
        );
      return send.call(this, at, recorded, keys).then((r) => (answers.push(r.result), r)) as ReturnType<typeof send>;
    });
    const { sent, restore } = recordFireStatements();
    try {
      await acceptQueue(looped.sql, 'firsts');
      await fireThreadConnected(looped);
      // p1 created ahead, as the schedule route creates it, and never fired into; p2 never made
      // (a timer written straight into the table). A group registered now has no cursor on p1,
      // which holds nothing yet. Due well after the next pass (a second at most), so that the pass
      // claims them into the wheel, for the thread: p1's first, p2's, then p1's second.
      await ensurePartitions(looped.sql, 'acme', [{ queue: 'firsts', partition: 'p1' }]);
      expect((await api(looped, 'GET', '/api/v1/pop/queue/firsts?consumerGroup=g&batch=1')).status).toBe(204);
      await insertTimers(looped.sql, { queue: 'firsts', partition: 'p1', keyPrefix: 'one', dueInMs: 5_000 });
      await insertTimers(looped.sql, { queue: 'firsts', partition: 'p2', keyPrefix: 'two', dueInMs: 5_500 });
      await insertTimers(looped.sql, { queue: 'firsts', partition: 'p1', keyPrefix: 'three', dueInMs: 6_000 });
      const frames = async () =>
        (await looped.sql.query(`SELECT partition, seq::int FROM messages WHERE queue = 'firsts' ORDER BY seq`)).rows;
      // A fire's frame is in the log a moment before its answer is back from the thread.
      await waitFor(async () => (await frames()).length === 3 && answers.length === 3, { timeout: 60_000 });
      const joining = ['qt_fire_joining:lock', 'qt_fire_joining:queues', 'qt_fire_joining:groups', 'qt_fire_joining'];
      expect(written).toEqual([joining, joining, ['qt_fire_held']]);
      expect(answers).toMatchObject([
        { unready: false, deleted: 1 },
        { unready: true, deleted: 0 },
        { unready: false, deleted: 1 },
      ]);
      // p2's lock found it missing, made it, and locked it again.
      expect(sent).toEqual(['qt_fire:lock', 'qt_fire:lock', 'qt_fire:queues', 'qt_fire:groups', 'qt_fire']);
      const cursors = await looped.sql.query(
        `SELECT partition, last_seq::int FROM partition_consumers WHERE queue = 'firsts' ORDER BY partition`,
      );
      const newest = new Map((await frames()).map((f) => [f.partition, f.seq]));
      expect(cursors.rows).toEqual([...newest].map(([partition, seq]) => ({ partition, last_seq: seq })));
    } finally {
      threadSpy.mockRestore();
      restore();
      await looped.close();
    }
  });

  it("wakes the loop as a fire settles while the thread is full, so the wheel's next instants do not wait for the next claim, and hands no fire over before its lead", async () => {
    // Nothing else wakes this loop once it has claimed them: no timer beyond the window, no
    // schedule after these, and a minute between claims. The thread holds ON_THREAD_MAX fires
    // at a time, each sent FIRE_LEAD_MS ahead of its instant; the instants are close enough that
    // twice that many are within the lead at once, so most are sent only when an earlier fire
    // settles, and they span three leads, so that a pass woken late still finds the bound's worth.
    const looped = await startTestBroker({
      sweeper: true,
      env: { QUEEN_SWEEPER_HANDOFF_MS: '60000', QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' },
    });
    // The fires on the thread at once, and how far ahead of its instant each was handed over,
    // counted where the pass hands them over.
    const send = FireThread.prototype.transaction;
    let onThread = 0;
    let most = 0;
    let ahead = -Infinity;
    const spy = vi.spyOn(FireThread.prototype, 'transaction').mockImplementation(function (this: FireThread, ...args) {
      most = Math.max(most, ++onThread);
      ahead = Math.max(ahead, args[0] - preciseNow());
      return send.apply(this, args).finally(() => onThread--) as ReturnType<typeof send>;
    });
    const step = Math.max(1, Math.floor(FIRE_LEAD_MS / (2 * ON_THREAD_MAX)));
    try {
      const operations = Array.from({ length: 8 * ON_THREAD_MAX }, (_, i) => ({
        op: 'schedule',
        queue: 'wake',
        timerKey: `w${i}`,
        delayMs: 3_000 + step * i,
        payload: 'e30=',
      }));
      const r = await api(looped, 'POST', '/api/v1/timers', { body: { operations } });
      expect(r.status).toBe(200);
      const fired = async () => (await looped.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n as number;
      // Well inside the two minutes the loop would otherwise sleep.
      await waitFor(async () => (await fired()) === operations.length, { timeout: 60_000 });
      const { rows } = await looped.sql.query(
        `SELECT count(DISTINCT timer_key)::int AS keys, count(*) FILTER (WHERE created_at < deliver_at)::int AS early FROM messages`,
      );
      expect(rows[0]).toEqual({ keys: operations.length, early: 0 });
      // The bound held, and was reached: the wake above was needed.
      expect(most).toBe(ON_THREAD_MAX);
      // Claimed three seconds ahead, none was handed over before its lead: at most FIRE_LEAD_MS
      // ahead, plus the clock estimate's uncertainty (a round trip's; a second is far above it). A
      // machine running late only hands them over later.
      expect(ahead).toBeLessThanOrEqual(FIRE_LEAD_MS + 1_000);
    } finally {
      spy.mockRestore();
      await looped.close();
    }
  });
});
