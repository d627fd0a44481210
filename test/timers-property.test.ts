// Bad input and concurrency, by property: random batches (valid, invalid and mixed, random keys,
// random plans, claims in between) never produce a 5xx; a batch is either refused whole (nothing
// changed, nothing metered) or answered op by op exactly as a model of the tenant's timers
// predicts. Concurrent schedules and cancels of the same keys leave one consistent outcome.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onRealPostgres, startTestBroker, type TestBroker, admin } from './helpers/broker.ts';
import { b64, metered } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

const STATUSES = ['scheduled', 'rescheduled', 'cancelled', 'too_late', 'absent'];
const OK = new Set(['scheduled', 'rescheduled', 'cancelled']);

// A small key space so that ops collide, plus arbitrary strings (some invalid: control
// characters, dot segments, empty), lone surrogates (invalid: PostgreSQL would store U+FFFD, so
// 'a\ud800' and 'a\udc00' would be one row) and long multibyte keys on both sides of the
// 1,024-byte limit (varied CJK, 3 bytes a character, which PostgreSQL cannot compress).
const cjkArb = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0x4e00, max: 0x9fff }), { minLength: min, maxLength: max }).map((cps) => String.fromCodePoint(...cps));
const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'tenant/42', 'x y', '50%off', 'ü/日本', 'trail/') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('a\ud800', 'a\udc00', '\udfff', 'x\ud83d', '\ude00/y', '😀') },
  {
    weight: 1,
    arbitrary: fc.oneof(
      cjkArb(330, 350), // 990–1,050 bytes
      fc.constantFrom('é'.repeat(512), 'é'.repeat(513), '日'.repeat(341) + 'a', '日'.repeat(1024), '😀'.repeat(256), '😀'.repeat(257)),
    ),
  },
);
const queueArb = fc.constantFrom('q1', 'q2');

const validOp = fc.oneof(
  fc.record(
    {
      op: fc.constantFrom('schedule', 'reschedule'),
      queue: queueArb,
      timerKey: keyArb,
      delayMs: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.constant(90 * 24 * 3600 * 1000 + 1)),
      payload: fc.uint8Array({ maxLength: 96 }).map((u) => b64(Buffer.from(u))),
      txn: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      partition: fc.option(fc.constantFrom('p', 'Default'), { nil: undefined }),
    },
    { requiredKeys: ['op', 'queue', 'timerKey', 'delayMs', 'payload'] },
  ),
  fc.record(
    {
      op: fc.constant('cancel'),
      queue: queueArb,
      timerKey: keyArb,
      txn: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
    },
    { requiredKeys: ['op', 'queue', 'timerKey'] },
  ),
);

// Ops broken in one of the ways a client gets wrong.
const invalidOp = fc.oneof(
  validOp.map((o) => ({ ...o, producerSub: 'forged' })),
  validOp.map((o) => ({ ...o, _trace: 1 })),
  validOp.map((o) => ({ ...o, tenant: 'other' })),
  validOp.map((o) => ({ ...o, messageId: '00000000-0000-4000-8000-000000000000' })),
  validOp.map((o) => ({ ...o, deliverAt: '2030-01-01T00:00:00Z' })),
  validOp.map((o) => ({ ...o, delayMs: -1 })),
  validOp.map((o) => ({ ...o, delayMs: 'soon' })),
  validOp.map((o) => ({ ...o, op: 'fire' })),
  validOp.map((o) => ({ ...o, queue: 'a/b' })),
  validOp.map((o) => ({ ...o, payload: '***' })),
  fc.constant(null),
  fc.constant('schedule'),
  fc.anything(),
);

const opArb = fc.oneof({ weight: 9, arbitrary: validOp }, { weight: 1, arbitrary: invalidOp });
const stepArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('batch' as const), ops: fc.array(opArb, { minLength: 0, maxLength: 12 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('claim' as const), pick: fc.nat() }) },
);
const planArb = fc.record(
  {
    maxPendingTimers: fc.integer({ min: 0, max: 6 }),
    maxPayloadBytes: fc.integer({ min: 1, max: 80 }),
    horizonSeconds: fc.integer({ min: 1, max: 150 }),
    storageLimitBytes: fc.integer({ min: 1, max: 400 }),
  },
  { requiredKeys: [] },
);

interface ModelRow {
  txn: string;
  claimed: boolean;
}
const mkey = (queue: string, key: string) => `${queue}\u0000${key}`;

async function dbState(tenant: string): Promise<Map<string, ModelRow>> {
  const r = await tb.sql.query(
    `SELECT queue, timer_key, txn, coalesce(claim_expires_at > now(), false) AS claimed FROM timers WHERE tenant = $1`,
    [tenant],
  );
  return new Map(r.rows.map((x) => [mkey(x.queue, x.timer_key), { txn: x.txn, claimed: x.claimed }]));
}

let run = 0;

describe('random batches', () => {
  it('never 5xx; refused whole or answered op by op as the model predicts', async () => {
    await fc.assert(
      fc.asyncProperty(planArb, fc.array(stepArb, { minLength: 1, maxLength: 4 }), async (plan, steps) => {
        const tenant = `prop-${process.pid}-${++run}`;
        if (Object.keys(plan).length) expect((await admin(tb, 'PUT', `/api/v1/admin/tenants/${tenant}`, { body: plan })).status).toBe(200);
        const token = await tb.token({ tenant });
        const model = new Map<string, ModelRow>();
        for (const step of steps) {
          if (step.kind === 'claim') {
            const keys = [...model.keys()];
            if (!keys.length) continue;
            const k = keys[step.pick % keys.length];
            const [queue, timerKey] = k.split('\u0000');
            await tb.sql.query(
              `UPDATE timers SET claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 minute' WHERE tenant = $1 AND queue = $2 AND timer_key = $3`,
              [tenant, queue, timerKey],
            );
            model.get(k)!.claimed = true;
            continue;
          }
          const meterBefore = await metered(tb, tenant);
          const res = await api(tb, 'POST', '/api/v1/timers', { body: { operations: step.ops }, token });
          expect(res.status, res.raw).toBeLessThan(500);
          const after = await dbState(tenant);
          if (res.status !== 200) {
            expect(res.body.ok).toBe(false);
            expect(typeof res.body.code).toBe('string');
            expect(after).toEqual(model);
            expect(await metered(tb, tenant)).toBe(meterBefore);
            if (res.body.code === 'pending_quota_exceeded') {
              const newKeys = new Set(
                step.ops
                  .filter((o: any) => o.op !== 'cancel')
                  .map((o: any) => mkey(o.queue, o.timerKey))
                  .filter((k: string) => !model.has(k)),
              );
              expect(model.size + newKeys.size).toBeGreaterThan(plan.maxPendingTimers!);
            }
            continue;
          }
          const { results } = res.body;
          expect(results).toHaveLength(step.ops.length);
          let billed = 0;
          step.ops.forEach((op: any, i: number) => {
            const r = results[i];
            expect(STATUSES).toContain(r.status);
            expect(r.ok).toBe(OK.has(r.status));
            expect([r.queue, r.timerKey]).toEqual([op.queue, op.timerKey]);
            const k = mkey(op.queue, op.timerKey);
            const cur = model.get(k);
            if (op.op === 'cancel') {
              const expected = !cur ? 'absent' : cur.claimed ? 'too_late' : 'cancelled';
              expect(r.status).toBe(expected);
              if (op.txn !== undefined) expect(r.txn).toBe(op.txn);
              if (expected === 'cancelled') model.delete(k);
            } else {
              const expected = !cur ? 'scheduled' : cur.claimed ? 'too_late' : 'rescheduled';
              expect(r.status).toBe(expected);
              if (expected === 'too_late') expect(r.txn).toBe(cur!.txn);
              else {
                billed++;
                if (op.txn !== undefined) expect(r.txn).toBe(op.txn);
                model.set(k, { txn: r.txn, claimed: false });
              }
            }
          });
          expect(after).toEqual(model);
          expect((await metered(tb, tenant)) - meterBefore).toBe(billed);
          if (plan.maxPendingTimers !== undefined) expect(after.size).toBeLessThanOrEqual(Math.max(plan.maxPendingTimers, 0));
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('concurrent schedules and cancels of the same keys', () => {
  // Real PostgreSQL only. Embedded mode multiplexes every connection onto one PGlite backend, and
  // pglite-socket (0.2.17) queues each protocol message on its own rather than up to Sync, so two
  // concurrent parameterised statements interleave their Parse/Bind/Execute and fail with 26000
  // "unnamed prepared statement does not exist" or leave the backend mid-protocol. That is a
  // property of the embedded database layer (src/db), reported separately, not of these routes.
  it.skipIf(!onRealPostgres)('leave exactly one consistent outcome per key: no duplicate rows, no lost update', async () => {
    const tenant = 'race';
    const token = await tb.token({ tenant });
    const keys = ['k1', 'k2', 'k3', 'tenant/4'];
    const meterBefore = await metered(tb, tenant);
    const answers: { op: string; key: string; status: string; txn: string | null; messageId?: string }[] = [];
    let seq = 0;
    const worker = async (w: number) => {
      for (let i = 0; i < 15; i++) {
        const pick = (j: number) => keys[(w * 7 + i * 3 + j) % keys.length];
        if ((w + i) % 5 === 0) {
          const key = pick(0);
          const res = await api(tb, 'DELETE', `/api/v1/timers/rq/${key}`, { token });
          expect(res.status, res.raw).toBe(200);
          answers.push({ op: 'cancel', key, status: res.body.status, txn: res.body.txn });
          continue;
        }
        // Multi-op batches on distinct keys, in varying orders, mixing schedules and cancels.
        const ops = [0, 1, 2].map((j) => {
          const key = pick(j + (i % 2));
          return (w + i + j) % 3 === 0
            ? { op: 'cancel', queue: 'rq', timerKey: key }
            : { op: 'schedule', queue: 'rq', timerKey: key, delayMs: 600_000, payload: b64('x'), txn: `w${w}-${seq++}` };
        });
        const unique = ops.filter((o, idx) => ops.findIndex((p) => p.timerKey === o.timerKey) === idx);
        const res = await api(tb, 'POST', '/api/v1/timers', { body: { operations: unique }, token });
        expect(res.status, res.raw).toBe(200);
        res.body.results.forEach((r: any, idx: number) =>
          answers.push({ op: unique[idx].op, key: r.timerKey, status: r.status, txn: r.txn, messageId: r.messageId }),
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));

    const rows = await tb.sql.query(`SELECT timer_key, txn, message_id FROM timers WHERE tenant = $1 AND queue = 'rq'`, [tenant]);
    for (const key of keys) {
      const mine = answers.filter((a) => a.key === key);
      const scheduled = mine.filter((a) => a.status === 'scheduled').length;
      const cancelled = mine.filter((a) => a.status === 'cancelled').length;
      const present = rows.rows.filter((r) => r.timer_key === key);
      expect(present.length).toBeLessThanOrEqual(1);
      // Every scheduled answer created the row from nothing and every cancelled answer removed
      // it: in any serial order they alternate, so the difference is whether a row remains.
      expect(scheduled - cancelled).toBe(present.length);
      if (present.length) {
        const winner = mine.find((a) => a.txn === present[0].txn && (a.status === 'scheduled' || a.status === 'rescheduled'));
        expect(winner?.messageId).toBe(present[0].message_id);
      }
      for (const a of mine) expect(a.status).not.toBe('too_late');
    }
    const billed = answers.filter((a) => a.status === 'scheduled' || a.status === 'rescheduled').length;
    expect((await metered(tb, tenant)) - meterBefore).toBe(billed);
  });
});
