// Pushed payloads are stored as the exact bytes sent for them (src/http/json.ts): numbers past
// 2^53, `1.0`, escapes, whitespace, key order and duplicate keys survive; `__proto__` is an
// ordinary key inside a payload and a refused one elsewhere; a body that is not UTF-8 is refused
// naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { pop } from './helpers/log.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** Sends `body` (bytes or text) as it is, with the JSON content type. */
async function send(method: 'POST', url: string, body: string | Buffer) {
  const res = await tb.broker.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${await tb.token()}`, 'content-type': 'application/json' },
    payload: body,
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

const PAYLOADS = [
  '9007199254740993',
  '12345678901234567890',
  '1.0',
  '-0',
  '1E+2',
  '"\\u00e9 and é"',
  '"\\ud83d\\ude00 \\/ \\""',
  '{ "a" :  1 ,\n\t"b":[ ] }',
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":1}}',
  '[1.50, 2e-3, null, true]',
  '"\\ud800"',
];

describe('push stores the bytes sent for each payload', () => {
  it('keeps every payload byte for byte, and pop returns them with data parsed from them', async () => {
    const items = PAYLOADS.map((p, i) => `{"queue":"exact","payload":${p},"transactionId":"t${i}"}`);
    const res = await send('POST', '/api/v1/push', `{"items":[${items.join(' ,\n ')}]}`);
    expect(res.status).toBe(201);
    const frames = (await pop(tb, `/api/v1/pop/queue/exact?batch=${PAYLOADS.length}`)).body.messages;
    expect(frames.map((f: any) => Buffer.from(f.payload, 'base64').toString('utf8'))).toEqual(PAYLOADS);
    expect(frames[0].data).toBe(9007199254740992); // data is JSON.parse of those bytes, with its limits
    expect(frames[9].data).toEqual(JSON.parse(PAYLOADS[9]));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps a transaction's pushed payload bytes too", async () => {
    const body = `{"operations":[{"type":"push","items":[{"queue":"exact-tx","payload":{"n":1.0,  "big":12345678901234567890}}]}]}`;
    expect((await send('POST', '/api/v1/transaction', body)).status).toBe(200);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/exact-tx')).body.messages;
    expect(Buffer.from(frame.payload, 'base64').toString('utf8')).toBe('{"n":1.0,  "big":12345678901234567890}');
  });
});

describe('what the body may not be', () => {
  it('refuses invalid UTF-8 with 400 naming the field it is in, and stores nothing', async () => {
    const head = Buffer.from('{"items":[{"queue":"utf8","payload":"caf');
    const tail = Buffer.from('"}]}');
    for (const bad of [[0xe9], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]]) {
      const res = await send('POST', '/api/v1/push', Buffer.concat([head, Buffer.from(bad), tail]));
      expect(res.status, bad.join(',')).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', field: 'items.0.payload' });
      expect(res.body.error).toMatch(/not valid UTF-8/);
    }
    const raw = await send(
      'POST',
      '/api/v1/push',
      Buffer.concat([Buffer.from('{"items":[{"queue":"q'), Buffer.from([0xff]), Buffer.from('","payload":1}]}')]),
    );
    expect(raw.body).toMatchObject({ code: 'validation_failed', field: 'items.0.queue' });
    expect((await pop(tb, '/api/v1/pop/queue/utf8')).status).toBe(204);
  });

  it('refuses __proto__ outside a payload as the server-owned key it is, on every route', async () => {
    const item = await send('POST', '/api/v1/push', '{"items":[{"queue":"p","payload":1,"__proto__":{"queue":"x"}}]}');
    expect(item.status).toBe(400);
    expect(item.body).toMatchObject({ code: 'server_owned_field', field: 'items.0.__proto__' });
    const top = await send('POST', '/api/v1/timers', '{"__proto__":{},"operations":[]}');
    expect(top.body).toMatchObject({ code: 'server_owned_field', field: '__proto__' });
  });

  it('refuses __proto__ spelt with \\u escapes too (the body is scanned whenever its text could spell one)', async () => {
    const escaped = await send('POST', '/api/v1/timers', '{"\\u005f\\u005fproto__":{},"operations":[]}');
    expect(escaped.status).toBe(400);
    expect(escaped.body).toMatchObject({ code: 'server_owned_field', field: '__proto__' });
  });

  it('answers malformed JSON and nesting past the limit with 400', async () => {
    expect((await send('POST', '/api/v1/push', '{"items":[')).body).toMatchObject({ code: 'invalid_json', field: '(body)' });
    const deep = await api(tb, 'POST', '/api/v1/push', {
      body: `{"items":[{"queue":"q","payload":${'['.repeat(300)}${']'.repeat(300)}}]}`,
    });
    expect(deep.body).toMatchObject({ code: 'validation_failed' });
  });
});
