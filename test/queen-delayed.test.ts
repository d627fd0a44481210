// Queen's delayedProcessing as its test-v2 `pushDelayedMessage` drives it: a queue configured with
// `delayedProcessing: N`, a push with a transactionId, a pop at once that finds nothing, and the
// message visible N seconds later. Here the push becomes a timer (src/services/log/delayedPush.ts):
// pending until its instant on PostgreSQL's clock, fired once by the sweeper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { queenCreateBody, queenRequest } from './helpers/log.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true, sweeper: true });
  token = await tb.token({ grants: ['produce', 'consume', 'read'] });
});
afterAll(() => tb?.close());

const queen = (method: 'GET' | 'POST', path: string, body?: unknown) => queenRequest(tb, token, method, path, body);

const pushDelayed = (queue: string, transactionId: string, data: unknown) =>
  queen('POST', '/api/v1/push', { items: [{ queue, partition: 'Default', payload: data, transactionId }] });

describe('delayedProcessing: a pushed message becomes visible N seconds later', () => {
  it('is pending as a timer, invisible to a pop, then fired once, never before its instant', async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('qd', { delayedProcessing: 1 }));
    const pushed = await pushDelayed('qd', 'test-transaction-delayed-id', { message: 'Hello, world!', aaa: '1' });
    expect(pushed.status).toBe(201);
    expect(pushed.data).toEqual([
      { index: 0, transaction_id: 'test-transaction-delayed-id', status: 'queued', message_id: expect.any(String), queueName: 'qd' },
    ]);
    const id = pushed.data[0].message_id;
    const timer = await tb.sql.query(
      "SELECT message_id::text AS id, txn, deliver_at, deliver_at - created_at AS delay FROM timers WHERE tenant = 'acme' AND queue = 'qd'",
    );
    expect(timer.rows).toEqual([{ id, txn: 'test-transaction-delayed-id', deliver_at: expect.any(Date), delay: expect.anything() }]);
    expect((await queen('GET', '/api/v1/pop/queue/qd?batch=1&wait=false')).status).toBe(204);
    // A repeat of the txn while it is pending is a duplicate of it: nothing more is scheduled.
    const again = await pushDelayed('qd', 'test-transaction-delayed-id', { other: true });
    expect(again.data[0]).toMatchObject({ status: 'duplicate', message_id: id });
    const popped = await waitFor(async () => (await queen('GET', '/api/v1/pop/queue/qd?batch=1&wait=true&timeout=2000')).data, {
      timeout: 15_000,
    });
    expect(popped.messages[0]).toMatchObject({
      id,
      transactionId: 'test-transaction-delayed-id',
      data: { message: 'Hello, world!', aaa: '1' },
    });
    // Never early: the frame entered the log at or after the instant, both on PostgreSQL's clock.
    const frame = await tb.sql.query(
      "SELECT created_at >= $1::timestamptz AS on_time FROM messages WHERE tenant = 'acme' AND queue = 'qd'",
      [timer.rows[0].deliver_at],
    );
    expect(frame.rows).toEqual([{ on_time: true }]);
    // Once: after the fire, the txn is the frame's; a repeat is its duplicate, and no timer is left.
    expect((await pushDelayed('qd', 'test-transaction-delayed-id', 1)).data[0]).toMatchObject({ status: 'duplicate', message_id: id });
    expect((await tb.sql.query("SELECT count(*)::int AS n FROM timers WHERE tenant = 'acme' AND queue = 'qd'")).rows[0].n).toBe(0);
  });

  it('delays only the items of delayed queues; the others of the same push are visible at once, results in item order', async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('qd-later', { delayedProcessing: 60 }));
    const res = await queen('POST', '/api/v1/push', {
      items: [
        { queue: 'qd-later', payload: 'later' },
        { queue: 'qd-now', payload: 'now' },
      ],
    });
    expect(res.data.map((r: { index: number; queueName: string; status: string }) => [r.index, r.queueName, r.status])).toEqual([
      [0, 'qd-later', 'queued'],
      [1, 'qd-now', 'queued'],
    ]);
    expect((await queen('GET', '/api/v1/pop/queue/qd-now?batch=1')).data.messages[0].data).toBe('now');
    expect((await queen('GET', '/api/v1/pop/queue/qd-later?batch=1')).status).toBe(204);
    const pending = await tb.sql.query(
      "SELECT round(extract(epoch FROM deliver_at - created_at))::int AS seconds FROM timers WHERE tenant = 'acme' AND queue = 'qd-later'",
    );
    expect(pending.rows).toEqual([{ seconds: 60 }]);
  });

  it("holds a delayed item to a timer's payload ceiling, naming the item", async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('qd-big', { delayedProcessing: 5 }));
    const res = await queen('POST', '/api/v1/push', { items: [{ queue: 'qd-big', payload: 'x'.repeat(1024 * 1024) }] });
    expect(res.status).toBe(403);
    expect(res.data).toMatchObject({ code: 'payload_too_large_for_plan', field: 'items.0.payload' });
  });
});
