// The log routes (Queen-compatible core): push, pop, ack, retry → DLQ, replay, consumer groups,
// long-poll, strict input. Encryption and tenant isolation: test/log-isolation.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POP_RECHECK_MS } from '../src/services/log/waiters.ts';
import { api, startTestBroker, waitFor, type TestBroker, admin } from './helpers/broker.ts';
import {
  ack,
  appendFrame,
  b64,
  configure,
  deadLetters,
  drain,
  ISO_MICROS,
  pop,
  push,
  queenCreateBody,
  replay,
  UUID,
} from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

describe('POST /api/v1/push', () => {
  it('answers 201 with one snake_case result per item and stores the exact JSON bytes', async () => {
    const res = await push(tb, [
      { queue: 'push-a', payload: { n: 1, s: 'é' } },
      { queue: 'push-a', partition: 'p2', payload: 'text', transactionId: 'txn-1' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual([
      {
        index: 0,
        transaction_id: expect.stringMatching(UUID),
        status: 'queued',
        message_id: expect.stringMatching(UUID),
        queueName: 'push-a',
      },
      { index: 1, transaction_id: 'txn-1', status: 'queued', message_id: expect.stringMatching(UUID), queueName: 'push-a' },
    ]);
    const rows = await tb.sql.query(
      `SELECT id::text, partition, transaction_id, payload, encrypted, producer_sub FROM messages
       WHERE tenant = 'acme' AND queue = 'push-a' ORDER BY seq`,
    );
    expect(rows.rows).toEqual([
      {
        id: res.body[0].message_id,
        partition: 'Default',
        transaction_id: res.body[0].transaction_id,
        payload: Buffer.from('{"n":1,"s":"é"}'),
        encrypted: false,
        producer_sub: 'tester',
      },
      {
        id: res.body[1].message_id,
        partition: 'p2',
        transaction_id: 'txn-1',
        payload: Buffer.from('"text"'),
        encrypted: false,
        producer_sub: 'tester',
      },
    ]);
  });

  it('answers "duplicate" with the existing message_id for a txn already in the partition, and stores nothing', async () => {
    const first = await push(tb, [{ queue: 'push-dup', payload: 1, transactionId: 'same' }]);
    const again = await push(tb, [
      { queue: 'push-dup', payload: 2, transactionId: 'same' },
      { queue: 'push-dup', partition: 'other', payload: 3, transactionId: 'same' },
    ]);
    expect(again.status).toBe(201);
    expect(again.body).toEqual([
      { index: 0, transaction_id: 'same', status: 'duplicate', message_id: first.body[0].message_id, queueName: 'push-dup' },
      { index: 1, transaction_id: 'same', status: 'queued', message_id: expect.stringMatching(UUID), queueName: 'push-dup' },
    ]);
    const count = await tb.sql.query(
      `SELECT count(*)::int AS n FROM messages WHERE tenant = 'acme' AND queue = 'push-dup' AND partition = 'Default'`,
    );
    expect(count.rows[0].n).toBe(1);
  });

  it('answers "duplicate" for a repeat of a txn within the same request', async () => {
    const res = await push(tb, [
      { queue: 'push-dup2', payload: 'a', transactionId: 't' },
      { queue: 'push-dup2', payload: 'b', transactionId: 't' },
    ]);
    expect(res.body.map((r: any) => r.status)).toEqual(['queued', 'duplicate']);
    expect(res.body[1].message_id).toBe(res.body[0].message_id);
  });

  it('sets producerSub from the credential: supplying it is a 400 naming the field', async () => {
    const res = await push(tb, [{ queue: 'q', payload: 1, producerSub: 'mallory' }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'server_owned_field', field: 'items.0.producerSub' });
  });

  it('ignores an item field it does not know, as Queen does, and stores nothing of it', async () => {
    const res = await api(tb, 'POST', '/api/v1/push', {
      body: { items: [{ queue: 'push-lenient', payload: 1, priority: 5, namespace: null }], extra: true },
    });
    expect(res.status).toBe(201);
    expect(res.body[0]).toMatchObject({ status: 'queued', queueName: 'push-lenient' });
    const [frame] = (await pop(tb, '/api/v1/pop/queue/push-lenient')).body.messages;
    expect(frame.data).toBe(1);
    expect(Object.keys(frame)).not.toContain('priority');
  });

  it('carries a traceId from push to pop (null without one), and refuses one that is not a UUID', async () => {
    const traceId = '0b3f1c9e-6a7d-4e2b-9c1a-2f4e5d6c7b8a';
    await push(tb, [
      { queue: 'push-trace', payload: 'traced', traceId },
      { queue: 'push-trace', payload: 'plain' },
    ]);
    const res = await pop(tb, '/api/v1/pop/queue/push-trace?batch=2');
    expect(res.body.messages.map((f: any) => [f.data, f.traceId])).toEqual([
      ['traced', traceId],
      ['plain', null],
    ]);
    const bad = await push(tb, [{ queue: 'push-trace', payload: 1, traceId: 'trace-1' }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'items.0.traceId' });
  });

  it('still refuses a server-owned item field with 400 naming it', async () => {
    const res = await push(tb, [{ queue: 'q', payload: 1, messageId: '0b3f1c9e-6a7d-4e2b-9c1a-2f4e5d6c7b8a' }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'server_owned_field', field: 'items.0.messageId' });
  });

  it('rejects an item without payload with 400 naming the field', async () => {
    const res = await push(tb, [{ queue: 'q' }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'items.0.payload' });
  });

  it('answers an empty batch with 201 [] (as Queen does) and refuses a queue name with a slash', async () => {
    const empty = await push(tb, []);
    expect(empty.status).toBe(201);
    expect(empty.body).toEqual([]);
    expect((await push(tb, [{ queue: 'a/b', payload: 1 }])).body).toMatchObject({
      code: 'validation_failed',
      field: 'items.0.queue',
    });
  });

  it("refuses a payload over the tenant plan's ceiling with 403 naming the item, and stores nothing", async () => {
    const token = await tb.token({ tenant: 'small-plan' });
    await admin(tb, 'PUT', '/api/v1/admin/tenants/small-plan', { body: { maxPayloadBytes: 64 } });
    const res = await push(
      tb,
      [
        { queue: 'ceil', payload: { ok: 1 } },
        { queue: 'ceil', payload: 'x'.repeat(100) },
      ],
      token,
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'payload_too_large_for_plan', field: 'items.1.payload' });
    const rows = await tb.sql.query("SELECT count(*)::int AS n FROM messages WHERE tenant = 'small-plan'");
    expect(rows.rows[0].n).toBe(0);
  });

  it('needs the produce grant', async () => {
    const token = await tb.token({ grants: ['consume', 'read'] });
    const res = await push(tb, [{ queue: 'q', payload: 1 }], token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('grant_missing');
  });
});

describe('GET /api/v1/pop', () => {
  it('answers 204 with no body when the queue is empty or does not exist', async () => {
    const res = await pop(tb, '/api/v1/pop/queue/never-pushed');
    expect(res.status).toBe(204);
    expect(res.raw).toBe('');
    await push(tb, [{ queue: 'pop-empty', payload: 1 }]);
    await drain(tb, '/api/v1/pop/queue/pop-empty');
    expect((await pop(tb, '/api/v1/pop/queue/pop-empty')).status).toBe(204);
  });

  it('delivers a frame with the Queen shape: ids, lease, producerSub, microsecond createdAt, exact bytes and data', async () => {
    const pushed = await push(tb, [{ queue: 'pop-shape', partition: 'P', payload: { hello: 'world' }, transactionId: 'tx-shape' }]);
    const res = await pop(tb, '/api/v1/pop/queue/pop-shape');
    expect(res.status).toBe(200);
    const partitionId = (await tb.sql.query(`SELECT id::text FROM partitions WHERE tenant = 'acme' AND queue = 'pop-shape' AND name = 'P'`))
      .rows[0].id;
    expect(res.body).toEqual({
      messages: [
        {
          id: pushed.body[0].message_id,
          transactionId: 'tx-shape',
          partitionId,
          partition: 'P',
          queue: 'pop-shape',
          consumerGroup: '__QUEUE_MODE__',
          leaseId: expect.stringMatching(UUID),
          producerSub: 'tester',
          traceId: null,
          traceparent: null,
          createdAt: expect.stringMatching(ISO_MICROS),
          payload: b64('{"hello":"world"}'),
          data: { hello: 'world' },
          encrypted: false,
        },
      ],
    });
    const created = await tb.sql.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS c FROM messages WHERE tenant = 'acme' AND transaction_id = 'tx-shape'`,
    );
    expect(res.body.messages[0].createdAt).toBe(created.rows[0].c);
  });

  it('delivers each partition in push order (FIFO), across pushes and batch sizes', async () => {
    for (let i = 0; i < 6; i++) {
      await push(tb, [
        { queue: 'fifo', partition: 'A', payload: `A${i}` },
        { queue: 'fifo', partition: 'B', payload: `B${i}` },
      ]);
    }
    const seen: string[] = [];
    for (;;) {
      const res = await pop(tb, '/api/v1/pop/queue/fifo?batch=4');
      if (res.status === 204) break;
      for (const f of res.body.messages) {
        seen.push(f.data);
        await ack(tb, f);
      }
    }
    expect(seen.filter((s) => s.startsWith('A'))).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'A5']);
    expect(seen.filter((s) => s.startsWith('B'))).toEqual(['B0', 'B1', 'B2', 'B3', 'B4', 'B5']);
  });

  it('pops from the named partition only', async () => {
    await push(tb, [
      { queue: 'by-part', partition: 'x', payload: 'x1' },
      { queue: 'by-part', partition: 'y', payload: 'y1' },
    ]);
    const res = await pop(tb, '/api/v1/pop/queue/by-part/partition/y?batch=10');
    expect(res.body.messages.map((f: any) => f.data)).toEqual(['y1']);
    expect((await pop(tb, '/api/v1/pop/queue/by-part/partition/nope')).status).toBe(204);
  });

  it('leases the partition: a competing consumer of __QUEUE_MODE__ gets nothing from it until the batch is acked', async () => {
    await push(tb, [
      { queue: 'compete', payload: 1 },
      { queue: 'compete', payload: 2 },
      { queue: 'compete', payload: 3 },
    ]);
    const first = await pop(tb, '/api/v1/pop/queue/compete?batch=2');
    expect(first.body.messages.map((f: any) => f.data)).toEqual([1, 2]);
    expect((await pop(tb, '/api/v1/pop/queue/compete')).status).toBe(204);
    expect((await ack(tb, first.body.messages[0])).body[0].leaseReleased).toBe(false);
    expect((await pop(tb, '/api/v1/pop/queue/compete')).status).toBe(204);
    expect((await ack(tb, first.body.messages[1])).body[0].leaseReleased).toBe(true);
    const next = await pop(tb, '/api/v1/pop/queue/compete');
    expect(next.body.messages.map((f: any) => f.data)).toEqual([3]);
    const state = await tb.sql.query(
      `SELECT cursor_seq, lease_id IS NOT NULL AS leased FROM partition_consumers WHERE tenant = 'acme' AND queue = 'compete' AND consumer_group = '__QUEUE_MODE__'`,
    );
    const seq2 = await tb.sql.query(`SELECT seq FROM messages WHERE tenant = 'acme' AND queue = 'compete' ORDER BY seq`);
    expect(state.rows).toEqual([{ cursor_seq: seq2.rows[1].seq, leased: true }]);
  });

  it('gives competing consumers different partitions at the same time', async () => {
    await push(tb, [
      { queue: 'two-parts', partition: 'p1', payload: 'p1' },
      { queue: 'two-parts', partition: 'p2', payload: 'p2' },
    ]);
    const a = await pop(tb, '/api/v1/pop/queue/two-parts');
    const b = await pop(tb, '/api/v1/pop/queue/two-parts');
    expect([a.body.messages[0].data, b.body.messages[0].data].sort()).toEqual(['p1', 'p2']);
    expect((await pop(tb, '/api/v1/pop/queue/two-parts')).status).toBe(204);
  });

  it('hands a partition to exactly one of several concurrent competing pops', async () => {
    await push(
      tb,
      [1, 2, 3, 4].map((n) => ({ queue: 'race-one', payload: n })),
    );
    const answers = await Promise.all([1, 2, 3, 4].map(() => pop(tb, '/api/v1/pop/queue/race-one')));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 204, 204, 204]);
    expect(answers.find((a) => a.status === 200)!.body.messages.map((f: any) => f.data)).toEqual([1]);
  });

  it('spreads concurrent competing pops over distinct partitions', async () => {
    await push(
      tb,
      ['p1', 'p2', 'p3'].map((p) => ({ queue: 'race-many', partition: p, payload: p })),
    );
    const answers = await Promise.all([1, 2, 3].map(() => pop(tb, '/api/v1/pop/queue/race-many?batch=10')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.flatMap((a) => a.body.messages.map((f: any) => f.data)).sort()).toEqual(['p1', 'p2', 'p3']);
  });

  it('gives every named consumer group every frame, with independent cursors starting at the beginning', async () => {
    await push(
      tb,
      [1, 2, 3].map((n) => ({ queue: 'groups', payload: n })),
    );
    // Competing consumers consume everything first: a new named group still sees the whole log.
    expect(await drain(tb, '/api/v1/pop/queue/groups')).toEqual([1, 2, 3]);
    const g1 = await pop(tb, '/api/v1/pop/queue/groups?consumerGroup=g1&batch=10');
    const g2 = await pop(tb, '/api/v1/pop/queue/groups?consumerGroup=g2&batch=1');
    expect(g1.body.messages.map((f: any) => f.data)).toEqual([1, 2, 3]);
    expect(g1.body.messages[0].consumerGroup).toBe('g1');
    expect(g2.body.messages.map((f: any) => f.data)).toEqual([1]);
    for (const f of g1.body.messages) await ack(tb, f, { consumerGroup: 'g1' });
    expect((await pop(tb, '/api/v1/pop/queue/groups?consumerGroup=g1')).status).toBe(204);
    // g2's lease and cursor are its own: g1's acks did not move them.
    await ack(tb, g2.body.messages[0], { consumerGroup: 'g2' });
    expect(await drain(tb, '/api/v1/pop/queue/groups?consumerGroup=g2')).toEqual([2, 3]);
  });

  it('with autoAck completes the frames at once: no lease, the next pop moves on', async () => {
    await push(tb, [
      { queue: 'auto', payload: 'a' },
      { queue: 'auto', payload: 'b' },
    ]);
    const first = await pop(tb, '/api/v1/pop/queue/auto?autoAck=true');
    expect(first.body.messages).toMatchObject([{ data: 'a', leaseId: null }]);
    const second = await pop(tb, '/api/v1/pop/queue/auto?autoAck=1');
    expect(second.body.messages).toMatchObject([{ data: 'b', leaseId: null }]);
    expect((await pop(tb, '/api/v1/pop/queue/auto')).status).toBe(204);
  });

  it('with autoAck commits a frame a consumer had failed: a late completed ack of it answers noop', async () => {
    await push(tb, [{ queue: 'auto-retry', payload: 'r' }]);
    const leased = await pop(tb, '/api/v1/pop/queue/auto-retry');
    const failed = await ack(tb, leased.body.messages[0], { status: 'failed' });
    expect(failed.body).toMatchObject([{ status: 'failed', retryCount: 1 }]);
    const auto = await pop(tb, '/api/v1/pop/queue/auto-retry?autoAck=true');
    expect(auto.body.messages).toMatchObject([{ data: 'r', leaseId: null }]);
    const late = await ack(tb, { ...leased.body.messages[0], leaseId: null });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject([{ success: true, status: 'completed', noop: true }]);
    expect((await pop(tb, '/api/v1/pop/queue/auto-retry')).status).toBe(204);
  });

  it('redelivers the unacked frames of a batch whose lease expired', async () => {
    await push(tb, [
      { queue: 'expire', payload: 'x' },
      { queue: 'expire', payload: 'y' },
    ]);
    const first = await pop(tb, '/api/v1/pop/queue/expire?batch=2');
    await ack(tb, first.body.messages[0]);
    await tb.sql.query(
      `UPDATE partition_consumers SET lease_expires_at = now() - interval '1 second' WHERE tenant = 'acme' AND queue = 'expire'`,
    );
    const again = await pop(tb, '/api/v1/pop/queue/expire?batch=2');
    expect(again.body.messages.map((f: any) => f.data)).toEqual(['y']);
    expect(again.body.messages[0].leaseId).not.toBe(first.body.messages[0].leaseId);
    // The old lease is dead: acking under it is refused.
    const stale = await ack(tb, first.body.messages[1]);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'lease_mismatch', field: 'leaseId' });
    expect(stale.body.error).toMatch(/invalid or expired lease/);
  });

  it('delivers a timer frame (a row the sweeper inserted) like any other frame', async () => {
    await push(tb, [{ queue: 'timer-frames', payload: 'pushed' }]);
    await appendFrame(tb, {
      queue: 'timer-frames',
      transactionId: 'timer-txn',
      payload: Buffer.from('raw bytes, not JSON'),
      producerSub: 'scheduler',
      timerKey: 'k/1',
    });
    const res = await pop(tb, '/api/v1/pop/queue/timer-frames?batch=5');
    expect(res.body.messages).toHaveLength(2);
    const timerFrame = res.body.messages[1];
    expect(timerFrame).toMatchObject({
      transactionId: 'timer-txn',
      producerSub: 'scheduler',
      payload: b64('raw bytes, not JSON'),
      encrypted: false,
    });
    expect(timerFrame).not.toHaveProperty('data');
  });

  it('rejects bad query parameters with 400 naming them', async () => {
    for (const [query, field] of [
      ['batch=abc', 'batch'],
      ['batch=-1', 'batch'],
      ['wait=yes', 'wait'],
      ['timeout=1.5', 'timeout'],
      ['autoAck=maybe', 'autoAck'],
    ]) {
      const res = await pop(tb, `/api/v1/pop/queue/q?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'validation_failed', field });
    }
  });

  it("ignores the query parameters it does not act on, as Queen's client sends them", async () => {
    await push(tb, [{ queue: 'pop-lenient', payload: 'x' }]);
    const res = await pop(
      tb,
      '/api/v1/pop/queue/pop-lenient?batch=1&wait=false&timeout=30000&autopilot=true&namespace=&task=&conflation=false',
    );
    expect(res.status).toBe(200);
    expect(res.body.messages[0].data).toBe('x');
    const owned = await pop(tb, '/api/v1/pop/queue/pop-lenient?tenant=other');
    expect(owned.status).toBe(400);
    expect(owned.body).toMatchObject({ code: 'server_owned_field', field: 'tenant' });
  });

  it('needs the consume grant', async () => {
    const token = await tb.token({ grants: ['produce', 'read'] });
    const res = await pop(tb, '/api/v1/pop/queue/q', token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('grant_missing');
  });
});

describe('long-poll pop (wait=true)', () => {
  it('is woken by a push to its queue, well before the periodic re-check', async () => {
    const waiting = pop(tb, '/api/v1/pop/queue/longpoll?wait=true&timeout=20000');
    await waitFor(() => tb.broker.services.waiters.count > 0);
    const pushedAt = Date.now();
    await push(tb, [{ queue: 'longpoll', payload: 'wake up' }]);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.messages.map((f: any) => f.data)).toEqual(['wake up']);
    expect(Date.now() - pushedAt).toBeLessThan(POP_RECHECK_MS);
  });

  it('answers 204 when nothing arrives before its timeout', async () => {
    const started = Date.now();
    const res = await pop(tb, '/api/v1/pop/queue/longpoll-idle?wait=true&timeout=200');
    expect(res.status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });
});

describe('dead letters', () => {
  async function deadLetter(queue: string, payload: unknown) {
    await push(tb, [{ queue, payload }]);
    const [frame] = (await pop(tb, `/api/v1/pop/queue/${queue}`)).body.messages;
    await ack(tb, frame, { status: 'dlq', error: 'nope' });
    const dlq = await deadLetters(tb, `queue=${queue}`);
    return { frame, row: dlq.body.messages[0] };
  }

  it('replays a consumer dead letter as a new frame with a new transaction id, and removes it', async () => {
    const { frame, row } = await deadLetter('replay', { order: 7 });
    const res = await replay(tb, row.id);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      replayed: true,
      id: row.id,
      queue: 'replay',
      partition: 'Default',
      transactionId: expect.stringMatching(UUID),
      messageId: expect.stringMatching(UUID),
    });
    expect(res.body.transactionId).not.toBe(frame.transactionId);
    expect(res.body.messageId).not.toBe(frame.id);
    expect((await deadLetters(tb, 'queue=replay')).body.total).toBe(0);
    const again = (await pop(tb, '/api/v1/pop/queue/replay')).body.messages;
    expect(again).toMatchObject([{ id: res.body.messageId, transactionId: res.body.transactionId, data: { order: 7 } }]);
  });

  it("refuses to replay a timer's dead letter with 403 timer_dlq_not_replayable and keeps it", async () => {
    const inserted = await tb.sql.query(
      `INSERT INTO dead_letters (tenant, queue, partition, consumer_group, message_id, transaction_id, payload, producer_sub,
                                 error_message, retry_count, from_timer, timer_key)
       VALUES ('acme', 'timers-q', 'Default', '__timers__', gen_random_uuid(), 'timer-txn', '\\x00'::bytea, 'scheduler',
               'permanent failure', 5, true, 'reminder/42')
       RETURNING id::text`,
    );
    const id = inserted.rows[0].id;
    const res = await replay(tb, id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'timer_dlq_not_replayable', error: expect.stringContaining('timer') });
    const listed = await deadLetters(tb, 'queue=timers-q&consumerGroup=__timers__');
    expect(listed.body.messages).toMatchObject([{ id, fromTimer: true, timerKey: 'reminder/42', consumerGroup: '__timers__' }]);
    expect((await pop(tb, '/api/v1/pop/queue/timers-q')).status).toBe(204);
  });

  it('answers 404 for an unknown dead letter and 400 for a malformed id', async () => {
    const missing = await replay(tb, '00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const bad = await replay(tb, 'xyz');
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'id' });
  });

  it('pages with limit and offset, clamping the limit, and needs the read grant', async () => {
    await deadLetter('dlq-page', 1);
    await deadLetter('dlq-page', 2);
    const page = await deadLetters(tb, 'queue=dlq-page&limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, messages: [{ data: 2 }] });
    expect((await deadLetters(tb, 'queue=dlq-page&limit=0')).body.limit).toBe(1);
    expect((await deadLetters(tb, 'limit=x')).body).toMatchObject({ code: 'validation_failed', field: 'limit' });
    const token = await tb.token({ grants: ['produce', 'consume'] });
    expect((await deadLetters(tb, '', token)).status).toBe(403);
  });
});

describe("multi-partition pop (Queen's partitions=N)", () => {
  it('takes up to N partitions under one lease, batch capping the frames across them; acks and one renewal cover them all', async () => {
    const items = ['a', 'b', 'c'].flatMap((p) => [1, 2].map((n) => ({ queue: 'multi', partition: p, payload: `${p}${n}` })));
    await push(tb, items);
    const single = await pop(tb, '/api/v1/pop/queue/multi?batch=100&consumerGroup=one');
    expect(new Set(single.body.messages.map((f: any) => f.partitionId)).size).toBe(1);

    const res = await pop(tb, '/api/v1/pop/queue/multi?batch=100&partitions=3');
    const frames = res.body.messages;
    expect(frames.map((f: any) => f.data).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
    expect(new Set(frames.map((f: any) => f.partitionId)).size).toBe(3);
    expect(new Set(frames.map((f: any) => f.leaseId)).size).toBe(1);
    // Each partition keeps its order inside the batch.
    for (const p of ['a', 'b', 'c'])
      expect(frames.filter((f: any) => f.partition === p).map((f: any) => f.data)).toEqual([`${p}1`, `${p}2`]);
    const renewed = await api(tb, 'POST', `/api/v1/lease/${frames[0].leaseId}/extend`, { body: {} });
    expect(renewed.body).toMatchObject({ success: true, renewed: 3 });
    expect((await pop(tb, '/api/v1/pop/queue/multi?partitions=3')).status).toBe(204);
    const acked = await api(tb, 'POST', '/api/v1/ack/batch', {
      body: {
        acknowledgments: frames.map((f: any) => ({ transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId })),
      },
    });
    expect(acked.body.filter((r: any) => r.success)).toHaveLength(6);
    expect(acked.body.every((r: any) => r.leaseReleased)).toBe(true);
  });

  it('caps the frames at batch across partitions', async () => {
    await push(
      tb,
      ['p1', 'p2', 'p3', 'p4', 'p5'].flatMap((p) =>
        Array.from({ length: 20 }, (_, n) => ({ queue: 'multi-cap', partition: p, payload: n })),
      ),
    );
    const res = await pop(tb, '/api/v1/pop/queue/multi-cap?batch=10&partitions=5&autoAck=true');
    expect(res.body.messages).toHaveLength(10);
    expect(res.body.messages.every((f: any) => f.leaseId === null)).toBe(true);
  });
});

describe("consumer groups' subscription modes", () => {
  const data = async (path: string) => {
    const res = await pop(tb, path);
    return res.status === 204 ? [] : res.body.messages.map((f: any) => f.data);
  };

  it('a new named group starts at the beginning by default (all, from_beginning), after the newest frame with new', async () => {
    await push(tb, [
      { queue: 'sub-modes', payload: 'old-1' },
      { queue: 'sub-modes', payload: 'old-2' },
    ]);
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=plain&batch=10&autoAck=true')).toEqual(['old-1', 'old-2']);
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=all&subscriptionMode=all&batch=10&autoAck=true')).toEqual([
      'old-1',
      'old-2',
    ]);
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=begin&subscriptionMode=from_beginning&batch=10&autoAck=true')).toEqual([
      'old-1',
      'old-2',
    ]);
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=fresh&subscriptionMode=new&batch=10&autoAck=true')).toEqual([]);
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=now&subscriptionFrom=now&batch=10&autoAck=true')).toEqual([]);
    // Frames pushed after it registered, and partitions created after, are the new group's.
    await push(tb, [
      { queue: 'sub-modes', payload: 'new-1' },
      { queue: 'sub-modes', partition: 'later', payload: 'new-2' },
    ]);
    const fresh = [
      ...(await data('/api/v1/pop/queue/sub-modes?consumerGroup=fresh&batch=10&autoAck=true')),
      ...(await data('/api/v1/pop/queue/sub-modes?consumerGroup=fresh&batch=10&autoAck=true')),
    ];
    expect(fresh.sort()).toEqual(['new-1', 'new-2']);
    // The mode counts at the group's first pop only: asking again re-seeds nothing.
    expect(await data('/api/v1/pop/queue/sub-modes?consumerGroup=fresh&subscriptionMode=all&batch=10')).toEqual([]);
  });

  it('subscriptionFrom an instant starts at the first frame created at or after it; queue mode ignores modes', async () => {
    await push(tb, [
      { queue: 'sub-from', payload: 'jan-1' },
      { queue: 'sub-from', payload: 'jan-2' },
      { queue: 'sub-from', payload: 'jan-3' },
    ]);
    await tb.sql.query(
      `UPDATE messages SET created_at = CASE convert_from(payload, 'UTF8')
                                          WHEN '"jan-1"' THEN '2026-01-01T00:00:00Z'::timestamptz
                                          WHEN '"jan-2"' THEN '2026-01-02T00:00:00Z'::timestamptz
                                          ELSE '2026-01-03T00:00:00Z'::timestamptz END
        WHERE tenant = 'acme' AND queue = 'sub-from'`,
    );
    expect(
      await data('/api/v1/pop/queue/sub-from?consumerGroup=since&subscriptionFrom=2026-01-02T00:00:00Z&batch=10&autoAck=true'),
    ).toEqual(['jan-2', 'jan-3']);
    expect(
      await data('/api/v1/pop/queue/sub-from?consumerGroup=later&subscriptionFrom=2027-01-01T00:00:00Z&batch=10&autoAck=true'),
    ).toEqual([]);
    expect(await data('/api/v1/pop/queue/sub-from?consumerGroup=junk&subscriptionFrom=yesterday&batch=10&autoAck=true')).toEqual([
      'jan-1',
      'jan-2',
      'jan-3',
    ]);
    expect(await data('/api/v1/pop/queue/sub-from?subscriptionMode=new&batch=10&autoAck=true')).toEqual(['jan-1', 'jan-2', 'jan-3']);
  });
});

describe('POST /api/v1/lease/:leaseId/extend', () => {
  const secondsLeft = async (queue: string) =>
    (
      await tb.sql.query(
        `SELECT extract(epoch FROM lease_expires_at - now())::int AS s FROM partition_consumers WHERE tenant = 'acme' AND queue = $1`,
        [queue],
      )
    ).rows[0].s;

  it("extends a live lease by the queue's leaseTime, or by the seconds given; the batch stays the caller's", async () => {
    await configure(tb, 'renew', { leaseTime: 30 });
    await push(tb, [{ queue: 'renew', payload: 'long job' }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/renew')).body.messages;
    // Queen's client posts an empty object, with its usual header.
    const renewed = await api(tb, 'POST', `/api/v1/lease/${frame.leaseId}/extend`, { body: {} });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toEqual({ leaseId: frame.leaseId, success: true, newExpiresAt: expect.stringMatching(ISO_MICROS), renewed: 1 });
    expect(await secondsLeft('renew')).toBeGreaterThan(25);
    const longer = await api(tb, 'POST', `/api/v1/lease/${frame.leaseId}/extend`, { body: { seconds: 600 } });
    expect(longer.status).toBe(200);
    expect(await secondsLeft('renew')).toBeGreaterThan(590);
    expect((await pop(tb, '/api/v1/pop/queue/renew')).status).toBe(204);
    expect((await ack(tb, frame)).status).toBe(200);
  });

  it('refuses a lease that was released, expired, unknown or another tenant’s with 409 lease_mismatch', async () => {
    await push(tb, [{ queue: 'renew-gone', payload: 1 }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/renew-gone')).body.messages;
    const globex = await tb.token({ tenant: 'globex' });
    const foreign = await api(tb, 'POST', `/api/v1/lease/${frame.leaseId}/extend`, { body: {}, token: globex });
    expect(foreign.status).toBe(409);
    await ack(tb, frame);
    const released = await api(tb, 'POST', `/api/v1/lease/${frame.leaseId}/extend`, { body: {} });
    expect(released.status).toBe(409);
    expect(released.body).toMatchObject({
      ok: false,
      code: 'lease_mismatch',
      field: 'leaseId',
      error: expect.stringContaining('not live'),
    });
    await push(tb, [{ queue: 'renew-gone', payload: 2 }]);
    const [second] = (await pop(tb, '/api/v1/pop/queue/renew-gone')).body.messages;
    await tb.sql.query(
      `UPDATE partition_consumers SET lease_expires_at = now() - interval '1 second' WHERE tenant = 'acme' AND queue = 'renew-gone'`,
    );
    expect((await api(tb, 'POST', `/api/v1/lease/${second.leaseId}/extend`, { body: {} })).status).toBe(409);
    const bad = await api(tb, 'POST', '/api/v1/lease/not-a-lease/extend', { body: {} });
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'leaseId' });
    const produceOnly = await tb.token({ grants: ['produce'] });
    expect((await api(tb, 'POST', `/api/v1/lease/${second.leaseId}/extend`, { body: {}, token: produceOnly })).status).toBe(403);
  });
});

describe('GET /api/v1/dlq filters as Queen sends them', () => {
  it('by partition and by dead-lettered time (from, to: ISO instants, inclusive)', async () => {
    for (const [partition, payload] of [
      ['pa', 'first'],
      ['pb', 'second'],
    ] as const) {
      await push(tb, [{ queue: 'dlq-filter', partition, payload }]);
      const [frame] = (await pop(tb, `/api/v1/pop/queue/dlq-filter/partition/${partition}`)).body.messages;
      await ack(tb, frame, { status: 'dlq' });
    }
    // Fix the instants so the filter is not at the mercy of the clock's resolution.
    await tb.sql.query(
      `UPDATE dead_letters SET created_at = CASE partition WHEN 'pa' THEN '2026-01-01T00:00:00Z'::timestamptz ELSE '2026-01-02T00:00:00Z'::timestamptz END
        WHERE tenant = 'acme' AND queue = 'dlq-filter'`,
    );
    const data = async (query: string) =>
      (await deadLetters(tb, `queue=dlq-filter&limit=100&offset=0&${query}`)).body.messages.map((m: any) => m.data);
    expect(await data('partition=pb')).toEqual(['second']);
    expect(await data('from=2026-01-02T00:00:00Z')).toEqual(['second']);
    expect(await data('to=2026-01-01T00:00:00.000Z')).toEqual(['first']);
    expect(await data('from=2025-12-31T00:00:00%2B00:00&to=2026-01-03T00:00:00Z')).toEqual(['first', 'second']);
    const bad = await deadLetters(tb, 'queue=dlq-filter&from=yesterday');
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'from' });
  });
});

describe('POST /api/v1/configure', () => {
  it('keeps omitted options, ignores unknown ones and rejects out-of-range ones naming the field', async () => {
    await configure(tb, 'cfg', { leaseTime: 30 });
    const res = await configure(tb, 'cfg', { retryLimit: 0, someFutureOption: 'x' });
    expect(res.body.options).toMatchObject({ encryptionEnabled: false, leaseTime: 30, retryLimit: 0 });
    expect(res.body.options).not.toHaveProperty('someFutureOption');
    const range = await configure(tb, 'cfg', { leaseTime: 0 });
    expect(range.body).toMatchObject({ code: 'validation_failed', field: 'options.leaseTime' });
    const inert = await configure(tb, 'cfg', { ttl: -1 });
    expect(inert.body).toMatchObject({ code: 'validation_failed', field: 'options.ttl' });
  });

  it("takes Queen's create as its client sends it: namespace, task and every option, stored and echoed", async () => {
    const created = await api(tb, 'POST', '/api/v1/configure', { body: queenCreateBody('queen-create') });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      configured: true,
      queueId: expect.stringMatching(UUID),
      queue: 'queen-create',
      namespace: null,
      task: null,
      options: {
        encryptionEnabled: false,
        leaseTime: 300,
        retryLimit: 3,
        priority: 0,
        delayedProcessing: 0,
        windowBuffer: 0,
        maxSize: 0,
        retentionSeconds: 0,
        completedRetentionSeconds: 0,
        retentionEnabled: false,
        retryDelay: 1000,
        ttl: 3600,
        deadLetterQueue: true,
        dlqAfterMaxRetries: true,
        maxWaitTimeSeconds: 0,
        dedupWindowSeconds: 3600,
      },
    });
    // Inert options and the labels are kept across configures; null keeps them too.
    const again = await api(tb, 'POST', '/api/v1/configure', {
      body: { queue: 'queen-create', namespace: 'billing', task: 'invoices', options: { priority: 7, retentionSeconds: 60 } },
    });
    expect(again.body).toMatchObject({ queueId: created.body.queueId, namespace: 'billing', task: 'invoices' });
    const kept = await api(tb, 'POST', '/api/v1/configure', {
      body: { queue: 'queen-create', namespace: null, options: { leaseTime: 60 } },
    });
    expect(kept.body).toMatchObject({
      namespace: 'billing',
      task: 'invoices',
      options: { priority: 7, retentionSeconds: 60, leaseTime: 60 },
    });
    // A server-owned key is refused even here.
    const owned = await api(tb, 'POST', '/api/v1/configure', { body: { queue: 'queen-create', tenant: 'globex' } });
    expect(owned.body).toMatchObject({ code: 'server_owned_field', field: 'tenant' });
  });

  it('leases for the configured leaseTime on PostgreSQL clock', async () => {
    await configure(tb, 'lease-30', { leaseTime: 30 });
    await push(tb, [{ queue: 'lease-30', payload: 1 }]);
    await pop(tb, '/api/v1/pop/queue/lease-30');
    const r = await tb.sql.query(
      `SELECT extract(epoch FROM lease_expires_at - updated_at)::int AS secs FROM partition_consumers WHERE tenant = 'acme' AND queue = 'lease-30'`,
    );
    expect(r.rows[0].secs).toBe(30);
  });

  it('refuses encryptionEnabled on a broker without QUEEN_ENCRYPTION_KEY with 503 encryption_unavailable', async () => {
    const res = await configure(tb, 'enc', { encryptionEnabled: true });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'encryption_unavailable', error: expect.stringContaining('QUEEN_ENCRYPTION_KEY') });
    expect((await tb.sql.query(`SELECT count(*)::int AS n FROM queues WHERE name = 'enc'`)).rows[0].n).toBe(0);
  });
});
