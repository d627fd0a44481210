// Who may read /metrics (QUEEN_METRICS_AUTH) and whether its series name tenants and queues
// (QUEEN_METRICS_TENANT_LABELS).
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { SECRET, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { b64, push } from './helpers/log.ts';

const METRICS_TOKEN = 'scrape-secret-0123456789';
const brokers: TestBroker[] = [];
afterAll(() => Promise.all(brokers.map((b) => b.close())));

async function broker(env: Record<string, string>): Promise<TestBroker> {
  const tb = await startTestBroker({ env });
  brokers.push(tb);
  return tb;
}

const scrape = (tb: TestBroker, authorization?: string) =>
  tb.broker.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

describe('QUEEN_METRICS_AUTH', () => {
  it('none (the default): anyone may scrape', async () => {
    const tb = await broker({});
    expect(tb.config.QUEEN_METRICS_AUTH).toBe('none');
    const res = await scrape(tb);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('queen_build_info');
  });

  it('token: the bearer must be QUEEN_METRICS_TOKEN; without it or with another, 401 metrics_unauthorized', async () => {
    const tb = await broker({ QUEEN_METRICS_AUTH: 'token', QUEEN_METRICS_TOKEN: METRICS_TOKEN });
    const missing = await scrape(tb);
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(missing.json()).toEqual({
      ok: false,
      code: 'metrics_unauthorized',
      error: '/metrics needs "Authorization: Bearer <QUEEN_METRICS_TOKEN>" (QUEEN_METRICS_AUTH=token)',
    });
    const wrong = await scrape(tb, `Bearer ${METRICS_TOKEN}x`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'metrics_unauthorized', error: '/metrics: the bearer token is not QUEEN_METRICS_TOKEN' });
    // A tenant's JWT is not the metrics token.
    expect((await scrape(tb, `Bearer ${await tb.token()}`)).statusCode).toBe(401);
    const ok = await scrape(tb, `Bearer ${METRICS_TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('queen_build_info');
  });

  it('operator: an operator admin JWT scrapes; none is 401, a tenant credential 403', async () => {
    const tb = await broker({ QUEEN_METRICS_AUTH: 'operator' });
    const missing = await scrape(tb);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ code: 'unauthenticated' });
    expect((await scrape(tb, 'Bearer not-a-jwt')).json()).toMatchObject({ code: 'token_invalid' });
    const tenantAdmin = await scrape(tb, `Bearer ${await tb.token({ grants: ['admin', 'read'] })}`);
    expect(tenantAdmin.statusCode).toBe(403);
    expect(tenantAdmin.json()).toMatchObject({ code: 'grant_missing' });
    const ok = await scrape(tb, `Bearer ${await tb.operatorToken()}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('queen_build_info');
  });

  it('token without QUEEN_METRICS_TOKEN refuses to start, naming the variable', () => {
    expect(() => loadConfig({ QUEEN_JWT_SECRET: SECRET, QUEEN_METRICS_AUTH: 'token' })).toThrow(
      /QUEEN_METRICS_TOKEN: QUEEN_METRICS_AUTH=token needs QUEEN_METRICS_TOKEN/,
    );
    expect(() => loadConfig({ QUEEN_JWT_SECRET: SECRET, QUEEN_METRICS_AUTH: 'open' })).toThrow(/QUEEN_METRICS_AUTH/);
  });
});

describe('QUEEN_METRICS_TENANT_LABELS', () => {
  const arrange = async (tb: TestBroker) => {
    expect((await push(tb, [{ queue: 'secret-queue', payload: 'x' }])).status).toBe(201);
    const res = await tb.broker.app.inject({
      method: 'POST',
      url: '/api/v1/timers',
      headers: { authorization: `Bearer ${await tb.token()}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        operations: [{ op: 'schedule', queue: 'secret-queue', timerKey: 'k', delayMs: 3_600_000, payload: b64('{}') }],
      }),
    });
    expect(res.statusCode).toBe(200);
  };

  it('true (the default): the per-queue gauges name the tenant and the queue', async () => {
    const tb = await broker({ QUEEN_METRICS_QUEUE_INTERVAL_MS: '3600000' });
    await arrange(tb);
    await tb.broker.queueStats!.runOnce();
    expect((await scrape(tb)).body).toContain('queen_queue_timers_pending{tenant="acme",queue="secret-queue"} 1');
  });

  it('false: no series names a tenant or a queue', async () => {
    const tb = await broker({ QUEEN_METRICS_TENANT_LABELS: 'false' });
    await arrange(tb);
    expect(tb.broker.queueStats).toBeUndefined();
    const text = (await scrape(tb)).body;
    expect(text).not.toMatch(/tenant="/);
    expect(text).not.toMatch(/queue="/);
    expect(text).not.toContain('secret-queue');
    expect(text).not.toContain('acme');
    // The cell-wide series are still there.
    expect(text).toContain('queen_timers_pending');
  });
});
