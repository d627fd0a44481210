// The log across tenants and at rest: another tenant sees nothing (push, pop, ack, DLQ,
// configure), payloads of encrypting queues are ciphertext in the database and plaintext on pop,
// and a frame that cannot be decrypted is delivered with an error instead of failing the pop.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadCipher } from '../src/payload.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';
import { ack, appendFrame, b64, configure, deadLetters, pop, push, replay } from './helpers/log.ts';

const KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('hex');

let tb: TestBroker;
let globex: string;
beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_ENCRYPTION_KEY: KEY } });
  globex = await tb.token({ tenant: 'globex', sub: 'globex-user' });
});
afterAll(() => tb?.close());

describe('tenant isolation', () => {
  it("another tenant's pop, DLQ, ack and replay see nothing of acme's queue of the same name", async () => {
    await push(tb, [{ queue: 'shared', payload: 'acme secret', transactionId: 'tx-1' }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/shared')).body.messages;
    await ack(tb, { transactionId: frame.transactionId, partitionId: frame.partitionId }, { status: 'dlq' });
    const dlqRow = (await deadLetters(tb, 'queue=shared')).body.messages[0];
    expect(dlqRow).toBeDefined();

    expect((await pop(tb, '/api/v1/pop/queue/shared', globex)).status).toBe(204);
    expect((await pop(tb, '/api/v1/pop/queue/shared?consumerGroup=fresh', globex)).status).toBe(204);
    expect((await deadLetters(tb, '', globex)).body).toEqual({ messages: [], total: 0, limit: 100, offset: 0 });
    const theirAck = await ack(tb, { transactionId: 'tx-1', partitionId: frame.partitionId }, {}, globex);
    expect(theirAck.status).toBe(404);
    const theirReplay = await replay(tb, dlqRow.id, globex);
    expect(theirReplay.status).toBe(404);
    expect((await deadLetters(tb, 'queue=shared')).body.total).toBe(1);
  });

  it("a txn in acme's queue is not a duplicate for globex; each tenant pops only its own frame", async () => {
    await push(tb, [{ queue: 'both', payload: 'for acme', transactionId: 'same-txn' }]);
    const theirs = await push(tb, [{ queue: 'both', payload: 'for globex', transactionId: 'same-txn' }], globex);
    expect(theirs.body[0].status).toBe('queued');
    const acme = await pop(tb, '/api/v1/pop/queue/both?batch=10');
    const glob = await pop(tb, '/api/v1/pop/queue/both?batch=10', globex);
    expect(acme.body.messages.map((f: any) => f.data)).toEqual(['for acme']);
    expect(glob.body.messages).toMatchObject([{ data: 'for globex', producerSub: 'globex-user' }]);
  });

  it("configuring a queue name configures the caller's queue only", async () => {
    await configure(tb, 'cfg-shared', { retryLimit: 7 });
    const theirs = await configure(tb, 'cfg-shared', { leaseTime: 5 }, globex);
    expect(theirs.body.options).toMatchObject({ encryptionEnabled: false, leaseTime: 5, retryLimit: 3 });
    const rows = await tb.sql.query(`SELECT tenant, lease_time_seconds, retry_limit FROM queues WHERE name = 'cfg-shared' ORDER BY tenant`);
    expect(rows.rows).toEqual([
      { tenant: 'acme', lease_time_seconds: 300, retry_limit: 7 },
      { tenant: 'globex', lease_time_seconds: 5, retry_limit: 3 },
    ]);
  });

  it("a push wakes only its own tenant's waiting pops", async () => {
    const waiting = pop(tb, '/api/v1/pop/queue/wake?wait=true&timeout=300', globex);
    await push(tb, [{ queue: 'wake', payload: 'acme only' }]);
    expect((await waiting).status).toBe(204);
  });
});

describe('encryption at rest', () => {
  it('stores ciphertext (no plaintext in the row) and pops the plaintext', async () => {
    const cfg = await configure(tb, 'vault', { encryptionEnabled: true });
    expect(cfg.body).toMatchObject({
      configured: true,
      queue: 'vault',
      options: { encryptionEnabled: true, leaseTime: 300, retryLimit: 3 },
    });
    const pushed = await push(tb, [{ queue: 'vault', payload: { card: 'PLAINTEXT-MARKER-4242' } }]);
    const row = (
      await tb.sql.query(`SELECT payload, encrypted FROM messages WHERE tenant = 'acme' AND id = $1`, [pushed.body[0].message_id])
    ).rows[0];
    expect(row.encrypted).toBe(true);
    expect(row.payload.includes(Buffer.from('PLAINTEXT-MARKER'))).toBe(false);
    expect(new PayloadCipher(KEY).decrypt(row.payload).toString()).toBe('{"card":"PLAINTEXT-MARKER-4242"}');
    const res = await pop(tb, '/api/v1/pop/queue/vault');
    expect(res.body.messages).toMatchObject([
      { payload: b64('{"card":"PLAINTEXT-MARKER-4242"}'), data: { card: 'PLAINTEXT-MARKER-4242' }, encrypted: false },
    ]);
    expect(res.body.messages[0]).not.toHaveProperty('error');
  });

  it('delivers a frame sealed with another key as ciphertext with an error, alongside readable frames', async () => {
    await push(tb, [{ queue: 'rotated', payload: 'before' }]);
    const sealed = new PayloadCipher(OTHER_KEY).encrypt(Buffer.from('"old key"'));
    await appendFrame(tb, { queue: 'rotated', transactionId: 'sealed-elsewhere', payload: sealed, encrypted: true });
    await appendFrame(tb, { queue: 'rotated', transactionId: 'garbage', payload: Buffer.from('deadbeef', 'hex'), encrypted: true });
    const res = await pop(tb, '/api/v1/pop/queue/rotated?batch=10');
    expect(res.status).toBe(200);
    const [plain, rotated, garbage] = res.body.messages;
    expect(plain).toMatchObject({ data: 'before', encrypted: false });
    expect(rotated).toMatchObject({
      transactionId: 'sealed-elsewhere',
      encrypted: true,
      payload: b64(sealed),
      error: expect.stringContaining('decrypt'),
    });
    expect(rotated).not.toHaveProperty('data');
    expect(garbage).toMatchObject({
      transactionId: 'garbage',
      encrypted: true,
      payload: Buffer.from('deadbeef', 'hex').toString('base64'),
      error: expect.any(String),
    });
    // Undecryptable frames are still acked and settled like any other.
    for (const f of res.body.messages) {
      expect((await ack(tb, f)).status).toBe(200);
    }
  });

  it('dead-letters the ciphertext and decrypts it in the DLQ listing', async () => {
    await configure(tb, 'vault-dlq', { encryptionEnabled: true });
    await push(tb, [{ queue: 'vault-dlq', payload: 'SECRET-DLQ' }]);
    const [frame] = (await pop(tb, '/api/v1/pop/queue/vault-dlq')).body.messages;
    await ack(tb, { transactionId: frame.transactionId, partitionId: frame.partitionId }, { status: 'dlq' });
    const stored = (await tb.sql.query(`SELECT payload, encrypted FROM dead_letters WHERE tenant = 'acme' AND queue = 'vault-dlq'`))
      .rows[0];
    expect(stored.encrypted).toBe(true);
    expect(stored.payload.includes(Buffer.from('SECRET-DLQ'))).toBe(false);
    expect((await deadLetters(tb, 'queue=vault-dlq')).body.messages).toMatchObject([{ data: 'SECRET-DLQ', encrypted: false }]);
  });
});

describe('encrypting queues on a broker without a key', () => {
  let keyless: TestBroker;
  beforeAll(async () => {
    keyless = await startTestBroker();
  });
  afterAll(() => keyless?.close());

  it('refuses a push to an encrypting queue with 503 encryption_unavailable rather than store plaintext', async () => {
    await keyless.sql.query(`INSERT INTO queues (tenant, name, encryption_enabled) VALUES ('acme', 'locked', true)`);
    const res = await push(keyless, [{ queue: 'locked', payload: 'x' }]);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('encryption_unavailable');
    expect((await keyless.sql.query(`SELECT count(*)::int AS n FROM messages`)).rows[0].n).toBe(0);
  });

  it('delivers an encrypted frame as ciphertext with an error naming the missing key', async () => {
    await push(keyless, [{ queue: 'sealed', payload: 'warm-up' }]);
    const sealed = new PayloadCipher(KEY).encrypt(Buffer.from('"x"'));
    await appendFrame(keyless, { queue: 'sealed', transactionId: 'enc', payload: sealed, encrypted: true });
    const res = await pop(keyless, '/api/v1/pop/queue/sealed?batch=5');
    expect(res.status).toBe(200);
    expect(res.body.messages[1]).toMatchObject({
      encrypted: true,
      payload: b64(sealed),
      error: expect.stringContaining('QUEEN_ENCRYPTION_KEY'),
    });
  });
});
