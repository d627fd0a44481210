// examples/queen-client.mjs run with Queen's real client against a broker with its sweeper: the
// frames three timers fire reach the client's handler one by one, carrying each timer's messageId,
// txn and payload. Queen's client is not on the npm registry, so the test runs only when
// QUEEN_CLIENT_TARBALL names a tarball of it (`npm pack` in Queen's repository, clients/client-js);
// .ci/run sets it when one is at hand. test/queen-wire.test.ts covers the wire without the client.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../sdk/src/index.ts';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const run = promisify(execFile);
const tarball = process.env.QUEEN_CLIENT_TARBALL;
const reason = tarball
  ? existsSync(tarball)
    ? ''
    : `QUEEN_CLIENT_TARBALL=${tarball} does not exist`
  : "QUEEN_CLIENT_TARBALL is unset: set it to a tarball of Queen's client (queen-mq) to run examples/queen-client.mjs with it";
if (reason) console.warn(`queen-client.test.ts skipped: ${reason}`);

describe.skipIf(Boolean(reason))("examples/queen-client.mjs with Queen's client", () => {
  let tb: TestBroker;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'queen-client-'));
    // The client's dependencies (axios, pg, uuid) come from the npm cache when it has them.
    await run('npm', ['install', tarball!, '--prefix', dir, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      timeout: 120_000,
    });
    // Beside its node_modules, so `import 'queen-mq'` resolves to the installed client.
    copyFileSync(fileURLToPath(new URL('../examples/queen-client.mjs', import.meta.url)), join(dir, 'queen-client.mjs'));
    tb = await startTestBroker({ listen: true, sweeper: true });
  }, 180_000);
  afterAll(async () => {
    await tb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("hands each fired frame to the handler with the timer's messageId, txn and payload", async () => {
    const token = await tb.token({ tenant: 'queen-client', sub: 'example', grants: ['produce', 'consume', 'read'] });
    const qt = createClient({ baseUrl: tb.url, token });
    const scheduled = new Map<string, string>(); // txn → messageId
    for (const n of [1, 2, 3]) {
      const r = await qt.timers.schedule({
        queue: 'reminders',
        timerKey: `user/${n}`,
        delayMs: 500,
        txn: `welcome-${n}`,
        payload: { user: n },
      });
      if (r.status !== 'scheduled') throw new Error(r.status);
      scheduled.set(r.txn, r.messageId);
    }

    const { stdout } = await run(process.execPath, [join(dir, 'queen-client.mjs')], {
      env: { ...process.env, QUEEN_URL: tb.url, QUEEN_TOKEN: token, QUEEN_COUNT: '3' },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const seen = lines.map((l) => {
      const m = /^fired (\S+): id (\S+) txn (\S+) data (.*)$/.exec(l);
      expect(m, l).not.toBeNull();
      return { createdAt: m![1]!, id: m![2]!, txn: m![3]!, data: JSON.parse(m![4]!) as unknown };
    });
    expect(seen.map((s) => s.txn).sort()).toEqual(['welcome-1', 'welcome-2', 'welcome-3']);
    for (const s of seen) {
      expect(s.id).toBe(scheduled.get(s.txn));
      expect(s.data).toEqual({ user: Number(s.txn.slice('welcome-'.length)) });
      expect(Number.isNaN(Date.parse(s.createdAt))).toBe(false);
    }
    // The client acked each frame: the group's cursor passed all three.
    const again = await qt.log.pop('reminders', { consumerGroup: 'mailer' });
    expect(again).toEqual([]);
  });
});
