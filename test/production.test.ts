// Production as docs/operations.md, "Run in production", describes it: the compiled broker (dist/, built
// by test/setup/build.ts before any test runs) started with plain `node`, and — on PostgreSQL —
// three of them behind HAProxy, with PgBouncer in transaction pooling on the request path and a
// direct connection for what needs a session. HAProxy and PgBouncer are the machine's packages
// (.ci/setup-extra installs them); where they are missing the topology test is skipped, saying so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintToken } from '../src/auth.ts';
import { createScratchDatabase, onRealPostgres, SECRET, SERVER_URL } from './helpers/broker.ts';
import { freePort } from './helpers/procs.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find(existsSync);
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find(existsSync);

interface Proc {
  child: ChildProcess;
  out: string;
  exit: Promise<number | null>;
}

function launch(command: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, out: '', exit: new Promise((resolve) => child.on('exit', resolve)) };
  child.stdout!.on('data', (d) => (p.out += d));
  child.stderr!.on('data', (d) => (p.out += d));
  return p;
}

const ready = (base: string) =>
  vi.waitFor(
    async () => {
      const res = await fetch(`${base}/ready`);
      if (res.status !== 200) throw new Error(`${base}/ready answered ${res.status}`);
    },
    { timeout: 60_000, interval: 100 },
  );

describe('the compiled broker', () => {
  it('starts with plain node on dist/src/server.js (embedded) and serves the API', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'queen-prod-'));
    const port = await freePort();
    const broker = launch(process.execPath, ['dist/src/server.js'], {
      DATABASE_URL: '',
      QUEEN_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    try {
      // The tokens are printed once the broker is ready.
      const token = await vi.waitFor(
        () => {
          const t = /Dev token[^\n]*\n\s*(\S+)/.exec(broker.out)?.[1];
          if (!t) throw new Error(`no dev token printed yet: ${broker.out}`);
          return t;
        },
        { timeout: 60_000, interval: 100 },
      );
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/timers/reminders/compiled`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ found: false });
      broker.child.kill('SIGTERM');
      expect(await broker.exit).toBe(0);
    } finally {
      broker.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

const why = !onRealPostgres
  ? 'needs PostgreSQL (DATABASE_URL)'
  : !HAPROXY || !PGBOUNCER
    ? `needs ${[!HAPROXY && 'haproxy', !PGBOUNCER && 'pgbouncer'].filter(Boolean).join(' and ')} (apt-get install -y haproxy pgbouncer; .ci/setup-extra does)`
    : '';
if (onRealPostgres && why) console.warn(`test/production.test.ts: the three-broker topology is skipped: ${why}`);

describe.skipIf(Boolean(why))(
  `three brokers behind HAProxy, PostgreSQL behind PgBouncer (transaction pooling)${why ? ` — skipped: ${why}` : ''}`,
  () => {
    let dir: string;
    let scratch: { url: string; drop(): Promise<void> };
    let bouncer: Proc;
    let haproxy: Proc;
    const brokers: Proc[] = [];
    let front: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'queen-topology-'));
      await chmod(dir, 0o755); // PgBouncer drops to the postgres user when started as root
      scratch = await createScratchDatabase();
      const server = new URL(SERVER_URL!);
      const database = new URL(scratch.url).pathname.slice(1);

      const bouncerPort = await freePort();
      await writeFile(join(dir, 'userlist.txt'), `"${server.username || 'postgres'}" ""\n`);
      await writeFile(
        join(dir, 'pgbouncer.ini'),
        [
          '[databases]',
          `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database}`,
          '[pgbouncer]',
          'listen_addr = 127.0.0.1',
          `listen_port = ${bouncerPort}`,
          'unix_socket_dir =',
          'auth_type = trust',
          `auth_file = ${join(dir, 'userlist.txt')}`,
          'pool_mode = transaction',
          'max_client_conn = 500',
          'default_pool_size = 20',
          '',
        ].join('\n'),
      );
      const asRoot = process.getuid?.() === 0;
      bouncer = launch(PGBOUNCER!, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')]);
      const pooled = new URL(scratch.url);
      pooled.port = String(bouncerPort);
      await vi.waitFor(
        async () => {
          const r = spawnSync('pg_isready', ['-h', '127.0.0.1', '-p', String(bouncerPort), '-d', database]);
          if (r.status !== 0) throw new Error(`pgbouncer not answering yet: ${bouncer.out}`);
        },
        { timeout: 30_000, interval: 100 },
      );

      const ports = await Promise.all([freePort(), freePort(), freePort()]);
      for (const port of ports) {
        brokers.push(
          launch(process.execPath, ['dist/src/server.js'], {
            DATABASE_URL: pooled.toString(),
            QUEEN_DIRECT_DATABASE_URL: scratch.url,
            QUEEN_JWT_SECRET: SECRET,
            PORT: String(port),
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
            // A killed broker's claimed timers are fired by the others once its claims lapse.
            QUEEN_SWEEPER_LEASE_MS: '2000',
          }),
        );
      }
      await Promise.all(ports.map((port) => ready(`http://127.0.0.1:${port}`)));

      const frontPort = await freePort();
      await writeFile(
        join(dir, 'haproxy.cfg'),
        [
          'global',
          '  maxconn 1000',
          'defaults',
          '  mode http',
          '  timeout connect 2s',
          '  timeout client 60s',
          '  timeout server 60s',
          '  retries 3',
          '  option redispatch',
          'frontend api',
          `  bind 127.0.0.1:${frontPort}`,
          '  default_backend brokers',
          'backend brokers',
          '  balance roundrobin',
          '  option httpchk GET /ready',
          '  http-check expect status 200',
          // Tolerant checks: on a loaded machine a slow /ready must not take a live broker out.
          '  timeout check 5s',
          '  default-server inter 500ms fall 3 rise 2',
          ...ports.map((port, i) => `  server broker${i + 1} 127.0.0.1:${port} check`),
          '',
        ].join('\n'),
      );
      haproxy = launch(HAPROXY!, ['-db', '-f', join(dir, 'haproxy.cfg')]);
      front = `http://127.0.0.1:${frontPort}`;
      await ready(front);
    }, 180_000);

    afterAll(async () => {
      for (const p of [haproxy, ...brokers, bouncer]) p?.child.kill('SIGKILL');
      await Promise.all([haproxy, ...brokers, bouncer].filter(Boolean).map((p) => p.exit));
      await scratch?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it('loses nothing when a broker is SIGKILLed mid-load, and answers 5xx only for the requests it was holding', async () => {
      const token = await mintToken(SECRET, { tenant: 'acme', sub: 'loadtest', grants: ['produce', 'consume', 'read'] });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${front}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json().catch(() => null) };
      };
      const schedule = (key: string) =>
        call('POST', '/api/v1/timers', {
          // The txn makes a retry safe even after the first attempt's timer fired: the log absorbs it.
          operations: [{ op: 'schedule', queue: 'reminders', timerKey: key, txn: key, delayMs: 500, payload: 'eyJoaSI6MX0=' }],
        });
      const push = (txn: string) => call('POST', '/api/v1/push', { items: [{ queue: 'events', transactionId: txn, payload: { txn } }] });

      const WORKERS = 8;
      const PER_WORKER = 150;
      const statuses = new Map<number, number>();
      const unanswered: (() => Promise<{ status: number }>)[] = [];
      let sent = 0;
      let killedAt = -1;
      const victim = brokers[1];
      const worker = async (w: number) => {
        for (let i = 0; i < PER_WORKER; i++) {
          const key = `w${w}-${i}`;
          for (const send of [() => schedule(key), () => push(key)]) {
            if (++sent === (WORKERS * PER_WORKER * 2) / 3) {
              killedAt = sent;
              victim.child.kill('SIGKILL');
            }
            const r = await send().catch(() => ({ status: 0 }));
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            // A refusal for the killed connection: the client retries it (same key, same txn).
            if (r.status !== 200 && r.status !== 201) unanswered.push(send);
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      expect(killedAt).toBeGreaterThan(0);
      expect(await victim.exit).not.toBe(0);

      // Only the requests the killed broker held when it died fail: at most one per worker.
      const failed = [...statuses].filter(([s]) => s !== 200 && s !== 201);
      expect(
        failed.every(([s]) => s >= 500 || s === 0),
        JSON.stringify([...statuses]),
      ).toBe(true);
      expect(unanswered.length).toBeLessThanOrEqual(WORKERS);
      for (const retry of unanswered) expect([200, 201]).toContain((await retry()).status);

      // Nothing lost, nothing twice: every timer fired exactly once, every push is in the log once.
      const sql = new (await import('pg')).default.Client({ connectionString: scratch.url });
      await sql.connect();
      try {
        await vi.waitFor(
          async () => {
            const r = await sql.query(`SELECT count(*)::int AS n FROM timers`);
            if (r.rows[0].n !== 0) throw new Error(`${r.rows[0].n} timers not fired yet`);
          },
          { timeout: 60_000, interval: 200 },
        );
        const fired = await sql.query(
          `SELECT count(*)::int AS frames, count(DISTINCT timer_key)::int AS keys FROM messages WHERE queue = 'reminders'`,
        );
        expect(fired.rows[0]).toEqual({ frames: WORKERS * PER_WORKER, keys: WORKERS * PER_WORKER });
        const pushed = await sql.query(
          `SELECT count(*)::int AS frames, count(DISTINCT transaction_id)::int AS txns FROM messages WHERE queue = 'events'`,
        );
        expect(pushed.rows[0]).toEqual({ frames: WORKERS * PER_WORKER, txns: WORKERS * PER_WORKER });
        const dead = await sql.query(`SELECT count(*)::int AS n FROM dead_letters`);
        expect(dead.rows[0].n).toBe(0);
      } finally {
        await sql.end();
      }
    }, 240_000);
  },
);
