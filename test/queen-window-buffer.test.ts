// Queen's windowBuffer as its test-v2 `pushWindowBuffer` drives it: a queue configured with
// `windowBuffer: 2` through QueueBuilder.config().create(), three messages pushed in one call, a
// pop at once (batch 1, wait false) that finds nothing, and a pop of batch 4 after the window that
// gets all three. The rule is Queen's pop's: a partition is handed out only once its newest frame
// is at least windowBuffer seconds old on PostgreSQL's clock (src/services/log/pop.ts), so each
// frame appended holds the ones before it again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { queenCreateBody, queenRequest } from './helpers/log.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true });
  token = await tb.token({ grants: ['produce', 'consume', 'read'] });
});
afterAll(() => tb?.close());

const queen = (method: 'GET' | 'POST', path: string, body?: unknown) => queenRequest(tb, token, method, path, body);

const push = (queue: string, messages: unknown[], partition = 'Default') =>
  queen('POST', '/api/v1/push', { items: messages.map((payload) => ({ queue, partition, payload, transactionId: randomUUID() })) });

const popped = async (path: string) => {
  const res = await queen('GET', path);
  return res.status === 204 ? [] : (res.data.messages as { data: unknown; partition: string }[]);
};

/** Ages frames on PostgreSQL's clock: those of `partition` whose payload matches, `seconds` older. */
async function age(queue: string, partition: string, seconds: number, only?: unknown) {
  await tb.sql.query(
    `UPDATE messages SET created_at = created_at - make_interval(secs => $4)
      WHERE tenant = 'acme' AND queue = $1 AND partition = $2 AND ($3::jsonb IS NULL OR convert_from(payload, 'UTF8')::jsonb = $3::jsonb)`,
    [queue, partition, only === undefined ? null : JSON.stringify(only), seconds],
  );
}

describe('windowBuffer: a partition is held until its newest frame is the window old', () => {
  it("pushWindowBuffer: nothing at once, all three after the window (Queen's test, on the clock)", async () => {
    const created = await queen('POST', '/api/v1/configure', queenCreateBody('test-queue-window-buffer', { windowBuffer: 2 }));
    expect(created.data.options.windowBuffer).toBe(2);
    const messages = [{ message: 'Hello, world 1!' }, { message: 'Hello, world 2!' }, { message: 'Hello, world 3!' }];
    expect((await push('test-queue-window-buffer', messages)).status).toBe(201);
    expect(await popped('/api/v1/pop/queue/test-queue-window-buffer?batch=1&wait=false')).toEqual([]);
    // The window passes on PostgreSQL's clock (no sleep of a guessed length).
    await waitFor(
      async () =>
        (
          await tb.sql.query(
            "SELECT max(created_at) <= now() - interval '2 seconds' AS quiet FROM messages WHERE tenant = 'acme' AND queue = 'test-queue-window-buffer'",
          )
        ).rows[0].quiet,
      { timeout: 30_000, interval: 100 },
    );
    const got = await popped('/api/v1/pop/queue/test-queue-window-buffer?batch=4&wait=false');
    expect(got.map((m) => m.data)).toEqual(messages);
  });

  it('each frame appended holds the frames before it again; other partitions are served meanwhile, never early', async () => {
    const q = 'wb-held';
    await queen('POST', '/api/v1/configure', queenCreateBody(q, { windowBuffer: 60 }));
    await push(q, ['a1'], 'a');
    await push(q, ['b1'], 'b');
    await age(q, 'a', 120);
    await age(q, 'b', 120);
    // A new frame in b, a second ago: b is held, a (quiet) is served.
    await push(q, ['b2'], 'b');
    await age(q, 'b', 1, 'b2');
    expect((await popped(`/api/v1/pop/queue/${q}?batch=10&wait=false&consumerGroup=g&autoAck=true`)).map((m) => m.data)).toEqual(['a1']);
    expect(await popped(`/api/v1/pop/queue/${q}?batch=10&wait=false&consumerGroup=g&autoAck=true`)).toEqual([]);
    // A pop of the named partition is held as well; queue mode (a consumer of its own) gets a only.
    expect(await popped(`/api/v1/pop/queue/${q}/partition/b?batch=10&wait=false&consumerGroup=g`)).toEqual([]);
    expect((await popped(`/api/v1/pop/queue/${q}?batch=10&wait=false&autoAck=true`)).map((m) => m.data)).toEqual(['a1']);
    expect(await popped(`/api/v1/pop/queue/${q}?batch=10&wait=false&autoAck=true`)).toEqual([]);
    // b2 now the window old (and a bit): b's frames go out, both, in order.
    await age(q, 'b', 60, 'b2');
    expect((await popped(`/api/v1/pop/queue/${q}?batch=10&wait=false&consumerGroup=g&autoAck=true`)).map((m) => m.data)).toEqual([
      'b1',
      'b2',
    ]);
  });

  it('a long-poll waiting on a held partition gets its frames once the window has passed', async () => {
    const q = 'wb-wait';
    await queen('POST', '/api/v1/configure', queenCreateBody(q, { windowBuffer: 1 }));
    await push(q, ['x']);
    // The pop is woken by the push while the partition is held, and sleeps on; the probe wakes it
    // again after the window.
    const res = await queen('GET', `/api/v1/pop/queue/${q}?batch=10&wait=true&timeout=30000&consumerGroup=w`);
    expect(res.status).toBe(200);
    expect(res.data.messages.map((m: { data: unknown }) => m.data)).toEqual(['x']);
  });

  it('a queue without windowBuffer (0, or not a number) hands frames out at once', async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('wb-none'));
    await push('wb-none', ['now']);
    expect((await popped('/api/v1/pop/queue/wb-none?batch=1&wait=false')).map((m) => m.data)).toEqual(['now']);
  });
});
