// The examples run as written (examples/*.ts), against a real broker with its sweeper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as consume from '../examples/consume.ts';
import * as retry from '../examples/retry-backoff.ts';
import * as saga from '../examples/saga-compensation.ts';
import * as schedule from '../examples/schedule.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
let token: string;
beforeAll(async () => {
  tb = await startTestBroker({ listen: true, sweeper: true });
  token = await tb.token({ tenant: 'examples', sub: 'examples', grants: ['produce', 'consume', 'read'] });
});
afterAll(() => tb?.close());

describe('examples', () => {
  it('saga: the completed orders stay completed — also the one whose compensation fired first — and the abandoned one is compensated', async () => {
    const lines: string[] = [];
    const outcome = await saga.run({ baseUrl: tb.url, token, log: (l) => lines.push(l) });
    expect(outcome).toEqual({ A: 'completed', B: 'compensated', C: 'completed' });
    expect(lines.some((l) => /-A: completed; compensation timer cancelled/.test(l))).toBe(true);
    expect(lines.some((l) => /-C: completed; compensation timer absent/.test(l))).toBe(true);
    expect(lines.some((l) => /-C: compensation fired but the order is completed — nothing to undo/.test(l))).toBe(true);
    const pending = await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE tenant = 'examples'`);
    expect(pending.rows[0].n).toBe(0);
  });

  it('schedule: a daily 09:00 in Rome shown at 09:00 Rome time, an every-two-seconds schedule that fires, both deleted', async () => {
    const lines: string[] = [];
    const r = await schedule.run({ baseUrl: tb.url, token, log: (l) => lines.push(l) });
    expect(r.digest).toHaveLength(5);
    for (const local of r.digest) expect(local).toMatch(/T09:00:00\+0[12]:00$/);
    expect(r.heartbeat).toMatch(/^schedule:[0-9a-f-]{36}@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.deleted).toEqual(['deleted', 'deleted']);
    const left = await tb.sql.query(`SELECT count(*)::int AS n FROM schedules WHERE tenant = 'examples'`);
    expect(left.rows[0].n).toBe(0);
  });

  it('retry: two failures, each retried by a timer no sooner than 250 ms and then 500 ms, and the third attempt succeeds', async () => {
    const lines: string[] = [];
    const r = await retry.run({ baseUrl: tb.url, token, log: (l) => lines.push(l) });
    expect(r.attempts).toEqual([1, 2, 3]);
    // deliverAt is a floor: each retry comes no sooner than its delay (minus HTTP/clock slack).
    expect(r.gapsMs[0]).toBeGreaterThanOrEqual(240);
    expect(r.gapsMs[1]).toBeGreaterThanOrEqual(490);
    expect(lines.at(-2)).toMatch(/sent on attempt 3/);
  });

  it("consume: queue mode completes every fired frame once, the failed one after its redelivery; the audit group reads all three; each frame carries its timer's txn and messageId", async () => {
    const lines: string[] = [];
    const r = await consume.run({ baseUrl: tb.url, token, log: (l) => lines.push(l) });
    expect(r.correlated).toBe(true);
    expect([...r.queueMode].sort()).toEqual(['order-1-reminder', 'order-2-reminder', 'order-3-reminder']);
    expect(r.deliveries).toEqual({ 'order-1-reminder': 1, 'order-2-reminder': 2, 'order-3-reminder': 1 });
    expect([...r.group].sort()).toEqual(['order-1-reminder', 'order-2-reminder', 'order-3-reminder']);
    expect(lines.some((l) => /failing the first delivery \(txn order-2-reminder\)/.test(l))).toBe(true);
    // Nothing was dead-lettered: the retry succeeded.
    const dead = await tb.sql.query(`SELECT count(*)::int AS n FROM dead_letters WHERE tenant = 'examples'`);
    expect(dead.rows[0].n).toBe(0);
  });
});
