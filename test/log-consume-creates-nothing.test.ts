// A consume-only credential never creates anything: a pop (or any consume-side call) of a queue
// that does not exist answers as Queen's broker does (204 No Content for a pop) and leaves no
// queue, partition, consumer group or cursor row behind. Creating a queue takes the produce grant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, deadLetters, pop, push } from './helpers/log.ts';

let tb: TestBroker;
let consumer: string;
let reader: string;
beforeAll(async () => {
  tb = await startTestBroker();
  consumer = await tb.token({ grants: ['consume'] });
  reader = await tb.token({ grants: ['consume', 'read'] });
});
afterAll(() => tb?.close());

/** Every row the log keeps per queue, counted for the tenant. */
async function rows(): Promise<Record<string, number>> {
  const r = await tb.sql.query(`
    SELECT (SELECT count(*)::int FROM queues WHERE tenant = 'acme') AS queues,
           (SELECT count(*)::int FROM partitions WHERE tenant = 'acme') AS partitions,
           (SELECT count(*)::int FROM consumer_groups WHERE tenant = 'acme') AS groups,
           (SELECT count(*)::int FROM partition_consumers WHERE tenant = 'acme') AS cursors`);
  return r.rows[0];
}

const PARTITION_ID = '00000000-0000-4000-8000-000000000001';
const LEASE_ID = '00000000-0000-4000-8000-000000000002';

describe('a consume-only credential on a queue that does not exist', () => {
  const cases: [string, () => Promise<{ status: number }>, number][] = [
    ['pop (queue mode)', () => pop(tb, '/api/v1/pop/queue/nope-1', consumer), 204],
    ['pop of a named consumer group', () => pop(tb, '/api/v1/pop/queue/nope-2?consumerGroup=g&subscriptionMode=new', consumer), 204],
    ['pop of one partition', () => pop(tb, '/api/v1/pop/queue/nope-3/partition/p1?consumerGroup=g', consumer), 204],
    ['multi-partition pop', () => pop(tb, '/api/v1/pop/queue/nope-4?partitions=5&batch=10', consumer), 204],
    ['long-poll pop', () => pop(tb, '/api/v1/pop/queue/nope-5?wait=true&timeout=300&consumerGroup=g', consumer), 204],
    ['pop with autoAck', () => pop(tb, '/api/v1/pop/queue/nope-6?autoAck=true', consumer), 204],
    ['ack', () => ack(tb, { transactionId: 't-1', partitionId: PARTITION_ID }, { status: 'completed', consumerGroup: 'g' }, consumer), 404],
    [
      'ack batch',
      () =>
        api(tb, 'POST', '/api/v1/ack/batch', {
          body: { acknowledgments: [{ transactionId: 't-1', partitionId: PARTITION_ID, status: 'failed' }], consumerGroup: 'g' },
          token: consumer,
        }),
      200,
    ],
    ['lease renewal', () => api(tb, 'POST', `/api/v1/lease/${LEASE_ID}/extend`, { body: { seconds: 30 }, token: consumer }), 409],
    ['dead-letter list', () => deadLetters(tb, 'queue=nope-7&consumerGroup=g', reader), 200],
  ];

  for (const [name, call, status] of cases) {
    it(`${name} answers ${status} and leaves no row behind`, async () => {
      const before = await rows();
      const res = await call();
      expect(res.status).toBe(status);
      expect(await rows()).toEqual(before);
    });
  }

  it('a group that popped a queue before it existed reads it once a producer creates it', async () => {
    expect((await pop(tb, '/api/v1/pop/queue/later?consumerGroup=early', consumer)).status).toBe(204);
    expect((await tb.sql.query(`SELECT 1 FROM queues WHERE tenant = 'acme' AND name = 'later'`)).rows).toEqual([]);
    expect((await push(tb, [{ queue: 'later', payload: { n: 1 } }])).status).toBe(201);
    const res = await pop(tb, '/api/v1/pop/queue/later?consumerGroup=early', consumer);
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: any) => m.data)).toEqual([{ n: 1 }]);
    expect((await tb.sql.query(`SELECT consumer_group FROM consumer_groups WHERE tenant = 'acme' AND queue = 'later'`)).rows).toEqual([
      { consumer_group: 'early' },
    ]);
  });

  it('a long-poll on a queue that does not exist yet is answered by the first push that creates it', async () => {
    const waiting = pop(tb, '/api/v1/pop/queue/born?wait=true&timeout=20000', consumer);
    // Gives the pop time to start waiting; pushed before it looks, the frame is found at once and
    // the test passes the same way.
    await new Promise((r) => setTimeout(r, 200));
    expect((await push(tb, [{ queue: 'born', payload: 'hello' }])).status).toBe(201);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: any) => m.data)).toEqual(['hello']);
  });
});
