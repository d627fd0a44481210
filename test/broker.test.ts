import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { admin, api, startTestBroker, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

describe('operational endpoints', () => {
  it('/health answers 200 without credentials', async () => {
    const res = await tb.broker.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('/ready reports the boot flag, and every /api route answers 503 not_ready with Retry-After while it is down', async () => {
    expect((await tb.broker.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ ready: true });
    tb.broker.state.ready = false;
    try {
      const ready = await tb.broker.app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      const res = await admin(tb, 'GET', '/api/v1/admin/cluster');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.code).toBe('not_ready');
    } finally {
      tb.broker.state.ready = true;
    }
  });

  it('/metrics serves Prometheus text including the timer series', async () => {
    const res = await tb.broker.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('queen_timers_fire_lag_seconds');
    expect(res.body).toContain('queen_http_requests_total');
  });

  it('/docs serves Swagger UI and the OpenAPI document with a bearer security scheme', async () => {
    const ui = await tb.broker.app.inject({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain('swagger');
    const doc = await tb.broker.app.inject({ method: 'GET', url: '/docs/json' });
    expect(doc.json().components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('malformed requests', () => {
  it('answers an unknown route with 404 route_not_found', async () => {
    const res = await api(tb, 'GET', '/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('route_not_found');
  });

  it('answers a path outside /api with the same error shape', async () => {
    const res = await api(tb, 'GET', '/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining('/nowhere'), code: 'route_not_found' });
  });

  it('answers broken JSON with 400 invalid_json', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: '{"produceBlocked":' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_json');
  });

  it('takes an empty body sent as application/json as no body, on every method', async () => {
    const json = { 'content-type': 'application/json' };
    const cancel = await api(tb, 'DELETE', '/api/v1/timers/q/never-scheduled', { body: '', headers: json });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ ok: false, status: 'absent', queue: 'q', timerKey: 'never-scheduled' });
    const list = await api(tb, 'GET', '/api/v1/timers/q', { body: '', headers: json });
    expect(list.status).toBe(200);
    // A POST that needs a body says which field is missing, not that the JSON is broken.
    const push = await api(tb, 'POST', '/api/v1/push', { body: '  ', headers: json });
    expect(push.status).toBe(400);
    expect(push.body.code).toBe('validation_failed');
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: '[1,2]' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('answers a non-JSON content type with 415', async () => {
    const res = await admin(tb, 'PUT', '/api/v1/admin/cluster', { body: 'produceBlocked=true', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('answers an oversized body with 413 body_too_large', async () => {
    const small = await startTestBroker({ env: { QUEEN_BODY_LIMIT_BYTES: '2048' } });
    try {
      const res = await admin(small, 'PUT', '/api/v1/admin/cluster', { body: { pad: 'x'.repeat(4096) } });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('body_too_large');
    } finally {
      await small.close();
    }
  });
});

describe('configuration', () => {
  it('names every bad variable and what it accepts', () => {
    expect(() => loadConfig({ PORT: 'abc', QUEEN_ENCRYPTION_KEY: 'xyz', QUEEN_SWEEPER_MAX_ATTEMPTS: '0' })).toThrow(
      /PORT[\s\S]*QUEEN_ENCRYPTION_KEY: must be 64 hex characters[\s\S]*QUEEN_SWEEPER_MAX_ATTEMPTS/,
    );
  });

  it('refuses a maximum sleep above a minute: the brokers leave each other unwoken for timers due later than twice that', () => {
    expect(loadConfig({ QUEEN_SWEEPER_MAX_SLEEP_MS: '60000' }).QUEEN_SWEEPER_MAX_SLEEP_MS).toBe(60_000);
    expect(() => loadConfig({ QUEEN_SWEEPER_MAX_SLEEP_MS: '60001' })).toThrow(/QUEEN_SWEEPER_MAX_SLEEP_MS/);
  });

  it('refuses a minimum sleep above the maximum', () => {
    expect(() => loadConfig({ QUEEN_SWEEPER_MIN_SLEEP_MS: '50', QUEEN_SWEEPER_MAX_SLEEP_MS: '10' })).toThrow(/QUEEN_SWEEPER_MIN_SLEEP_MS/);
  });

  it('has the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 6632,
      QUEEN_SWEEPER_MAX_ATTEMPTS: 5,
      QUEEN_DEFAULT_HORIZON_SECONDS: 90 * 24 * 3600,
      QUEEN_OPERATOR_TENANT: 'operator',
      QUEEN_DB_STARTUP_TIMEOUT_MS: 30_000,
    });
  });

  it('refuses two verification keys (one would be ignored) and an operator tenant named . or ..', () => {
    expect(() => loadConfig({ QUEEN_JWT_SECRET: 'x'.repeat(32), QUEEN_JWT_PUBLIC_KEY: 'pem' })).toThrow(
      /QUEEN_JWT_SECRET: set only one of/,
    );
    expect(() => loadConfig({ QUEEN_OPERATOR_TENANT: '..' })).toThrow(/QUEEN_OPERATOR_TENANT/);
  });
});

describe('input the validators cannot handle', () => {
  it('treats ?constructor= and ?toString= as the unknown parameters they are: 400 naming them', async () => {
    for (const [name, code] of [
      ['constructor', 'unknown_field'],
      ['toString', 'unknown_field'],
      ['hasOwnProperty', 'unknown_field'],
      ['__proto__', 'server_owned_field'], // every _-prefixed key is
    ]) {
      const res = await api(tb, 'GET', `/api/v1/timers/q?${name}=x`);
      expect(res.status, name).toBe(400);
      expect(res.body).toMatchObject({ code, field: name });
    }
  });

  it('answers a body nested thousands deep with 400, not 500', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const res = await api(tb, 'POST', '/api/v1/push', { body: `{"items":[{"queue":"q","payload":${deep}}]}` });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('refuses "." and ".." as queue names, and NUL in a list cursor', async () => {
    const dot = await api(tb, 'POST', '/api/v1/push', { body: { items: [{ queue: '..', payload: 1 }] } });
    expect(dot.status).toBe(400);
    expect(dot.body.field).toBe('items.0.queue');
    const nul = await api(tb, 'GET', '/api/v1/timers/q?after=%00');
    expect(nul.status).toBe(400);
    expect(nul.body.field).toBe('after');
  });
});

describe('the embedded data folder lock', () => {
  it('refuses a second database on a locked folder, in this process too, and takes over a lock whose broker is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'queen-lock-'));
    try {
      const folder = join(dir, 'pgdata');
      const first = await openDatabase({ dataDir: folder });
      await expect(openDatabase({ dataDir: folder })).rejects.toThrow(
        new RegExp(`${folder} is in use by another broker \\(pid ${process.pid}\\)`),
      );
      await first.close();
      // A broker killed with -9 leaves its lock behind: a pid that is not running frees the folder.
      await writeFile(`${folder}.lock`, '2147483646\n');
      const second = await openDatabase({ dataDir: folder });
      expect((await readFile(`${folder}.lock`, 'utf8')).trim()).toBe(String(process.pid));
      await second.close();
      expect(existsSync(`${folder}.lock`)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
