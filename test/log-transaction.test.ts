// Queen's transaction (POST /api/v1/transaction): pushes and acks applied together or not at all,
// with the body Queen's client sends ({operations: [{type: 'ack' | 'push', …}], requiredLeases}).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { configure, deadLetters, pop, push } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

const transaction = (body: unknown, token?: string) => api(tb, 'POST', '/api/v1/transaction', { body, token });
const count = async (queue: string) =>
  (await tb.sql.query(`SELECT count(*)::int AS n FROM messages WHERE tenant = 'acme' AND queue = $1`, [queue])).rows[0].n;

describe('POST /api/v1/transaction', () => {
  it('acks a consumed frame and pushes its result in one step: the source is settled, the target holds the frame', async () => {
    await push(tb, [{ queue: 'tx-in', payload: { n: 20 } }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/tx-in')).body.messages;
    const res = await transaction({
      operations: [
        { type: 'ack', transactionId: frame.transactionId, partitionId: frame.partitionId, status: 'completed' },
        { type: 'push', items: [{ queue: 'tx-out', partition: 'p', payload: { n: 40 }, transactionId: 'out-1' }] },
      ],
      requiredLeases: [frame.leaseId],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      transactionId: expect.any(String),
      success: true,
      results: [
        { index: 0, type: 'ack', success: true, transactionId: frame.transactionId, status: 'completed', dlq: false },
        {
          index: 1,
          itemIndex: 0,
          type: 'push',
          success: true,
          transactionId: 'out-1',
          messageId: expect.any(String),
          queueName: 'tx-out',
          duplicate: false,
        },
      ],
    });
    expect((await pop(tb, '/api/v1/pop/queue/tx-in')).status).toBe(204);
    const [out] = (await pop(tb, '/api/v1/pop/queue/tx-out')).body.messages;
    expect(out).toMatchObject({ data: { n: 40 }, transactionId: 'out-1', partition: 'p' });
  });

  it('indexes each result by its place in the call: the operation, and the item within a push', async () => {
    const res = await transaction({
      operations: [
        {
          type: 'push',
          items: [
            { queue: 'tx-idx', payload: 'a', transactionId: 'idx-a' },
            { queue: 'tx-idx', payload: 'b', transactionId: 'idx-b' },
          ],
        },
        { type: 'push', items: [{ queue: 'tx-idx', payload: 'c', transactionId: 'idx-c' }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => [r.index, r.itemIndex, r.transactionId])).toEqual([
      [0, 0, 'idx-a'],
      [0, 1, 'idx-b'],
      [1, 0, 'idx-c'],
    ]);
  });

  it('applies nothing when one ack is refused: the pushes roll back and the acked frame comes back', async () => {
    await configure(tb, 'tx-a', { leaseTime: 1 });
    await push(tb, [{ queue: 'tx-a', payload: 'keep me' }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/tx-a')).body.messages;
    const res = await transaction({
      operations: [
        { type: 'push', items: [{ queue: 'tx-b', payload: 'must not appear' }] },
        { type: 'ack', transactionId: frame.transactionId, partitionId: frame.partitionId, status: 'completed' },
        { type: 'ack', transactionId: 'non-existent-id', partitionId: frame.partitionId, status: 'completed' },
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ ok: false, code: 'not_found', field: 'operations.2.transactionId' });
    expect(res.body.error).toMatch(/nothing was applied/);
    expect(await count('tx-b')).toBe(0);
    // The lease expires (1 s) and the frame is redelivered: its ack was rolled back with the rest.
    await tb.sql.query(
      `UPDATE partition_consumers SET lease_expires_at = now() - interval '1 second' WHERE tenant = 'acme' AND queue = 'tx-a'`,
    );
    const again = await pop(tb, '/api/v1/pop/queue/tx-a');
    expect(again.body.messages[0]).toMatchObject({ data: 'keep me', transactionId: frame.transactionId });
  });

  it('refuses the whole call when a required lease is no longer live', async () => {
    await push(tb, [{ queue: 'tx-lease', payload: 1 }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/tx-lease')).body.messages;
    await tb.sql.query(
      `UPDATE partition_consumers SET lease_expires_at = now() - interval '1 second' WHERE tenant = 'acme' AND queue = 'tx-lease'`,
    );
    const res = await transaction({
      operations: [{ type: 'push', items: [{ queue: 'tx-lease-out', payload: 2 }] }],
      requiredLeases: [frame.leaseId],
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'lease_mismatch', field: 'requiredLeases' });
    expect(await count('tx-lease-out')).toBe(0);
  });

  it('acks across partitions and consumer groups, with failed going to the DLQ at retryLimit 0', async () => {
    await configure(tb, 'tx-multi', { retryLimit: 0 });
    await push(tb, [
      { queue: 'tx-multi', partition: 'a', payload: 'a' },
      { queue: 'tx-multi', partition: 'b', payload: 'b' },
    ]);
    const [fa] = (await pop(tb, '/api/v1/pop/queue/tx-multi/partition/a?consumerGroup=g')).body.messages;
    const [fb] = (await pop(tb, '/api/v1/pop/queue/tx-multi/partition/b?consumerGroup=g')).body.messages;
    const res = await transaction({
      operations: [
        { type: 'ack', transactionId: fa.transactionId, partitionId: fa.partitionId, consumerGroup: 'g' },
        { type: 'ack', transactionId: fb.transactionId, partitionId: fb.partitionId, consumerGroup: 'g', status: 'failed', error: 'no' },
        { type: 'push', items: [{ queue: 'tx-summary', payload: 'one of two' }] },
      ],
      requiredLeases: [fa.leaseId, fb.leaseId],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => [r.index, r.type, r.status ?? null, r.dlq ?? null])).toEqual([
      [0, 'ack', 'completed', false],
      [1, 'ack', 'dlq', true],
      [2, 'push', null, null],
    ]);
    expect((await deadLetters(tb, 'queue=tx-multi')).body.messages.map((m: any) => m.data)).toEqual(['b']);
    // Another group still sees both: the transaction acked for g only.
    expect((await pop(tb, '/api/v1/pop/queue/tx-multi?consumerGroup=other&batch=10')).status).toBe(200);
  });

  it('needs the produce grant, and consume when it acks; refuses an empty list and a server-owned field', async () => {
    const consumer = await tb.token({ grants: ['consume'] });
    const producer = await tb.token({ grants: ['produce'] });
    const pushOnly = { operations: [{ type: 'push', items: [{ queue: 'tx-g', payload: 1 }] }] };
    expect((await transaction(pushOnly, consumer)).status).toBe(403);
    expect((await transaction(pushOnly, producer)).status).toBe(200);
    const acking = { operations: [{ type: 'ack', transactionId: 't', partitionId: '00000000-0000-4000-8000-000000000000' }] };
    const refused = await transaction(acking, producer);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'grant_missing' });
    expect((await transaction({ operations: [] })).body).toMatchObject({ code: 'validation_failed', field: 'operations' });
    const owned = await transaction({ operations: [{ type: 'push', items: [{ queue: 'tx-g', payload: 1, producerSub: 'x' }] }] });
    expect(owned.body).toMatchObject({ code: 'server_owned_field', field: 'operations.0.items.0.producerSub' });
  });
});
