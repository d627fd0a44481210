import { createHmac, generateKeyPairSync, KeyObject } from 'node:crypto';
import { generateKeyPair, exportSPKI, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createVerifier, VerifiedTokens } from '../src/auth.ts';
import { api, SECRET, startTestBroker, type TestBroker } from './helpers/broker.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

const sign = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(new TextEncoder().encode(secret));

const pemOf = (key: KeyObject | CryptoKey) =>
  key instanceof KeyObject ? key.export({ type: 'spki', format: 'pem' }).toString() : exportSPKI(key);

/** An HS256 token over these exact payload bytes (JSON.stringify cannot write 1e309). */
const signRaw = (payload: string) => {
  const head = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
  return `${head}.${createHmac('sha256', SECRET).update(head).digest('base64url')}`;
};

describe('authentication', () => {
  const route = '/api/v1/usage';

  it('answers 401 unauthenticated without an Authorization header', async () => {
    const res = await api(tb, 'GET', route, { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining('Authorization'), code: 'unauthenticated' });
  });

  it('answers 401 unauthenticated for a non-Bearer scheme', async () => {
    const res = await api(tb, 'GET', route, { token: null, headers: { authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
  });

  it('answers 401 token_invalid for a malformed token', async () => {
    const res = await api(tb, 'GET', route, { token: 'not.a.jwt' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_invalid');
  });

  it('answers 401 token_invalid for a token signed with another secret', async () => {
    const token = await sign({ sub: 's', tenant: 'acme', grants: ['read'] }, 'another-secret-another-secret-another-secret');
    const res = await api(tb, 'GET', route, { token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_invalid');
  });

  it('answers 401 token_expired for an expired token', async () => {
    const token = await new SignJWT({ sub: 's', tenant: 'acme', grants: ['read'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(SECRET));
    const res = await api(tb, 'GET', route, { token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_expired');
  });

  it('answers 401 token_invalid when a claim is missing or wrong, naming the claim', async () => {
    for (const [claims, name] of [
      [{ tenant: 'acme', grants: ['read'] }, 'sub'],
      [{ sub: 's', grants: ['read'] }, 'tenant'],
      [{ sub: 's', tenant: 'acme', grants: ['superuser'] }, 'grants'],
      [{ sub: 'a\u0000b', tenant: 'acme', grants: ['produce'] }, 'sub'],
      [{ sub: 's', tenant: '..', grants: ['read'] }, 'tenant'],
      [{ sub: 's', tenant: 'acme', grants: ['read'], exp: 300_000_000_000 }, 'exp'],
      [{ sub: 's', tenant: 'acme', grants: ['read'], iat: Math.floor(Date.now() / 1000) + 3600 }, 'iat'],
    ] as const) {
      const res = await api(tb, 'GET', route, { token: signRaw(JSON.stringify(claims)) });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'token_invalid', error: expect.stringContaining(name) });
    }
  });

  it('refuses an exp that is no instant (1e309) and answers 401, never 500, for a sub with NUL on every route', async () => {
    const infinite = await api(tb, 'GET', route, { token: signRaw('{"sub":"s","tenant":"acme","grants":["read"],"exp":1e309}') });
    expect(infinite.status).toBe(401);
    expect(infinite.body).toMatchObject({ code: 'token_invalid', error: expect.stringContaining('exp') });
    const nul = signRaw(JSON.stringify({ sub: 'a\u0000b', tenant: 'acme', grants: ['produce', 'consume', 'read'] }));
    const schedule = { operations: [{ op: 'schedule', queue: 'q', timerKey: 'k', delayMs: 1000, payload: '' }] };
    expect((await api(tb, 'POST', '/api/v1/timers', { token: nul, body: schedule })).status).toBe(401);
    expect((await api(tb, 'POST', '/api/v1/push', { token: nul, body: { items: [{ queue: 'q', payload: 1 }] } })).status).toBe(401);
  });

  it('refuses the "none" algorithm', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: 's', tenant: 'acme', grants: ['admin'] })).toString('base64url');
    const res = await api(tb, 'GET', '/api/v1/admin/cluster', { token: `${header}.${body}.` });
    expect(res.status).toBe(401);
  });
});

describe('grants', () => {
  // One route per grant; a credential holding every other grant is refused with 403.
  const cases = [
    { grant: 'admin', method: 'GET', url: '/api/v1/admin/cluster' },
    { grant: 'read', method: 'GET', url: '/api/v1/timers/q' },
    { grant: 'consume', method: 'GET', url: '/api/v1/pop/queue/q' },
    { grant: 'produce', method: 'POST', url: '/api/v1/timers', body: { operations: [{ op: 'cancel', queue: 'q', timerKey: 'k' }] } },
  ] as const;
  for (const c of cases) {
    it(`${c.method} ${c.url} needs the ${c.grant} grant`, async () => {
      const others = (['produce', 'consume', 'read', 'admin'] as const).filter((g) => g !== c.grant);
      const res = await api(tb, c.method, c.url, {
        token: await tb.token({ grants: [...others] }),
        body: 'body' in c ? c.body : undefined,
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'grant_missing', error: expect.stringContaining(c.grant) });
    });
  }

  it('provisions the tenant named by a valid credential on first use', async () => {
    await api(tb, 'GET', '/api/v1/usage', { token: await tb.token({ tenant: 'newcomer' }) });
    const r = await tb.sql.query('SELECT tenant, schedule_paused FROM tenants WHERE tenant = $1', ['newcomer']);
    expect(r.rows).toEqual([{ tenant: 'newcomer', schedule_paused: false }]);
  });
});

describe('asymmetric keys', () => {
  it('verifies RS256 tokens against QUEEN_JWT_PUBLIC_KEY and refuses HS256 ones', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const other = await startTestBroker({ env: { QUEEN_JWT_SECRET: '', QUEEN_JWT_PUBLIC_KEY: await exportSPKI(publicKey) } });
    try {
      const good = await new SignJWT({ sub: 's', tenant: 'acme', grants: ['read'] }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
      expect((await api(other, 'GET', '/api/v1/usage', { token: good })).status).toBe(200);
      expect((await api(other, 'GET', '/api/v1/usage', { token: await sign({ sub: 's', tenant: 'acme', grants: ['read'] }) })).status).toBe(
        401,
      );
    } finally {
      await other.close();
    }
  });

  it('verifies PS256 tokens with the same RSA public key, and ES256 and EdDSA with theirs', async () => {
    for (const [keyAlg, algs] of [
      ['RS256', ['RS256', 'PS256']],
      ['ES256', ['ES256']],
      ['EdDSA', ['EdDSA']],
    ] as const) {
      // A node KeyObject signs with either RSA scheme (a WebCrypto key is bound to one).
      const { publicKey, privateKey } =
        keyAlg === 'RS256'
          ? generateKeyPairSync('rsa', { modulusLength: 2048 })
          : await generateKeyPair(keyAlg, { crv: keyAlg === 'EdDSA' ? 'Ed25519' : undefined });
      const other = await startTestBroker({ env: { QUEEN_JWT_SECRET: '', QUEEN_JWT_PUBLIC_KEY: await pemOf(publicKey) } });
      try {
        for (const alg of algs) {
          const token = await new SignJWT({ sub: 's', tenant: 'acme', grants: ['read'] }).setProtectedHeader({ alg }).sign(privateKey);
          expect((await api(other, 'GET', '/api/v1/usage', { token })).status, `${keyAlg} key, ${alg} token`).toBe(200);
        }
      } finally {
        await other.close();
      }
    }
  });
});

describe('key configuration', () => {
  it('answers 503 auth_unavailable with Retry-After when the JWKS endpoint cannot be reached', async () => {
    const other = await startTestBroker({ env: { QUEEN_JWT_SECRET: '', QUEEN_JWT_JWKS_URL: 'http://127.0.0.1:9/jwks.json' } });
    try {
      const { privateKey } = await generateKeyPair('RS256');
      const token = await new SignJWT({ sub: 's', tenant: 'acme', grants: ['read'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .sign(privateKey);
      const res = await api(other, 'GET', '/api/v1/usage', { token });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('auth_unavailable');
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await other.close();
    }
  });

  it('refuses to start with a QUEEN_JWT_PUBLIC_KEY that is not a public key', async () => {
    await expect(startTestBroker({ env: { QUEEN_JWT_SECRET: '', QUEEN_JWT_PUBLIC_KEY: 'not a pem' } })).rejects.toThrow(
      /QUEEN_JWT_PUBLIC_KEY/,
    );
  });
});

describe('verified tokens', () => {
  const principal = (sub: string) => ({ sub, tenant: 'acme', grants: new Set(['read'] as const) });
  afterEach(() => vi.useRealTimers());

  it('keeps a verified token for a minute at most, never past its exp, and the newest MAX of them', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const tokens = new VerifiedTokens();
    tokens.set('a', principal('a'), undefined);
    tokens.set('b', principal('b'), 1_000 + 10); // exp 10 s from now, in seconds
    vi.setSystemTime(1_000_000 + 9_999);
    expect(tokens.get('a')?.sub).toBe('a');
    expect(tokens.get('b')?.sub).toBe('b');
    vi.setSystemTime(1_000_000 + 10_000);
    expect(tokens.get('b')).toBeUndefined();
    vi.setSystemTime(1_000_000 + VerifiedTokens.TTL_MS);
    expect(tokens.get('a')).toBeUndefined();

    for (let i = 0; i <= VerifiedTokens.MAX; i++) tokens.set(`t${i}`, principal(`t${i}`), undefined);
    expect(tokens.get('t0')).toBeUndefined();
    expect(tokens.get('t1')?.sub).toBe('t1');
    expect(tokens.get(`t${VerifiedTokens.MAX}`)?.sub).toBe(`t${VerifiedTokens.MAX}`);
  });

  it('answers token_expired for a token it verified before, once its exp has passed', async () => {
    const verify = createVerifier({ QUEEN_JWT_SECRET: SECRET });
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ sub: 's', tenant: 'acme', grants: ['read'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now)
      .setExpirationTime(now + 30)
      .sign(new TextEncoder().encode(SECRET));
    expect((await verify(`Bearer ${token}`)).sub).toBe('s');
    vi.useFakeTimers({ toFake: ['Date'], now: (now + 30) * 1000 });
    await expect(verify(`Bearer ${token}`)).rejects.toMatchObject({ code: 'token_expired' });
  });

  it('does not keep a token that failed: a bad signature fails every time', async () => {
    const verify = createVerifier({ QUEEN_JWT_SECRET: SECRET });
    const bad = await sign({ sub: 's', tenant: 'acme', grants: ['read'] }, 'another-secret-0123456789abcdef0123456789');
    for (let i = 0; i < 2; i++) await expect(verify(`Bearer ${bad}`)).rejects.toMatchObject({ code: 'token_invalid' });
  });
});

describe("tokens without a tenant claim (Queen's JWTs: sub, username, role)", () => {
  /** A token as Queen's test-v2 mints it: HS256, `role`, no tenant and no grants. */
  const queenToken = (sub: string, role: string) => {
    const now = Math.floor(Date.now() / 1000);
    return sign({ sub, username: sub, role, iat: now, exp: now + 3600 });
  };

  it('are refused by default, naming the claim and the setting', async () => {
    const verify = createVerifier({ QUEEN_JWT_SECRET: SECRET });
    await expect(verify(`Bearer ${await queenToken('alice', 'read-write')}`)).rejects.toMatchObject({
      code: 'token_invalid',
      message: expect.stringMatching(/claim tenant .*QUEEN_TENANTLESS_TOKEN_TENANT/),
    });
  });

  it("with QUEEN_TENANTLESS_TOKEN_TENANT are that tenant's, with the grants of their role", async () => {
    const verify = createVerifier({ QUEEN_JWT_SECRET: SECRET, QUEEN_TENANTLESS_TOKEN_TENANT: 'solo' });
    const rw = await verify(`Bearer ${await queenToken('alice', 'read-write')}`);
    expect({ ...rw, grants: [...rw.grants].sort() }).toEqual({ sub: 'alice', tenant: 'solo', grants: ['consume', 'produce', 'read'] });
    expect([...(await verify(`Bearer ${await queenToken('bob', 'read-only')}`)).grants]).toEqual(['read']);
    expect([...(await verify(`Bearer ${await queenToken('root', 'admin')}`)).grants]).toContain('admin');
    await expect(verify(`Bearer ${await queenToken('eve', 'superuser')}`)).rejects.toMatchObject({
      code: 'token_invalid',
      message: expect.stringMatching(/claim grants .*read-only, read-write, admin/),
    });
    // A token that names its tenant is unaffected: its own tenant, and its grants are required.
    const named = await verify(`Bearer ${await sign({ sub: 's', tenant: 'acme', grants: ['read'] })}`);
    expect(named.tenant).toBe('acme');
    await expect(verify(`Bearer ${await sign({ sub: 's', tenant: 'acme', role: 'admin' })}`)).rejects.toMatchObject({
      code: 'token_invalid',
    });
  });

  it("through the broker: Queen's read-write token pushes and pops in the named tenant; producerSub is its sub", async () => {
    const tb = await startTestBroker({ env: { QUEEN_TENANTLESS_TOKEN_TENANT: 'solo' } });
    try {
      const token = await queenToken('alice-producer', 'read-write');
      const pushed = await api(tb, 'POST', '/api/v1/push', { token, body: { items: [{ queue: 'q', payload: { hello: 'world' } }] } });
      expect(pushed.status).toBe(201);
      const popped = await api(tb, 'GET', '/api/v1/pop/queue/q?autoAck=true', { token });
      expect(popped.body.messages[0]).toMatchObject({ producerSub: 'alice-producer', data: { hello: 'world' } });
      const rows = await tb.sql.query("SELECT tenant FROM messages WHERE queue = 'q'");
      expect(rows.rows).toEqual([{ tenant: 'solo' }]);
      const readOnly = await api(tb, 'POST', '/api/v1/push', {
        token: await queenToken('bob', 'read-only'),
        body: { items: [{ queue: 'q', payload: 1 }] },
      });
      expect(readOnly.body.code).toBe('grant_missing');
    } finally {
      await tb.close();
    }
  });
});
