// Keys and names as PostgreSQL stores and indexes them: lengths capped in UTF-8 bytes (a btree row
// holds ~2,700 bytes), well-formed Unicode only (a lone surrogate is stored as U+FFFD), a 54000
// that slips through is the input's fault (400, never 500) — and the list's limit, clamped, never
// rejected.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toApiError } from '../src/http/rest.ts';
import { createSweeper } from '../src/sweeper/index.ts';
import { consumerGroupName, partitionName, queueName, txnSchema } from '../src/contract/common.ts';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, listLimit, timerKey } from '../src/contract/timers.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { batch, cancel, keyPath, row, sched } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** n CJK characters (3 bytes each in UTF-8), varied so that PostgreSQL cannot compress them. */
const cjk = (n: number, seed = 1) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919 + seed * 104729) % 20000))).join('');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('timerKey: at most 1024 bytes (UTF-8)', () => {
  it('1,024 varied CJK characters (~3 KB, 1,024 UTF-16 units) are a 400 naming the byte limit, not a 500', async () => {
    const res = await batch(tb, [sched('bytes', cjk(1024))]);
    expect(res.status, res.raw).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      field: 'operations.0.timerKey',
      error: 'operations.0.timerKey: must be at most 1024 bytes (UTF-8)',
    });
  });

  it('a key of exactly 1,024 bytes is scheduled, peeked and cancelled; 1,025 bytes is refused', async () => {
    const key = cjk(341) + 'a'; // 1,023 + 1 bytes
    expect(bytes(key)).toBe(1024);
    expect((await batch(tb, [sched('bytes', key)])).body.results[0].status).toBe('scheduled');
    expect((await api(tb, 'GET', keyPath('bytes', encodeURIComponent(key)))).body).toMatchObject({ found: true, timerKey: key });
    expect((await api(tb, 'DELETE', keyPath('bytes', encodeURIComponent(key)))).body.status).toBe('cancelled');
    for (const over of [key + 'b', 'a'.repeat(1025), cjk(342)]) {
      expect((await batch(tb, [cancel('bytes', over)])).body).toMatchObject({
        code: 'validation_failed',
        field: 'operations.0.timerKey',
      });
    }
  });

  it('counts a 4-byte character (a surrogate pair) as 4 bytes', () => {
    expect(timerKey.safeParse('😀'.repeat(256)).success).toBe(true);
    expect(timerKey.safeParse('😀'.repeat(256) + 'a').success).toBe(false);
  });
});

describe('queue, partition, txn and consumer group: at most 256 bytes (UTF-8)', () => {
  it.each([
    ['queueName', queueName],
    ['partitionName', partitionName],
    ['txnSchema', txnSchema],
    ['consumerGroupName', consumerGroupName],
  ])('%s', (_name, schema) => {
    expect(schema.safeParse('é'.repeat(128)).success).toBe(true); // 256 bytes
    const over = schema.safeParse('é'.repeat(129)); // 129 units, 258 bytes
    expect(over.success).toBe(false);
    expect(over.error!.issues[0].message).toBe('must be at most 256 bytes (UTF-8)');
    expect(schema.safeParse('a'.repeat(257)).error!.issues[0].message).toBe('must be at most 256 bytes (UTF-8)');
  });

  it('the longest names and key together fit every index: a schedule at the limits fires into the log', async () => {
    const [queue, partition, txn] = [cjk(85, 2) + 'a', cjk(85, 3) + 'b', cjk(85, 4) + 'c']; // 256 bytes each
    const res = await batch(tb, [sched(queue, cjk(341, 5) + 'd', { partition, txn, delayMs: 0 })]);
    expect(res.status, res.raw).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'scheduled', txn });
    const sweeper = createSweeper(tb.broker.services);
    try {
      expect(await sweeper.sweepOnce()).toMatchObject({ fired: 1, failed: 0 });
    } finally {
      await sweeper.stop();
    }
    const frames = await tb.sql.query('SELECT partition, transaction_id FROM messages WHERE queue = $1', [queue]);
    expect(frames.rows).toEqual([{ partition, transaction_id: txn }]);
  });

  it.each([
    ['queue', { ...sched('é'.repeat(129), 'k') }, 'operations.0.queue'],
    ['partition', sched('q', 'k', { partition: 'é'.repeat(129) }), 'operations.0.partition'],
    ['txn', sched('q', 'k', { txn: 'é'.repeat(129) }), 'operations.0.txn'],
  ])('a %s over 256 bytes is a 400 naming it', async (_what, op, field) => {
    const res = await batch(tb, [op]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field, error: `${field}: must be at most 256 bytes (UTF-8)` });
  });
});

describe('well-formed Unicode only', () => {
  it('a lone surrogate in a key is a 400 (PostgreSQL would store U+FFFD and the verdict would be wrong)', async () => {
    const res = await batch(tb, [sched('sur', 'a\ud800')]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      field: 'operations.0.timerKey',
      error: 'operations.0.timerKey: must be well-formed Unicode',
    });
    expect(await row(tb, 'sur', 'a\ufffd')).toBeUndefined();
  });

  it('two keys that PostgreSQL would both store as U+FFFD are a 400, not a 500', async () => {
    const res = await batch(tb, [sched('sur', 'a\ud800'), sched('sur', 'a\udc00')]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it.each([
    ['queue', sched('q\udfff', 'k'), 'operations.0.queue'],
    ['partition', sched('q', 'k', { partition: '\ud83d' }), 'operations.0.partition'],
    ['txn', sched('q', 'k', { txn: 'x\ud83dy' }), 'operations.0.txn'],
    ['cancel key', cancel('q', '\udc00'), 'operations.0.timerKey'],
  ])('a lone surrogate in a %s is a 400 naming it', async (_what, op, field) => {
    expect((await batch(tb, [op])).body).toMatchObject({ code: 'validation_failed', field });
  });

  it('the consumer group name refuses a lone surrogate too; a surrogate pair is fine everywhere', () => {
    expect(consumerGroupName.safeParse('g\ud800').error!.issues[0].message).toBe('must be well-formed Unicode');
    for (const schema of [timerKey, queueName, partitionName, txnSchema, consumerGroupName])
      expect(schema.safeParse('😀').success).toBe(true);
  });
});

describe('SQLSTATE 54000 (program_limit_exceeded) is the input, not a bug', () => {
  const pgError = () =>
    Object.assign(new Error('index row size 3056 exceeds btree version 4 maximum 2704 for index "timers_pkey"'), { code: '54000' });
  it('maps to 400 validation_failed naming a key that is too long, raw or wrapped by tRPC', () => {
    for (const err of [pgError(), new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: pgError() })]) {
      const api = toApiError(err);
      expect(api.status).toBe(400);
      expect(api.code).toBe('validation_failed');
      expect(api.message).toMatch(/too long/);
    }
  });
});

describe('list limit: clamped, never rejected', () => {
  it.each([
    [undefined, LIST_LIMIT_DEFAULT],
    ['', LIST_LIMIT_DEFAULT],
    ['  ', LIST_LIMIT_DEFAULT],
    ['abc', LIST_LIMIT_DEFAULT],
    ['NaN', LIST_LIMIT_DEFAULT],
    ['Infinity', LIST_LIMIT_MAX],
    ['1e999', LIST_LIMIT_MAX],
    ['-Infinity', 1],
    ['-5', 1],
    ['0', 1],
    ['2.7', 2],
    ['7', 7],
    ['100000', LIST_LIMIT_MAX],
  ])('listLimit(%j) = %i', (raw, expected) => {
    expect(listLimit(raw)).toBe(expected);
  });

  it.each([
    ['', 100],
    ['abc', 100],
    ['Infinity', 120],
    ['1e999', 120],
    ['3', 3],
  ])('GET ?limit=%s answers 200 with %i rows', async (limit, expected) => {
    if ((await api(tb, 'GET', '/api/v1/timers/limits?limit=1000')).body.rows.length === 0) {
      await batch(
        tb,
        Array.from({ length: 120 }, (_, i) => sched('limits', `k${String(i).padStart(3, '0')}`)),
      );
    }
    const res = await api(tb, 'GET', `/api/v1/timers/limits?limit=${limit}`);
    expect(res.status, res.raw).toBe(200);
    expect(res.body.rows).toHaveLength(expected);
    expect(res.body.truncated).toBe(expected < 120);
  });
});
