// The SDK (imported from sdk/src) against a real broker on its own database, sweeper running:
// every verdict of the closed taxonomy reached through the ergonomic layer, and the fired frame
// correlated with what schedule answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, encodePayload, QueenTimersError, type Message, type QueenTimersClient } from '../sdk/src/index.ts';
import { startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
let qt: QueenTimersClient;

beforeAll(async () => {
  tb = await startTestBroker({ listen: true, sweeper: true });
  qt = createClient({ baseUrl: tb.url, token: await tb.token({ tenant: 'acme', sub: 'sdk-e2e' }) });
});
afterAll(() => tb?.close());

/** Long-polls the queue until one frame arrives (the sweeper's fire) and acks it. */
async function popOne(queue: string, client = qt): Promise<Message> {
  const frame = await waitFor(async () => (await client.log.pop(queue, { wait: true, timeoutMs: 2_000 }))[0], { timeout: 15_000 });
  await client.log.ack(frame);
  return frame;
}

/** Marks a pending row as in a sweeper's hands: a live lease, as claimDue would set it. */
async function claim(queue: string, timerKey: string) {
  const r = await tb.sql.query(
    `UPDATE timers SET claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 minute'
      WHERE tenant = 'acme' AND queue = $1 AND timer_key = $2`,
    [queue, timerKey],
  );
  expect(r.rowCount).toBe(1);
}

const pendingRows = async (queue: string) =>
  (
    await tb.sql.query(`SELECT timer_key FROM timers WHERE tenant = 'acme' AND queue = $1 ORDER BY timer_key COLLATE "C"`, [queue])
  ).rows.map((r) => r.timer_key);

describe('SDK end to end', () => {
  it('schedule → peek → list → fire → pop: the frame carries the messageId and txn schedule answered', async () => {
    const payload = { kind: 'day7', tenant: 'acme' };
    const s = await qt.timers.schedule({ queue: 'sdk-fire', timerKey: 'trial/acme/day7', delayMs: 3_600_000, payload, partition: 'acme' });
    expect(s).toMatchObject({ ok: true, status: 'scheduled', queue: 'sdk-fire', timerKey: 'trial/acme/day7' });
    if (s.status !== 'scheduled') throw new Error('unreachable');

    const peek = await qt.timers.peek('sdk-fire', 'trial/acme/day7');
    expect(peek).toMatchObject({
      found: true,
      timerKey: 'trial/acme/day7',
      partition: 'acme',
      txn: s.txn,
      messageId: s.messageId,
      deliverAt: s.deliverAt,
      payload: encodePayload(payload),
      producerSub: 'sdk-e2e',
      claimed: false,
      attempts: 0,
    });

    const list = await qt.timers.list('sdk-fire');
    expect(list).toMatchObject({ truncated: false, rows: [{ timerKey: 'trial/acme/day7', txn: s.txn, messageId: s.messageId }] });
    expect(list.rows[0]).not.toHaveProperty('payload');

    // Due now, on PostgreSQL's clock; the sweeper's next pass (≤ QUEEN_SWEEPER_MAX_SLEEP_MS) fires it.
    await tb.sql.query(`UPDATE timers SET deliver_at = now() WHERE tenant = 'acme' AND queue = 'sdk-fire'`);
    const frame = await popOne('sdk-fire');
    expect(frame).toMatchObject({
      id: s.messageId,
      transactionId: s.txn,
      queue: 'sdk-fire',
      partition: 'acme',
      producerSub: 'sdk-e2e',
      encrypted: false,
    });
    expect(frame.json()).toEqual(payload);
    expect(frame.data).toEqual(payload);
    expect(await qt.timers.peek('sdk-fire', 'trial/acme/day7')).toEqual({ found: false });
  });

  it('delivers bytes and text payloads exactly', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    await qt.timers
      .batch()
      .schedule({ queue: 'sdk-bytes', timerKey: 'a', delayMs: 0, payload: bytes })
      .schedule({ queue: 'sdk-bytes', timerKey: 'b', delayMs: 100, payload: 'héllo' })
      .send();
    const first = await popOne('sdk-bytes');
    const second = await popOne('sdk-bytes');
    expect(first.bytes).toEqual(bytes);
    expect(first.data).toBeUndefined();
    expect(second.text()).toBe('héllo');
  });

  it('cancel goes to DELETE: cancelled with the txn echoed, then absent', async () => {
    await qt.timers.schedule({ queue: 'sdk-cancel', timerKey: 'tenant/42', delayMs: 3_600_000, payload: 'x', txn: 'cancel-me-v1' });
    expect(await qt.timers.cancel('sdk-cancel', 'tenant/42')).toEqual({
      ok: true,
      status: 'cancelled',
      queue: 'sdk-cancel',
      timerKey: 'tenant/42',
      txn: 'cancel-me-v1',
    });
    expect(await pendingRows('sdk-cancel')).toEqual([]);
    expect(await qt.timers.cancel('sdk-cancel', 'tenant/42', { txn: 'cancel-me-v1' })).toEqual({
      ok: false,
      status: 'absent',
      queue: 'sdk-cancel',
      timerKey: 'tenant/42',
      txn: 'cancel-me-v1',
    });
  });

  it('addresses keys with slashes, %, ?, # and spaces on every timer route', async () => {
    const key = 'a/b c/50%41?x=1#frag/ü';
    const s = await qt.timers.schedule({ queue: 'sdk-keys', timerKey: key, delayMs: 3_600_000, payload: 1 });
    expect(s.timerKey).toBe(key);
    expect(await pendingRows('sdk-keys')).toEqual([key]);
    expect(await qt.timers.peek('sdk-keys', key)).toMatchObject({ found: true, timerKey: key });
    expect((await qt.timers.list('sdk-keys')).rows.map((r) => r.timerKey)).toEqual([key]);
    expect(await qt.timers.cancel('sdk-keys', key)).toMatchObject({ ok: true, status: 'cancelled', timerKey: key });
  });

  it('too_late: a claimed timer can be neither cancelled nor rescheduled, and nothing changes', async () => {
    const s = await qt.timers.schedule({ queue: 'sdk-claimed', timerKey: 'k/1', delayMs: 3_600_000, payload: 'old', txn: 'claimed-v1' });
    await claim('sdk-claimed', 'k/1');
    expect(await qt.timers.cancel('sdk-claimed', 'k/1', { txn: 'claimed-v1' })).toEqual({
      ok: false,
      status: 'too_late',
      queue: 'sdk-claimed',
      timerKey: 'k/1',
      txn: 'claimed-v1',
    });
    const r = await qt.timers.reschedule({ queue: 'sdk-claimed', timerKey: 'k/1', delayMs: 10, payload: 'new' });
    expect(r).toMatchObject({ ok: false, status: 'too_late' });
    expect(await qt.timers.peek('sdk-claimed', 'k/1')).toMatchObject({
      found: true,
      claimed: true,
      messageId: (s as { messageId: string }).messageId,
      payload: encodePayload('old'),
    });
  });

  it('absent after delivery: the cancel echoes the txn, and the log holds the frame with it', async () => {
    await qt.timers.schedule({
      queue: 'sdk-delivered',
      timerKey: 'order/7/compensate',
      delayMs: 50,
      payload: { orderId: 7 },
      txn: 'order-7-comp',
    });
    const frame = await popOne('sdk-delivered');
    const r = await qt.timers.cancel('sdk-delivered', 'order/7/compensate', { txn: 'order-7-comp' });
    expect(r).toEqual({ ok: false, status: 'absent', queue: 'sdk-delivered', timerKey: 'order/7/compensate', txn: 'order-7-comp' });
    // "Not pending — maybe delivered; check the log for the txn": it was.
    expect(frame.transactionId).toBe(r.txn);
  });

  it('a produce-only credential schedules and cancels but cannot peek or list (403, not retried)', async () => {
    const attempts: number[] = [];
    const producer = createClient({
      baseUrl: tb.url,
      token: await tb.token({ sub: 'producer', grants: ['produce'] }),
      retry: { onRetry: ({ attempt }) => attempts.push(attempt) },
    });
    const s = await producer.timers.schedule({ queue: 'sdk-produce-only', timerKey: 'p/1', delayMs: 3_600_000, payload: 'x' });
    expect(s).toMatchObject({ ok: true, status: 'scheduled' });
    const err = await producer.timers.peek('sdk-produce-only', 'p/1').catch((e) => e);
    expect(err).toBeInstanceOf(QueenTimersError);
    expect(err).toMatchObject({ status: 403, code: 'grant_missing' });
    await expect(producer.timers.list('sdk-produce-only')).rejects.toMatchObject({ status: 403, code: 'grant_missing' });
    expect(attempts).toEqual([]);
    expect(await producer.timers.cancel('sdk-produce-only', 'p/1')).toMatchObject({ ok: true, status: 'cancelled' });
  });

  it('while the cluster blocks produce, a batch cancel is refused with the hint and timers.cancel still works', async () => {
    await qt.timers.schedule({ queue: 'sdk-blocked', timerKey: 'b/1', delayMs: 3_600_000, payload: 'x' });
    const admin = async (produceBlocked: boolean) => {
      const res = await fetch(`${tb.url}/api/v1/admin/cluster`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await tb.operatorToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ produceBlocked }),
      });
      expect(res.status).toBe(200);
    };
    await admin(true);
    try {
      const noRetry = createClient({ baseUrl: tb.url, token: await tb.token(), retry: false });
      const err = await noRetry.timers
        .batch({ allowCancelViaScheduleRoute: true })
        .cancel('sdk-blocked', 'b/1')
        .send()
        .catch((e) => e);
      expect(err).toBeInstanceOf(QueenTimersError);
      expect(err).toMatchObject({
        status: 503,
        code: 'produce_blocked',
        hint: 'DELETE /api/v1/timers/:queue/*timerKey',
        retryAfterMs: 5000,
      });
      expect(await pendingRows('sdk-blocked')).toEqual(['b/1']);
      expect(await noRetry.timers.cancel('sdk-blocked', 'b/1')).toMatchObject({ ok: true, status: 'cancelled' });
    } finally {
      await admin(false);
    }
  });

  it('a batch of 600 goes out in calls of ≤ 256 and listAll pages through all of them', async () => {
    const batch = qt.timers.batch();
    for (let i = 0; i < 600; i++)
      batch.schedule({ queue: 'sdk-many', timerKey: `k/${String(i).padStart(3, '0')}`, delayMs: 3_600_000, payload: i });
    const results = await batch.send();
    expect(results).toHaveLength(600);
    expect(results.every((r) => r.status === 'scheduled')).toBe(true);
    const keys: string[] = [];
    let pages = 0;
    for await (const page of qt.timers.pages('sdk-many', { limit: 250 })) {
      pages++;
      keys.push(...page.rows.map((r) => r.timerKey));
    }
    expect(pages).toBe(3);
    expect(keys).toEqual(results.map((r) => r.timerKey));
    let n = 0;
    for await (const _row of qt.timers.listAll('sdk-many')) n++;
    expect(n).toBe(600);
  });

  it('reschedule replaces the pending timer: new txn and messageId, the new payload fires', async () => {
    const a = await qt.timers.schedule({ queue: 'sdk-resched', timerKey: 'r', delayMs: 3_600_000, payload: 'v1' });
    const b = await qt.timers.reschedule({ queue: 'sdk-resched', timerKey: 'r', delayMs: 50, payload: 'v2' });
    expect(b).toMatchObject({ ok: true, status: 'rescheduled' });
    if (a.status !== 'scheduled' || b.status !== 'rescheduled') throw new Error('unreachable');
    expect(b.txn).not.toBe(a.txn);
    expect(b.messageId).not.toBe(a.messageId);
    const frame = await popOne('sdk-resched');
    expect(frame).toMatchObject({ id: b.messageId, transactionId: b.txn });
    expect(frame.text()).toBe('v2');
  });

  it('push, pop and ack through the log helpers; a repeated push is a duplicate', async () => {
    const pushed = await qt.log.push({ queue: 'sdk-log', payload: { n: 1 }, transactionId: 'log-1' });
    expect(pushed).toMatchObject({ transaction_id: 'log-1', status: 'queued' });
    expect(await qt.log.push({ queue: 'sdk-log', payload: { n: 1 }, transactionId: 'log-1' })).toMatchObject({
      status: 'duplicate',
      message_id: pushed.message_id,
    });
    const [m] = await qt.log.pop('sdk-log');
    expect(m).toMatchObject({ id: pushed.message_id, transactionId: 'log-1', data: { n: 1 } });
    expect(await qt.log.ack(m)).toMatchObject({ transactionId: 'log-1', status: 'completed' });
    expect(await qt.log.pop('sdk-log')).toEqual([]);
  });

  it('consume hands each frame to the handler, acks it, and stops on abort', async () => {
    await qt.log.pushMany([1, 2, 3].map((n) => ({ queue: 'sdk-consume', payload: { n } })));
    const seen: number[] = [];
    const ac = new AbortController();
    const done = qt.log.consume(
      'sdk-consume',
      (m) => {
        seen.push(m.json<{ n: number }>().n);
        if (seen.length === 3) ac.abort();
      },
      { signal: ac.signal, timeoutMs: 1_000 },
    );
    await done;
    expect(seen).toEqual([1, 2, 3]);
    expect(await qt.log.pop('sdk-consume')).toEqual([]);
  });

  it('consume leaves the rest of a batch to redelivery after a failure, handling each frame in order', async () => {
    await qt.log.pushMany([1, 2, 3].map((n) => ({ queue: 'sdk-consume-fail', payload: { n } })));
    const seen: number[] = [];
    const errors: unknown[] = [];
    const ac = new AbortController();
    await qt.log.consume(
      'sdk-consume-fail',
      (m) => {
        const { n } = m.json<{ n: number }>();
        seen.push(n);
        if (seen.length === 2) throw new Error('first try of 2 fails');
        if (n === 3) ac.abort();
      },
      { signal: ac.signal, batch: 3, timeoutMs: 1_000, onError: (err) => errors.push(err) },
    );
    // 1 done; 2 failed (the lease released, 3 never handed to the handler on it); then 2 and 3 again.
    expect(seen).toEqual([1, 2, 2, 3]);
    expect(errors).toHaveLength(1);
    expect(await qt.log.pop('sdk-consume-fail')).toEqual([]);
  });

  it('seekConsumerGroup and deleteConsumerGroup let a group consume a queue again', async () => {
    // One push each, so that each frame has an instant of its own to seek to.
    for (const payload of ['a', 'b', 'c']) await qt.log.push({ queue: 'sdk-cg', payload });
    const read = async () => (await qt.log.pop('sdk-cg', { consumerGroup: 'audit', batch: 10, autoAck: true })).map((m) => m.json());
    expect(await read()).toEqual(['a', 'b', 'c']);
    expect(await qt.log.seekConsumerGroup('audit', 'sdk-cg', 'beginning')).toMatchObject({ partitionsUpdated: 1, seekToEnd: false });
    expect(await read()).toEqual(['a', 'b', 'c']);
    // The first frame's instant with its microseconds (a Date would drop them and land before it).
    const at = await tb.sql.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at FROM messages
        WHERE tenant = 'acme' AND queue = 'sdk-cg' ORDER BY seq LIMIT 1`,
    );
    await qt.log.seekConsumerGroup('audit', 'sdk-cg', { timestamp: at.rows[0].at as string });
    expect(await read()).toEqual(['b', 'c']);
    await qt.log.seekConsumerGroup('audit', 'sdk-cg', 'end');
    expect(await read()).toEqual([]);
    expect(await qt.log.deleteConsumerGroup('audit', { queue: 'sdk-cg' })).toEqual({
      success: true,
      consumerGroup: 'audit',
      queueName: 'sdk-cg',
      deletedPartitions: 1,
      metadataDeleted: true,
    });
    expect(await read()).toEqual(['a', 'b', 'c']);
    expect(await qt.log.deleteConsumerGroup('audit')).toMatchObject({ deletedPartitions: 1 });
  });
});
