// Frames that must not wedge a partition, inputs that must not reach PostgreSQL, and a drain
// that does not wait for long-polls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, MAX_DATA_DEPTH } from '../src/payload.ts';
import { admin, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { ack, appendFrame, pop, push } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** Appends a frame with the given SQL payload expression to a queue that push already created. */
async function insertFrame(queue: string, txn: string, payloadSql: string) {
  await appendFrame(tb, { queue, transactionId: txn, payload: { sql: payloadSql } });
}

describe('frames that could wedge a partition', () => {
  it('does not parse JSON nested deeper than MAX_DATA_DEPTH into data', () => {
    const deep = Buffer.from('['.repeat(MAX_DATA_DEPTH + 1) + ']'.repeat(MAX_DATA_DEPTH + 1));
    expect(jsonOf(deep)).toBeUndefined();
    expect(jsonOf(Buffer.from('{"a":"[[[[","b":[1]}'))).toEqual({ a: '[[[[', b: [1] });
  });

  it('delivers a frame nested 50,000 deep with its bytes and no data, and the next frame after it', async () => {
    await push(tb, [{ queue: 'deep', payload: 'first', transactionId: 't0' }]);
    await insertFrame('deep', 't1', "convert_to(repeat('[', 50000) || repeat(']', 50000), 'UTF8')");
    await push(tb, [{ queue: 'deep', payload: 'last', transactionId: 't2' }]);
    const res = await pop(tb, '/api/v1/pop/queue/deep?batch=10&autoAck=true');
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: any) => m.transactionId)).toEqual(['t0', 't1', 't2']);
    expect(res.body.messages[1].data).toBeUndefined();
    expect(Buffer.from(res.body.messages[1].payload, 'base64').length).toBe(100_000);
  });

  it('stops a batch at 16 MiB of payload (always handing out the first frame)', async () => {
    await push(tb, [{ queue: 'big', payload: 'warm', transactionId: 'w' }]);
    expect((await pop(tb, '/api/v1/pop/queue/big?autoAck=true')).status).toBe(200);
    for (const txn of ['b1', 'b2', 'b3']) await insertFrame('big', txn, "convert_to(repeat('x', 9 * 1024 * 1024), 'UTF8')");
    const first = await pop(tb, '/api/v1/pop/queue/big?batch=10&autoAck=true');
    expect(first.body.messages.map((m: any) => m.transactionId)).toEqual(['b1', 'b2']);
    const second = await pop(tb, '/api/v1/pop/queue/big?batch=10&autoAck=true');
    expect(second.body.messages.map((m: any) => m.transactionId)).toEqual(['b3']);
  });
});

describe('input PostgreSQL cannot hold', () => {
  it('refuses a NUL in an ack error with 400 naming the field', async () => {
    const res = await ack(
      tb,
      { transactionId: 'x', partitionId: '00000000-0000-0000-0000-000000000000' },
      { status: 'dlq', error: 'a\u0000b' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'error' });
  });

  it('refuses a plan horizon beyond a 32-bit integer with 400', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/tenants/huge', { body: { horizonSeconds: 3_000_000_000 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'horizonSeconds' });
  });
});

describe('a long-poll whose caller hung up', () => {
  it('stops waiting and leases nothing: the next consumer gets the frame at once', async () => {
    const own = await startTestBroker({ listen: true });
    try {
      const token = await own.token();
      const waiters = own.broker.services.waiters;
      const hangUp = new AbortController();
      const poll = fetch(`${own.url}/api/v1/pop/queue/gone?wait=true&timeout=60000`, {
        headers: { authorization: `Bearer ${token}` },
        signal: hangUp.signal,
      });
      await waitFor(() => waiters.count > 0);
      hangUp.abort();
      await poll.catch(() => {});
      await waitFor(() => waiters.count === 0);
      await push(own, [{ queue: 'gone', payload: 1, transactionId: 'g1' }]);
      const res = await pop(own, '/api/v1/pop/queue/gone');
      expect(res.status).toBe(200);
      expect(res.body.messages[0].transactionId).toBe('g1');
    } finally {
      await own.close();
    }
  });
});

describe('draining', () => {
  it('answers an open long-poll with 204 and closes its connection when the broker stops', async () => {
    const own = await startTestBroker({ listen: true });
    const token = await own.token();
    const started = Date.now();
    const poll = fetch(`${own.url}/api/v1/pop/queue/idle?wait=true&timeout=60000`, { headers: { authorization: `Bearer ${token}` } });
    // The pop is waiting once it is registered as a waiter.
    await waitFor(() => own.broker.services.waiters.count > 0);
    const closing = own.close();
    const res = await poll;
    expect(res.status).toBe(204);
    expect(res.headers.get('connection')).toBe('close');
    await closing;
    // Without the drain the pop would hold the shutdown for its whole 60 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
