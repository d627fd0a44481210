// The gates of POST /api/v1/timers in the contract's order (boot flag, cluster block, auth,
// produce grant, paused, rate, quota, storage, horizon, payload ceiling), whole-batch refusals,
// the x-queen-timers-hint header — and the DELETE route, which only the boot flag may refuse.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PendingCounts } from '../src/plans/pendingCounts.ts';
import { api, onRealPostgres, startTestBroker, type TestBroker, admin } from './helpers/broker.ts';
import { b64, batch, cancel, keyPath, metered, row, sched, snapshot } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());
afterEach(async () => {
  tb.broker.state.ready = true;
  await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: false } });
});

const HINT = 'DELETE /api/v1/timers/:queue/*timerKey';
let n = 0;
/** A fresh tenant per test, with an optional plan. */
async function tenantWith(plan: Record<string, unknown> = {}) {
  const tenant = `gate-${++n}`;
  if (Object.keys(plan).length) {
    const put = await admin(tb, 'PUT', `/api/v1/admin/tenants/${tenant}`, { body: plan });
    expect(put.status).toBe(200);
  }
  return { tenant, token: await tb.token({ tenant }) };
}

/** Fills the tenant's current rate window (a window in the future counts as current). */
async function exhaustRate(tenant: string, ops: number) {
  await tb.sql.query(
    `INSERT INTO schedule_rate_windows (tenant, window_start, ops) VALUES ($1, date_trunc('second', now()) + interval '1 hour', $2)
     ON CONFLICT (tenant) DO UPDATE SET window_start = EXCLUDED.window_start, ops = EXCLUDED.ops`,
    [tenant, ops],
  );
}

async function expectRefusedWhole(tenant: string, token: string, operations: unknown[], status: number, code: string) {
  const before = await snapshot(tb, tenant);
  const m = await metered(tb, tenant);
  const res = await batch(tb, operations, { token });
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ ok: false, error: expect.any(String), code });
  expect(await snapshot(tb, tenant)).toBe(before);
  expect(await metered(tb, tenant)).toBe(m);
  return res;
}

describe('each gate of POST, with its status and code; a refused batch changes nothing', () => {
  it('boot flag: 503 not_ready with Retry-After', async () => {
    const { tenant, token } = await tenantWith();
    tb.broker.state.ready = false;
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'k')], 503, 'not_ready');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('cluster produce block: 503 produce_blocked with Retry-After', async () => {
    const { tenant, token } = await tenantWith();
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } });
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'k')], 503, 'produce_blocked');
    expect(res.headers['retry-after']).toBe('5');
  });

  it('auth: 401 without a credential and with a bad one', async () => {
    expect((await batch(tb, [sched('q', 'k')], { token: null })).status).toBe(401);
    const bad = await batch(tb, [sched('q', 'k')], { token: 'not-a-jwt' });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('token_invalid');
  });

  it('produce grant: 403 grant_missing for a read-only credential', async () => {
    const { tenant } = await tenantWith();
    const token = await tb.token({ tenant, grants: ['read', 'consume', 'admin'] });
    await expectRefusedWhole(tenant, token, [sched('q', 'k')], 403, 'grant_missing');
  });

  it('a produce-only credential can schedule', async () => {
    const { tenant } = await tenantWith();
    const token = await tb.token({ tenant, grants: ['produce'] });
    expect((await batch(tb, [sched('q', 'k')], { token })).body.results[0].status).toBe('scheduled');
  });

  it('tenant schedule paused: 403 schedule_paused', async () => {
    const { tenant, token } = await tenantWith({ schedulePaused: true });
    await expectRefusedWhole(tenant, token, [sched('q', 'k')], 403, 'schedule_paused');
  });

  it('rate: 429 rate_limited with Retry-After when the window is full', async () => {
    const { tenant, token } = await tenantWith({ scheduleRatePerSecond: 10 });
    await exhaustRate(tenant, 9);
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'a'), sched('q', 'b')], 429, 'rate_limited');
    expect(res.headers['retry-after']).toBe('1');
    // The refused batch did not consume the window; one more op still fits.
    expect((await tb.sql.query('SELECT ops FROM schedule_rate_windows WHERE tenant = $1', [tenant])).rows[0].ops).toBe(9);
    expect((await batch(tb, [sched('q', 'a')], { token })).body.results[0].status).toBe('scheduled');
  });

  it.skipIf(!onRealPostgres)('rate: the window is shared by every broker of the cell', async () => {
    const other = await startTestBroker({ databaseUrl: tb.config.DATABASE_URL });
    try {
      const { tenant, token } = await tenantWith({ scheduleRatePerSecond: 3 });
      await exhaustRate(tenant, 1);
      expect((await batch(tb, [sched('q', 'a')], { token })).status).toBe(200);
      expect((await batch(other, [sched('q', 'b')], { token })).status).toBe(200);
      const refused = await batch(other, [sched('q', 'c')], { token });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect((await batch(tb, [sched('q', 'c')], { token })).status).toBe(429);
    } finally {
      await other.close();
    }
  });

  it('rate: counts every op of admitted batches in the tenant window', async () => {
    const { tenant, token } = await tenantWith({ scheduleRatePerSecond: 1000 });
    await exhaustRate(tenant, 0);
    await batch(tb, [sched('q', 'a'), sched('q', 'b'), cancel('q', 'c')], { token });
    expect((await tb.sql.query('SELECT ops FROM schedule_rate_windows WHERE tenant = $1', [tenant])).rows[0].ops).toBe(3);
  });

  it('rate: a batch larger than the per-second rate is 403 batch_exceeds_rate (no retry admits it), naming the split', async () => {
    const { tenant, token } = await tenantWith({ scheduleRatePerSecond: 2 });
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'a'), sched('q', 'b'), sched('q', 'c')], 403, 'batch_exceeds_rate');
    expect(res.body.error).toMatch(/split it into batches of at most 2 ops/);
    expect(res.body.scheduleRatePerSecond).toBe(2);
    expect(res.headers['retry-after']).toBeUndefined();
    // A batch of exactly the rate is admitted.
    expect((await batch(tb, [sched('q', 'a'), sched('q', 'b')], { token })).status).toBe(200);
  });

  it('pending quota: 429 pending_quota_exceeded with Retry-After when the batch could exceed it', async () => {
    const { tenant, token } = await tenantWith({ maxPendingTimers: 2 });
    expect((await batch(tb, [sched('q', 'a'), sched('q', 'b')], { token })).status).toBe(200);
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'c')], 429, 'pending_quota_exceeded');
    expect(res.headers['retry-after']).toBe('30');
  });

  it('pending quota: rescheduling existing timers at a full quota is allowed (it creates no row)', async () => {
    const { token } = await tenantWith({ maxPendingTimers: 2 });
    await batch(tb, [sched('q', 'a'), sched('q', 'b')], { token });
    const res = await batch(tb, [sched('q', 'a'), sched('q', 'b', { op: 'reschedule' })], { token });
    expect(res.body.results.map((r: any) => r.status)).toEqual(['rescheduled', 'rescheduled']);
  });

  it('pending quota: counts the distinct new keys of the batch', async () => {
    const { tenant, token } = await tenantWith({ maxPendingTimers: 3 });
    await expectRefusedWhole(
      tenant,
      token,
      [sched('q', 'a'), sched('q', 'b'), sched('q', 'c'), sched('q', 'd')],
      429,
      'pending_quota_exceeded',
    );
    const res = await batch(tb, [sched('q', 'a'), sched('q', 'b'), sched('q', 'c'), sched('q', 'a')], { token });
    expect(res.status).toBe(200);
  });

  it('pending quota: frees as timers go', async () => {
    const { tenant, token } = await tenantWith({ maxPendingTimers: 1 });
    await batch(tb, [sched('q', 'a')], { token });
    expect((await batch(tb, [sched('q', 'b')], { token })).status).toBe(429);
    await tb.sql.query('DELETE FROM timers WHERE tenant = $1', [tenant]); // as a fire would
    expect((await batch(tb, [sched('q', 'b')], { token })).status).toBe(200);
  });

  it('pending quota of zero refuses any schedule', async () => {
    const { tenant, token } = await tenantWith({ maxPendingTimers: 0 });
    await expectRefusedWhole(tenant, token, [sched('q', 'a')], 429, 'pending_quota_exceeded');
  });

  it('storage: 403 storage_limit_exceeded when stored bytes would pass the limit', async () => {
    const { tenant, token } = await tenantWith({ storageLimitBytes: 10 });
    expect((await batch(tb, [sched('q', 'a', { payload: b64('12345') })], { token })).status).toBe(200);
    await expectRefusedWhole(tenant, token, [sched('q', 'b', { payload: b64('123456') })], 403, 'storage_limit_exceeded');
    expect((await batch(tb, [sched('q', 'b', { payload: b64('12345') })], { token })).status).toBe(200);
  });

  it('storage: concurrent batches never pass the limit together (each is weighed after the ones before)', async () => {
    const { tenant, token } = await tenantWith({ storageLimitBytes: 100_000 });
    // 1,000 bytes (under the 1 KiB compression threshold): 16 batches of 20 offer 320 kB.
    const blob = randomBytes(1_000).toString('base64');
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, b) =>
        batch(
          tb,
          Array.from({ length: 20 }, (_, i) => sched('q', `c${b}-${i}`, { payload: blob })),
          { token },
        ),
      ),
    );
    const stored = Number(
      (await tb.sql.query(`SELECT coalesce(sum(octet_length(payload)), 0) AS n FROM timers WHERE tenant = $1`, [tenant])).rows[0].n,
    );
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === 200 || r.body.code === 'storage_limit_exceeded')).toBe(true);
    expect(stored).toBeLessThanOrEqual(100_000);
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
  });

  it('storage: counts the tenant log frames too', async () => {
    const { tenant, token } = await tenantWith({ storageLimitBytes: 10 });
    await tb.sql.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, producer_sub)
       VALUES ($1, gen_random_uuid(), 'q', 'Default', 'frame-1', '\\x0102030405060708'::bytea, 'x')`,
      [tenant],
    );
    await expectRefusedWhole(tenant, token, [sched('q', 'a', { payload: b64('123') })], 403, 'storage_limit_exceeded');
  });

  it('horizon: 403 horizon_exceeded beyond the tenant horizon, naming the op', async () => {
    const { tenant, token } = await tenantWith({ horizonSeconds: 60 });
    expect((await batch(tb, [sched('q', 'a', { delayMs: 60_000 })], { token })).status).toBe(200);
    const res = await expectRefusedWhole(tenant, token, [sched('q', 'b'), sched('q', 'c', { delayMs: 60_001 })], 403, 'horizon_exceeded');
    expect(res.body.field).toBe('operations.1.delayMs');
  });

  it('horizon: the cell default is 90 days', async () => {
    const { tenant, token } = await tenantWith();
    const days90 = 90 * 24 * 3600 * 1000;
    expect(tb.config.QUEEN_DEFAULT_HORIZON_SECONDS).toBe(90 * 24 * 3600);
    expect((await batch(tb, [sched('q', 'a', { delayMs: days90 })], { token })).status).toBe(200);
    await expectRefusedWhole(tenant, token, [sched('q', 'b', { delayMs: days90 + 1 })], 403, 'horizon_exceeded');
    await expectRefusedWhole(tenant, token, [sched('q', 'c', { delayMs: Number.MAX_SAFE_INTEGER })], 403, 'horizon_exceeded');
  });

  it("horizon: a tenant's horizon cannot widen the cell's", async () => {
    const { tenant, token } = await tenantWith({ horizonSeconds: 365 * 24 * 3600 });
    await expectRefusedWhole(tenant, token, [sched('q', 'b', { delayMs: 90 * 24 * 3600 * 1000 + 1 })], 403, 'horizon_exceeded');
  });

  it('payload ceiling: 403 payload_too_large_for_plan over the plan max, measured on the decoded payload', async () => {
    const { tenant, token } = await tenantWith({ maxPayloadBytes: 16 });
    // 16 bytes decode from 24 base64 characters: the ceiling is on the decoded bytes.
    expect((await batch(tb, [sched('q', 'a', { payload: b64('x'.repeat(16)) })], { token })).status).toBe(200);
    const res = await expectRefusedWhole(
      tenant,
      token,
      [sched('q', 'b', { payload: b64('x'.repeat(17)) })],
      403,
      'payload_too_large_for_plan',
    );
    expect(res.body.field).toBe('operations.0.payload');
  });

  it('payload ceiling: 1 MiB whatever the plan', async () => {
    const { tenant, token } = await tenantWith();
    expect((await batch(tb, [sched('q', 'a', { payload: b64(Buffer.alloc(1024 * 1024, 7)) })], { token })).status).toBe(200);
    await expectRefusedWhole(
      tenant,
      token,
      [sched('q', 'b', { payload: b64(Buffer.alloc(1024 * 1024 + 1, 7)) })],
      403,
      'payload_too_large_for_plan',
    );
  });
});

describe('gate order: an earlier rung wins when several refuse', () => {
  it('boot flag before auth', async () => {
    tb.broker.state.ready = false;
    expect((await batch(tb, [sched('q', 'k')], { token: null })).body.code).toBe('not_ready');
  });

  it('cluster block before auth', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } });
    expect((await batch(tb, [sched('q', 'k')], { token: null })).body.code).toBe('produce_blocked');
  });

  it('grant before paused', async () => {
    const { tenant } = await tenantWith({ schedulePaused: true });
    const token = await tb.token({ tenant, grants: ['read'] });
    expect((await batch(tb, [sched('q', 'k')], { token })).body.code).toBe('grant_missing');
  });

  it('paused before rate', async () => {
    const { token } = await tenantWith({ schedulePaused: true, scheduleRatePerSecond: 1 });
    expect((await batch(tb, [sched('q', 'a'), sched('q', 'b')], { token })).body.code).toBe('schedule_paused');
  });

  it('rate before quota', async () => {
    const { tenant, token } = await tenantWith({ scheduleRatePerSecond: 5, maxPendingTimers: 0 });
    await exhaustRate(tenant, 5);
    expect((await batch(tb, [sched('q', 'a')], { token })).body.code).toBe('rate_limited');
  });

  it('quota before storage', async () => {
    const { token } = await tenantWith({ maxPendingTimers: 0, storageLimitBytes: 1 });
    expect((await batch(tb, [sched('q', 'a', { payload: b64('xx') })], { token })).body.code).toBe('pending_quota_exceeded');
  });

  it('storage before horizon', async () => {
    const { token } = await tenantWith({ storageLimitBytes: 1, horizonSeconds: 1 });
    expect((await batch(tb, [sched('q', 'a', { payload: b64('xx'), delayMs: 5_000 })], { token })).body.code).toBe(
      'storage_limit_exceeded',
    );
  });

  it('horizon before payload ceiling, whatever the op order', async () => {
    const { token } = await tenantWith({ horizonSeconds: 1, maxPayloadBytes: 1 });
    const res = await batch(tb, [sched('q', 'a', { payload: b64('xx'), delayMs: 0 }), sched('q', 'b', { payload: '', delayMs: 5_000 })], {
      token,
    });
    expect(res.body).toMatchObject({ code: 'horizon_exceeded', field: 'operations.1.delayMs' });
  });
});

describe('x-queen-timers-hint on refusals of a batch that contains a cancel', () => {
  const mixed = () => [sched('q', 'a'), cancel('q', 'b')];
  const cases: [string, () => Promise<{ token?: string | null; ops?: unknown[] }>][] = [
    ['boot flag', async () => ((tb.broker.state.ready = false), {})],
    ['cluster block', async () => (await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } }), {})],
    ['auth', async () => ({ token: null })],
    ['grant', async () => ({ token: await tb.token({ tenant: 'hint-grant', grants: ['read'] }) })],
    ['paused', async () => ({ token: (await tenantWith({ schedulePaused: true })).token })],
    ['rate', async () => ({ token: (await tenantWith({ scheduleRatePerSecond: 1 })).token })],
    ['quota', async () => ({ token: (await tenantWith({ maxPendingTimers: 0 })).token })],
    ['storage', async () => ({ token: (await tenantWith({ storageLimitBytes: 1 })).token })],
    [
      'horizon',
      async () => ({
        token: (await tenantWith({ horizonSeconds: 1 })).token,
        ops: [sched('q', 'a', { delayMs: 1_001 }), cancel('q', 'b')],
      }),
    ],
    [
      'payload',
      async () => ({
        token: (await tenantWith({ maxPayloadBytes: 1 })).token,
        ops: [sched('q', 'a', { payload: b64('xx') }), cancel('q', 'b')],
      }),
    ],
    ['validation (400)', async () => ({ ops: [sched('q', 'a', { delayMs: -1 }), cancel('q', 'b')] })],
  ];

  it.each(cases)('%s refusal carries the hint', async (_rung, arrange) => {
    const { token, ops } = await arrange();
    const res = await batch(tb, ops ?? mixed(), { token });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['x-queen-timers-hint']).toBe(HINT);
  });

  it('a refused batch without a cancel carries no hint', async () => {
    const { token } = await tenantWith({ schedulePaused: true });
    const res = await batch(tb, [sched('q', 'a')], { token });
    expect(res.status).toBe(403);
    expect(res.headers['x-queen-timers-hint']).toBeUndefined();
  });

  it('an accepted batch with a cancel carries no hint', async () => {
    const res = await batch(tb, mixed());
    expect(res.status).toBe(200);
    expect(res.headers['x-queen-timers-hint']).toBeUndefined();
  });
});

describe('DELETE /api/v1/timers/:queue/*timerKey: only the boot flag refuses it', () => {
  /** Schedules a timer for a fresh tenant, then applies the rung and cancels by DELETE. */
  async function cancelUnder(
    plan: Record<string, unknown>,
    rung: (tenant: string) => Promise<void> = async () => {},
    grants?: ('produce' | 'read' | 'consume' | 'admin')[],
  ) {
    const { tenant, token } = await tenantWith();
    expect((await batch(tb, [sched('rq', 'tenant/42', { txn: 'the-txn' })], { token })).status).toBe(200);
    if (Object.keys(plan).length) await admin(tb, 'PUT', `/api/v1/admin/tenants/${tenant}`, { body: plan });
    await rung(tenant);
    const del = await api(tb, 'DELETE', `${keyPath('rq', 'tenant/42')}?txn=mine`, {
      token: await tb.token({ tenant, grants: grants ?? ['produce'] }),
    });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true, status: 'cancelled', queue: 'rq', timerKey: 'tenant/42', txn: 'mine' });
    expect(await row(tb, 'rq', 'tenant/42', tenant)).toBeUndefined();
    return tenant;
  }

  it('works under a cluster produce block (POST with a cancel is refused)', async () => {
    await cancelUnder({}, async () => {
      await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } });
      expect((await batch(tb, [cancel('rq', 'x')])).body.code).toBe('produce_blocked');
    });
  });

  it('works with a credential that has no grant at all', async () => {
    await cancelUnder({}, async () => {}, []);
  });

  it('works when the tenant schedule is paused', async () => {
    await cancelUnder({ schedulePaused: true }, async (tenant) => {
      expect((await batch(tb, [cancel('rq', 'tenant/42')], { tenant })).body.code).toBe('schedule_paused');
    });
  });

  it('works when the rate window is exhausted', async () => {
    await cancelUnder({ scheduleRatePerSecond: 1 }, async (tenant) => {
      await exhaustRate(tenant, 1);
      expect((await batch(tb, [cancel('rq', 'tenant/42')], { tenant })).body.code).toBe('rate_limited');
    });
  });

  it('works when the pending quota is exceeded', async () => {
    await cancelUnder({ maxPendingTimers: 0 }, async (tenant) => {
      expect((await batch(tb, [sched('rq', 'more'), cancel('rq', 'tenant/42')], { tenant })).body.code).toBe('pending_quota_exceeded');
    });
  });

  it('works when the storage limit is exceeded', async () => {
    await cancelUnder({ storageLimitBytes: 1 }, async (tenant) => {
      expect((await batch(tb, [sched('rq', 'more'), cancel('rq', 'tenant/42')], { tenant })).body.code).toBe('storage_limit_exceeded');
    });
  });

  it('works with a horizon and payload ceiling narrower than the timer', async () => {
    await cancelUnder({ horizonSeconds: 1, maxPayloadBytes: 1 });
  });

  it('is refused by the boot flag (503 not_ready with Retry-After)', async () => {
    const { token } = await tenantWith();
    await batch(tb, [sched('rq', 'k')], { token });
    tb.broker.state.ready = false;
    const del = await api(tb, 'DELETE', keyPath('rq', 'k'), { token });
    expect(del.status).toBe(503);
    expect(del.body.code).toBe('not_ready');
    expect(del.headers['retry-after']).toBe('1');
  });

  it('needs a valid credential to know the tenant (401)', async () => {
    expect((await api(tb, 'DELETE', keyPath('rq', 'k'), { token: null })).status).toBe(401);
    expect((await api(tb, 'DELETE', keyPath('rq', 'k'), { token: 'garbage' })).status).toBe(401);
  });

  it('answers too_late for a claimed timer, absent for a missing one, and never meters', async () => {
    const { tenant, token } = await tenantWith();
    await batch(tb, [sched('rq', 'claimed', { txn: 'c-txn' })], { token });
    await tb.sql.query(
      `UPDATE timers SET claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 minute' WHERE tenant = $1`,
      [tenant],
    );
    const m = await metered(tb, tenant);
    expect((await api(tb, 'DELETE', keyPath('rq', 'claimed'), { token })).body).toEqual({
      ok: false,
      status: 'too_late',
      queue: 'rq',
      timerKey: 'claimed',
      txn: 'c-txn',
    });
    expect((await api(tb, 'DELETE', `${keyPath('rq', 'claimed')}?txn=given`, { token })).body.txn).toBe('given');
    expect((await api(tb, 'DELETE', `${keyPath('rq', 'gone')}?txn=t1`, { token })).body).toEqual({
      ok: false,
      status: 'absent',
      queue: 'rq',
      timerKey: 'gone',
      txn: 't1',
    });
    expect((await api(tb, 'DELETE', keyPath('rq', 'gone'), { token })).body).toEqual({
      ok: false,
      status: 'absent',
      queue: 'rq',
      timerKey: 'gone',
      txn: null,
    });
    expect(await metered(tb, tenant)).toBe(m);
  });

  it("answers the cancelled row's txn when no ?txn= is given", async () => {
    const { token } = await tenantWith();
    await batch(tb, [sched('rq', 'k', { txn: 'row-txn' })], { token });
    expect((await api(tb, 'DELETE', keyPath('rq', 'k'), { token })).body).toEqual({
      ok: true,
      status: 'cancelled',
      queue: 'rq',
      timerKey: 'k',
      txn: 'row-txn',
    });
  });

  it('reads exactly one query parameter: any other is a 400 naming it', async () => {
    const res = await api(tb, 'DELETE', `${keyPath('rq', 'k')}?txn=a&force=true`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unknown_field', field: 'force' });
  });
});

describe("the pending quota's counts on a broker (PendingCounts)", () => {
  /** A count that answers `n` when told to, and how many times one was started. */
  function countOf(n: number) {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const run = vi.fn(async () => {
      await gate;
      return n;
    });
    return { run, release };
  }

  it('a count asked for while one of the tenant runs with the same cap waits for it: one count for both', async () => {
    const counts = new PendingCounts();
    const first = countOf(7);
    const second = countOf(9);
    const a = counts.count('t', 101, first.run);
    const b = counts.count('t', 101, second.run);
    first.release();
    second.release();
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(first.run).toHaveBeenCalledTimes(1);
    expect(second.run).not.toHaveBeenCalled();
    // Once it has ended, the next asks anew.
    expect(await counts.count('t', 101, second.run)).toBe(9);
  });

  it('another tenant, or another cap (a plan changed meanwhile), counts for itself', async () => {
    const counts = new PendingCounts();
    const [running, otherTenant, otherCap] = [countOf(1), countOf(2), countOf(3)];
    const a = counts.count('t', 101, running.run);
    const b = counts.count('u', 101, otherTenant.run);
    const c = counts.count('t', 51, otherCap.run);
    for (const x of [running, otherTenant, otherCap]) x.release();
    expect(await Promise.all([a, b, c])).toEqual([1, 2, 3]);
  });

  it('a count that fails is not shared: the one that waited for it counts itself', async () => {
    const counts = new PendingCounts();
    const failing = vi.fn(async () => {
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('statement timeout');
    });
    const own = countOf(5);
    own.release();
    const a = counts.count('t', 101, failing);
    const b = counts.count('t', 101, own.run);
    await expect(a).rejects.toThrow('statement timeout');
    expect(await b).toBe(5);
    expect(own.run).toHaveBeenCalledTimes(1);
    expect(counts.get('t')?.count).toBe(5);
  });

  it('keeps a count with the instant it began, so that the rows made while it ran are in the rate bound', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const counts = new PendingCounts();
      const slow = countOf(3);
      const a = counts.count('t', 101, slow.run);
      vi.setSystemTime(1_000_500);
      slow.release();
      await a;
      expect(counts.get('t')).toEqual({ count: 3, atMs: 1_000_000 });
    } finally {
      vi.useRealTimers();
    }
  });
});
