// The log as Queen's JavaScript client (queen-mq, client-v2) drives it: the same headers (JSON
// content type on every request, GET and DELETE included; a body only when there is one), the
// same bodies and query parameters, read the way the client reads the answers. One test per row
// of docs/queen.md's compatibility table that this broker supports or accepts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { queenCreateBody, queenRequest } from './helpers/log.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true });
  token = await tb.token({ grants: ['produce', 'consume', 'read'] });
});
afterAll(() => tb?.close());

/** A request as the client's HttpClient makes it, answered as the client reads it. */
const queen = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, as = token) => queenRequest(tb, as, method, path, body);

/** The pop URL and parameters of QueueBuilder.pop() (older client: batch always sent). */
const popPath = (queue: string, o: { batch?: number; wait?: boolean; timeout?: number; group?: string; extra?: string } = {}) =>
  `/api/v1/pop/queue/${queue}?batch=${o.batch ?? 1}&wait=${o.wait ?? false}&timeout=${o.timeout ?? 30000}` +
  (o.group ? `&consumerGroup=${o.group}` : '') +
  (o.extra ?? '');

const pushItem = (queue: string, payload: unknown, extra: Record<string, unknown> = {}) => ({
  queue,
  partition: 'Default',
  payload,
  transactionId: randomUUID(),
  ...extra,
});

describe("Queen's client against the log", () => {
  it('create: configured, with queueId and every option echoed', async () => {
    const res = await queen('POST', '/api/v1/configure', queenCreateBody('qw-create', { leaseTime: 60 }));
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ configured: true, queue: 'qw-create', namespace: null, task: null });
    expect(res.data.queueId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.data.options).toMatchObject({ leaseTime: 60, retryLimit: 3, priority: 0, windowBuffer: 0, encryptionEnabled: false });
  });

  it('push: per-item results in order, duplicates carry the first message_id, an empty list answers []', async () => {
    const traceId = randomUUID();
    const first = pushItem('qw-push', { n: 1 }, { traceId });
    const res = await queen('POST', '/api/v1/push', { items: [first, pushItem('qw-push', { n: 2 })] });
    expect(res.status).toBe(201);
    expect(res.data.map((r: any) => [r.index, r.status, r.queueName])).toEqual([
      [0, 'queued', 'qw-push'],
      [1, 'queued', 'qw-push'],
    ]);
    const again = await queen('POST', '/api/v1/push', { items: [{ ...first }] });
    expect(again.data[0]).toMatchObject({ status: 'duplicate', message_id: res.data[0].message_id, transaction_id: first.transactionId });
    const empty = await queen('POST', '/api/v1/push', { items: [] });
    expect(empty).toEqual({ status: 201, data: [] });
  });

  it('pop and ack: the frame carries data, ids, lease and traceId; the ack body is the one the client sends', async () => {
    const traceId = randomUUID();
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-pop', { job: 'x' }, { traceId })] });
    const popped = await queen('GET', popPath('qw-pop', { extra: '&subscriptionMode=all&partitions=1&autopilot=true' }));
    expect(popped.status).toBe(200);
    const [msg] = popped.data.messages;
    expect(msg).toMatchObject({ data: { job: 'x' }, traceId, consumerGroup: '__QUEUE_MODE__', partition: 'Default' });
    const acked = await queen('POST', '/api/v1/ack', {
      transactionId: msg.transactionId,
      partitionId: msg.partitionId,
      status: 'completed',
      error: null,
      consumerGroup: null,
      leaseId: msg.leaseId,
    });
    // The client's parseAckResults: a top-level array, one result per acknowledgment, success a boolean.
    expect(acked.status).toBe(200);
    expect(acked.data).toMatchObject([{ index: 0, success: true, status: 'completed', leaseReleased: true, dlq: false }]);
    expect((await queen('GET', popPath('qw-pop'))).status).toBe(204);
  });

  it('consumer groups and long-poll: a waiting pop of a named group gets a frame pushed meanwhile', async () => {
    const waiting = queen('GET', popPath('qw-group', { wait: true, timeout: 10000, group: 'billing' }));
    await new Promise((r) => setTimeout(r, 200));
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-group', 'late')] });
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.data.messages[0]).toMatchObject({ data: 'late', consumerGroup: 'billing' });
  });

  it('ack/batch with the top-level consumerGroup, a failed item, and a refused one reported by string', async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('qw-batch', { retryLimit: 0 }));
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-batch', 1), pushItem('qw-batch', 2)] });
    const { data } = await queen('GET', popPath('qw-batch', { batch: 10, group: 'g' }));
    const [a, b] = data.messages;
    const res = await queen('POST', '/api/v1/ack/batch', {
      acknowledgments: [
        { transactionId: a.transactionId, partitionId: a.partitionId, status: 'completed', error: null, leaseId: a.leaseId },
        { transactionId: b.transactionId, partitionId: b.partitionId, status: 'failed', error: 'handler threw', leaseId: b.leaseId },
        { transactionId: 'never-pushed', partitionId: a.partitionId, status: 'completed', error: null },
      ],
      consumerGroup: 'g',
    });
    expect(res.status).toBe(200);
    expect(res.data.map((r: any) => [r.index, r.success, r.status ?? r.code])).toEqual([
      [0, true, 'completed'],
      [1, true, 'dlq'],
      [2, false, 'not_found'],
    ]);
    expect(res.data[1].dlq).toBe(true);
    expect(typeof res.data[2].error).toBe('string');
  });

  it('renew: the lease of a popped frame is extended with the empty body the client posts', async () => {
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-renew', 'slow')] });
    const [msg] = (await queen('GET', popPath('qw-renew'))).data.messages;
    const res = await queen('POST', `/api/v1/lease/${msg.leaseId}/extend`, {});
    expect(res.data).toMatchObject({ leaseId: msg.leaseId, success: true });
    expect(typeof res.data.newExpiresAt).toBe('string');
  });

  it('dlq: the query the client builds, with partition and time filters', async () => {
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-dlq', 'poison')] });
    const [msg] = (await queen('GET', popPath('qw-dlq'))).data.messages;
    await queen('POST', '/api/v1/ack', {
      transactionId: msg.transactionId,
      partitionId: msg.partitionId,
      status: 'dlq',
      error: 'bad',
      consumerGroup: null,
      leaseId: msg.leaseId,
    });
    const from = new Date(Date.now() - 60_000).toISOString();
    const res = await queen('GET', `/api/v1/dlq?queue=qw-dlq&limit=100&offset=0&partition=Default&from=${encodeURIComponent(from)}`);
    expect(res.status).toBe(200);
    expect(res.data.messages.map((m: any) => [m.data, m.errorMessage])).toEqual([['poison', 'bad']]);
  });

  it('transaction: the body TransactionBuilder.commit() sends (acks without leaseId, requiredLeases, a push op)', async () => {
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-tx-in', { n: 1 })] });
    const [msg] = (await queen('GET', popPath('qw-tx-in'))).data.messages;
    const res = await queen('POST', '/api/v1/transaction', {
      operations: [
        { type: 'ack', transactionId: msg.transactionId, partitionId: msg.partitionId, status: 'completed' },
        { type: 'push', items: [{ queue: 'qw-tx-out', payload: { n: 2 }, transactionId: randomUUID() }] },
      ],
      requiredLeases: [msg.leaseId],
    });
    expect(res.status).toBe(200);
    expect(res.data.success).toBe(true);
    expect((await queen('GET', popPath('qw-tx-out'))).data.messages[0].data).toEqual({ n: 2 });
    // A failed commit reaches the client as an HTTP error whose body.error it reads.
    const failed = await queen('POST', '/api/v1/transaction', {
      operations: [{ type: 'ack', transactionId: 'non-existent-id', partitionId: msg.partitionId, status: 'completed' }],
      requiredLeases: [],
    });
    expect(failed.error?.message).toMatch(/nothing was applied/);
  });

  it('delete: DELETE with the JSON header and no body answers deleted/existed, 200 both times', async () => {
    await queen('POST', '/api/v1/configure', queenCreateBody('qw-delete'));
    expect((await queen('DELETE', '/api/v1/resources/queues/qw-delete')).data).toMatchObject({ deleted: true, existed: true });
    const again = await queen('DELETE', '/api/v1/resources/queues/qw-delete');
    expect(again).toMatchObject({ status: 200, data: { deleted: false, existed: false } });
  });

  it('subscription: a group created with subscriptionMode=new skips the backlog', async () => {
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-sub', 'old')] });
    expect((await queen('GET', popPath('qw-sub', { group: 'late', extra: '&subscriptionMode=new' }))).status).toBe(204);
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-sub', 'new')] });
    expect((await queen('GET', popPath('qw-sub', { group: 'late' }))).data.messages[0].data).toBe('new');
  });

  it('multi-partition pop: partitions=3 with batch 100 answers every partition under one lease; one renew covers it', async () => {
    const items = ['a', 'b', 'c'].flatMap((p) => [1, 2].map((n) => ({ ...pushItem('qw-multi', `${p}${n}`), partition: p })));
    await queen('POST', '/api/v1/push', { items });
    const res = await queen('GET', popPath('qw-multi', { batch: 100, extra: '&partitions=3' }));
    const msgs = res.data.messages;
    expect(msgs).toHaveLength(6);
    expect(new Set(msgs.map((m: any) => m.partitionId)).size).toBe(3);
    expect(new Set(msgs.map((m: any) => m.leaseId)).size).toBe(1);
    expect((await queen('POST', `/api/v1/lease/${msgs[0].leaseId}/extend`, {})).data).toMatchObject({ success: true, renewed: 3 });
  });

  it('errors reach the caller as a message string and a code, on every route', async () => {
    const refused = await queen('POST', '/api/v1/push', { items: [pushItem('qw-err', 1, { producerSub: 'mallory' })] });
    expect(refused.status).toBe(400);
    expect(refused.error?.message).toMatch(/producerSub/);
    expect(refused.error?.code).toBe('server_owned_field');
    const lease = await queen('POST', `/api/v1/lease/${randomUUID()}/extend`, {});
    expect(lease.error?.code).toBe('lease_mismatch');
    expect(lease.error?.message).toMatch(/not live/);
    // The timer DELETE with the client's ever-present JSON header and no body.
    const cancel = await queen('DELETE', '/api/v1/timers/qw-err/no-such-timer');
    expect(cancel).toMatchObject({ status: 200, data: { ok: false, status: 'absent' } });
  });
});

/** The payload of Queen's test-v2 `pushLargePayload`: 10,000 copies of one record, about 2.17 MB of JSON. */
function queenLargePayload() {
  const record = {
    id: randomUUID().replaceAll('-', ''),
    data: 'x'.repeat(100),
    nested: { field1: 'value1', field2: 'value2', field3: 'value3' },
  };
  const array = new Array(10_000).fill(record);
  return { array, metadata: { size: JSON.stringify(array).length, timestamp: Date.now() } };
}

describe('large pushes: the plan bounds a pushed message, a timer keeps min(1 MiB, plan)', () => {
  it("Queen's 2.17 MB push is queued under the default plan and pops whole", async () => {
    const payload = queenLargePayload();
    expect(JSON.stringify(payload).length).toBeGreaterThan(2_100_000);
    const res = await queen('POST', '/api/v1/push', { items: [pushItem('qw-large', payload)] });
    expect(res.status).toBe(201);
    expect(res.data[0]).toMatchObject({ status: 'queued' });
    const popped = await queen('GET', popPath('qw-large'));
    expect(popped.data.messages[0].data.array).toHaveLength(10_000);
    expect(popped.data.messages[0].data).toEqual(payload);
  });

  it("a push over the tenant's max payload is 403 payload_too_large_for_plan naming the item; nothing is stored", async () => {
    const tenant = `big-${randomUUID().slice(0, 8)}`;
    const as = await tb.token({ tenant, grants: ['produce', 'consume', 'read'] });
    const plan = await admin(tb, 'PUT', `/api/v1/admin/tenants/${tenant}`, { body: { maxPayloadBytes: 3 * 1024 * 1024 } });
    expect(plan.body).toMatchObject({ maxPayloadBytes: 3 * 1024 * 1024, maxTimerPayloadBytes: 1024 * 1024 });
    // A JSON string's source text is its quotes plus its characters: exactly the plan, then one byte more.
    const fits = await queen('POST', '/api/v1/push', { items: [pushItem('qw-plan', 'y'.repeat(3 * 1024 * 1024 - 2))] }, as);
    expect(fits.status).toBe(201);
    const over = await queen('POST', '/api/v1/push', { items: [pushItem('qw-plan', 'y'.repeat(3 * 1024 * 1024 - 1))] }, as);
    expect(over.status).toBe(403);
    expect(over.data).toMatchObject({ code: 'payload_too_large_for_plan', field: 'items.0.payload' });
    const stored = await tb.sql.query('SELECT count(*)::int AS n FROM messages WHERE tenant = $1', [tenant]);
    expect(stored.rows[0].n).toBe(1);
  });

  it('a plan above 1 MiB still caps a timer at 1 MiB', async () => {
    const tenant = `bigt-${randomUUID().slice(0, 8)}`;
    const as = await tb.token({ tenant, grants: ['produce'] });
    await admin(tb, 'PUT', `/api/v1/admin/tenants/${tenant}`, { body: { maxPayloadBytes: 4 * 1024 * 1024 } });
    const op = (key: string, bytes: number) => ({
      op: 'schedule',
      queue: 'qw-timer',
      timerKey: key,
      delayMs: 60_000,
      payload: Buffer.alloc(bytes, 7).toString('base64'),
    });
    const ok = await queen('POST', '/api/v1/timers', { operations: [op('a', 1024 * 1024)] }, as);
    expect(ok.status).toBe(200);
    const over = await queen('POST', '/api/v1/timers', { operations: [op('b', 1024 * 1024 + 1)] }, as);
    expect(over.status).toBe(403);
    expect(over.data).toMatchObject({ code: 'payload_too_large_for_plan', field: 'operations.0.payload' });
  });

  it("the larger body limit is the push route's alone: the same body elsewhere is 413 body_too_large", async () => {
    const body = { items: [pushItem('qw-limit', 'z'.repeat(9 * 1024 * 1024))] };
    const pushed = await queen('POST', '/api/v1/push', body);
    // Past the body limit of other routes, and refused by the plan (4 MiB by default), not by the limit.
    expect(pushed.data).toMatchObject({ code: 'payload_too_large_for_plan' });
    const elsewhere = await queen('POST', '/api/v1/transaction', { operations: [{ type: 'push', items: body.items }] });
    expect(elsewhere.status).toBe(413);
    expect(elsewhere.data).toMatchObject({ code: 'body_too_large' });
    expect(elsewhere.data.error).toMatch(/8388608 bytes/);
  });
});

describe("maintenance mode: Queen's /api/v1/system/maintenance is the cluster's produce block", () => {
  it('GET and POST {enabled} as Admin.setMaintenanceMode sends it: pushes answer 503 while on, pops go on, nothing is buffered', async () => {
    const operator = await tb.operatorToken();
    await queen('POST', '/api/v1/push', { items: [pushItem('qw-maint', 'before')] });
    expect((await queen('GET', '/api/v1/system/maintenance', undefined, operator)).data).toEqual({
      maintenanceMode: false,
      popMaintenanceMode: false,
      bufferedMessages: 0,
      bufferHealthy: true,
    });
    const on = await queen('POST', '/api/v1/system/maintenance', { enabled: true }, operator);
    expect(on.status).toBe(200);
    expect(on.data).toMatchObject({ maintenanceMode: true, bufferedMessages: 0, bufferHealthy: true });
    expect(on.data.message).toMatch(/503 produce_blocked/);
    try {
      expect((await queen('GET', '/api/v1/system/maintenance', undefined, operator)).data.maintenanceMode).toBe(true);
      expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).body).toMatchObject({ produceBlocked: true });
      const refused = await fetch(`${tb.url}/api/v1/push`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ items: [pushItem('qw-maint', 'during')] }),
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect((await refused.json()).code).toBe('produce_blocked');
      // Consumers are not paused: the frame pushed before is still handed out.
      expect((await queen('GET', popPath('qw-maint', { extra: '&autoAck=true' }))).data.messages[0].data).toBe('before');
    } finally {
      const off = await queen('POST', '/api/v1/system/maintenance', { enabled: false }, operator);
      expect(off.data).toMatchObject({ maintenanceMode: false });
    }
    expect((await queen('POST', '/api/v1/push', { items: [pushItem('qw-maint', 'after')] })).status).toBe(201);
    const rows = await tb.sql.query("SELECT count(*)::int AS n FROM messages WHERE queue = 'qw-maint'");
    expect(rows.rows[0].n).toBe(2);
  });

  it("is the operator's alone: a tenant's credential is 403, none is 401; `enabled` must be a boolean", async () => {
    const tenantAdmin = await tb.token({ grants: ['admin', 'produce'] });
    expect((await queen('POST', '/api/v1/system/maintenance', { enabled: true }, tenantAdmin)).data.code).toBe('grant_missing');
    expect((await queen('GET', '/api/v1/system/maintenance', undefined, tenantAdmin)).status).toBe(403);
    const anonymous = await fetch(`${tb.url}/api/v1/system/maintenance`);
    expect(anonymous.status).toBe(401);
    const bad = await queen('POST', '/api/v1/system/maintenance', { enabled: 'yes' }, await tb.operatorToken());
    expect(bad.status).toBe(400);
    expect(bad.data).toMatchObject({ code: 'validation_failed', field: 'enabled' });
    expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).body).toMatchObject({ produceBlocked: false });
  });
});

describe('configure of an empty queue name', () => {
  it("is 400 naming the field: a queue named '' could not be addressed by the routes whose path carries the queue", async () => {
    const res = await queen('POST', '/api/v1/configure', queenCreateBody(''));
    expect(res.status).toBe(400);
    expect(res.data).toMatchObject({ code: 'validation_failed', field: 'queue' });
    expect(res.error?.message).toMatch(/^queue: /);
    const rows = await tb.sql.query("SELECT count(*)::int AS n FROM queues WHERE name = ''");
    expect(rows.rows[0].n).toBe(0);
  });
});
