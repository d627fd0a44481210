import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../src/auth.ts';
import { api, SECRET, startTestBroker, waitFor, type TestBroker } from './helpers/broker.ts';
import { ack, pop, push } from './helpers/log.ts';

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
    const help = (await run('node', ['bin/queen-timers.mjs', '--help'], { cwd: ROOT, env })).stdout;
    expect(help).toContain('usage: queen-timers <command> [options]');
    expect(help).toContain('token --tenant <tenant> --sub <subject> --grant <produce|consume|read|admin>');
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

/**
 * `npm start`'s command as package.json has it (run without npm's wrapper, as a supervisor would),
 * with this environment, so a change to the script is a change to what this test starts.
 */
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string).split(' ');

function startBroker(env: Record<string, string>) {
  const child = spawn(START[0], START.slice(1), {
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
  it('prints a dev token and an operator token, serves /docs and the dashboard beside it, refuses a second broker on its folder, and exits 0 on SIGTERM', async () => {
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
      const dashboard = /Dashboard:\s+(http:\/\/localhost:\d+\/ui)\s/.exec(first.out.stdout)?.[1];
      expect(dashboard).toBe(docs.replace('/docs', '/ui'));
      const page = await fetch(dashboard!);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
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

describe('the CLI over the REST API (compiled, through the SDK)', () => {
  let tb: TestBroker;
  let dev: string;
  let operator: string;
  beforeAll(async () => {
    tb = await startTestBroker({ listen: true });
    dev = await tb.token({ grants: ['produce', 'consume', 'read'] });
    operator = await tb.operatorToken();
  });
  afterAll(() => tb?.close());

  /** Runs the CLI; resolves with its exit code and output, whatever the code. */
  const cli = async (args: string[], token = dev) =>
    run('node', ['bin/queen-timers.mjs', ...args], { cwd: ROOT, env: { ...process.env, QUEEN_URL: tb.url, QUEEN_TOKEN: token } }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );

  it('runs the compiled CLI (dist/src/cli.js), which npm run build writes', () => {
    expect(existsSync(join(ROOT, 'dist/src/cli.js'))).toBe(true);
  });

  it('lists, peeks and cancels timers, as a table or as the API’s JSON', async () => {
    await api(tb, 'POST', '/api/v1/timers', {
      body: {
        operations: ['a', 'b'].map((k) => ({
          op: 'schedule',
          queue: 'reminders',
          timerKey: `trial:${k}`,
          delayMs: 3_600_000,
          payload: 'e30=',
        })),
      },
    });
    const list = await cli(['timers', 'list', 'reminders']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^key\s+deliver at\s+partition\s+txn\s+attempts\s+claimed$/);
    expect(list.stdout).toMatch(/^trial:a\s+\d{4}-/m);
    const json = JSON.parse((await cli(['timers', 'list', 'reminders', '--json', '--limit', '1'])).stdout);
    expect(json).toMatchObject({ truncated: true, nextAfter: 'trial:a', rows: [{ timerKey: 'trial:a' }] });
    expect((await cli(['timers', 'peek', 'reminders', 'trial:b'])).stdout).toMatch(/^timerKey\s+trial:b$/m);
    expect((await cli(['timers', 'cancel', 'reminders', 'trial:b'])).stdout.trim()).toBe('cancelled: it was pending and will not fire');
    expect((await cli(['timers', 'cancel', 'reminders', 'trial:b'])).stdout.trim()).toMatch(/^absent: /);
    expect((await cli(['timers', 'peek', 'reminders', 'trial:b', '--json'])).stdout.trim()).toBe(JSON.stringify({ found: false }, null, 2));
  });

  /** The frames `tail --json` printed: [txn, group, data]. */
  const framesOf = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((f) => [f.transactionId, f.consumerGroup, f.data]);
  const OBSERVER = /^__observer:queen-timers-tail:[0-9a-z]+$/;

  it('tails from new frames by default: a new observer group of its own, none of the history', async () => {
    await push(tb, [{ queue: 'news', payload: { n: 1 }, transactionId: 'old1' }]);
    const tailing = cli(['tail', 'news', '--count', '1', '--json']);
    // Registered (at the partition's end) before the next frame is pushed.
    await waitFor(
      async () =>
        (await tb.sql.query("SELECT 1 FROM consumer_groups WHERE queue = 'news' AND consumer_group LIKE '__observer:queen-timers-tail:%'"))
          .rowCount,
    );
    await push(tb, [{ queue: 'news', payload: { n: 2 }, transactionId: 'new2' }]);
    const tailed = await tailing;
    expect(tailed.code).toBe(0);
    const frames = framesOf(tailed.stdout);
    expect(frames.map(([txn, , data]) => [txn, data])).toEqual([['new2', { n: 2 }]]);
    expect(frames[0]![1]).toMatch(OBSERVER);
  });

  it('tails from the beginning with --from-beginning, then lists and replays dead letters', async () => {
    await push(tb, [
      { queue: 'events', payload: { n: 1 }, transactionId: 'e1' },
      { queue: 'events', payload: { n: 2 }, transactionId: 'e2' },
    ]);
    const tailed = await cli(['tail', 'events', '--from-beginning', '--count', '2', '--json']);
    expect(tailed.code).toBe(0);
    const frames = framesOf(tailed.stdout);
    expect(frames.map(([txn, , data]) => [txn, data])).toEqual([
      ['e1', { n: 1 }],
      ['e2', { n: 2 }],
    ]);
    expect(frames[0]![1]).toMatch(OBSERVER);
    expect(frames[1]![1]).toBe(frames[0]![1]);

    const [frame] = (await pop(tb, '/api/v1/pop/queue/events')).body.messages;
    await ack(tb, frame, { status: 'dlq', error: 'unreadable' });
    const listed = await cli(['dlq', 'list', '--queue', 'events']);
    expect(listed.stdout).toMatch(/^id\s+queue\s+group\s+txn\s+retries\s+dead-lettered at\s+error$/m);
    expect(listed.stdout).toContain('unreadable');
    expect(listed.stdout.trim().split('\n').at(-1)).toBe('1 of 1');
    const id = JSON.parse((await cli(['dlq', 'list', '--json'])).stdout).messages[0].id;
    expect((await cli(['dlq', 'replay', id])).stdout).toMatch(/^replayed into events\/Default as transactionId /);
  });

  it('seeks and deletes a consumer group; a bad --to is a usage mistake (exit 2)', async () => {
    await push(tb, [
      { queue: 'cg-cli', payload: 'a', transactionId: 'c1' },
      { queue: 'cg-cli', payload: 'b', transactionId: 'c2' },
    ]);
    const read = async () => {
      const res = await pop(tb, '/api/v1/pop/queue/cg-cli?batch=10&consumerGroup=billing&autoAck=true');
      return res.status === 204 ? [] : res.body.messages.map((m: { data: unknown }) => m.data);
    };
    expect(await read()).toEqual(['a', 'b']);
    const seek = await cli(['group', 'seek', 'billing', 'cg-cli', '--to', 'beginning']);
    expect(seek).toMatchObject({ code: 0, stdout: 'billing on cg-cli: 1 partitions moved to beginning\n' });
    expect(await read()).toEqual(['a', 'b']);
    const end = JSON.parse((await cli(['group', 'seek', 'billing', 'cg-cli', '--to', 'end', '--json'])).stdout);
    expect(end).toMatchObject({ success: true, seekToEnd: true, partitionsUpdated: 1 });
    expect(await read()).toEqual([]);
    expect((await cli(['group', 'delete', 'billing', '--queue', 'cg-cli'])).stdout.trim()).toBe('billing on cg-cli: 1 cursors deleted');
    expect(await read()).toEqual(['a', 'b']);
    const bad = await cli(['group', 'seek', 'billing', 'cg-cli', '--to', 'someday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--to must be end, beginning or an ISO 8601 instant/);
  });

  it('reads and sets plans and cluster flags with an operator token; a tenant token is refused with exit 1', async () => {
    const set = await cli(['plan', 'set', 'acme', '--max-pending-timers', '500', '--horizon-seconds', 'default'], operator);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^maxPendingTimers\s+500\s+500$/m);
    expect(set.stdout).toMatch(/^horizonSeconds\s+\d+\s+\(cell default\)$/m);
    expect(JSON.parse((await cli(['plan', 'get', 'acme', '--json'], operator)).stdout)).toMatchObject({ maxPendingTimers: 500 });
    const limits = await cli(['plan', 'set', 'acme', '--max-schedules', '20', '--min-schedule-interval-seconds', '60'], operator);
    expect(limits.stdout).toMatch(/^maxSchedules\s+20\s+20$/m);
    expect(limits.stdout).toMatch(/^minScheduleIntervalSeconds\s+60\s+60$/m);
    await cli(['plan', 'set', 'acme', '--max-schedules', 'default', '--min-schedule-interval-seconds', 'default'], operator);
    expect((await cli(['cluster', 'set', '--sweeper-paused', 'true'], operator)).stdout).toMatch(/^sweeperPaused\s+true$/m);
    expect(JSON.parse((await cli(['cluster', 'get', '--json'], operator)).stdout)).toEqual({ produceBlocked: false, sweeperPaused: true });
    await cli(['cluster', 'set', '--sweeper-paused', 'false'], operator);

    const refused = await cli(['plan', 'get', 'acme']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^queen-timers: 403 grant_missing: /);
  });

  it('shows stats: usage, the cell’s pending timers and the per-queue gauges of its tenant', async () => {
    await api(tb, 'POST', '/api/v1/timers', {
      body: { operations: [{ op: 'schedule', queue: 'stats', timerKey: 's1', delayMs: 3_600_000, payload: 'e30=' }] },
    });
    await tb.broker.queueStats!.runOnce();
    const stats = JSON.parse((await cli(['stats', '--json'])).stdout);
    expect(stats.usage.tenant).toBe('acme');
    expect(stats.queues).toContainEqual({ queue: 'stats', pending: 1, overdueSeconds: 0, deadLetters: 0 });
    expect((await cli(['stats'])).stdout).toMatch(/^stats\s+1\s+0\.0\s+0$/m);
  });

  it('answers a usage mistake with exit 2 and the usage, an unreachable broker with exit 1 naming the URL', async () => {
    const bad = await cli(['timers', 'peek', 'reminders']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected <queue> <timerKey>');
    expect(bad.stderr).toContain('usage: queen-timers');
    expect((await cli(['plan', 'set', 'acme', '--schedule-rate', 'fast'], operator)).stderr).toContain(
      '--schedule-rate must be a whole number, got "fast"',
    );
    const down = await run('node', ['bin/queen-timers.mjs', 'timers', 'list', 'q'], {
      cwd: ROOT,
      env: { ...process.env, QUEEN_URL: 'http://127.0.0.1:1', QUEEN_TOKEN: dev },
    }).catch((e) => e);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('is a broker running at http://127.0.0.1:1?');
  });
});
