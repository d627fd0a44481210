// Payload bytes at schedule: zstd for large compressible payloads, AES-256-GCM from the moment
// of scheduling when the destination queue encrypts at rest (compress, then encrypt), and a clear
// refusal when a queue encrypts but the broker has no key.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadCipher, zstdDecompress } from '../src/payload.ts';
import { api, startTestBroker, type TestBroker, admin } from './helpers/broker.ts';
import { b64, batch, keyPath, metered, row, sched } from './helpers/timers.ts';

const KEY = 'a1'.repeat(32);
const cipher = new PayloadCipher(KEY);
const MARKER = 'PLAINTEXT-MARKER-4f2a';

/** Configures a queue to encrypt at rest, in SQL (the configure route is built elsewhere). */
async function encryptQueue(tb: TestBroker, queue: string, tenant = 'acme') {
  await tb.sql.query(
    `INSERT INTO queues (tenant, name, encryption_enabled) VALUES ($1, $2, true)
     ON CONFLICT (tenant, name) DO UPDATE SET encryption_enabled = true`,
    [tenant, queue],
  );
}

describe('with QUEEN_ENCRYPTION_KEY', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker({ env: { QUEEN_ENCRYPTION_KEY: KEY } });
    await encryptQueue(tb, 'secret');
  });
  afterAll(() => tb?.close());

  it('stores ciphertext from the moment of scheduling: no plaintext in the row', async () => {
    const res = await batch(tb, [sched('secret', 'k', { payload: b64(`{"note":"${MARKER}"}`) })]);
    expect(res.body.results[0].status).toBe('scheduled');
    const r = await row(tb, 'secret', 'k');
    expect(r).toMatchObject({ encrypted: true, payload_zstd: false });
    expect(r!.payload.includes(Buffer.from(MARKER))).toBe(false);
    const found = await tb.sql.query(`SELECT count(*)::int AS n FROM timers WHERE position(convert_to($1, 'UTF8') in payload) > 0`, [
      MARKER,
    ]);
    expect(found.rows[0].n).toBe(0);
    expect(cipher.decrypt(r!.payload).toString()).toBe(`{"note":"${MARKER}"}`);
  });

  it('peek shows the ciphertext, never decrypted, with encrypted: true', async () => {
    await batch(tb, [sched('secret', 'peeked', { payload: b64(MARKER) })]);
    const res = await api(tb, 'GET', keyPath('secret', 'peeked'));
    expect(res.body).toMatchObject({ found: true, encrypted: true, payloadZstd: false });
    const stored = Buffer.from(res.body.payload, 'base64');
    expect(stored.includes(Buffer.from(MARKER))).toBe(false);
    expect(cipher.decrypt(stored).toString()).toBe(MARKER);
  });

  it('compresses, then encrypts, a large compressible payload', async () => {
    const plain = Buffer.from(`${MARKER} `.repeat(500));
    await batch(tb, [sched('secret', 'big', { payload: b64(plain) })]);
    const r = await row(tb, 'secret', 'big');
    expect(r).toMatchObject({ encrypted: true, payload_zstd: true });
    expect(r!.payload.length).toBeLessThan(plain.length / 4);
    expect(await zstdDecompress(cipher.decrypt(r!.payload))).toEqual(plain);
  });

  it('a reschedule on an encrypting queue is encrypted too', async () => {
    await batch(tb, [sched('secret', 'again', { payload: b64('v1') })]);
    await batch(tb, [sched('secret', 'again', { payload: b64(MARKER) })]);
    const r = await row(tb, 'secret', 'again');
    expect(r!.encrypted).toBe(true);
    expect(cipher.decrypt(r!.payload).toString()).toBe(MARKER);
  });

  it('a queue that does not encrypt stores the payload as sent', async () => {
    await batch(tb, [sched('plain', 'k', { payload: b64(MARKER) })]);
    expect(await row(tb, 'plain', 'k')).toMatchObject({ encrypted: false, payload: Buffer.from(MARKER) });
  });

  it("encryption is per tenant's queue: another tenant's queue of the same name does not encrypt", async () => {
    const token = await tb.token({ tenant: 'other' });
    await batch(tb, [sched('secret', 'k', { payload: b64(MARKER) })], { token });
    expect(await row(tb, 'secret', 'k', 'other')).toMatchObject({ encrypted: false, payload: Buffer.from(MARKER) });
  });
});

describe('compression', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker();
  });
  afterAll(() => tb?.close());

  it('stores a large compressible payload zstd-compressed, payloadZstd: true on peek', async () => {
    const plain = Buffer.from('{"line":"the same thing again and again"}\n'.repeat(200));
    await batch(tb, [sched('z', 'big', { payload: b64(plain) })]);
    const r = await row(tb, 'z', 'big');
    expect(r!.payload_zstd).toBe(true);
    expect(r!.payload.length).toBeLessThan(plain.length / 4);
    expect(await zstdDecompress(r!.payload)).toEqual(plain);
    const peek = await api(tb, 'GET', keyPath('z', 'big'));
    expect(peek.body).toMatchObject({ payloadZstd: true, encrypted: false, payload: r!.payload.toString('base64') });
  });

  it('keeps small payloads, incompressible ones and those zstd barely shrinks as sent', async () => {
    const random = randomBytes(4096);
    // Random bytes with a run at the end: zstd shrinks it by about 7 %, less than the tenth a
    // compressed form must save to be kept (COMPRESS_MIN_SAVING; random bytes alone it does not shrink).
    const barely = Buffer.concat([randomBytes(3800), Buffer.alloc(296, 'a')]);
    await batch(tb, [
      sched('z', 'small', { payload: b64('x'.repeat(100)) }),
      sched('z', 'random', { payload: b64(random) }),
      sched('z', 'barely', { payload: b64(barely) }),
    ]);
    expect(await row(tb, 'z', 'small')).toMatchObject({ payload_zstd: false, payload: Buffer.from('x'.repeat(100)) });
    expect(await row(tb, 'z', 'random')).toMatchObject({ payload_zstd: false, payload: random });
    expect(await row(tb, 'z', 'barely')).toMatchObject({ payload_zstd: false, payload: barely });
  });

  it('the payload ceiling applies to the decoded payload, not the compressed one', async () => {
    await admin(tb, 'PUT', '/api/v1/admin/tenants/ceil', { body: { maxPayloadBytes: 2048 } });
    const token = await tb.token({ tenant: 'ceil' });
    const res = await batch(tb, [sched('z', 'k', { payload: b64('a'.repeat(4096)) })], { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('payload_too_large_for_plan');
  });
});

describe('an encrypting queue on a broker without QUEEN_ENCRYPTION_KEY', () => {
  let tb: TestBroker;
  beforeAll(async () => {
    tb = await startTestBroker();
    await encryptQueue(tb, 'secret');
  });
  afterAll(() => tb?.close());

  it('refuses the whole batch with 503 encryption_unavailable naming the op, storing nothing', async () => {
    const m = await metered(tb);
    const res = await batch(tb, [sched('plain', 'k'), sched('secret', 'k', { payload: b64(MARKER) })]);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'encryption_unavailable', field: 'operations.1.queue' });
    expect(res.headers['retry-after']).toBe('60');
    expect(await row(tb, 'plain', 'k')).toBeUndefined();
    expect(await row(tb, 'secret', 'k')).toBeUndefined();
    expect(await metered(tb)).toBe(m);
  });

  it('still cancels on that queue (a cancel needs no key)', async () => {
    const res = await batch(tb, [{ op: 'cancel', queue: 'secret', timerKey: 'k' }]);
    expect(res.body.results[0].status).toBe('absent');
  });
});
