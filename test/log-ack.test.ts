// Acks as Queen's broker commits them (src/services/log/settle.ts): a completed ack commits its
// frame and the frames before it; in one call the lowest failure stops the cursor and releases the
// lease; acks of committed frames answer noop (completed) or 409 already_committed (a failure); an
// ack without leaseId is accepted after its lease expired. The cases follow the semantics suite of
// Queen's client (clients/client-js/test-v2/semantics.js), sent as its client sends them. Lease
// expiry is made by moving lease_expires_at back, never by sleeping.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, b64, configure, deadLetters, drain, ISO_MICROS, pop, push, UUID } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** Pushes payloads 1..n with txns `${queue}-tx-${n}` and pops them in one leased batch. */
async function popped(queue: string, n: number, query = '') {
  await push(
    tb,
    Array.from({ length: n }, (_, i) => ({ queue, payload: i + 1, transactionId: `${queue}-tx-${i + 1}` })),
  );
  const res = await pop(tb, `/api/v1/pop/queue/${queue}?batch=${n}${query}`);
  expect(res.body.messages).toHaveLength(n);
  return res.body.messages as any[];
}

/** Ends every lease of the queue now, as the passing of leaseTime would. */
const expire = (queue: string) =>
  tb.sql.query(`UPDATE partition_consumers SET lease_expires_at = now() - interval '1 second' WHERE tenant = 'acme' AND queue = $1`, [
    queue,
  ]);

/** POST /api/v1/ack/batch of these frames, each with its own status (Queen's `_status`), as the client sends it. */
const ackEach = (frames: any[], statuses: string[], extra: Record<string, unknown> = {}) =>
  api(tb, 'POST', '/api/v1/ack/batch', {
    body: {
      acknowledgments: frames.map((f, i) => ({
        transactionId: f.transactionId,
        partitionId: f.partitionId,
        status: statuses[i],
        error: null,
        leaseId: f.leaseId,
      })),
      consumerGroup: null,
      ...extra,
    },
  });

const dataOf = (res: any) => (res.status === 204 ? [] : res.body.messages.map((f: any) => f.data));

describe('POST /api/v1/ack', () => {
  it("commits a frame and answers Queen's one-item array; a repeated ack answers noop", async () => {
    const [frame] = await popped('ack-ok', 1);
    const res = await ack(tb, frame, { status: 'completed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        index: 0,
        success: true,
        transactionId: frame.transactionId,
        partitionId: frame.partitionId,
        queueName: 'ack-ok',
        partitionName: 'Default',
        consumerGroup: null,
        status: 'completed',
        retryCount: 0,
        leaseReleased: true,
        dlq: false,
        acknowledgedAt: expect.stringMatching(ISO_MICROS),
      },
    ]);
    const again = await ack(tb, frame);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject([{ success: true, status: 'completed', noop: true, leaseReleased: false }]);
  });

  it('refuses a wrong leaseId with 409 lease_mismatch and changes nothing', async () => {
    const [frame] = await popped('ack-lease', 1);
    const res = await ack(tb, { ...frame, leaseId: '00000000-0000-4000-8000-000000000000' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ ok: false, code: 'lease_mismatch', field: 'leaseId' });
    const state = await tb.sql.query(
      `SELECT cursor_seq, lease_id::text FROM partition_consumers WHERE tenant = 'acme' AND queue = 'ack-lease'`,
    );
    expect(state.rows).toEqual([{ cursor_seq: expect.anything(), lease_id: frame.leaseId }]);
    expect((await ack(tb, frame)).body).toMatchObject([{ success: true, leaseReleased: true }]);
  });

  it('refuses an ack of a frame never handed out with 409 lease_mismatch', async () => {
    await push(tb, [{ queue: 'ack-unpopped', payload: 1, transactionId: 'never-popped' }]);
    const partitionId = (await tb.sql.query(`SELECT id::text FROM partitions WHERE tenant = 'acme' AND queue = 'ack-unpopped'`)).rows[0].id;
    const res = await ack(tb, { transactionId: 'never-popped', partitionId });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('lease_mismatch');
    // Nor when the group popped something else before it.
    await push(tb, [{ queue: 'ack-unpopped', payload: 2, transactionId: 'later' }]);
    const [first] = (await pop(tb, '/api/v1/pop/queue/ack-unpopped')).body.messages;
    expect(first.transactionId).toBe('never-popped');
    expect((await ack(tb, { transactionId: 'later', partitionId })).body).toMatchObject({ code: 'lease_mismatch', field: 'transactionId' });
  });

  it('answers 404 for an unknown frame; 400 names a bad status or partitionId; an unknown field is ignored', async () => {
    const partitionId = '00000000-0000-4000-8000-000000000000';
    const res = await ack(tb, { transactionId: 'nope', partitionId });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect((await ack(tb, { transactionId: 't', partitionId }, { status: 'done' })).body).toMatchObject({
      code: 'validation_failed',
      field: 'status',
    });
    expect((await ack(tb, { transactionId: 't', partitionId }, { retry: true })).body).toMatchObject({ code: 'not_found' });
    expect((await ack(tb, { transactionId: 't', partitionId: 'not-a-uuid' })).body).toMatchObject({
      code: 'validation_failed',
      field: 'partitionId',
    });
  });
});

describe("ack-as-commit (Queen's semantics)", () => {
  it('acking the last frame of a batch commits the whole batch', async () => {
    const frames = await popped('implicit', 5);
    const res = await ack(tb, frames[4]);
    expect(res.body).toMatchObject([{ success: true, status: 'completed', leaseReleased: true }]);
    await expire('implicit');
    expect((await pop(tb, '/api/v1/pop/queue/implicit?batch=10')).status).toBe(204);
  });

  it('acking a middle frame commits those before it and keeps the lease; the rest comes back after expiry', async () => {
    const frames = await popped('ooo', 3);
    expect((await ack(tb, frames[1])).body).toMatchObject([{ success: true, leaseReleased: false }]);
    expect((await pop(tb, '/api/v1/pop/queue/ooo')).status).toBe(204);
    await expire('ooo');
    const again = await pop(tb, '/api/v1/pop/queue/ooo?batch=10');
    expect(again.body.messages.map((f: any) => f.transactionId)).toEqual(['ooo-tx-3']);
  });

  it('a failure in a call stops the cursor before it: later completed acks of the call are redelivered, at once', async () => {
    const frames = await popped('clamp', 5);
    const res = await ackEach(frames, ['completed', 'failed', 'completed', 'completed', 'completed']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([
      { index: 0, success: true, status: 'completed', leaseReleased: true },
      { index: 1, success: true, status: 'failed', retryCount: 1, leaseReleased: true },
      { index: 2, success: true, status: 'completed', redelivered: true },
      { index: 3, success: true, status: 'completed', redelivered: true },
      { index: 4, success: true, status: 'completed', redelivered: true },
    ]);
    expect(dataOf(await pop(tb, '/api/v1/pop/queue/clamp?batch=10'))).toEqual([2, 3, 4, 5]);
  });

  it('retry stops the cursor the same way and spends none of the retryLimit', async () => {
    await configure(tb, 'retry-clamp', { retryLimit: 0 });
    const frames = await popped('retry-clamp', 3);
    const res = await ackEach(frames, ['completed', 'retry', 'completed']);
    expect(res.body).toMatchObject([{ status: 'completed' }, { status: 'failed', retryCount: 0 }, { redelivered: true }]);
    const again = await pop(tb, '/api/v1/pop/queue/retry-clamp?batch=10');
    expect(dataOf(again)).toEqual([2, 3]);
    expect((await deadLetters(tb, 'queue=retry-clamp')).body.total).toBe(0);
    // retryLimit 0: the first real failure dead-letters, so the retry above spent nothing.
    expect((await ack(tb, again.body.messages[0], { status: 'failed' })).body).toMatchObject([{ status: 'dlq', dlq: true, retryCount: 1 }]);
  });

  it('a failure reported after the frame was committed is refused with 409 already_committed', async () => {
    const frames = await popped('late-nack', 3);
    await ack(tb, frames[1]);
    const late = await ack(tb, frames[0], { status: 'failed', error: 'too late' });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ ok: false, code: 'already_committed', field: 'status' });
    expect(late.body.error).toMatch(/committed/);
    const batch = await ackEach([frames[0]], ['retry']);
    expect(batch.body).toMatchObject([{ success: false, code: 'already_committed' }]);
  });

  it('a completed ack of a committed frame succeeds, flagged noop', async () => {
    const frames = await popped('late-ack', 3);
    await ack(tb, frames[1]);
    expect((await ack(tb, frames[0])).body).toMatchObject([{ success: true, noop: true }]);
  });

  it('an ack without leaseId is accepted after its lease expired; one naming the expired lease is refused', async () => {
    const [first] = await popped('leaseless', 1);
    await expire('leaseless');
    const bare = await ack(tb, { transactionId: first.transactionId, partitionId: first.partitionId });
    expect(bare.body).toMatchObject([{ success: true, status: 'completed', leaseReleased: true }]);
    expect((await pop(tb, '/api/v1/pop/queue/leaseless')).status).toBe(204);

    const [second] = await popped('leaseless-stale', 1);
    await expire('leaseless-stale');
    const stale = await ack(tb, second);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'lease_mismatch', error: expect.stringMatching(/invalid or expired lease/) });
  });

  it('a lease that expires spends none of the retryLimit', async () => {
    await configure(tb, 'expiry-budget', { retryLimit: 1 });
    await push(tb, [{ queue: 'expiry-budget', payload: 'p' }]);
    for (let i = 0; i < 3; i++) {
      expect(dataOf(await pop(tb, '/api/v1/pop/queue/expiry-budget'))).toEqual(['p']);
      await expire('expiry-budget');
    }
    const [frame] = (await pop(tb, '/api/v1/pop/queue/expiry-budget')).body.messages;
    expect((await ack(tb, frame, { status: 'failed' })).body).toMatchObject([{ status: 'failed', retryCount: 1 }]);
    const [again] = (await pop(tb, '/api/v1/pop/queue/expiry-budget')).body.messages;
    expect((await ack(tb, again, { status: 'failed' })).body).toMatchObject([{ status: 'dlq', retryCount: 2 }]);
  });

  it('a failed frame is redelivered before later frames, up to retryLimit, then dead-lettered and passed', async () => {
    const cfg = await configure(tb, 'retry', { retryLimit: 1 });
    expect(cfg.body).toMatchObject({ configured: true, queue: 'retry', options: { leaseTime: 300, retryLimit: 1 } });
    await push(tb, [
      { queue: 'retry', payload: 'poison' },
      { queue: 'retry', payload: 'fine' },
    ]);
    const d1 = (await pop(tb, '/api/v1/pop/queue/retry')).body.messages[0];
    expect(d1.data).toBe('poison');
    expect((await ack(tb, d1, { status: 'failed', error: 'boom 1' })).body).toMatchObject([
      { status: 'failed', retryCount: 1, leaseReleased: true, dlq: false },
    ]);
    const d2 = (await pop(tb, '/api/v1/pop/queue/retry')).body.messages[0];
    expect(d2).toMatchObject({ data: 'poison', id: d1.id });
    expect((await ack(tb, d2, { status: 'failed', error: 'boom 2' })).body).toMatchObject([
      { status: 'dlq', retryCount: 2, leaseReleased: true, dlq: true },
    ]);
    expect(dataOf(await pop(tb, '/api/v1/pop/queue/retry'))).toEqual(['fine']);
    const dlq = await deadLetters(tb, 'queue=retry');
    expect(dlq.body).toEqual({
      messages: [
        {
          id: expect.stringMatching(UUID),
          queue: 'retry',
          partition: 'Default',
          consumerGroup: '__QUEUE_MODE__',
          messageId: d1.id,
          transactionId: d1.transactionId,
          producerSub: 'tester',
          errorMessage: 'boom 2',
          retryCount: 2,
          fromTimer: false,
          timerKey: null,
          createdAt: expect.stringMatching(ISO_MICROS),
          payload: b64('"poison"'),
          data: 'poison',
          encrypted: false,
        },
      ],
      total: 1,
      limit: 100,
      offset: 0,
    });
  });

  it('dlq dead-letters at once, per consumer group, committing the frames before it', async () => {
    const frames = await popped('to-dlq', 3, '&consumerGroup=audit');
    const res = await ack(tb, frames[1], { status: 'dlq', consumerGroup: 'audit', error: 'unprocessable' });
    expect(res.body).toMatchObject([{ status: 'dlq', dlq: true, consumerGroup: 'audit', retryCount: 0, leaseReleased: true }]);
    const mine = await deadLetters(tb, 'queue=to-dlq&consumerGroup=audit');
    expect(mine.body.messages).toMatchObject([{ consumerGroup: 'audit', errorMessage: 'unprocessable', messageId: frames[1].id }]);
    expect((await deadLetters(tb, 'queue=to-dlq&consumerGroup=other')).body).toMatchObject({ messages: [], total: 0 });
    expect(dataOf(await pop(tb, '/api/v1/pop/queue/to-dlq?batch=10&consumerGroup=audit'))).toEqual([3]);
    // The queue-mode consumers still get every frame: cursors and dead letters are per group.
    expect(await drain(tb, '/api/v1/pop/queue/to-dlq')).toEqual([1, 2, 3]);
  });
});

describe('POST /api/v1/ack/batch', () => {
  it("takes Queen's {acknowledgments, consumerGroup} and answers a top-level array, refusals per item", async () => {
    await push(tb, [
      { queue: 'ack-batch', payload: 1 },
      { queue: 'ack-batch', payload: 2 },
    ]);
    const frames = (await pop(tb, '/api/v1/pop/queue/ack-batch?batch=2&consumerGroup=bg')).body.messages;
    const res = await api(tb, 'POST', '/api/v1/ack/batch', {
      body: {
        consumerGroup: 'bg',
        acknowledgments: [
          { transactionId: frames[0].transactionId, partitionId: frames[0].partitionId, status: 'completed', leaseId: frames[0].leaseId },
          { transactionId: 'missing', partitionId: frames[0].partitionId, status: 'completed' },
          { transactionId: frames[1].transactionId, partitionId: frames[1].partitionId, status: 'completed' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const accepted = (index: number, frame: any) => ({
      index,
      success: true,
      transactionId: frame.transactionId,
      partitionId: frame.partitionId,
      queueName: 'ack-batch',
      partitionName: 'Default',
      consumerGroup: 'bg',
      status: 'completed',
      retryCount: 0,
      leaseReleased: true,
      dlq: false,
      acknowledgedAt: expect.stringMatching(ISO_MICROS),
    });
    expect(res.body).toEqual([
      accepted(0, frames[0]),
      {
        index: 1,
        success: false,
        transactionId: 'missing',
        partitionId: frames[0].partitionId,
        error: expect.any(String),
        code: 'not_found',
      },
      accepted(2, frames[1]),
    ]);
  });

  it('ignores an unknown field inside an acknowledgment but refuses a server-owned one', async () => {
    const partitionId = '00000000-0000-4000-8000-000000000000';
    const res = await api(tb, 'POST', '/api/v1/ack/batch', { body: { acknowledgments: [{ transactionId: 't', partitionId, extra: 1 }] } });
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ success: false, code: 'not_found' });
    const owned = await api(tb, 'POST', '/api/v1/ack/batch', { body: { acknowledgments: [{ transactionId: 't', partitionId, _x: 1 }] } });
    expect(owned.status).toBe(400);
    expect(owned.body).toMatchObject({ code: 'server_owned_field', field: 'acknowledgments.0._x' });
  });
});

describe('acks inside a transaction', () => {
  it('honour retry (redelivered, no budget spent) and dlq (dead-lettered at once)', async () => {
    await configure(tb, 'tx-status', { retryLimit: 1 });
    await push(tb, [{ queue: 'tx-status', payload: 'p', transactionId: 'tx-status-1' }]);
    const txAck = (frame: any, status: string) =>
      api(tb, 'POST', '/api/v1/transaction', {
        body: {
          operations: [{ type: 'ack', transactionId: frame.transactionId, partitionId: frame.partitionId, status }],
          requiredLeases: [],
        },
      });
    for (let i = 0; i < 3; i++) {
      const [frame] = (await pop(tb, '/api/v1/pop/queue/tx-status')).body.messages;
      expect((await txAck(frame, 'retry')).body.results).toMatchObject([{ type: 'ack', status: 'failed', dlq: false }]);
    }
    const [frame] = (await pop(tb, '/api/v1/pop/queue/tx-status')).body.messages;
    expect((await txAck(frame, 'dlq')).body.results).toMatchObject([{ type: 'ack', status: 'dlq', dlq: true }]);
    expect((await deadLetters(tb, 'queue=tx-status')).body.total).toBe(1);
    expect((await pop(tb, '/api/v1/pop/queue/tx-status')).status).toBe(204);
  });
});

describe('migration 20261203000000_ack_as_commit', () => {
  it('moves a cursor past the frames an older broker had settled after it, and drops completed verdicts', async () => {
    await popped('legacy', 4);
    const seqs = (await tb.sql.query(`SELECT seq FROM messages WHERE tenant = 'acme' AND queue = 'legacy' ORDER BY seq`)).rows.map(
      (r) => r.seq,
    );
    // What the per-frame model left: frames 1 and 2 settled (completed, dlq) past the cursor, 3 failed, 4 completed.
    await tb.sql.query(
      `INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status, retry_count)
       SELECT 'acme', '__QUEUE_MODE__', s, st, 0 FROM unnest($1::bigint[], $2::text[]) AS v(s, st)`,
      [seqs, ['completed', 'dlq', 'failed', 'completed']],
    );
    const sql = readFileSync(new URL('../prisma/migrations/20261203000000_ack_as_commit/migration.sql', import.meta.url), 'utf8');
    await tb.sql.query(sql);
    const state = await tb.sql.query(`SELECT cursor_seq FROM partition_consumers WHERE tenant = 'acme' AND queue = 'legacy'`);
    expect(state.rows).toEqual([{ cursor_seq: seqs[1] }]);
    const left = await tb.sql.query(
      `SELECT status FROM message_deliveries WHERE tenant = 'acme' AND message_seq = ANY($1::bigint[]) ORDER BY message_seq`,
      [seqs],
    );
    expect(left.rows.map((r) => r.status)).toEqual(['dlq', 'failed']);
  });
});
