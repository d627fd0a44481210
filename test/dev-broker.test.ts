// What a broker exposes and writes by default: the address it binds (loopback for the embedded
// dev broker, every interface with DATABASE_URL) and one request line per request, at debug for
// probes and documentation, at info for the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { api, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';

describe('the address a broker binds', () => {
  it('is 127.0.0.1 for the embedded dev broker (no DATABASE_URL), unless HOST says otherwise', () => {
    expect(loadConfig({}).HOST).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('is 0.0.0.0 with DATABASE_URL, unless HOST says otherwise', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://db.internal/queen' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ DATABASE_URL: 'postgresql://db.internal/queen', HOST: '10.0.0.5' }).HOST).toBe('10.0.0.5');
  });
});

describe('request logging', () => {
  let tb: TestBroker;
  const lines: string[] = [];
  beforeAll(async () => {
    tb = await startTestBroker({ logLines: lines, logLevel: 'debug' });
  });
  afterAll(() => tb?.close());

  /** The request lines logged for a path: their pino levels (20 debug, 30 info, 50 error). */
  const levelsFor = (path: string) =>
    lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.req?.url?.split('?')[0] === path)
      .map((l) => ({ level: l.level, msg: l.msg, statusCode: l.res?.statusCode }));

  it('logs probes, metrics, the documentation and the dashboard at debug, one line each', async () => {
    for (const path of ['/health', '/ready', '/metrics', '/openapi.json', '/docs/json', '/ui', '/ui/queues/reminders']) {
      expect((await api(tb, 'GET', path, { token: null })).status).toBe(200);
      const logged = await waitFor(() => (levelsFor(path).length ? levelsFor(path) : undefined));
      expect(logged).toEqual([{ level: 20, msg: 'request completed', statusCode: 200 }]);
    }
  });

  it('logs API requests at info, one line each (none on arrival), a refused one included', async () => {
    expect((await api(tb, 'GET', '/api/v1/timers/reminders/trial:1')).status).toBe(200);
    expect((await api(tb, 'GET', '/api/v1/timers/reminders/trial:1', { token: null })).status).toBe(401);
    const logged = await waitFor(() =>
      levelsFor('/api/v1/timers/reminders/trial:1').length === 2 ? levelsFor('/api/v1/timers/reminders/trial:1') : undefined,
    );
    expect(logged).toEqual([
      { level: 30, msg: 'request completed', statusCode: 200 },
      { level: 30, msg: 'request completed', statusCode: 401 },
    ]);
    expect(lines.map((l) => JSON.parse(l).msg)).not.toContain('incoming request');
  });
});
