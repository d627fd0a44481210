// The plan's bounds on schedules, weighed at PUT: how many a tenant may hold (maxSchedules) and
// the shortest gap between two occurrences (minScheduleIntervalSeconds). Both refusals are 403 —
// retrying cannot help — name the field and the fix, and store nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { b64 } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_DEFAULT_MAX_SCHEDULES: '3', QUEEN_DEFAULT_MIN_SCHEDULE_INTERVAL_SECONDS: '5' } });
});
afterAll(() => tb?.close());
afterEach(async () => {
  await tb.sql.query(`DELETE FROM timers WHERE tenant = 'acme'`);
  await tb.sql.query(`DELETE FROM schedules WHERE tenant = 'acme'`);
  await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxSchedules: null, minScheduleIntervalSeconds: null } });
});

const put = (key: string, cron: string) => api(tb, 'PUT', `/api/v1/schedules/beats/${key}`, { body: { cron, payload: b64('{"beat":1}') } });
const keys = async () =>
  (await tb.sql.query(`SELECT schedule_key FROM schedules WHERE tenant = 'acme' ORDER BY schedule_key`)).rows.map((r) => r.schedule_key);

describe('schedule limits in the plan', () => {
  it('shows the cell defaults in the plan; an operator sets them per tenant and null resets them', async () => {
    await api(tb, 'GET', '/api/v1/schedules/beats'); // provisions the tenant
    expect((await admin(tb, 'GET', '/api/v1/admin/tenants/acme')).body).toMatchObject({
      maxSchedules: 3,
      minScheduleIntervalSeconds: 5,
      overrides: { maxSchedules: null, minScheduleIntervalSeconds: null },
    });
    const set = await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxSchedules: 10, minScheduleIntervalSeconds: 60 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      maxSchedules: 10,
      minScheduleIntervalSeconds: 60,
      overrides: { maxSchedules: 10, minScheduleIntervalSeconds: 60 },
    });
    const bad = await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { minScheduleIntervalSeconds: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', field: 'minScheduleIntervalSeconds' });
    const reset = await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxSchedules: null } });
    expect(reset.body).toMatchObject({ maxSchedules: 3, minScheduleIntervalSeconds: 60, overrides: { maxSchedules: null } });
  });

  it('refuses a new schedule past maxSchedules with 403 schedule_limit_exceeded; a replace is not a new one', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxSchedules: 2 } });
    expect((await put('a', '0 * * * *')).status).toBe(200);
    expect((await put('b', '0 * * * *')).status).toBe(200);
    const third = await put('c', '0 * * * *');
    expect(third.status).toBe(403);
    expect(third.body).toEqual({
      ok: false,
      code: 'schedule_limit_exceeded',
      field: 'scheduleKey',
      maxSchedules: 2,
      error:
        "scheduleKey: the tenant holds 2 schedules, the plan's maxSchedules; DELETE /api/v1/schedules/:queue/*scheduleKey one it no longer needs, or ask the operator to raise maxSchedules",
    });
    expect(await keys()).toEqual(['a', 'b']);
    expect((await put('b', '30 * * * *')).status).toBe(200);
    expect((await api(tb, 'DELETE', '/api/v1/schedules/beats/a')).status).toBe(200);
    expect((await put('c', '0 * * * *')).status).toBe(200);
    expect(await keys()).toEqual(['b', 'c']);
  });

  it('maxSchedules 0 allows none', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { maxSchedules: 0 } });
    expect((await put('a', '0 * * * *')).body).toMatchObject({ code: 'schedule_limit_exceeded' });
    expect(await keys()).toEqual([]);
  });

  it('refuses a cron firing more often than minScheduleIntervalSeconds with 403 schedule_interval_too_short naming cron', async () => {
    const everySecond = await put('fast', '*/1 * * * * *');
    expect(everySecond.status).toBe(403);
    expect(everySecond.body).toEqual({
      ok: false,
      code: 'schedule_interval_too_short',
      field: 'cron',
      minScheduleIntervalSeconds: 5,
      error:
        'cron: "*/1 * * * * *" fires 1 s apart, more often than the plan\'s minScheduleIntervalSeconds of 5 s; space its occurrences further apart, or ask the operator to lower minScheduleIntervalSeconds',
    });
    // The smallest gap counts, not the first one: 0 and 2 past each minute are 2 s apart.
    expect((await put('uneven', '0,2 * * * * *')).body).toMatchObject({ code: 'schedule_interval_too_short' });
    expect(await keys()).toEqual([]);
    expect((await put('five', '*/5 * * * * *')).status).toBe(200);
    await admin(tb, 'PUT', '/api/v1/admin/tenants/acme', { body: { minScheduleIntervalSeconds: 3600 } });
    expect((await put('minutely', '* * * * *')).status).toBe(403);
    expect((await put('hourly', '0 * * * *')).status).toBe(200);
    expect(await keys()).toEqual(['five', 'hourly']);
  });
});
