// Slow clients (src/http/slowClients.ts): a request whose headers or body do not arrive in time is
// answered 408 request_timeout and its socket closed, while a long-poll — whose request has
// arrived and whose wait is the route's own timer — answers at its own timeout. Timeouts are
// short here (1 s headers, 2 s body); the bounds asserted are generous, for a busy machine.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
let port: number;
const logLines: string[] = [];
beforeAll(async () => {
  tb = await startTestBroker({
    listen: true,
    logLines,
    env: { QUEEN_HEADERS_TIMEOUT_MS: '1000', QUEEN_BODY_TIMEOUT_MS: '2000', QUEEN_MAX_UNAUTHENTICATED_SOCKETS: '4' },
  });
  port = Number(new URL(tb.url).port);
});
afterAll(() => tb?.close());

interface Watched {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Resolves with the milliseconds from open to close. */
  closed: Promise<number>;
}

function open(): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe('slow clients', () => {
  it('a socket trickling a body is closed with 408 within the body timeout, while a 30 s long-poll on another socket answers 204 at 30 s', async () => {
    const token = await tb.token();
    const pollStarted = Date.now();
    const poll = fetch(`${tb.url}/api/v1/pop/queue/slow-poll?wait=true&timeout=30000`, { headers: { authorization: `Bearer ${token}` } });

    const trickle = await open();
    trickle.socket.write(
      `POST /api/v1/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    );
    const drip = setInterval(() => trickle.socket.writable && trickle.socket.write(' '), 200);
    try {
      const after = await within(trickle.closed, 15_000, 'trickling socket closed');
      expect(after).toBeGreaterThanOrEqual(1_900);
      expect(trickle.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(trickle.received().split('\r\n\r\n')[1])).toEqual({
        ok: false,
        code: 'request_timeout',
        error: 'the request did not arrive in time (QUEEN_HEADERS_TIMEOUT_MS, QUEEN_BODY_TIMEOUT_MS)',
      });
    } finally {
      clearInterval(drip);
    }

    const res = await poll;
    const waited = Date.now() - pollStarted;
    expect(res.status).toBe(204);
    expect(waited).toBeGreaterThanOrEqual(29_900);
    expect(waited).toBeLessThan(45_000);
  }, 60_000);

  it('a socket that sends headers and never ends them is closed with 408 within the headers timeout', async () => {
    const s = await open();
    s.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const after = await within(s.closed, 10_000, 'headers-only socket closed');
    expect(after).toBeGreaterThanOrEqual(900);
    expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(s.received()).toContain('"code":"request_timeout"');
  });

  it('a socket that declares a body and sends none is closed with 408 within the body timeout', async () => {
    const s = await open();
    s.socket.write('POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n');
    await within(s.closed, 10_000, 'body-less socket closed');
    expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('refusals are logged once per source per minute', () => {
    const refusals = logLines.filter((l) => l.includes('slow client refused'));
    expect(refusals).toHaveLength(1);
    expect(JSON.parse(refusals[0])).toMatchObject({ source: '127.0.0.1', reason: 'request_timeout', refusedSinceLastLine: 0 });
  });

  it('past QUEEN_MAX_UNAUTHENTICATED_SOCKETS the oldest unauthenticated socket is cut; an authenticated one is not counted', async () => {
    // An authenticated keep-alive socket: one request with a credential that verifies.
    const authed = await open();
    authed.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${await tb.token()}\r\n\r\n`);
    await within(
      new Promise<void>((r) => {
        const poll = setInterval(() => authed.received().includes('"ok":true') && (clearInterval(poll), r()), 10);
      }),
      10_000,
      'authenticated request answered',
    );
    const idle: Watched[] = [];
    for (let i = 0; i < 4; i++) idle.push(await open());
    const fifth = await open();
    await within(idle[0].closed, 10_000, 'oldest unauthenticated socket cut');
    expect(idle[0].received()).toMatch(/^HTTP\/1\.1 408 /);
    // The others, the newest and the authenticated socket are still open.
    for (const s of [...idle.slice(1), fifth, authed]) expect(s.socket.destroyed).toBe(false);
    for (const s of [...idle, fifth, authed]) s.socket.destroy();
  });
});
