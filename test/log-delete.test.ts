// Deleting a queue (DELETE /api/v1/resources/queues/:queue, Queen's queue(q).delete()): what goes,
// what stays (consumer groups, pending timers), and that another tenant's queue of the same name
// is untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, deadLetters, pop, push } from './helpers/log.ts';
import { batch, sched } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** Rows left for the queue in each table the log keeps. */
async function leftovers(tenant: string, queue: string) {
  const r = await tb.sql.query(
    `SELECT (SELECT count(*) FROM queues WHERE tenant = $1 AND name = $2)::int AS queues,
            (SELECT count(*) FROM partitions WHERE tenant = $1 AND queue = $2)::int AS partitions,
            (SELECT count(*) FROM messages WHERE tenant = $1 AND queue = $2)::int AS messages,
            (SELECT count(*) FROM partition_consumers WHERE tenant = $1 AND queue = $2)::int AS cursors,
            (SELECT count(*) FROM dead_letters WHERE tenant = $1 AND queue = $2)::int AS dead,
            (SELECT count(*) FROM message_deliveries WHERE tenant = $1)::int AS verdicts,
            (SELECT count(*) FROM timers WHERE tenant = $1 AND queue = $2)::int AS timers`,
    [tenant, queue],
  );
  return r.rows[0];
}

describe('DELETE /api/v1/resources/queues/:queue', () => {
  it('removes frames, partitions, cursors, verdicts and dead letters; keeps pending timers; answers 200 either way', async () => {
    const globex = await tb.token({ tenant: 'globex' });
    await push(tb, [{ queue: 'doomed', payload: 'theirs' }], globex);
    await push(tb, [
      { queue: 'doomed', partition: 'a', payload: 'done' },
      { queue: 'doomed', partition: 'b', payload: 'poison' },
    ]);
    for (const partition of ['a', 'b']) {
      const [frame] = (await pop(tb, `/api/v1/pop/queue/doomed/partition/${partition}?consumerGroup=g`)).body.messages;
      await ack(tb, frame, { consumerGroup: 'g', status: partition === 'a' ? 'completed' : 'dlq' });
    }
    await batch(tb, [sched('doomed', 'later', { delayMs: 3_600_000 })]);
    expect((await deadLetters(tb, 'queue=doomed')).body.total).toBe(1);

    // As Queen's client sends it: the JSON header, no body.
    const res = await api(tb, 'DELETE', '/api/v1/resources/queues/doomed', { headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, existed: true, queue: 'doomed' });
    expect(await leftovers('acme', 'doomed')).toEqual({
      queues: 0,
      partitions: 0,
      messages: 0,
      cursors: 0,
      dead: 0,
      verdicts: 0,
      timers: 1,
    });
    expect((await leftovers('globex', 'doomed')).messages).toBe(1);

    const again = await api(tb, 'DELETE', '/api/v1/resources/queues/doomed');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ deleted: false, existed: false, queue: 'doomed' });
  });

  it('a push re-creates the queue, and a group registered before reads it from the beginning', async () => {
    await push(tb, [{ queue: 'reborn', payload: 'before' }]);
    const [old] = (await pop(tb, '/api/v1/pop/queue/reborn?consumerGroup=g')).body.messages;
    await ack(tb, old, { consumerGroup: 'g' });
    await api(tb, 'DELETE', '/api/v1/resources/queues/reborn');
    await push(tb, [
      { queue: 'reborn', payload: 'after-1' },
      { queue: 'reborn', partition: 'new', payload: 'after-2' },
    ]);
    const seen: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await pop(tb, '/api/v1/pop/queue/reborn?consumerGroup=g&autoAck=true');
      expect(res.status).toBe(200);
      seen.push(...res.body.messages.map((f: any) => f.data));
    }
    expect(seen.sort()).toEqual(['after-1', 'after-2']);
  });

  it('needs the produce grant', async () => {
    const consumer = await tb.token({ grants: ['consume', 'read'] });
    const res = await api(tb, 'DELETE', '/api/v1/resources/queues/anything', { token: consumer });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'grant_missing' });
  });
});
