// Retention (src/maintenance/retention.ts): retentionSeconds deletes old frames consumed or not;
// completedRetentionSeconds only those every consumer group passed; dead letters and delivery rows
// go with their frames; the storage gate counts what is left and binds pushes. Passes are run by
// hand (the interval is an hour here); frames are aged by moving created_at back.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { admin, onRealPostgres, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, configure, deadLetters, pop, push } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_RETENTION_INTERVAL_MS: '3600000' } });
});
afterAll(() => tb?.close());

const pass = () => tb.broker.retention!.runOnce();
const age = (queue: string, seconds: number) =>
  tb.sql.query(`UPDATE messages SET created_at = created_at - make_interval(secs => $2) WHERE tenant = 'acme' AND queue = $1`, [
    queue,
    seconds,
  ]);
const left = async (queue: string) =>
  (await tb.sql.query(`SELECT transaction_id FROM messages WHERE tenant = 'acme' AND queue = $1 ORDER BY seq`, [queue])).rows.map(
    (r) => r.transaction_id,
  );

async function pushed(queue: string, n: number) {
  await push(
    tb,
    Array.from({ length: n }, (_, i) => ({ queue, payload: i + 1, transactionId: `${queue}-${i + 1}` })),
  );
}

describe('completedRetentionSeconds', () => {
  it('deletes old frames every consumer group passed, with their delivery rows and dead letters; never one still ahead of a group', async () => {
    await configure(tb, 'done', { completedRetentionSeconds: 60 });
    await pushed('done', 4);
    // Queue mode: 1 acked, 2 dead-lettered after a failure (a delivery row, then a dead letter), 3 leased, 4 never popped.
    const [f1] = (await pop(tb, '/api/v1/pop/queue/done')).body.messages;
    await ack(tb, f1);
    const [f2] = (await pop(tb, '/api/v1/pop/queue/done')).body.messages;
    await ack(tb, f2, { status: 'failed' });
    const [f2again] = (await pop(tb, '/api/v1/pop/queue/done')).body.messages;
    await ack(tb, f2again, { status: 'dlq', error: 'gave up' });
    expect((await deadLetters(tb, 'queue=done')).body.total).toBe(1);
    await pop(tb, '/api/v1/pop/queue/done'); // 3, leased and not acked
    // A named group that has read nothing holds every frame.
    const [slow1] = (await pop(tb, '/api/v1/pop/queue/done?consumerGroup=slow&batch=1')).body.messages;
    await age('done', 120);
    await pass();
    expect(await left('done')).toEqual(['done-1', 'done-2', 'done-3', 'done-4']);

    // Once the slow group has passed 1 and 2 (cursor at 2), they go; 3 is leased in queue mode, 4 ahead of both.
    await ack(tb, slow1, { consumerGroup: 'slow' });
    const slow = (await pop(tb, '/api/v1/pop/queue/done?consumerGroup=slow&batch=2')).body.messages;
    expect(slow.map((f: any) => f.transactionId)).toEqual(['done-2', 'done-3']);
    await ack(tb, slow[0], { consumerGroup: 'slow' });
    const before = await tb.sql.query(`SELECT count(*)::int AS n FROM message_deliveries`);
    const r = await pass();
    expect(r.frames).toBe(2);
    expect(await left('done')).toEqual(['done-3', 'done-4']);
    expect((await deadLetters(tb, 'queue=done')).body.total).toBe(0);
    expect((await tb.sql.query(`SELECT count(*)::int AS n FROM message_deliveries`)).rows[0].n).toBeLessThan(before.rows[0].n);
    expect(await tb.broker.services.metrics.registry.getSingleMetricAsString('queen_log_retention_deleted_total')).toMatch(
      /kind="frames"} 2/,
    );
  });

  it('does not wait for observer groups (__observer:…, the CLI’s tail): one left behind holds nothing back', async () => {
    await configure(tb, 'watched', { completedRetentionSeconds: 60 });
    await pushed('watched', 2);
    await pop(tb, '/api/v1/pop/queue/watched?consumerGroup=__observer:tail&batch=1&autoAck=true');
    const [, second] = (await pop(tb, '/api/v1/pop/queue/watched?batch=2')).body.messages;
    await ack(tb, second);
    await age('watched', 120);
    await pass();
    expect(await left('watched')).toEqual([]);
  });

  it('keeps every frame of a partition no consumer group reads', async () => {
    await configure(tb, 'unread', { completedRetentionSeconds: 60 });
    await pushed('unread', 2);
    await age('unread', 120);
    await pass();
    expect(await left('unread')).toEqual(['unread-1', 'unread-2']);
  });
});

describe('retentionSeconds', () => {
  it('deletes frames older than it, consumed or not; a pop then moves past them and still gets newer frames', async () => {
    await configure(tb, 'old', { retentionSeconds: 60 });
    await pushed('old', 3);
    await age('old', 120);
    await push(tb, [{ queue: 'old', payload: 'fresh', transactionId: 'old-fresh' }]);
    await pass();
    expect(await left('old')).toEqual(['old-fresh']);
    expect((await pop(tb, '/api/v1/pop/queue/old?batch=10')).body.messages.map((f: any) => f.data)).toEqual(['fresh']);
  });

  it('frees a group whose unread frames all expired: its pops answer 204 and it is not picked again', async () => {
    await configure(tb, 'gone', { retentionSeconds: 60 });
    await pushed('gone', 2);
    await age('gone', 120);
    await pass();
    expect((await pop(tb, '/api/v1/pop/queue/gone')).status).toBe(204);
    const c = await tb.sql.query(`SELECT cursor_seq = last_seq AS caught_up FROM partition_consumers WHERE queue = 'gone'`);
    expect(c.rows).toEqual([{ caught_up: true }]);
  });

  it('deletes in batches of QUEEN_RETENTION_BATCH_SIZE, another while the last came back full', async () => {
    const other = await startTestBroker({ env: { QUEEN_RETENTION_INTERVAL_MS: '3600000', QUEEN_RETENTION_BATCH_SIZE: '2' } });
    try {
      await configure(other, 'hot', { retentionSeconds: 60 });
      await push(
        other,
        Array.from({ length: 7 }, (_, i) => ({ queue: 'hot', payload: i })),
      );
      await other.sql.query(`UPDATE messages SET created_at = created_at - interval '2 minutes'`);
      expect(await other.broker.retention!.runOnce()).toMatchObject({ partitions: 1, frames: 7 });
    } finally {
      await other.close();
    }
  });

  it('retentionEnabled false keeps everything, whatever the cell defaults', async () => {
    const other = await startTestBroker({ env: { QUEEN_RETENTION_INTERVAL_MS: '3600000', QUEEN_DEFAULT_RETENTION_SECONDS: '60' } });
    try {
      await configure(other, 'kept', { retentionEnabled: false });
      await push(other, [{ queue: 'kept', payload: 1 }]);
      await push(other, [{ queue: 'defaulted', payload: 1 }]);
      await other.sql.query(`UPDATE messages SET created_at = created_at - interval '2 minutes'`);
      await other.broker.retention!.runOnce();
      const rows = await other.sql.query(`SELECT queue FROM messages ORDER BY queue`);
      expect(rows.rows.map((r) => r.queue)).toEqual(['kept']);
    } finally {
      await other.close();
    }
  });

  it('refuses out-of-range retention settings with 400 naming the field', async () => {
    for (const [field, value] of [
      ['retentionSeconds', -1],
      ['retentionSeconds', 1.5],
      ['completedRetentionSeconds', 10 * 365 * 24 * 3600 + 1],
      ['retentionEnabled', 'yes'],
    ] as const) {
      const res = await configure(tb, 'bad', { [field]: value });
      expect(res.status, `${field}=${value}`).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', field: `options.${field}` });
    }
  });
});

describe.skipIf(!onRealPostgres)('a pass cut off halfway (its connection killed, as by a broker kill or a database restart)', () => {
  it('deletes nothing: the batch in flight rolls back, and the next pass resumes under the same rules', async () => {
    await configure(tb, 'cut', { completedRetentionSeconds: 60 });
    await pushed('cut', 4);
    // The queue-mode group passed 1 and 2 (acking 2 commits both); 3 is leased; 4 was never popped.
    const [, second] = (await pop(tb, '/api/v1/pop/queue/cut?batch=2')).body.messages;
    await ack(tb, second);
    await pop(tb, '/api/v1/pop/queue/cut?batch=1');
    await age('cut', 120);

    // Another session holds frame 1, so the pass's delete waits on it; then its connection is cut.
    const holder = await tb.sql.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM messages WHERE tenant = 'acme' AND queue = 'cut' AND transaction_id = 'cut-1' FOR UPDATE`);
      const running = pass();
      const pid = await vi.waitFor(
        async () => {
          const r = await tb.sql.query(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM messages m USING doomed%'`,
          );
          if (r.rows.length !== 1) throw new Error('the pass is not waiting yet');
          return r.rows[0].pid as number;
        },
        { timeout: 30_000, interval: 20 },
      );
      await tb.sql.query('SELECT pg_terminate_backend($1)', [pid]);
      await expect(running).rejects.toThrow();
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await left('cut')).toEqual(['cut-1', 'cut-2', 'cut-3', 'cut-4']);

    // The next pass deletes what the rules allow, and still nothing ahead of the group's cursor.
    await pass();
    expect(await left('cut')).toEqual(['cut-3', 'cut-4']);
  });
});

describe('the storage gate counts what is left and binds pushes', () => {
  it('refuses a push over the limit with 403, and admits it again once retention freed the space', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/small', { body: { storageLimitBytes: 100 } });
    const token = await tb.token({ tenant: 'small' });
    await configure(tb, 'cap', { retentionSeconds: 60 }, token);
    const big = { queue: 'cap', payload: 'x'.repeat(60) };
    expect((await push(tb, [big], token)).status).toBe(201);
    const refused = await push(tb, [big], token);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'storage_limit_exceeded' });
    await tb.sql.query(`UPDATE messages SET created_at = created_at - interval '2 minutes' WHERE tenant = 'small'`);
    await pass();
    expect((await push(tb, [big], token)).status).toBe(201);
  });
});
