// The log at any history and any partition count: every statement of pop, ack and the waiters'
// probe keeps an index-driven plan on tables analysed while empty and then filled, with
// autovacuum off — the state embedded PGlite is always in, and PostgreSQL is in after a burst.
// The plans are checked with EXPLAIN (never by timing); the behaviour on that data by the routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_PLANS, setLocal } from '../src/db/plannerSettings.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { BATCH_FRAMES_SQL, FIND_FRAMES_SQL, LOCATE_SQL, WRITE_VERDICTS_SQL } from '../src/services/log/ack.ts';
import { appendSql, LOCK_PARTITIONS_SQL } from '../src/services/log/append.ts';
import { PUSH_RESULT, PUSHED_FRAMES } from '../src/services/log/push.ts';
import { DELETE_QUEUE_SQL } from '../src/services/log/deleteQueue.ts';
import { RENEW_LEASE_SQL } from '../src/services/log/lease.ts';
import { LIVE_LEASES_SQL } from '../src/services/log/pushAndAck.ts';
import { PICK_ANY_SQL, PICK_ONE_SQL, READ_AND_COMPLETE_SQL, READ_AND_LEASE_SQL } from '../src/services/log/pop.ts';
import { PROBE_GROUPS_SQL } from '../src/services/log/waiters.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, pop, push } from './helpers/log.ts';

const TABLES = ['messages', 'partitions', 'partition_consumers', 'message_deliveries', 'consumer_groups', 'queues'];
const HISTORY = 20_000;
const WIDE = 1_000;

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
  // One frame through the routes creates the queue, partition and group rows the bulk data copies.
  await push(tb, [{ queue: 'hist', payload: 0, transactionId: 'seed' }]);
  expect((await pop(tb, '/api/v1/pop/queue/hist?consumerGroup=g&autoAck=true')).status).toBe(200);
  // Statistics of (nearly) empty tables, and nobody to refresh them.
  for (const t of TABLES) {
    if (tb.broker.db.embedded) await tb.sql.query(`ANALYZE ${t}`);
    else await tb.sql.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false); ANALYZE ${t}`);
  }
  // A long history on one partition, every frame but the last ten completed by group g…
  await tb.sql.query(
    `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, producer_sub)
     SELECT 'acme', gen_random_uuid(), 'hist', 'Default', 'h' || i, '\\x7b7d', 'bulk' FROM generate_series(1, $1::int) i`,
    [HISTORY],
  );
  await tb.sql.query(
    `INSERT INTO message_deliveries (tenant, consumer_group, message_seq, status)
     SELECT 'acme', 'g', seq, 'completed' FROM messages WHERE tenant = 'acme' AND queue = 'hist' AND transaction_id <> 'seed'
      ORDER BY seq LIMIT $1::int - 10`,
    [HISTORY],
  );
  await tb.sql.query(
    `UPDATE partitions SET last_seq = (SELECT max(seq) FROM messages) WHERE tenant = 'acme' AND queue = 'hist';
     UPDATE partition_consumers SET cursor_seq = (SELECT max(seq) FROM messages) - 10, last_seq = (SELECT max(seq) FROM messages),
            delivered_seq = (SELECT max(seq) FROM messages)
      WHERE tenant = 'acme' AND queue = 'hist'`,
  );
  // …and a queue with thousands of partitions, one frame each, nobody consumed yet.
  await tb.sql.query("INSERT INTO queues (tenant, name) VALUES ('acme', 'wide')");
  await tb.sql.query("INSERT INTO consumer_groups (tenant, queue, consumer_group) VALUES ('acme', 'wide', 'g')");
  await tb.sql.query(`INSERT INTO partitions (tenant, queue, name) SELECT 'acme', 'wide', 'p' || i FROM generate_series(1, $1::int) i`, [
    WIDE,
  ]);
  await tb.sql.query(
    `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, producer_sub)
     SELECT 'acme', gen_random_uuid(), 'wide', 'p' || i, 'w' || i, '\\x7b7d', 'bulk' FROM generate_series(1, $1::int) i`,
    [WIDE],
  );
  await tb.sql.query(
    `UPDATE partitions p SET last_seq = m.seq FROM messages m
      WHERE p.tenant = 'acme' AND p.queue = 'wide' AND m.tenant = 'acme' AND m.queue = 'wide' AND m.partition = p.name;
     INSERT INTO partition_consumers (tenant, queue, partition, consumer_group, last_seq)
     SELECT tenant, queue, name, 'g', last_seq FROM partitions WHERE tenant = 'acme' AND queue = 'wide'`,
  );
});
afterAll(async () => {
  if (tb && !tb.broker.db.embedded) for (const t of TABLES) await tb.sql.query(`ALTER TABLE ${t} RESET (autovacuum_enabled)`);
  await tb?.close();
});

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** The plan of a statement under the settings the log runs it with, as EXPLAIN's text. */
async function planOf(sql: string, params: unknown[]): Promise<string> {
  const r = await inTransaction(tb.sql, (tx) => tx.query(`EXPLAIN ${sql}`, params), { setup: setLocal(INDEX_PLANS) });
  return r.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** Plans that read more than the keys they were given: whole tables, or nested loops that filter pairs instead of probing an index. */
const FULL_SCANS =
  /Seq Scan|Bitmap Heap Scan|Hash Join|Hash Anti Join|Hash Semi Join|Merge Join|Join Filter: (?!\(\(SubPlan \d+\) IS NULL\))/;

describe('plans on tables analysed while empty', () => {
  const cases: [string, string, () => unknown[]][] = [
    ['pickAny', PICK_ANY_SQL, () => ['acme', 'wide', 'g', ['p1']]],
    ['pickOne', PICK_ONE_SQL, () => ['acme', 'wide', 'g', 'p77']],
    ['readAndLease', READ_AND_LEASE_SQL, () => ['acme', 'hist', 'Default', 'g', 0, 1000, 16 * 1024 * 1024, 0, 30, null]],
    ['readAndComplete', READ_AND_COMPLETE_SQL, () => ['acme', 'hist', 'Default', 'g', 0, 1000, 16 * 1024 * 1024, 0]],
    ['locate', LOCATE_SQL, () => ['acme', ['00000000-0000-0000-0000-000000000000'], ['g']]],
    ['batchFrames', BATCH_FRAMES_SQL, () => ['acme', ['hist'], ['Default'], ['g'], [5], [1005]]],
    ['findFrames', FIND_FRAMES_SQL, () => ['acme', ['hist'], ['Default'], ['h5'], ['g']]],
    [
      'writeVerdicts',
      WRITE_VERDICTS_SQL,
      () => [
        'acme',
        ['g'],
        [5],
        ['failed'],
        [1],
        [ZERO_UUID],
        ['g'],
        ['hist'],
        ['Default'],
        [6],
        [null],
        [4],
        ['hist'],
        ['Default'],
        ['g'],
        [5],
        [true],
      ],
    ],
    ['renewLease', RENEW_LEASE_SQL, () => ['acme', ZERO_UUID, null]],
    ['deleteQueue', DELETE_QUEUE_SQL, () => ['acme', 'hist']],
    ['liveLeases', LIVE_LEASES_SQL, () => ['acme', [ZERO_UUID]]],
    ['probeGroups', PROBE_GROUPS_SQL, () => [['acme'], ['wide'], ['g'], 16]],
    ['lockPartitions', LOCK_PARTITIONS_SQL, () => [['acme'], ['wide'], ['p5'], null]],
    [
      'append (push)',
      appendSql({ ctes: PUSHED_FRAMES, result: PUSH_RESULT, tenants: 'ARRAY[$1::text]' }),
      () => [
        'acme',
        ['00000000-0000-0000-0000-000000000001'],
        ['wide'],
        ['p5'],
        ['w5'],
        [Buffer.from('{}')],
        [false],
        'tester',
        [null],
        null,
      ],
    ],
  ];
  for (const [name, sql, params] of cases) {
    it(`${name} looks rows up by index only`, async () => {
      const plan = await planOf(sql, params());
      if (name !== 'writeVerdicts') expect(plan).not.toMatch(FULL_SCANS);
      else {
        // Its commits update the consumer rows by key, joined to the call's list (Citus routes no
        // modification that addresses rows by ctid through a subquery). With one-row statistics
        // the planner may put the consumer rows outside that join: then it reads the tenant's
        // consumer rows by the primary key, never the table.
        expect(plan).not.toMatch(/Seq Scan|Bitmap Heap Scan|Hash Join|Hash Anti Join|Hash Semi Join|Merge Join/);
        expect(plan).toMatch(/Index Scan using partition_consumers_pkey on partition_consumers c\s+\([^)]*\)\s+Index Cond: \(tenant = /);
      }
    });
  }

  it('renewLease finds its lease through partition_consumers_lease, not among all the consumer rows', async () => {
    expect(await planOf(RENEW_LEASE_SQL, ['acme', ZERO_UUID, null])).toContain('partition_consumers_lease');
  });

  it('pickAny walks partition_consumers_ready, the index of partitions with work', async () => {
    expect(await planOf(PICK_ANY_SQL, ['acme', 'wide', 'g', []])).toContain('partition_consumers_ready');
  });
});

describe('on that data', () => {
  it('a group with a long history pops the frames after its cursor, in order', async () => {
    const res = await pop(tb, '/api/v1/pop/queue/hist?consumerGroup=g&batch=100');
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: any) => m.transactionId)).toEqual(Array.from({ length: 10 }, (_, i) => `h${HISTORY - 9 + i}`));
    const acked = await ack(tb, res.body.messages[9], { consumerGroup: 'g' });
    expect(acked.status).toBe(200);
    for (const f of res.body.messages.slice(0, 9)) expect((await ack(tb, f, { consumerGroup: 'g' })).status).toBe(200);
    expect((await pop(tb, '/api/v1/pop/queue/hist?consumerGroup=g')).status).toBe(204);
  });

  it('competing consumers drain thousands of never-consumed partitions, each frame once', async () => {
    const seen = new Set<string>();
    for (;;) {
      const res = await pop(tb, '/api/v1/pop/queue/wide?consumerGroup=g&autoAck=true&batch=10');
      if (res.status === 204) break;
      for (const m of res.body.messages) {
        expect(seen.has(m.transactionId), m.transactionId).toBe(false);
        seen.add(m.transactionId);
      }
    }
    expect(seen.size).toBe(WIDE);
  });
});
