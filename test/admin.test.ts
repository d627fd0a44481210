import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker, admin } from './helpers/broker.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

describe('admin routes', () => {
  it('creates a tenant with a narrowed horizon and reads the effective plan', async () => {
    const put = await admin(tb, 'PUT', '/api/v1/admin/tenants/globex', { body: { horizonSeconds: 3600, maxPayloadBytes: 2048 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ tenant: 'globex', horizonSeconds: 3600, maxPayloadBytes: 2048, schedulePaused: false });
    const get = await admin(tb, 'GET', '/api/v1/admin/tenants/globex');
    expect(get.body.overrides).toMatchObject({ horizonSeconds: 3600, maxPayloadBytes: 2048, maxPendingTimers: null });
  });

  it('cannot widen the cell horizon: a larger plan horizon is clamped to the cell default', async () => {
    const put = await admin(tb, 'PUT', '/api/v1/admin/tenants/wide', { body: { horizonSeconds: 10 * 365 * 24 * 3600 } });
    expect(put.body.horizonSeconds).toBe(tb.config.QUEEN_DEFAULT_HORIZON_SECONDS);
  });

  it('null resets a field to the cell default', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/reset', { body: { maxPendingTimers: 5 } });
    const put = await admin(tb, 'PUT', '/api/v1/admin/tenants/reset', { body: { maxPendingTimers: null } });
    expect(put.body.maxPendingTimers).toBe(tb.config.QUEEN_DEFAULT_MAX_PENDING_TIMERS);
    expect(put.body.overrides.maxPendingTimers).toBeNull();
  });

  it('sets and reads the cluster flags', async () => {
    const put = await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: true } });
    expect(put.body).toEqual({ produceBlocked: true, sweeperPaused: false });
    expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).body).toEqual({ produceBlocked: true, sweeperPaused: false });
    await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: { produceBlocked: false } });
  });

  it('refuses a credential without the admin grant with 403 grant_missing', async () => {
    const token = await tb.token({ grants: ['produce', 'consume', 'read'] });
    const res = await api(tb, 'GET', '/api/v1/admin/cluster', { token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining('admin'), code: 'grant_missing' });
  });

  it("refuses another tenant's admin grant: 403 naming the operator tenant, and nothing changes", async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/victim', { body: { maxPendingTimers: 50 } });
    const tenantAdmin = await tb.token({ tenant: 'acme', grants: ['admin'] });
    for (const [method, url, body] of [
      ['GET', '/api/v1/admin/tenants/victim', undefined],
      ['PUT', '/api/v1/admin/tenants/victim', { schedulePaused: true, maxPendingTimers: 0 }],
      ['PUT', '/api/v1/admin/tenants/brand-new', { maxPendingTimers: 1 }],
      ['GET', '/api/v1/admin/cluster', undefined],
      ['PUT', '/api/v1/admin/cluster', { produceBlocked: true }],
    ] as const) {
      const res = await api(tb, method, url, { token: tenantAdmin, body });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'grant_missing', error: expect.stringContaining('operator tenant "operator"') });
    }
    expect((await admin(tb, 'GET', '/api/v1/admin/tenants/victim')).body).toMatchObject({ schedulePaused: false, maxPendingTimers: 50 });
    expect((await tb.sql.query(`SELECT 1 FROM tenants WHERE tenant = 'brand-new'`)).rowCount).toBe(0);
    expect((await admin(tb, 'GET', '/api/v1/admin/cluster')).body).toMatchObject({ produceBlocked: false });
  });

  it('the operator tenant is QUEEN_OPERATOR_TENANT', async () => {
    const other = await startTestBroker({ env: { QUEEN_OPERATOR_TENANT: 'ops' } });
    try {
      expect(
        (await api(other, 'GET', '/api/v1/admin/cluster', { token: await other.token({ tenant: 'ops', grants: ['admin'] }) })).status,
      ).toBe(200);
      expect(
        (await api(other, 'GET', '/api/v1/admin/cluster', { token: await other.token({ tenant: 'operator', grants: ['admin'] }) })).status,
      ).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('rejects unknown plan fields with 400 naming the field', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/tenants/x', { body: { maxPayload: 5 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unknown_field', field: 'maxPayload' });
  });

  it('rejects an out-of-range value with 400 naming the field', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/tenants/x', { body: { maxPayloadBytes: 0 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', field: 'maxPayloadBytes' });
  });
});
