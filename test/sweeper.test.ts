// The sweeper, pass by pass: tests drive sweepOnce() directly and arrange rows in SQL
// (deliver_at from PostgreSQL's now()). Runs on embedded PGlite and on DATABASE_URL.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { maybeCompress, PayloadCipher } from '../src/payload.ts';
import { claimDue, CLAIM_DUE_SQL } from '../src/sweeper/claimDue.ts';
import { DUE_FIRE_SQL, DUE_SQL, fireDue } from '../src/sweeper/fireDue.ts';
import { countPending, EXACT_PENDING_LIMIT } from '../src/maintenance/pendingGauge.ts';
import { SweeperDb } from '../src/sweeper/db.ts';
import { COLLIDED, FIRE_RESULT, FIRED_FRAMES, fireClaimed } from '../src/sweeper/fireClaimed.ts';
import { appendSql } from '../src/services/log/append.ts';
import { ensurePartitions } from '../src/services/queues.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { tracingInstalled } from '../src/tracing.ts';
import { createSweeper, startSweeper, TIMER_DLQ_CONSUMER_GROUP, type Sweeper } from '../src/sweeper/index.ts';
import { api, onRealPostgres, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { acceptQueue, insertTimers, recordFireStatements, rejectQueue } from './helpers/timers.ts';

const KEY = 'a'.repeat(64);
const OTHER_KEY = 'b'.repeat(64);

let tb: TestBroker;
let sweeper: Sweeper;

beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_ENCRYPTION_KEY: KEY, QUEEN_SWEEPER_MAX_ATTEMPTS: '3' } });
});
afterAll(async () => {
  await tb?.close();
});
beforeEach(async () => {
  await sweeper?.stop();
  await tb.sql.query('TRUNCATE timers, messages, dead_letters');
  await tb.sql.query('UPDATE cluster_flags SET sweeper_paused = false');
  await tb.broker.services.cluster.set({ sweeperPaused: false });
  sweeper = createSweeper(tb.broker.services);
});

const frames = async (where = 'true', params: unknown[] = []) =>
  (await tb.sql.query(`SELECT * FROM messages WHERE ${where} ORDER BY seq`, params)).rows;
const timer = async (key: string) => (await tb.sql.query('SELECT * FROM timers WHERE timer_key = $1', [key])).rows[0];
const metric = async (name: string) => await tb.broker.services.metrics.registry.getSingleMetricAsString(name);
/** The value of an unlabelled counter: tests compare it before and after, the broker is shared. */
const counter = async (name: string) => Number(/ (\d+)$/m.exec(await metric(name))![1]);

describe('sweepOnce', () => {
  it('fires due timers into the log, and leaves future ones pending and unclaimed', async () => {
    const due = await insertTimers(tb.sql, { keyPrefix: 'due', count: 3, dueInMs: -1000 });
    await insertTimers(tb.sql, { keyPrefix: 'later', count: 2, dueInMs: 3_600_000 });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 3, failed: 0 });

    const log = await frames();
    expect(log).toHaveLength(3);
    for (const f of log) {
      const t = due.find((d) => d.txn === f.transaction_id)!;
      expect(f).toMatchObject({
        tenant: 'acme',
        queue: 'q',
        partition: 'Default',
        id: t.messageId,
        timer_key: t.timerKey,
        producer_sub: 'scheduler',
        encrypted: false,
      });
      expect(f.payload.toString()).toBe('{"hello":"world"}');
      expect(f.created_at.getTime()).toBeGreaterThanOrEqual(Math.floor(t.deliverAtMs));
    }
    const left = (await tb.sql.query('SELECT timer_key, claim_token FROM timers ORDER BY timer_key')).rows;
    expect(left).toEqual([
      { timer_key: 'later1', claim_token: null },
      { timer_key: 'later2', claim_token: null },
    ]);
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 0, fired: 0, failed: 0 });
  });

  it('enters timers of one queue and partition maturing in one cycle into the log in deliverAt order', async () => {
    // Keys in the opposite order of deliverAt, so neither key nor insertion order can pass for it.
    await insertTimers(tb.sql, { keyPrefix: 'z', count: 1, dueInMs: -1000 });
    await insertTimers(tb.sql, { keyPrefix: 'a', count: 1, dueInMs: -2000 });
    await insertTimers(tb.sql, { keyPrefix: 'r', count: 50, dueInMs: -3000, spreadMs: 2500 });
    expect((await sweeper.sweepOnce()).fired).toBe(52);
    // Compared in SQL: microseconds matter and a JS Date keeps only milliseconds.
    const { rows } = await tb.sql.query(`
      SELECT count(*) FILTER (WHERE deliver_at < prev)::int AS out_of_order, count(*)::int AS n
      FROM (SELECT deliver_at, lag(deliver_at) OVER (ORDER BY seq) AS prev FROM messages) x`);
    expect(rows[0]).toEqual({ out_of_order: 0, n: 52 });
    const log = await frames();
    expect(log.findIndex((f) => f.timer_key === 'a1')).toBeLessThan(log.findIndex((f) => f.timer_key === 'z1'));
  });

  it('a broker that lost its lease inserts nothing', async () => {
    await insertTimers(tb.sql, { count: 2 });
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const claim = await claimDue(db, '00000000-0000-4000-8000-000000000001', 10, 30_000);
      expect(claim.rows).toHaveLength(2);
      // The lease expired and another broker claimed the rows.
      await tb.sql.query(`UPDATE timers SET claim_token = '00000000-0000-4000-8000-000000000002'`);
      const r = await fireClaimed(db, '00000000-0000-4000-8000-000000000001', claim.rows, new Map());
      expect(r).toMatchObject({ deleted: 0, inserted: 0 });
      expect(await frames()).toHaveLength(0);
      expect((await tb.sql.query('SELECT count(*)::int AS n FROM timers')).rows[0].n).toBe(2);
    } finally {
      await db.end();
    }
  });

  it.skipIf(!onRealPostgres)(
    "a partition's first frame: the fire that locks in its statement refuses it (held) and after the fire thread's refusal (here null) the append fires it at once; joining fires it in its one write, with a cursor for the group registered before",
    async () => {
      const db = new SweeperDb(tb.broker.db, () => {});
      const { sent, restore } = recordFireStatements();
      const queue = `firsts-${Date.now()}`;
      const shapes = [
        { here: 'held', statements: ['qt_fire_held', 'qt_fire:lock', 'qt_fire:queues', 'qt_fire:groups', 'qt_fire'] },
        { here: null, statements: ['qt_fire:lock', 'qt_fire:queues', 'qt_fire:groups', 'qt_fire'] },
        {
          here: 'joining',
          statements: ['qt_fire_joining:lock', 'qt_fire_joining:queues', 'qt_fire_joining:groups', 'qt_fire_joining'],
        },
      ] as const;
      const fire = async (partition: string, i: number, opts: { here: 'held' | 'joining' | null }) => {
        await insertTimers(tb.sql, { keyPrefix: `ff${i}-`, queue, partition, count: 1 });
        const token = `00000000-0000-4000-8000-00000000001${i}`;
        const claim = await claimDue(db, token, 10, 30_000);
        sent.length = 0;
        expect(await fireClaimed(db, token, claim.rows, new Map(), opts)).toMatchObject({ deleted: 1, inserted: 1 });
      };
      const cursors = async (partition: string) =>
        (
          await tb.sql.query('SELECT consumer_group, last_seq::int FROM partition_consumers WHERE queue = $1 AND partition = $2', [
            queue,
            partition,
          ])
        ).rows;
      try {
        // Created ahead, as the schedule route creates them: they exist and have never held a frame.
        await ensurePartitions(
          tb.sql,
          'acme',
          shapes.map((_, i) => ({ queue, partition: `p${i}` })),
        );
        // A group registered now has no cursor on them (they hold nothing) until their first frame.
        expect((await api(tb, 'GET', `/api/v1/pop/queue/${queue}?consumerGroup=g&batch=1`)).status).toBe(204);
        for (const [i, { statements, ...opts }] of shapes.entries()) {
          await fire(`p${i}`, i, opts);
          expect(sent).toEqual(statements);
          const [frame, ...more] = await frames('queue = $1 AND partition = $2', [queue, `p${i}`]);
          expect(more).toEqual([]);
          expect(await cursors(`p${i}`)).toEqual([{ consumer_group: 'g', last_seq: Number(frame.seq) }]);
        }
        // joining on a partition that has held a frame neither locks its queue nor writes a cursor:
        // it fires while another transaction holds the queue's row. Had it waited for the row, a
        // backend of this database would be seen waiting on a lock, and the row is let go then.
        const holder = await tb.broker.db.pool.connect();
        let waited = false;
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT 1 FROM queues WHERE tenant = $1 AND name = $2 FOR UPDATE', ['acme', queue]);
          let settled = false;
          const fired = fire('p2', 3, { here: 'joining' }).finally(() => (settled = true));
          while (!settled && !waited) {
            const { rows } = await tb.sql.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            waited = rows[0].n > 0;
            if (!waited) await sleep(10);
          }
          await holder.query('ROLLBACK');
          await fired;
        } finally {
          holder.release();
        }
        expect(waited).toBe(false);
        const newest = await frames('queue = $1 AND partition = $2', [queue, 'p2']);
        expect(await cursors('p2')).toEqual([{ consumer_group: 'g', last_seq: Number(newest[1].seq) }]);
      } finally {
        restore();
        await db.end();
      }
    },
  );

  it('while claimed, cancel and reschedule answer too_late; once fired, absent', async () => {
    await insertTimers(tb.sql, { count: 1 });
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const token = '00000000-0000-4000-8000-000000000003';
      const claim = await claimDue(db, token, 10, 30_000);
      expect(claim.rows).toHaveLength(1);
      const cancel = await api(tb, 'DELETE', '/api/v1/timers/q/k1');
      expect(cancel.body).toMatchObject({ ok: false, status: 'too_late', txn: 'txn-k1' });
      const reschedule = await api(tb, 'POST', '/api/v1/timers', {
        body: { operations: [{ op: 'reschedule', queue: 'q', timerKey: 'k1', delayMs: 60_000, payload: 'e30=' }] },
      });
      expect(reschedule.body.results[0]).toMatchObject({ ok: false, status: 'too_late' });
      expect(await fireClaimed(db, token, claim.rows, new Map())).toMatchObject({ deleted: 1, inserted: 1 });
      const after = await api(tb, 'DELETE', '/api/v1/timers/q/k1');
      expect(after.body).toMatchObject({ ok: false, status: 'absent' });
      expect(await frames('transaction_id = $1', ['txn-k1'])).toHaveLength(1);
    } finally {
      await db.end();
    }
  });

  it('a schedule retried after its timer fired fires without a second frame (the log dedupes the txn)', async () => {
    await insertTimers(tb.sql, { count: 1 });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 1, fired: 1, failed: 0 });
    await insertTimers(tb.sql, { count: 1 }); // the same key and txn, scheduled again
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 1, fired: 1, failed: 0 });
    expect(await frames('transaction_id = $1', ['txn-k1'])).toHaveLength(1);
    expect((await tb.sql.query('SELECT count(*)::int AS n FROM dead_letters')).rows[0].n).toBe(0);
    expect(await timer('k1')).toBeUndefined();
  });

  it('a timer whose txn another message holds in its partition is dead-lettered with the reason, never lost', async () => {
    await tb.sql.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, producer_sub)
       VALUES ('acme', gen_random_uuid(), 'q', 'Default', 'txn-k1', '\\x01', 'pusher')`,
    );
    const [held] = await insertTimers(tb.sql, { count: 1 });
    // Two timers of one fire sharing a txn: the first in deliverAt order is delivered.
    const twins = await insertTimers(tb.sql, { keyPrefix: 't', txnPrefix: 'twin', count: 2, stepMs: 1 });
    await tb.sql.query(`UPDATE timers SET txn = 'twin' WHERE timer_key LIKE 't%'`);
    const deadBefore = await counter('queen_timers_dead_lettered_total');
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 3, failed: 0 });
    expect((await frames('transaction_id = $1', ['txn-k1']))[0].producer_sub).toBe('pusher');
    expect((await frames('transaction_id = $1', ['twin'])).map((f: any) => f.timer_key)).toEqual([twins[0].timerKey]);
    const dlq = await tb.sql.query(
      `SELECT timer_key, message_id::text, consumer_group, from_timer, error_message FROM dead_letters ORDER BY timer_key`,
    );
    expect(dlq.rows).toEqual([
      {
        timer_key: 'k1',
        message_id: held.messageId,
        consumer_group: TIMER_DLQ_CONSUMER_GROUP,
        from_timer: true,
        error_message: expect.stringMatching(/^txn_conflict: txn txn-k1 /),
      },
      {
        timer_key: twins[1].timerKey,
        message_id: twins[1].messageId,
        consumer_group: TIMER_DLQ_CONSUMER_GROUP,
        from_timer: true,
        error_message: expect.stringMatching(/^txn_conflict: txn twin /),
      },
    ]);
    expect(await counter('queen_timers_dead_lettered_total')).toBe(deadBefore + 2);
  });

  it('a permanent failure spends an attempt and backs off; healthy timers of the batch still fire', async () => {
    await rejectQueue(tb.sql, 'bad');
    try {
      await insertTimers(tb.sql, { keyPrefix: 'g', count: 300, dueInMs: -2000, spreadMs: 1000 });
      await insertTimers(tb.sql, { queue: 'bad', keyPrefix: 'b', count: 1, dueInMs: -1500 });
      expect(await sweeper.sweepOnce()).toEqual({ claimed: 301, fired: 300, failed: 1 });
      expect(await frames()).toHaveLength(300);
      const t = await timer('b1');
      expect(t).toMatchObject({ attempts: 1, claim_token: null, claim_expires_at: null });
      expect(t.last_error).toMatch(/^permanent: P0001: queue bad rejects frames/);
      const inFuture = (await tb.sql.query(`SELECT deliver_at > now() AS f FROM timers WHERE timer_key = 'b1'`)).rows[0].f;
      expect(inFuture).toBe(true);
      expect(await metric('queen_timers_fire_failures_total')).toMatch(/class="permanent"} 1/);
    } finally {
      await acceptQueue(tb.sql, 'bad');
    }
  });

  it('a transient failure (SQLSTATE 40001) backs off without spending an attempt', async () => {
    await rejectQueue(tb.sql, 'flaky', '40001');
    try {
      await insertTimers(tb.sql, { keyPrefix: 'g', count: 5 });
      await insertTimers(tb.sql, { queue: 'flaky', keyPrefix: 'f', count: 1 });
      expect(await sweeper.sweepOnce()).toEqual({ claimed: 6, fired: 5, failed: 1 });
      const t = await timer('f1');
      expect(t).toMatchObject({ attempts: 0, claim_token: null, claim_expires_at: null });
      expect(t.last_error).toMatch(/^transient: 40001/);
      // Due again and healthy again: it fires, attempts untouched.
      await acceptQueue(tb.sql, 'flaky');
      await tb.sql.query(`UPDATE timers SET deliver_at = now() - interval '1 ms'`);
      expect(await sweeper.sweepOnce()).toEqual({ claimed: 1, fired: 1, failed: 0 });
      expect(await frames(`queue = 'flaky'`)).toHaveLength(1);
    } finally {
      await acceptQueue(tb.sql, 'flaky');
    }
  });

  it('a timer in backoff is unclaimed, so a cancel (DELETE /api/v1/timers/…) withdraws it', async () => {
    await rejectQueue(tb.sql, 'bad');
    try {
      await insertTimers(tb.sql, { queue: 'bad', count: 1 });
      await sweeper.sweepOnce();
      expect(await timer('k1')).toMatchObject({ attempts: 1 });
      const res = await api(tb, 'DELETE', '/api/v1/timers/bad/k1');
      expect(res.status, res.raw).toBe(200);
      expect(res.body).toEqual({ ok: true, status: 'cancelled', queue: 'bad', timerKey: 'k1', txn: 'txn-k1' });
      expect(await timer('k1')).toBeUndefined();
    } finally {
      await acceptQueue(tb.sql, 'bad');
    }
  });

  it('after QUEEN_SWEEPER_MAX_ATTEMPTS failures the timer moves to its queue DLQ under the synthetic group', async () => {
    await rejectQueue(tb.sql, 'bad');
    try {
      const [t] = await insertTimers(tb.sql, { queue: 'bad', count: 1, partition: 'p1' });
      const deadBefore = await counter('queen_timers_dead_lettered_total');
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(await sweeper.sweepOnce()).toEqual({ claimed: 1, fired: 0, failed: 1 });
        await tb.sql.query(`UPDATE timers SET deliver_at = now() - interval '1 ms'`);
      }
      expect(await timer('k1')).toBeUndefined();
      const dlq = (await tb.sql.query('SELECT * FROM dead_letters')).rows;
      expect(dlq).toHaveLength(1);
      expect(dlq[0]).toMatchObject({
        tenant: 'acme',
        queue: 'bad',
        partition: 'p1',
        consumer_group: TIMER_DLQ_CONSUMER_GROUP,
        message_id: t.messageId,
        transaction_id: 'txn-k1',
        producer_sub: 'scheduler',
        retry_count: 3,
        from_timer: true,
        timer_key: 'k1',
        payload_zstd: false,
        encrypted: false,
      });
      expect(TIMER_DLQ_CONSUMER_GROUP).toBe('__timers__');
      expect(dlq[0].error_message).toMatch(/^permanent: P0001/);
      expect(dlq[0].payload.toString()).toBe('{"hello":"world"}');
      expect(await frames()).toHaveLength(0);
      expect(await counter('queen_timers_dead_lettered_total')).toBe(deadBefore + 1);
    } finally {
      await acceptQueue(tb.sql, 'bad');
    }
  });

  it('an operator pause stops the fire; resuming fires everything that matured meanwhile', async () => {
    await tb.broker.services.cluster.set({ sweeperPaused: true });
    await insertTimers(tb.sql, { count: 4 });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 0, fired: 0, failed: 0 });
    expect((await tb.sql.query('SELECT count(*)::int AS n FROM timers WHERE claim_token IS NULL')).rows[0].n).toBe(4);
    await tb.broker.services.cluster.set({ sweeperPaused: false });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 4, fired: 4, failed: 0 });
  });

  it('no degradation rung stops the fire: produce block and a paused tenant still deliver', async () => {
    await tb.broker.services.cluster.set({ produceBlocked: true });
    await tb.sql.query(`INSERT INTO tenants (tenant, schedule_paused, max_pending_timers) VALUES ('acme', true, 0)
                        ON CONFLICT (tenant) DO UPDATE SET schedule_paused = true, max_pending_timers = 0`);
    try {
      await insertTimers(tb.sql, { count: 2 });
      expect(await sweeper.sweepOnce()).toEqual({ claimed: 2, fired: 2, failed: 0 });
    } finally {
      await tb.broker.services.cluster.set({ produceBlocked: false });
      await tb.sql.query(`UPDATE tenants SET schedule_paused = false, max_pending_timers = NULL WHERE tenant = 'acme'`);
    }
  });

  it('a due batch that fails with the database leaves nothing claimed: its row locks died with its transaction', async () => {
    // 53000 (insufficient resources) and 08006 (connection failure) fail the database, not a row.
    for (const code of ['53000', '08006']) {
      await rejectQueue(tb.sql, 'q', code);
      await insertTimers(tb.sql, { count: 2, keyPrefix: `k${code}-` });
      await expect(sweeper.sweepOnce()).rejects.toThrow();
      expect((await tb.sql.query('SELECT attempts, claim_token FROM timers')).rows).toEqual([
        { attempts: 0, claim_token: null },
        { attempts: 0, claim_token: null },
      ]);
      await acceptQueue(tb.sql, 'q');
      expect(await sweeper.sweepOnce()).toEqual({ claimed: 2, fired: 2, failed: 0 });
    }
    expect(await frames()).toHaveLength(4);
  });

  it('zstd payloads enter the log decompressed; encrypted ones are re-sealed; a rotated key delivers the sealed bytes', async () => {
    const plain = Buffer.from(JSON.stringify({ text: 'x'.repeat(5000) }));
    const { bytes: zipped, zstd } = await maybeCompress(plain);
    expect(zstd).toBe(true);
    const cipher = new PayloadCipher(KEY);
    const other = new PayloadCipher(OTHER_KEY);
    const foreign = other.encrypt(zipped);
    await insertTimers(tb.sql, { keyPrefix: 'plain', payload: zipped, payloadZstd: true });
    await insertTimers(tb.sql, { keyPrefix: 'sealed', payload: cipher.encrypt(zipped), payloadZstd: true, encrypted: true });
    await insertTimers(tb.sql, { keyPrefix: 'rotated', payload: foreign, payloadZstd: true, encrypted: true });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 3, failed: 0 });
    const byKey = Object.fromEntries((await frames()).map((f) => [f.timer_key, f]));
    expect(byKey.plain1).toMatchObject({ encrypted: false });
    expect(byKey.plain1.payload.equals(plain)).toBe(true);
    expect(byKey.sealed1.encrypted).toBe(true);
    expect(cipher.decrypt(byKey.sealed1.payload).equals(plain)).toBe(true);
    expect(byKey.rotated1.encrypted).toBe(true);
    expect(byKey.rotated1.payload.equals(foreign)).toBe(true);
  });

  it('a corrupt zstd payload is a permanent failure of that timer only', async () => {
    await insertTimers(tb.sql, { keyPrefix: 'bad', payload: Buffer.from('not zstd'), payloadZstd: true });
    await insertTimers(tb.sql, { keyPrefix: 'good', count: 2 });
    expect(await sweeper.sweepOnce()).toEqual({ claimed: 3, fired: 2, failed: 1 });
    expect(await timer('bad1')).toMatchObject({ attempts: 1, claim_token: null });
  });

  it('a batch whose every frame was appended never runs the collision anti-join, whatever join the planner picks', async () => {
    // The planner joins frames to the appended rows by a nested loop when it estimates one row,
    // as it did after an ANALYZE had sampled claimed timers: 1,000 × 500 comparisons per batch.
    // Forbidding hash joins forces another join here (a merge join, on this table); whichever it
    // is, it must not run.
    await insertTimers(tb.sql, { count: 1000, dueInMs: -1000, spreadMs: 500 });
    const token = '00000000-0000-4000-8000-00000000000a';
    const tids = (
      await tb.sql.query(`UPDATE timers SET claim_token = $1, claim_expires_at = now() + interval '1 minute' RETURNING ctid::text AS tid`, [
        token,
      ])
    ).rows.map((r: { tid: string }) => r.tid);
    const sql = appendSql({ ctes: FIRED_FRAMES, after: COLLIDED, result: FIRE_RESULT, tenants: '$6' });
    const plan = await inTransaction(
      tb.broker.db.pool,
      async (tx) => {
        await tx.query('SET LOCAL enable_hashjoin = off');
        // The sweeper's own sessions' settings (src/sweeper/db.ts): no seq or bitmap scan.
        await tx.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
        await tx.query(`PREPARE fire_probe (uuid, tid[], tid[], bytea[], boolean[], text[]) AS ${sql}`);
        try {
          const r = await tx.query(
            `EXPLAIN (ANALYZE, COSTS OFF) EXECUTE fire_probe ('${token}', '{${tids.map((t) => `"${t}"`).join(',')}}', '{}', '{}', '{}', NULL)`,
          );
          return r.rows.map((x: any) => x['QUERY PLAN']).join('\n');
        } finally {
          await tx.query('DEALLOCATE fire_probe');
          await tx.query('ROLLBACK'); // nothing of the probe stays: the timers are still pending
          await tx.query('BEGIN');
        }
      },
      { replay: false },
    );
    const collided = plan.slice(plan.indexOf('CTE collided'));
    expect(plan).toMatch(/Insert on messages[^\n]*rows=1000(\.00)? /);
    // The rows are found by their addresses: a walk of timers_deliver_at_idx would pass over the
    // whole backlog in every batch (the planner chose it when the statistics put one row there).
    const deleted = plan.slice(plan.indexOf('CTE d'), plan.indexOf('CTE frames'));
    expect(deleted).toMatch(/Delete on timers/);
    expect(deleted).not.toMatch(/timers_deliver_at_idx/);
    // Nor by their tenant (every timer of it): on PostgreSQL the tenants' parameter is null.
    expect(deleted).toMatch(/Tid Scan on timers t/);
    expect(collided).toMatch(/CTE Scan on appended a[^\n]*never executed/);
    expect(Number((await tb.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n)).toBe(0);
  });

  it('the claim walks the deliver_at index from the first cycle of a burst into a table analyzed empty', async () => {
    await tb.sql.query('ANALYZE timers');
    await insertTimers(tb.sql, { count: 20_000, dueInMs: -5000, spreadMs: 4000 });
    const db = new SweeperDb(tb.broker.db, () => {});
    try {
      const plan = await db.planned(async (q) => {
        const r = await q.query(
          `EXPLAIN ${CLAIM_DUE_SQL.replace('$1', `'00000000-0000-4000-8000-000000000009'::uuid`).replace('$2', '1000').replace('$3', '30000').replaceAll('$4', '100').replaceAll('$5', 'true').replaceAll('$6', 'NULL')}`,
        );
        return r.rows.map((x: any) => x['QUERY PLAN']).join('\n');
      });
      const due = plan.slice(plan.indexOf('CTE due'), plan.indexOf('CTE claimed'));
      expect(due).toMatch(/Index Scan using timers_deliver_at_idx on timers/);
      expect(due).not.toMatch(/Sort|Seq Scan|Bitmap/);
      // So does the lock of fireDue, which takes the due timers without claiming them.
      const direct = await db.transaction(async (tx) => {
        const r = await tx.query(
          `EXPLAIN ${DUE_SQL.replace('$1', '1000').replaceAll('$2', '2').replace('$3', '0').replaceAll('$4', 'NULL')}`,
        );
        return r.rows.map((x: any) => x['QUERY PLAN']).join('\n');
      });
      expect(direct).toMatch(/Index Scan using timers_deliver_at_idx on timers/);
      expect(direct).not.toMatch(/Sort|Seq Scan|Bitmap/);
    } finally {
      await db.end();
    }
    // And the pass takes whole batches from the head of the backlog (one partition: one stripe),
    // as many as fit in its time budget.
    const pass = await sweeper.sweepOnce();
    expect(pass.fired % 1000).toBe(0);
    expect(pass).toEqual({ claimed: pass.fired, fired: expect.any(Number), failed: 0 });
    expect(pass.fired).toBeGreaterThanOrEqual(1000);
    expect(pass.fired).toBeLessThan(20_000);
    const { rows } = await tb.sql.query(
      `SELECT (SELECT max(deliver_at) FROM messages) <= (SELECT min(deliver_at) FROM timers) AS head_first`,
    );
    expect(rows[0].head_first).toBe(true);
  });

  it.skipIf(!onRealPostgres)(
    "on PostgreSQL the sweeper's connections keep one generic plan per statement, and the claim's and the due lock's walk the deliver_at index",
    async () => {
      await tb.sql.query('ANALYZE timers');
      await insertTimers(tb.sql, { count: 20_000, dueInMs: -5000, spreadMs: 4000 });
      const db = new SweeperDb(tb.broker.db, () => {});
      const client = await db.pool.connect();
      try {
        // Left to the plan cache, these statements were planned anew at every bind (src/sweeper/db.ts).
        expect((await client.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_generic_plan');
        const genericPlan = async (sql: string, args: string) => {
          await client.query(`PREPARE plan_probe AS ${sql}`);
          try {
            const r = await client.query(`EXPLAIN EXECUTE plan_probe (${args})`);
            return r.rows.map((x: any) => x['QUERY PLAN']).join('\n');
          } finally {
            await client.query('DEALLOCATE plan_probe');
          }
        };
        const claim = await genericPlan(CLAIM_DUE_SQL, `'00000000-0000-4000-8000-000000000009', 1000, 30000, 100, true, NULL`);
        // A generic plan: the tenants' parameter is still one (a custom plan folds the null away).
        expect(claim).toMatch(/\(\$6 IS NULL\)/);
        const due = claim.slice(claim.indexOf('CTE due'), claim.indexOf('CTE claimed'));
        expect(due).toMatch(/Index Scan using timers_deliver_at_idx on timers/);
        expect(due).not.toMatch(/Sort|Seq Scan|Bitmap/);
        const direct = await genericPlan(DUE_SQL, `1000, 2, 0, NULL`);
        expect(direct).toMatch(/\(\$4 IS NULL\)/);
        expect(direct).toMatch(/Index Scan using timers_deliver_at_idx on timers/);
        expect(direct).not.toMatch(/Sort|Seq Scan|Bitmap/);
        // The one-statement fire: the same walk, then the rows it locked deleted by their ctids.
        const oneStatement = await genericPlan(DUE_FIRE_SQL, `1000, 2, 0, NULL, false`);
        expect(oneStatement).toMatch(/\(\$4 IS NULL\)/);
        const walk = oneStatement.slice(oneStatement.indexOf('CTE due'), oneStatement.indexOf('CTE keys'));
        expect(walk).toMatch(/Index Scan using timers_deliver_at_idx on timers/);
        expect(walk).not.toMatch(/Sort|Seq Scan|Bitmap/);
        expect(oneStatement.slice(oneStatement.indexOf('CTE d\n'), oneStatement.indexOf('CTE frames'))).toMatch(/Tid Scan on timers/);
        expect(oneStatement).not.toMatch(/Seq Scan on timers/);
      } finally {
        client.release();
        await db.end();
      }
    },
  );
  it.skipIf(!onRealPostgres)(
    'on PostgreSQL a due batch is chosen and fired by one statement; a zstd payload or a partition’s first frame makes it refuse, and the two-statement way takes the batch',
    async () => {
      const db = new SweeperDb(tb.broker.db, () => {});
      const cipher = tb.broker.services.cipher;
      const fire = () => fireDue(db, cipher, { size: 100, stripe: 0, stripes: 1, tenants: null }, true);
      try {
        // A partition that never held a frame: refused (append() gives it its consumer rows first), fired all the same.
        await insertTimers(tb.sql, { queue: 'one-statement', keyPrefix: 'first', count: 2 });
        expect(await fire()).toMatchObject({ taken: 2, refused: 'partitions', fired: { deleted: 2, inserted: 2, early: [] } });
        // It has held frames now: one statement, in deliverAt order after the first two.
        await insertTimers(tb.sql, { queue: 'one-statement', keyPrefix: 'next', count: 5, dueInMs: -5000, stepMs: 500 });
        expect(await fire()).toMatchObject({ taken: 5, refused: false, fired: { deleted: 5, inserted: 5, collided: 0, paused: false } });
        // A zstd payload anywhere in the batch: refused (the broker unpacks it), so the two-statement
        // way takes the batch; a corrupt one fails there, with nothing fired (had the one statement
        // fired it, its NULL payload would have failed the insert instead).
        await insertTimers(tb.sql, { queue: 'one-statement', keyPrefix: 'zipped', payload: Buffer.from('not zstd'), payloadZstd: true });
        await insertTimers(tb.sql, { queue: 'one-statement', keyPrefix: 'beside', dueInMs: -2000 });
        await expect(fire()).rejects.toThrow(/zstd payload cannot be decompressed/);
        await tb.sql.query(`DELETE FROM timers WHERE timer_key = 'zipped1'`);
        expect(await fire()).toMatchObject({ taken: 1, refused: false, fired: { deleted: 1, inserted: 1 } });
        // A sound zstd payload: refused as such (the pass then keeps the two statements), and fired unpacked.
        const { bytes, zstd } = await maybeCompress(Buffer.from(JSON.stringify({ text: 'x'.repeat(4096) })));
        expect(zstd).toBe(true);
        await insertTimers(tb.sql, { queue: 'one-statement', keyPrefix: 'packed', payload: bytes, payloadZstd: true });
        expect(await fire()).toMatchObject({ taken: 1, refused: 'zstd', fired: { deleted: 1, inserted: 1 } });
        // Nothing due: nothing taken, nothing fired.
        expect(await fire()).toEqual({ taken: 0, fired: undefined, refused: false });
        // No OpenTelemetry SDK in this process: the statement was never asked for the fired timers (the span's links).
        expect(tracingInstalled()).toBe(false);
        const log = await frames(`queue = 'one-statement'`);
        expect(log.map((f) => f.timer_key)).toEqual([
          'first1',
          'first2',
          'next1',
          'next2',
          'next3',
          'next4',
          'next5',
          'beside1',
          'packed1',
        ]);
        expect(await tb.sql.query(`SELECT 1 FROM timers WHERE queue = 'one-statement'`)).toMatchObject({ rowCount: 0 });
      } finally {
        await db.end();
      }
    },
  );
});

describe('a backlog after a refusal of the one statement', () => {
  /**
   * Runs `test` with a broker firing batches of 10, a sweeper whose passes it runs itself, each
   * given a minute for its backlog (so that a pass ends when the backlog does, not after its usual
   * 50 ms, and the rule for its later batches is seen on any machine), the backlog statements sent
   * (qt_due_fire, the one statement; qt_due, the first of two) and a count of a queue's frames.
   */
  async function withBatchesOf10(
    test: (t: { sql: TestBroker['sql']; sweeper: Sweeper; sent: string[]; framesOf: (queue: string) => Promise<number> }) => Promise<void>,
  ): Promise<void> {
    const small = await startTestBroker({ env: { QUEEN_SWEEPER_BATCH_SIZE: '10' } });
    const { sent, restore } = recordFireStatements('qt_due');
    const sweeper = createSweeper(small.broker.services, { fireBudgetMs: 60_000 });
    const framesOf = async (queue: string) =>
      (await small.sql.query(`SELECT count(*)::int AS n FROM messages WHERE queue = $1`, [queue])).rows[0].n as number;
    try {
      await test({ sql: small.sql, sweeper, sent, framesOf });
    } finally {
      restore();
      await sweeper.stop();
      await small.close();
    }
  }

  it.skipIf(!onRealPostgres)(
    'over a new partition: after the first batch, refused for its first frames and appended by the two statements, the next batches go in one statement',
    () =>
      withBatchesOf10(async ({ sql, sweeper, sent, framesOf }) => {
        await insertTimers(sql, { queue: 'backlog', partition: 'fresh', count: 30, stepMs: 1, dueInMs: -1000 });
        // One pass fires them all (its budget is a minute).
        await sweeper.sweepOnce();
        expect(await framesOf('backlog')).toBe(30);
        // One batch took the two statements; every other went in one (three or more of them: the
        // two after it, and the empty ones that ended each stripe's pass).
        expect(sent.filter((n) => n === 'qt_due')).toHaveLength(1);
        expect(sent.filter((n) => n === 'qt_due_fire').length).toBeGreaterThanOrEqual(3);
      }),
  );

  it.skipIf(!onRealPostgres)('of zstd payloads: after the first refusal its stripe keeps the two statements for the rest of the pass', () =>
    withBatchesOf10(async ({ sql, sweeper, sent, framesOf }) => {
      // A partition that has held a frame: only the zstd payloads make the one statement refuse.
      await insertTimers(sql, { queue: 'zipped', keyPrefix: 'first' });
      await waitFor(async () => (await sweeper.sweepOnce()).fired === 1);
      const { bytes, zstd } = await maybeCompress(Buffer.from(JSON.stringify({ text: 'x'.repeat(5000) })));
      expect(zstd).toBe(true);
      await insertTimers(sql, { queue: 'zipped', keyPrefix: 'z', payload: bytes, payloadZstd: true, count: 30, stepMs: 1, dueInMs: -1000 });
      sent.length = 0;
      await sweeper.sweepOnce();
      expect(await framesOf('zipped')).toBe(31);
      // Each of the pass's two stripes sends the one statement once: the backlog's stripe has it
      // refused and fires every batch after it the two-statement way (qt_due); the other stripe's
      // finds nothing due. Trying the one statement again after a refusal would send it twice.
      expect(sent.filter((n) => n === 'qt_due_fire')).toHaveLength(2);
      expect(sent.filter((n) => n === 'qt_due').length).toBeGreaterThanOrEqual(3);
    }),
  );
});

describe('the loop', () => {
  it('a schedule landing before the next wake-up wakes the sweeper: a timer due in ~200 ms fires promptly', async () => {
    const woke = await startTestBroker({ sweeper: true, env: { QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' } });
    try {
      // Wait until the loop sleeps for its maximum (nothing pending): only the wake-up can then
      // fire the timer within the 10 s below.
      await waitFor(() => (woke.broker.sweeper as unknown as { wakeSleeper?: unknown }).wakeSleeper !== undefined);
      const [t] = await insertTimers(woke.sql, { dueInMs: 200 });
      woke.broker.services.notifier.timerScheduled(t.deliverAtMs, t.deliverAtMs - 200);
      const frame = await waitFor(async () => (await woke.sql.query('SELECT created_at, deliver_at FROM messages')).rows[0], {
        timeout: 10_000,
      });
      expect(frame.created_at.getTime()).toBeGreaterThanOrEqual(frame.deliver_at.getTime());
    } finally {
      await woke.close();
    }
  });

  it('stop() awaits the pass in flight and leaves nothing claimed', async () => {
    const s = startSweeper(tb.broker.services);
    await insertTimers(tb.sql, { count: 5000 });
    await waitFor(async () => (await tb.sql.query('SELECT count(*)::int AS n FROM messages')).rows[0].n > 0);
    await s.stop();
    const r = (
      await tb.sql.query(`SELECT (SELECT count(*) FROM timers WHERE claim_token IS NOT NULL)::int AS claimed,
                                          (SELECT count(*) FROM timers)::int + (SELECT count(*) FROM messages)::int AS total`)
    ).rows[0];
    expect(r).toEqual({ claimed: 0, total: 5000 });
  });
});

describe('the pending gauge', () => {
  it('counts exactly up to EXACT_PENDING_LIMIT', async () => {
    await insertTimers(tb.sql, { count: 3, dueInMs: 3_600_000 });
    expect(await countPending(tb.sql)).toBe(3);
  });

  it.skipIf(!onRealPostgres)('reads PostgreSQL’s estimate above it, without counting every row', async () => {
    await insertTimers(tb.sql, { count: EXACT_PENDING_LIMIT + 20_000, dueInMs: 3_600_000 });
    await tb.sql.query('ANALYZE timers');
    const n = await countPending(tb.sql);
    expect(n).toBeGreaterThan(EXACT_PENDING_LIMIT);
    expect(Math.abs(n - (EXACT_PENDING_LIMIT + 20_000))).toBeLessThan(12_000);
  });
});
