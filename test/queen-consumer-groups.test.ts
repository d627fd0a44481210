// Consumer-group delete and seek, as Queen's client calls them: Queen.deleteConsumerGroup(group,
// deleteMetadata) → DELETE /api/v1/consumer-groups/:group?deleteMetadata=…, Admin's
// deleteConsumerGroupForQueue → DELETE …/:group/queues/:queue?deleteMetadata=…, and
// seekConsumerGroup(group, queue, {toEnd} | {timestamp}) → POST …/:group/queues/:queue/seek. The
// client sends its JSON content type on every request and reads `error` of a refusal.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETE_GROUP_SQL } from '../src/services/log/consumerGroups.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';
import { queenRequest } from './helpers/log.ts';
import { batch, sched } from './helpers/timers.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true });
  token = await tb.token({ grants: ['produce', 'consume', 'read'] });
});
afterAll(() => tb?.close());

const queen = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, as = token) => queenRequest(tb, as, method, path, body);

const push = (queue: string, payloads: unknown[], partition = 'Default', as = token) =>
  queen('POST', '/api/v1/push', { items: payloads.map((payload) => ({ queue, partition, payload, transactionId: randomUUID() })) }, as);

/** One pop of a group as QueueBuilder.pop() sends it; the payloads it got. */
async function popData(queue: string, group: string, o: { batch?: number; autoAck?: boolean; as?: string } = {}) {
  const res = await queen(
    'GET',
    `/api/v1/pop/queue/${queue}?batch=${o.batch ?? 10}&wait=false&timeout=30000&consumerGroup=${group}&autoAck=${o.autoAck ?? true}`,
    undefined,
    o.as,
  );
  return res.status === 204 ? [] : res.data.messages.map((m: { data: unknown }) => m.data);
}

const cursors = async (tenant: string, queue: string, group: string) =>
  (
    await tb.sql.query(
      'SELECT partition, cursor_seq::int AS cursor FROM partition_consumers WHERE tenant = $1 AND queue = $2 AND consumer_group = $3 ORDER BY partition',
      [tenant, queue, group],
    )
  ).rows;

describe('consumer-group delete', () => {
  it("deleteConsumerGroup: the group's cursors, registration and failure counts go; its next pop reads the queue again", async () => {
    await push('cg-del', ['a', 'b', 'c']);
    expect(await popData('cg-del', 'g')).toEqual(['a', 'b', 'c']);
    expect(await popData('cg-del', 'g')).toEqual([]);
    const res = await queen('DELETE', '/api/v1/consumer-groups/g?deleteMetadata=true');
    expect(res).toEqual({ status: 200, data: { success: true, consumerGroup: 'g', deletedPartitions: 1, metadataDeleted: true } });
    expect(await cursors('acme', 'cg-del', 'g')).toEqual([]);
    const registered = await tb.sql.query(
      "SELECT 1 FROM consumer_groups WHERE tenant = 'acme' AND queue = 'cg-del' AND consumer_group = 'g'",
    );
    expect(registered.rows).toHaveLength(0);
    expect(await popData('cg-del', 'g')).toEqual(['a', 'b', 'c']);
  });

  it('a re-registered group takes the subscription mode of its next pop', async () => {
    await push('cg-del-new', ['old']);
    expect(await popData('cg-del-new', 'g2')).toEqual(['old']);
    await queen('DELETE', '/api/v1/consumer-groups/g2');
    const res = await queen('GET', '/api/v1/pop/queue/cg-del-new?batch=10&wait=false&consumerGroup=g2&subscriptionMode=new');
    expect(res.status).toBe(204);
    await push('cg-del-new', ['new']);
    expect(await popData('cg-del-new', 'g2')).toEqual(['new']);
  });

  it('a failed frame counts its retries again from zero after the delete', async () => {
    await queen('POST', '/api/v1/configure', { queue: 'cg-del-retry', options: { retryLimit: 1 } });
    await push('cg-del-retry', ['x']);
    const first = await queen('GET', '/api/v1/pop/queue/cg-del-retry?batch=1&wait=false&consumerGroup=g3');
    const m = first.data.messages[0];
    await queen('POST', '/api/v1/ack', {
      transactionId: m.transactionId,
      partitionId: m.partitionId,
      leaseId: m.leaseId,
      status: 'failed',
      consumerGroup: 'g3',
    });
    const verdicts = () =>
      tb.sql.query("SELECT retry_count FROM message_deliveries WHERE tenant = 'acme' AND consumer_group = 'g3'").then((r) => r.rows);
    expect(await verdicts()).toEqual([{ retry_count: 1 }]);
    await queen('DELETE', '/api/v1/consumer-groups/g3/queues/cg-del-retry');
    expect(await verdicts()).toEqual([]);
  });

  it('deleteConsumerGroupForQueue removes the group on that queue only', async () => {
    await push('cg-q1', [1]);
    await push('cg-q2', [2]);
    expect(await popData('cg-q1', 'shared')).toEqual([1]);
    expect(await popData('cg-q2', 'shared')).toEqual([2]);
    const res = await queen('DELETE', '/api/v1/consumer-groups/shared/queues/cg-q1?deleteMetadata=false');
    expect(res.data).toEqual({ success: true, consumerGroup: 'shared', queueName: 'cg-q1', deletedPartitions: 1, metadataDeleted: false });
    expect(await popData('cg-q1', 'shared')).toEqual([1]);
    expect(await popData('cg-q2', 'shared')).toEqual([]);
  });

  it('a delete made elsewhere (another broker) is seen by a pop of a group this broker had cached', async () => {
    await push('cg-elsewhere', ['p']);
    expect(await popData('cg-elsewhere', 'cached')).toEqual(['p']);
    // What another broker's delete runs; this broker's cache still says the group is registered.
    await tb.sql.query(DELETE_GROUP_SQL, ['acme', 'cg-elsewhere', 'cached']);
    expect(await popData('cg-elsewhere', 'cached')).toEqual(['p']);
  });

  it('answers deletedPartitions 0 for a group that is not registered, and leaves the same name in another tenant alone', async () => {
    await push('cg-iso', ['mine']);
    expect(await popData('cg-iso', 'iso', { batch: 1 })).toEqual(['mine']);
    const other = await tb.token({ tenant: 'globex', grants: ['consume'] });
    expect((await queen('DELETE', '/api/v1/consumer-groups/iso', undefined, other)).data).toMatchObject({ deletedPartitions: 0 });
    expect((await queen('DELETE', '/api/v1/consumer-groups/iso/queues/cg-iso', undefined, other)).data).toMatchObject({
      deletedPartitions: 0,
    });
    expect(await cursors('acme', 'cg-iso', 'iso')).toEqual([{ partition: 'Default', cursor: expect.any(Number) }]);
    expect((await cursors('acme', 'cg-iso', 'iso'))[0].cursor).toBeGreaterThan(0);
  });

  it('needs the consume grant', async () => {
    const producer = await tb.token({ grants: ['produce'] });
    const res = await queen('DELETE', '/api/v1/consumer-groups/g', undefined, producer);
    expect(res.status).toBe(403);
    expect(res.data.code).toBe('grant_missing');
  });
});

describe('consumer-group seek', () => {
  /** Pushes one frame per call, so each has its own createdAt; answers those instants. */
  async function framesWithInstants(queue: string, payloads: string[]) {
    for (const p of payloads) await push(queue, [p]);
    const r = await tb.sql.query(
      "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS at FROM messages WHERE tenant = 'acme' AND queue = $1 ORDER BY seq",
      [queue],
    );
    return r.rows.map((row) => row.at as string);
  }

  it('seekBackwardsAllowsReconsume: to a timestamp, the group next reads the first frame created after it', async () => {
    const at = await framesWithInstants('cg-seek', ['a', 'b', 'c']);
    expect(await popData('cg-seek', 's')).toEqual(['a', 'b', 'c']);
    const res = await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek/seek', { timestamp: at[0] });
    expect(res).toEqual({
      status: 200,
      data: { success: true, consumerGroup: 's', queueName: 'cg-seek', seekToEnd: false, targetTimestamp: at[0], partitionsUpdated: 1 },
    });
    expect(await popData('cg-seek', 's')).toEqual(['b', 'c']);
  });

  it('to the beginning (toBeginning, or an instant before every frame) and to the end', async () => {
    await framesWithInstants('cg-seek2', ['a', 'b']);
    expect(await popData('cg-seek2', 's')).toEqual(['a', 'b']);
    await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek2/seek', { toBeginning: true });
    expect(await popData('cg-seek2', 's')).toEqual(['a', 'b']);
    await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek2/seek', { timestamp: '2000-01-01T00:00:00Z' });
    expect(await popData('cg-seek2', 's', { batch: 1 })).toEqual(['a']);
    const end = await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek2/seek', { toEnd: true });
    expect(end.data).toMatchObject({ seekToEnd: true, targetTimestamp: null, partitionsUpdated: 1 });
    expect(await popData('cg-seek2', 's')).toEqual([]);
    await push('cg-seek2', ['c']);
    expect(await popData('cg-seek2', 's')).toEqual(['c']);
  });

  it('moves every partition of the queue and releases a live lease: its frames come again, its ack is refused', async () => {
    await push('cg-seek3', ['p1'], 'one');
    await push('cg-seek3', ['p2'], 'two');
    const leased = await queen('GET', '/api/v1/pop/queue/cg-seek3?batch=10&wait=false&consumerGroup=s&partitions=2');
    expect(leased.data.messages).toHaveLength(2);
    const res = await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek3/seek', { toBeginning: true });
    expect(res.data.partitionsUpdated).toBe(2);
    const m = leased.data.messages[0];
    const ack = await queen('POST', '/api/v1/ack', {
      transactionId: m.transactionId,
      partitionId: m.partitionId,
      leaseId: m.leaseId,
      status: 'completed',
      consumerGroup: 's',
    });
    expect(ack.status).toBe(409);
    expect((await popData('cg-seek3', 's', { batch: 10 })).length).toBe(1);
    expect((await popData('cg-seek3', 's', { batch: 10 })).length).toBe(1);
  });

  it('refuses a body with none or several of toEnd, timestamp and toBeginning, naming the field', async () => {
    for (const body of [{}, { toEnd: true, timestamp: '2026-01-01T00:00:00Z' }, { toEnd: false }]) {
      const res = await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek/seek', body);
      expect(res.status).toBe(400);
      expect(res.data).toMatchObject({ code: 'validation_failed', field: 'timestamp' });
    }
    const bad = await queen('POST', '/api/v1/consumer-groups/s/queues/cg-seek/seek', { timestamp: 'yesterday' });
    expect(bad.data).toMatchObject({ code: 'validation_failed', field: 'timestamp' });
  });

  it("moves nothing of another tenant's group of the same name on a queue of the same name", async () => {
    await push('cg-seek-iso', ['mine']);
    expect(await popData('cg-seek-iso', 'iso')).toEqual(['mine']);
    const other = await tb.token({ tenant: 'globex', grants: ['produce', 'consume'] });
    await push('cg-seek-iso', ['theirs'], 'Default', other);
    expect(await popData('cg-seek-iso', 'iso', { as: other })).toEqual(['theirs']);
    const res = await queen('POST', '/api/v1/consumer-groups/iso/queues/cg-seek-iso/seek', { toBeginning: true }, other);
    expect(res.data.partitionsUpdated).toBe(1);
    expect(await popData('cg-seek-iso', 'iso')).toEqual([]);
    expect(await popData('cg-seek-iso', 'iso', { as: other })).toEqual(['theirs']);
  });
});

describe("consumer-group bootstrap over many partitions (Queen's testCgBootstrapNew / testCgBootstrapTimestamp)", () => {
  const P = 200;
  const pushEach = (queue: string, tag: string) =>
    queen('POST', '/api/v1/push', {
      items: Array.from({ length: P }, (_, i) => ({ queue, partition: `p-${i}`, payload: { i, tag }, transactionId: randomUUID() })),
    });

  /** Drains a group with multi-partition pops; the tags it received. */
  async function drainTags(queue: string, group: string, extra = '') {
    const tags: string[] = [];
    for (;;) {
      const res = await queen(
        'GET',
        `/api/v1/pop/queue/${queue}?batch=100&partitions=100&wait=false&autoAck=true&consumerGroup=${group}${extra}`,
      );
      if (res.status === 204) return tags;
      tags.push(...res.data.messages.map((m: { data: { tag: string } }) => m.data.tag));
    }
  }

  it('subscriptionMode=new and subscriptionFrom start every partition after its frames; each new frame is read once', async () => {
    await pushEach('cg-boot', 'old');
    const cutoff = (await tb.sql.query(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`))
      .rows[0].at;
    expect((await queen('GET', '/api/v1/pop/queue/cg-boot?batch=1&wait=false&consumerGroup=new&subscriptionMode=new')).status).toBe(204);
    expect(
      (await queen('GET', `/api/v1/pop/queue/cg-boot?batch=1&wait=false&consumerGroup=ts&subscriptionFrom=${encodeURIComponent(cutoff)}`))
        .status,
    ).toBe(204);
    // Every partition's cursor is at its newest frame, for both groups.
    const behind = await tb.sql.query(
      `SELECT c.consumer_group, count(*)::int AS n FROM partition_consumers c JOIN partitions p
          ON p.tenant = c.tenant AND p.queue = c.queue AND p.name = c.partition
        WHERE c.tenant = 'acme' AND c.queue = 'cg-boot' AND c.consumer_group IN ('new', 'ts') AND c.cursor_seq = p.last_seq
        GROUP BY c.consumer_group ORDER BY 1`,
    );
    expect(behind.rows).toEqual([
      { consumer_group: 'new', n: P },
      { consumer_group: 'ts', n: P },
    ]);
    await pushEach('cg-boot', 'new');
    const fresh = await drainTags('cg-boot', 'new');
    const since = await drainTags('cg-boot', 'ts');
    expect([fresh.length, since.length]).toEqual([P, P]);
    expect(new Set([...fresh, ...since])).toEqual(new Set(['new']));
    // The reference: a group that reads from the beginning gets both generations.
    expect((await drainTags('cg-boot', 'all')).length).toBe(2 * P);
  });
  it('writes no cursor for a partition that never held a frame; its first frame is read by every group, from the start', async () => {
    // 150 partitions created ahead, empty, by timers due in an hour (a schedule creates its
    // partition); 50 with a frame each.
    const empty = Array.from({ length: 150 }, (_, i) => `e-${i}`);
    for (let i = 0; i < empty.length; i += 50) {
      const ops = empty.slice(i, i + 50).map((p) => sched('cg-boot-empty', `t-${p}`, { partition: p, delayMs: 3_600_000 }));
      expect((await batch(tb, ops)).status).toBe(200);
    }
    const full = Array.from({ length: 50 }, (_, i) => `f-${i}`);
    const pushTo = (partitions: string[], tag: string) =>
      queen('POST', '/api/v1/push', {
        items: partitions.map((partition) => ({ queue: 'cg-boot-empty', partition, payload: { tag }, transactionId: randomUUID() })),
      });
    await pushTo(full, 'old');
    expect((await queen('GET', '/api/v1/pop/queue/cg-boot-empty?batch=1&wait=false&consumerGroup=new&subscriptionMode=new')).status).toBe(
      204,
    );
    const cutoff = (await tb.sql.query(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`))
      .rows[0].at;
    expect(
      (
        await queen(
          'GET',
          `/api/v1/pop/queue/cg-boot-empty?batch=1&wait=false&consumerGroup=ts&subscriptionFrom=${encodeURIComponent(cutoff)}`,
        )
      ).status,
    ).toBe(204);
    // Registration wrote cursors on the 50 partitions with a frame only.
    const rows = await tb.sql.query(
      `SELECT consumer_group, count(*)::int AS n, count(*) FILTER (WHERE partition LIKE 'e-%')::int AS on_empty FROM partition_consumers
        WHERE tenant = 'acme' AND queue = 'cg-boot-empty' GROUP BY consumer_group ORDER BY 1`,
    );
    expect(rows.rows).toEqual([
      { consumer_group: 'new', n: 50, on_empty: 0 },
      { consumer_group: 'ts', n: 50, on_empty: 0 },
    ]);
    // New frames in every partition, empty ones included: each group reads each new frame once.
    await pushTo([...empty, ...full], 'new');
    const fresh = await drainTags('cg-boot-empty', 'new');
    const since = await drainTags('cg-boot-empty', 'ts');
    expect([fresh.length, since.length]).toEqual([200, 200]);
    expect(new Set([...fresh, ...since])).toEqual(new Set(['new']));
    expect((await drainTags('cg-boot-empty', 'all')).length).toBe(250);
  });
});
