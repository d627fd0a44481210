// A frame's seq is drawn at insert but visible at commit. If two appends (a fire, a replay, a push)
// could commit on one partition out of seq order, a pop that settled the later frame would move
// the cursor past the earlier one, which would then never be delivered. Every append goes through
// src/services/log/append.ts, which holds the partition until commit.
// Real PostgreSQL only: embedded PGlite runs one transaction at a time, so the race cannot occur.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, inTurn, pipelines } from '../src/db/transaction.ts';
import { sqlState } from '../src/errors.ts';
import { claimDue, type ClaimedTimer } from '../src/sweeper/claimDue.ts';
import { SweeperDb } from '../src/sweeper/db.ts';
import { fireAndCommit, fireClaimed } from '../src/sweeper/fireClaimed.ts';
import type { Sweeper } from '../src/sweeper/index.ts';
import { api, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { ack, b64, deadLetters, pop, push, replay } from './helpers/log.ts';

describe.skipIf(!onRealPostgres)('appends to one partition commit in seq order', () => {
  let tb: TestBroker;
  let sweeper: Sweeper;
  beforeAll(async () => {
    tb = await startTestBroker({ sweeper: 'driven' });
    sweeper = tb.sweeper!;
    // Widens an append's window: the insert of each timer frame, and of each frame whose payload
    // says "slow", sleeps half a second inside its transaction.
    await tb.sql.query(`
      CREATE FUNCTION slow_timer_frames() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.timer_key IS NOT NULL OR position('slow' in convert_from(NEW.payload, 'UTF8')) > 0 THEN
          PERFORM pg_sleep(0.5);
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER slow_timer_frames BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION slow_timer_frames();`);
  });
  /** Resolves once an append is asleep inside its transaction (the trigger's pg_sleep). */
  const sleeping = () =>
    waitFor(async () => {
      const r = await tb.sql.query("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()");
      return r.rowCount! > 0;
    });

  afterAll(() => tb?.close());

  it('of statements sent together on one connection, the first failure is the one thrown, not the aborted transaction after it', async () => {
    // A first frame's queue lock, consumer rows and append leave in one write (src/services/queues.ts
    // joinGroups): a deadlock on the lock must reach the replay as a deadlock.
    const err = await inTransaction(
      tb.broker.db.pool,
      async (tx) => {
        expect(pipelines(tx)).toBe(true);
        await inTurn(tx, [() => tx.query('SELECT 1'), () => tx.query('SELECT 1 / 0'), () => tx.query('SELECT 2')]);
      },
      { replay: false },
    ).catch((e: unknown) => e);
    expect(sqlState(err)).toBe('22012');
  });

  it('a push during a fire waits for it, so no consumer cursor passes the fired frame', async () => {
    const payload = b64('{"from":"timer"}');
    const s = await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'mixed', timerKey: 'k', delayMs: 0, txn: 'timer-txn', payload }] },
    });
    expect(s.body.results[0].status).toBe('scheduled');

    const fire = sweeper.sweepOnce();
    await waitFor(async () => {
      const r = await tb.sql.query("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()");
      return r.rowCount! > 0;
    });
    const pushed = await push(tb, [{ queue: 'mixed', payload: { from: 'push' }, transactionId: 'push-txn' }]);
    expect(pushed.status).toBe(201);
    const delivered: string[] = [];
    const popOnce = async () => {
      const r = await pop(tb, '/api/v1/pop/queue/mixed?autoAck=true&batch=10');
      if (r.status === 200) delivered.push(...r.body.messages.map((m: any) => m.transactionId));
    };
    await popOnce();
    expect((await fire).fired).toBe(1);
    await popOnce();
    await popOnce();
    expect(delivered).toEqual(['timer-txn', 'push-txn']);
  });

  it('a push during a dead-letter replay waits for it, so the consumer sees both frames', async () => {
    // A frame a consumer gives up on: its dead letter is what gets replayed.
    await push(tb, [{ queue: 'replayed', payload: { slow: true }, transactionId: 'first' }]);
    const popped = await pop(tb, '/api/v1/pop/queue/replayed');
    const frame = popped.body.messages[0];
    const dead = await ack(tb, { transactionId: frame.transactionId, partitionId: frame.partitionId }, { status: 'dlq' });
    expect(dead.body[0].status).toBe('dlq');
    const dlq = await deadLetters(tb, 'queue=replayed');
    expect(dlq.body.messages).toHaveLength(1);

    const replaying = replay(tb, dlq.body.messages[0].id);
    await sleeping();
    const pushed = await push(tb, [{ queue: 'replayed', payload: { fast: true }, transactionId: 'after' }]);
    expect(pushed.status).toBe(201);
    const delivered: string[] = [];
    const popOnce = async () => {
      const r = await pop(tb, '/api/v1/pop/queue/replayed?autoAck=true&batch=10');
      if (r.status === 200) delivered.push(...r.body.messages.map((m: any) => m.transactionId));
      return r.status;
    };
    await popOnce();
    const replayed = await replaying;
    expect(replayed.status).toBe(201);
    while ((await popOnce()) === 200);
    expect(delivered).toEqual([replayed.body.transactionId, 'after']);
  });

  it('an append that waits for a consumer row an ack is updating still records its frame on that row', async () => {
    // The group's consumer row mirrors the partition's newest seq; a pop finds work by it. An ack
    // commits a new version of the row while the append waits for it: the append must write its
    // seq onto that newest version, or the group would not see the frame until the next append.
    await push(tb, [{ queue: 'mirror', payload: 'one', transactionId: 'm1' }]);
    const first = await pop(tb, '/api/v1/pop/queue/mirror');
    expect(first.body.messages.map((m: any) => m.transactionId)).toEqual(['m1']);

    const holder = new pg.Client({ connectionString: tb.config.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`UPDATE partition_consumers SET updated_at = now() WHERE tenant = 'acme' AND queue = 'mirror'`);
      const pushing = push(tb, [{ queue: 'mirror', payload: 'two', transactionId: 'm2' }]);
      await waitFor(async () => {
        const r = await tb.sql.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO messages%'`,
        );
        return r.rowCount! > 0;
      });
      await holder.query('COMMIT');
      expect((await pushing).status).toBe(201);
    } finally {
      await holder.end();
    }

    const rows = await tb.sql.query(
      `SELECT p.last_seq::int AS partition_seq, c.last_seq::int AS consumer_seq
         FROM partitions p JOIN partition_consumers c USING (tenant, queue)
        WHERE p.tenant = 'acme' AND p.queue = 'mirror' AND c.partition = p.name`,
    );
    expect(rows.rows).toEqual([{ partition_seq: rows.rows[0].partition_seq, consumer_seq: rows.rows[0].partition_seq }]);
    const frame = first.body.messages[0];
    expect((await ack(tb, { transactionId: frame.transactionId, partitionId: frame.partitionId, leaseId: frame.leaseId })).status).toBe(
      200,
    );
    const second = await pop(tb, '/api/v1/pop/queue/mirror');
    expect(second.status).toBe(200);
    expect(second.body.messages.map((m: any) => m.transactionId)).toEqual(['m2']);
  });

  it('a consumer group that first pops during an append sees the appended frame', async () => {
    await push(tb, [{ queue: 'joining', payload: 'first', transactionId: 'j1' }]);
    const slow = push(tb, [{ queue: 'joining', payload: { slow: true }, transactionId: 'j2' }]);
    await sleeping();
    const joined = await pop(tb, '/api/v1/pop/queue/joining?consumerGroup=late&batch=10&autoAck=true');
    expect((await slow).status).toBe(201);
    const seen = joined.status === 200 ? joined.body.messages.map((m: any) => m.transactionId) : [];
    const next = await pop(tb, '/api/v1/pop/queue/joining?consumerGroup=late&batch=10&autoAck=true');
    if (next.status === 200) seen.push(...next.body.messages.map((m: any) => m.transactionId));
    expect(seen).toEqual(['j1', 'j2']);
  });
  /**
   * A timer on `queue`, due in `delayMs`, claimed under `token` as the hand-off window claims (the
   * sweeper's own connections, a window of an hour).
   */
  const claimOne = async (db: SweeperDb, queue: string, txn: string, token: string, delayMs = 0): Promise<ClaimedTimer[]> => {
    const s = await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue, timerKey: txn, delayMs, txn, payload: b64('{}') }] },
    });
    expect(s.body.results[0].status).toBe('scheduled');
    const claim = await claimDue(db, token, 10, 60_000, 3_600_000);
    expect(claim.rows.map((r) => r.timerKey)).toEqual([txn]);
    return claim.rows;
  };

  /** fireClaimed's statement as it locks its partitions itself (`lockedInStatement`), alone in its transaction: no fallback. */
  const fireLockedHere = (db: SweeperDb, token: string, rows: ClaimedTimer[]) =>
    inTransaction(db.pool, (tx) => fireAndCommit(tx, token, rows, new Map(), undefined, null, 'held'), { replay: false });

  it('a fire from the window locks a partition that holds frames in its one statement, and waits there for an append in flight', async () => {
    await push(tb, [{ queue: 'window', payload: 'before', transactionId: 'w0' }]);
    const db = new SweeperDb(tb.broker.db, () => {});
    const holder = new pg.Client({ connectionString: tb.config.DATABASE_URL });
    await holder.connect();
    try {
      const token = '00000000-0000-4000-8000-00000000a001';
      const rows = await claimOne(db, 'window', 'w1', token);
      // An append in flight on the partition holds its row until it commits (append.ts).
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM partitions WHERE tenant = 'acme' AND queue = 'window' FOR UPDATE`);
      const firing = fireClaimed(db, token, rows, new Map());
      // What waits is the fire statement itself (its DELETE): no lock statement went before it.
      await waitFor(async () => {
        const r = await tb.sql.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM timers%'`,
        );
        return r.rowCount! > 0;
      });
      expect((await tb.sql.query(`SELECT count(*)::int AS n FROM messages WHERE queue = 'window'`)).rows[0].n).toBe(1);
      await holder.query('COMMIT');
      expect(await firing).toMatchObject({ deleted: 1, inserted: 1, early: [] });
    } finally {
      await holder.end();
      await db.end();
    }
    const popped = await pop(tb, '/api/v1/pop/queue/window?autoAck=true&batch=10');
    expect(popped.body.messages.map((m: any) => m.transactionId)).toEqual(['w0', 'w1']);
  });

  it('appends lock their partitions in key order, whatever order they name them in, so two appends never deadlock', async () => {
    // Both partitions have held a frame: the fire below locks them in its own statement.
    const seeded = await push(tb, [
      { queue: 'lockorder', partition: 'pa', payload: 0 },
      { queue: 'lockorder', partition: 'pb', payload: 0 },
    ]);
    expect(seeded.status).toBe(201);
    const db = new SweeperDb(tb.broker.db, () => {});
    const holder = new pg.Client({ connectionString: tb.config.DATABASE_URL });
    const prober = new pg.Client({ connectionString: tb.config.DATABASE_URL });
    await holder.connect();
    await prober.connect();
    const partitionRow = (name: string) => `SELECT 1 FROM partitions WHERE tenant = 'acme' AND queue = 'lockorder' AND name = '${name}'`;
    /**
     * Runs `append` while another transaction holds pb, and answers how a probe for pa fared once
     * the append waits (its statement matching `waiting`): refused (55P03) if the append took pa
     * first, as key order has it; free if it started with pb, in the order it was given.
     */
    const probeWhileWaiting = async (append: () => Promise<unknown>, waiting: string) => {
      await holder.query('BEGIN');
      await holder.query(`${partitionRow('pb')} FOR UPDATE`);
      const pending = append();
      pending.catch(() => {});
      await waitFor(async () => {
        const r = await tb.sql.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
          [waiting],
        );
        return r.rowCount! > 0;
      });
      const probe = await prober.query(`${partitionRow('pa')} FOR UPDATE NOWAIT`).then(
        () => 'free',
        (err) => err.code,
      );
      await holder.query('COMMIT');
      return { probe, appended: await pending };
    };
    try {
      // A push naming pb before pa (the lock statement, append.ts).
      const pushed = await probeWhileWaiting(
        () =>
          push(tb, [
            { queue: 'lockorder', partition: 'pb', payload: 1 },
            { queue: 'lockorder', partition: 'pa', payload: 2 },
          ]),
        '%FOR UPDATE OF p%',
      );
      expect(pushed.probe).toBe('55P03');
      expect((pushed.appended as { status: number }).status).toBe(201);

      // A fire whose batch has pb's timer first (the lock inside the fire statement, partitionsLockedHere).
      const token = '00000000-0000-4000-8000-00000000a0b1';
      const s = await api(tb, 'POST', '/api/v1/timers', {
        body: {
          operations: [
            { op: 'schedule', queue: 'lockorder', partition: 'pb', timerKey: 'lb', delayMs: 0, payload: b64('{}') },
            { op: 'schedule', queue: 'lockorder', partition: 'pa', timerKey: 'la', delayMs: 0, payload: b64('{}') },
          ],
        },
      });
      expect(s.status).toBe(200);
      const claimed = (await claimDue(db, token, 10, 60_000, 3_600_000)).rows;
      expect(claimed.map((r) => r.partition).sort()).toEqual(['pa', 'pb']);
      // The batch names pb first.
      const rows = ['pb', 'pa'].map((p) => claimed.find((r) => r.partition === p)!);
      const fired = await probeWhileWaiting(() => fireLockedHere(db, token, rows), '%DELETE FROM timers%');
      expect(fired.probe).toBe('55P03');
      expect(fired.appended).toMatchObject({ deleted: 2, inserted: 2, unready: false });
    } finally {
      await holder.end();
      await prober.end();
      await db.end();
    }
  });

  it('a fire from the window into a partition that never held a frame is refused by that statement and appended the usual way', async () => {
    // A consumer group that knows the queue: the partition's first frame must give it a consumer row.
    await push(tb, [{ queue: 'fresh', partition: 'other', payload: 'elsewhere', transactionId: 'f0' }]);
    const first = await pop(tb, '/api/v1/pop/queue/fresh?consumerGroup=g&autoAck=true&batch=10');
    expect(first.body.messages.map((m: any) => m.transactionId)).toEqual(['f0']);
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const token = '00000000-0000-4000-8000-00000000a002';
      const rows = await claimOne(db, 'fresh', 'f1', token);
      const here = await fireLockedHere(db, token, rows);
      expect(here).toMatchObject({ deleted: 0, inserted: 0, unready: true });
      expect((await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE queue = 'fresh'`)).rows[0].n).toBe(1);
      expect(await fireClaimed(db, token, rows, new Map())).toMatchObject({ deleted: 1, inserted: 1 });
    } finally {
      await db.end();
    }
    const next = await pop(tb, '/api/v1/pop/queue/fresh?consumerGroup=g&autoAck=true&batch=10');
    expect(next.body.messages.map((m: any) => m.transactionId)).toEqual(['f1']);
  });

  it('a fire from the window into a held partition and a new one is refused as a whole, and the usual append fires both', async () => {
    await push(tb, [{ queue: 'split', partition: 'held', payload: 'before', transactionId: 'm0' }]);
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const token = '00000000-0000-4000-8000-00000000a004';
      const s = await api(tb, 'POST', '/api/v1/timers', {
        body: {
          operations: [
            { op: 'schedule', queue: 'split', partition: 'held', timerKey: 'm1', delayMs: 0, txn: 'm1', payload: b64('{}') },
            { op: 'schedule', queue: 'split', partition: 'new', timerKey: 'm2', delayMs: 0, txn: 'm2', payload: b64('{}') },
          ],
        },
      });
      expect(s.body.results.map((r: any) => r.status)).toEqual(['scheduled', 'scheduled']);
      const rows = (await claimDue(db, token, 10, 60_000, 3_600_000)).rows;
      expect(rows.map((r) => r.timerKey).sort()).toEqual(['m1', 'm2']);
      // One partition without a frame refuses the statement: the held one's timer is not fired alone.
      const here = await fireLockedHere(db, token, rows);
      expect(here).toMatchObject({ deleted: 0, inserted: 0, unready: true });
      expect((await tb.sql.query(`SELECT count(*)::int AS n FROM messages WHERE queue = 'split'`)).rows[0].n).toBe(1);
      expect(await fireClaimed(db, token, rows, new Map())).toMatchObject({ deleted: 2, inserted: 2 });
    } finally {
      await db.end();
    }
    const frames = await tb.sql.query(`SELECT partition, transaction_id FROM messages WHERE queue = 'split' ORDER BY partition, seq`);
    expect(frames.rows.map((r) => `${r.partition}:${r.transaction_id}`)).toEqual(['held:m0', 'held:m1', 'new:m2']);
  });

  it('a fire that locks its partitions itself refuses a timer not yet due on PostgreSQL clock, as the usual fire does', async () => {
    await push(tb, [{ queue: 'later', payload: 'before', transactionId: 'l0' }]);
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const token = '00000000-0000-4000-8000-00000000a003';
      const rows = await claimOne(db, 'later', 'l1', token, 60_000);
      const here = await fireLockedHere(db, token, rows);
      expect(here).toMatchObject({ deleted: 0, inserted: 0, unready: false, early: [rows[0].tid] });
      expect((await tb.sql.query(`SELECT count(*)::int AS n FROM messages WHERE queue = 'later'`)).rows[0].n).toBe(1);
    } finally {
      await db.end();
    }
  });
});
