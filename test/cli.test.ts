import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
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

  it('expires tokens in 30 days by default, never with --expires never', async () => {
    const env = { ...process.env, QUEEN_JWT_SECRET: SECRET };
    const base = ['bin/queen-timers.mjs', 'token', '--tenant', 'a', '--sub', 's', '--grant', 'read'];
    const byDefault = decodeJwt((await run('node', base, { cwd: ROOT, env })).stdout.trim());
    expect(byDefault.exp! - byDefault.iat!).toBe(30 * 24 * 3600);
    expect(decodeJwt((await run('node', [...base, '--expires', 'never'], { cwd: ROOT, env })).stdout.trim()).exp).toBeUndefined();
  });

  it('answers --help with exit 0, and a bad --expires or option with one message and exit 2, no stack', async () => {
    const env = { ...process.env, QUEEN_JWT_SECRET: SECRET };
    expect((await run('node', ['bin/queen-timers.mjs', '--help'], { cwd: ROOT, env })).stdout).toContain('usage: queen-timers token');
    for (const args of [
      ['--expires', 'banana'],
      ['--frobnicate', 'x'],
    ]) {
      const err = await run('node', ['bin/queen-timers.mjs', 'token', '--tenant', 'a', '--sub', 's', '--grant', 'read', ...args], {
        cwd: ROOT,
        env,
      }).catch((e) => e);
      expect(err.code).toBe(2);
      expect(err.stderr).toMatch(/^queen-timers: /);
      expect(err.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('run where no broker keeps its secret, refuses to invent one: exit 2 naming the path, nothing written', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'queen-cli-'));
    try {
      const env = { ...process.env, QUEEN_JWT_SECRET: '', QUEEN_DATA_DIR: '' };
      const err = await run('node', [join(ROOT, 'bin/queen-timers.mjs'), 'token', '--tenant', 'a', '--sub', 's', '--grant', 'read'], {
        cwd: elsewhere,
        env,
      }).catch((e) => e);
      expect(err.code).toBe(2);
      expect(err.stderr).toContain(join(elsewhere, '.queen-data', 'jwt-secret'));
      expect(existsSync(join(elsewhere, '.queen-data'))).toBe(false);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
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

/** `npm start`'s command, with this environment; resolves its output once `until` matches it (or it exits). */
function startBroker(env: Record<string, string>) {
  const child = spawn('node', ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, out, exit };
}

describe('npm start on an embedded database', () => {
  it('prints a dev token and an operator token, serves /docs, refuses a second broker on its folder, and exits 0 on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'queen-start-'));
    const first = startBroker({ QUEEN_DATA_DIR: dataDir });
    try {
      const docs = await waitFor(() => /Swagger UI:\s+(http:\/\/localhost:\d+\/docs)/.exec(first.out.stdout)?.[1], {
        timeout: 60_000,
        interval: 100,
      });
      const dev = await waitFor(() => /Dev token[^\n]*\n\s*(\S+)/.exec(first.out.stdout)?.[1], { timeout: 5_000 });
      const operator = await waitFor(() => /Operator token[^\n]*\n\s*(\S+)/.exec(first.out.stdout)?.[1], { timeout: 5_000 });
      expect((await fetch(docs)).status).toBe(200);
      const api = (path: string, token: string) => fetch(docs.replace('/docs', path), { headers: { authorization: `Bearer ${token}` } });
      expect((await api('/api/v1/usage', dev)).status).toBe(200);
      expect((await api('/api/v1/admin/tenants/dev', dev)).status).toBe(403);
      expect((await api('/api/v1/admin/tenants/dev', operator)).status).toBe(200);

      // A second broker on the same folder: one line naming the folder and the first one's pid.
      const second = startBroker({ QUEEN_DATA_DIR: dataDir });
      expect(await second.exit).toBe(1);
      expect(second.out.stderr.trim()).toBe(
        `queen-timers: the embedded data folder ${join(dataDir, 'pgdata')} is in use by another broker (pid ${first.child.pid}); stop it, or set QUEEN_DATA_DIR to another folder (if no broker is running, delete ${join(dataDir, 'pgdata')}.lock)`,
      );

      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);
      expect(existsSync(join(dataDir, 'pgdata.lock'))).toBe(false);
    } finally {
      first.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a start that cannot succeed says why in one line and exits 1', () => {
  it('the port is in use', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const dataDir = await mkdtemp(join(tmpdir(), 'queen-port-'));
    try {
      const port = (taken.address() as AddressInfo).port;
      const b = startBroker({ QUEEN_DATA_DIR: dataDir, PORT: String(port) });
      expect(await b.exit).toBe(1);
      expect(b.out.stderr.trim()).toBe(`queen-timers: port ${port} on 127.0.0.1 is already in use: stop the other process or set PORT`);
    } finally {
      taken.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('the database cannot be reached within QUEEN_DB_STARTUP_TIMEOUT_MS (retried meanwhile)', async () => {
    const b = startBroker({
      DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:9/nowhere',
      QUEEN_JWT_SECRET: SECRET,
      QUEEN_DB_STARTUP_TIMEOUT_MS: '1500',
    });
    expect(await b.exit).toBe(1);
    expect(b.out.stderr.trim()).toMatch(
      /^queen-timers: cannot reach the database at postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:9\/nowhere: .*ECONNREFUSED/,
    );
    expect(b.out.stderr.trim().split('\n')).toHaveLength(1);
    // It retried: the waits are logged at warn.
    expect(b.out.stdout).toContain('waiting for the database');
  });
});
