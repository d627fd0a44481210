import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createVerifier } from '../src/auth.ts';
import { SECRET, waitFor } from './helpers/broker.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;

describe('queen-timers token', () => {
  it('mints a token that the broker verifies, with the requested tenant, subject and grants', async () => {
    const { stdout } = await run(
      'node',
      ['bin/queen-timers.mjs', 'token', '--tenant', 'acme', '--sub', 'billing', '--grant', 'produce', '--grant', 'read'],
      {
        cwd: ROOT,
        env: { ...process.env, QUEEN_JWT_SECRET: SECRET },
      },
    );
    const principal = await createVerifier({ QUEEN_JWT_SECRET: SECRET })(`Bearer ${stdout.trim()}`);
    expect(principal).toEqual({ sub: 'billing', tenant: 'acme', grants: new Set(['produce', 'read']) });
  });

  it('sets an expiry with --expires', async () => {
    const { stdout } = await run(
      'node',
      ['bin/queen-timers.mjs', 'token', '--tenant', 'a', '--sub', 's', '--grant', 'read', '--expires', '1h'],
      {
        cwd: ROOT,
        env: { ...process.env, QUEEN_JWT_SECRET: SECRET },
      },
    );
    const claims = decodeJwt(stdout.trim());
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('refuses an unknown grant with usage and exit code 2', async () => {
    const err = await run('node', ['bin/queen-timers.mjs', 'token', '--tenant', 'a', '--sub', 's', '--grant', 'root'], {
      cwd: ROOT,
      env: { ...process.env, QUEEN_JWT_SECRET: SECRET },
    }).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('unknown grant(s): root');
  });
});

describe('npm start on an embedded database', () => {
  it('prints a dev token and the /docs URL, serves /docs, and exits 0 on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'queen-start-'));
    const child = spawn('node', ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', QUEEN_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const docs = await waitFor(() => /Swagger UI:\s+(http:\/\/localhost:\d+\/docs)/.exec(out)?.[1], { timeout: 60_000, interval: 100 });
      const token = await waitFor(() => /Dev token[^\n]*\n\s*(\S+)/.exec(out)?.[1], { timeout: 5_000 });
      expect((await fetch(docs)).status).toBe(200);
      const res = await fetch(docs.replace('/docs', '/api/v1/admin/tenants/dev'), { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
