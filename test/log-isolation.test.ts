// The log across tenants and at rest: another tenant sees nothing (push, pop, ack, DLQ,
// configure), payloads of encrypting queues are ciphertext in the database and plaintext on pop,
// and a frame that cannot be decrypted is delivered with an error instead of failing the pop.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadCipher } from '../src/payload.ts';
import { api, startTestBroker, type TestBroker } from './helpers/broker.ts';

const KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('hex');

let tb: TestBroker;
let globex: string;
beforeAll(async () => {
  tb = await startTestBroker({ env: { QUEEN_ENCRYPTION_KEY: KEY } });
  globex = await tb.token({ tenant: 'globex', sub: 'globex-user' });
});
afterAll(() => tb?.close());

const push = (items: unknown[], token?: string) => api(tb, 'POST', '/api/v1/push', { body: { items }, token });

describe('tenant isolation', () => {
  it("another tenant's pop, DLQ, ack and replay see nothing of acme's queue of the same name", async () => {
    await push([{ queue: 'shared', payload: 'acme secret', transactionId: 'tx-1' }]);
    const [frame] = (await api(tb, 'GET', '/api/v1/pop/queue/shared')).body.messages;
    await api(tb, 'POST', '/api/v1/ack', { body: { transactionId: frame.transactionId, partitionId: frame.partitionId, status: 'dlq' } });
    const dlqRow = (await api(tb, 'GET', '/api/v1/dlq?queue=shared')).body.messages[0];
    expect(dlqRow).toBeDefined();

    expect((await api(tb, 'GET', '/api/v1/pop/queue/shared', { token: globex })).status).toBe(204);
    expect((await api(tb, 'GET', '/api/v1/pop/queue/shared?consumerGroup=fresh', { token: globex })).status).toBe(204);
    expect((await api(tb, 'GET', '/api/v1/dlq', { token: globex })).body).toEqual({ messages: [], total: 0, limit: 100, offset: 0 });
    const ack = await api(tb, 'POST', '/api/v1/ack', { token: globex, body: { transactionId: 'tx-1', partitionId: frame.partitionId } });
    expect(ack.status).toBe(404);
    const replay = await api(tb, 'POST', `/api/v1/dlq/${dlqRow.id}/replay`, { token: globex });
    expect(replay.status).toBe(404);
    expect((await api(tb, 'GET', '/api/v1/dlq?queue=shared')).body.total).toBe(1);
  });

  it("a txn in acme's queue is not a duplicate for globex; each tenant pops only its own frame", async () => {
    await push([{ queue: 'both', payload: 'for acme', transactionId: 'same-txn' }]);
    const theirs = await push([{ queue: 'both', payload: 'for globex', transactionId: 'same-txn' }], globex);
    expect(theirs.body[0].status).toBe('queued');
    const acme = await api(tb, 'GET', '/api/v1/pop/queue/both?batch=10');
    const glob = await api(tb, 'GET', '/api/v1/pop/queue/both?batch=10', { token: globex });
    expect(acme.body.messages.map((f: any) => f.data)).toEqual(['for acme']);
    expect(glob.body.messages).toMatchObject([{ data: 'for globex', producerSub: 'globex-user' }]);
  });

  it("configuring a queue name configures the caller's queue only", async () => {
    await api(tb, 'POST', '/api/v1/configure', { body: { queue: 'cfg-shared', options: { retryLimit: 7 } } });
    const theirs = await api(tb, 'POST', '/api/v1/configure', { token: globex, body: { queue: 'cfg-shared', options: { leaseTime: 5 } } });
    expect(theirs.body.options).toEqual({ encryptionEnabled: false, leaseTime: 5, retryLimit: 3 });
    const rows = await tb.sql.query(`SELECT tenant, lease_time_seconds, retry_limit FROM queues WHERE name = 'cfg-shared' ORDER BY tenant`);
    expect(rows.rows).toEqual([
      { tenant: 'acme', lease_time_seconds: 300, retry_limit: 7 },
      { tenant: 'globex', lease_time_seconds: 5, retry_limit: 3 },
    ]);
  });

  it("a push wakes only its own tenant's waiting pops", async () => {
    const waiting = api(tb, 'GET', '/api/v1/pop/queue/wake?wait=true&timeout=300', { token: globex });
    await push([{ queue: 'wake', payload: 'acme only' }]);
    expect((await waiting).status).toBe(204);
  });
});

describe('encryption at rest', () => {
  it('stores ciphertext (no plaintext in the row) and pops the plaintext', async () => {
    const cfg = await api(tb, 'POST', '/api/v1/configure', { body: { queue: 'vault', options: { encryptionEnabled: true } } });
    expect(cfg.body).toEqual({ configured: true, queue: 'vault', options: { encryptionEnabled: true, leaseTime: 300, retryLimit: 3 } });
    const pushed = await push([{ queue: 'vault', payload: { card: 'PLAINTEXT-MARKER-4242' } }]);
    const row = (await tb.sql.query(`SELECT payload, encrypted FROM messages WHERE tenant = 'acme' AND id = $1`, [pushed.body[0].message_id])).rows[0];
    expect(row.encrypted).toBe(true);
    expect(row.payload.includes(Buffer.from('PLAINTEXT-MARKER'))).toBe(false);
    expect(new PayloadCipher(KEY).decrypt(row.payload).toString()).toBe('{"card":"PLAINTEXT-MARKER-4242"}');
    const res = await api(tb, 'GET', '/api/v1/pop/queue/vault');
    expect(res.body.messages).toMatchObject([
      { payload: Buffer.from('{"card":"PLAINTEXT-MARKER-4242"}').toString('base64'), data: { card: 'PLAINTEXT-MARKER-4242' }, encrypted: false },
    ]);
    expect(res.body.messages[0]).not.toHaveProperty('error');
  });

  it('delivers a frame sealed with another key as ciphertext with an error, alongside readable frames', async () => {
    await push([{ queue: 'rotated', payload: 'before' }]);
    const sealed = new PayloadCipher(OTHER_KEY).encrypt(Buffer.from('"old key"'));
    await tb.sql.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub)
       VALUES ('acme', gen_random_uuid(), 'rotated', 'Default', 'sealed-elsewhere', $1, true, 'tester')`,
      [sealed],
    );
    await tb.sql.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub)
       VALUES ('acme', gen_random_uuid(), 'rotated', 'Default', 'garbage', '\\xdeadbeef'::bytea, true, 'tester')`,
    );
    const res = await api(tb, 'GET', '/api/v1/pop/queue/rotated?batch=10');
    expect(res.status).toBe(200);
    const [plain, rotated, garbage] = res.body.messages;
    expect(plain).toMatchObject({ data: 'before', encrypted: false });
    expect(rotated).toMatchObject({ transactionId: 'sealed-elsewhere', encrypted: true, payload: sealed.toString('base64'), error: expect.stringContaining('decrypt') });
    expect(rotated).not.toHaveProperty('data');
    expect(garbage).toMatchObject({ transactionId: 'garbage', encrypted: true, payload: Buffer.from('deadbeef', 'hex').toString('base64'), error: expect.any(String) });
    // Undecryptable frames are still acked and settled like any other.
    for (const f of res.body.messages) {
      expect((await api(tb, 'POST', '/api/v1/ack', { body: { transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId } })).status).toBe(200);
    }
  });

  it('dead-letters the ciphertext and decrypts it in the DLQ listing', async () => {
    await api(tb, 'POST', '/api/v1/configure', { body: { queue: 'vault-dlq', options: { encryptionEnabled: true } } });
    await push([{ queue: 'vault-dlq', payload: 'SECRET-DLQ' }]);
    const [frame] = (await api(tb, 'GET', '/api/v1/pop/queue/vault-dlq')).body.messages;
    await api(tb, 'POST', '/api/v1/ack', { body: { transactionId: frame.transactionId, partitionId: frame.partitionId, status: 'dlq' } });
    const stored = (await tb.sql.query(`SELECT payload, encrypted FROM dead_letters WHERE tenant = 'acme' AND queue = 'vault-dlq'`)).rows[0];
    expect(stored.encrypted).toBe(true);
    expect(stored.payload.includes(Buffer.from('SECRET-DLQ'))).toBe(false);
    expect((await api(tb, 'GET', '/api/v1/dlq?queue=vault-dlq')).body.messages).toMatchObject([{ data: 'SECRET-DLQ', encrypted: false }]);
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
    const res = await api(keyless, 'POST', '/api/v1/push', { body: { items: [{ queue: 'locked', payload: 'x' }] } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('encryption_unavailable');
    expect((await keyless.sql.query(`SELECT count(*)::int AS n FROM messages`)).rows[0].n).toBe(0);
  });

  it('delivers an encrypted frame as ciphertext with an error naming the missing key', async () => {
    await api(keyless, 'POST', '/api/v1/push', { body: { items: [{ queue: 'sealed', payload: 'warm-up' }] } });
    const sealed = new PayloadCipher(KEY).encrypt(Buffer.from('"x"'));
    await keyless.sql.query(
      `INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub)
       VALUES ('acme', gen_random_uuid(), 'sealed', 'Default', 'enc', $1, true, 'tester')`,
      [sealed],
    );
    const res = await api(keyless, 'GET', '/api/v1/pop/queue/sealed?batch=5');
    expect(res.status).toBe(200);
    expect(res.body.messages[1]).toMatchObject({ encrypted: true, payload: sealed.toString('base64'), error: expect.stringContaining('QUEEN_ENCRYPTION_KEY') });
  });
});
