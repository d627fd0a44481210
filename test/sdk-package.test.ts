// The SDK as its users get it: `npm pack` in sdk/ (whose prepack script builds dist/), the
// tarball installed offline into a scratch project, and then only the package's public entry
// points — an ES module that imports it and a CommonJS script that requires it, each calling a
// real broker — and a TypeScript consumer compiled with strict and exactOptionalPropertyTypes
// under NodeNext, as ESM (.mts) and as CommonJS (.cts), with the repository's own tsc.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from './helpers/broker.ts';

const SDK = fileURLToPath(new URL('../sdk/', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const INSTALLED = 'node_modules/@queen-timers/sdk';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let tb: TestBroker;
let work: string;
let project: string;
let childEnv: Record<string, string>;
let installOutput: string;

/** A child process, awaited without blocking: the broker it calls answers from this process. */
function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...childEnv, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function mustSucceed(what: string, r: Run): Run {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Each flavour's script: schedule and peek a timer, then meet a refusal as QueenTimersError. */
const callBroker = (flavour: string) => `
  const qt = createClient({ baseUrl: process.env.QT_URL, token: process.env.QT_TOKEN });
  const schedule = await qt.timers.schedule({ queue: 'package', timerKey: '${flavour}/1', delayMs: 3_600_000, payload: { from: '${flavour}' } });
  const peek = await qt.timers.peek('package', '${flavour}/1');
  let refused = null;
  try {
    await createClient({ baseUrl: process.env.QT_URL, token: process.env.QT_PRODUCE_TOKEN }).timers.peek('package', '${flavour}/1');
  } catch (err) {
    refused = { isQueenTimersError: err instanceof QueenTimersError, status: err.status, code: err.code };
  }
  console.log(JSON.stringify({ entry, schedule, peek, refused }));
`;

const ESM_SCRIPT = `import { fileURLToPath } from 'node:url';
import { createClient, QueenTimersError } from '@queen-timers/sdk';
const entry = fileURLToPath(import.meta.resolve('@queen-timers/sdk'));
${callBroker('esm')}`;

const CJS_SCRIPT = `const { createClient, QueenTimersError } = require('@queen-timers/sdk');
const entry = require.resolve('@queen-timers/sdk');
(async () => {${callBroker('cjs')}})().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
`;

/**
 * The usage the READMEs show, as a consumer with exactOptionalPropertyTypes writes it: values
 * that may be undefined (an environment variable, an optional parameter) passed straight into
 * the SDK's optional fields.
 */
const README_USAGE = `
declare const process: { env: Record<string, string | undefined> };

export async function readme(signal?: AbortSignal): Promise<void> {
  const qt = createClient({ baseUrl: process.env.QUEEN_URL ?? 'http://localhost:6632', token: process.env.QUEEN_TOKEN });
  createClient({ baseUrl: 'http://localhost:6632', token: undefined, fetch: undefined, headers: undefined, retry: undefined });
  createClient({ baseUrl: 'http://localhost:6632', retry: { maxAttempts: undefined, onRetry: undefined } });
  const partition = process.env.QUEEN_PARTITION;

  const r = await qt.timers.schedule({ queue: 'reminders', timerKey: 'tenant/42', delayMs: 250, payload: { hello: 'world' }, txn: process.env.TXN, partition });
  const c = await qt.timers.cancel('reminders', 'tenant/42', { txn: r.txn ?? undefined, signal });
  switch (c.status) {
    case 'cancelled':
      break;
    case 'too_late':
      break;
    case 'absent':
      break;
    default:
      assertNever(c);
  }
  const p = await qt.timers.peek('reminders', 'trial:acme:day7', { signal });
  if (p.found) console.log(p.deliverAt, p.claimed);

  const page = await qt.timers.list('reminders', { after: process.env.AFTER, limit: undefined, signal });
  for await (const row of qt.timers.listAll('reminders', { after: page.nextAfter ?? undefined })) console.log(row.timerKey);
  await qt.timers
    .batch({ allowCancelViaScheduleRoute: true })
    .schedule({ queue: 'reminders', timerKey: 'a', delayMs: 1_000, payload: 'text', partition })
    .cancel('reminders', 'b', { txn: process.env.TXN })
    .send({ signal });

  await qt.log.push({ queue: 'orders', payload: { id: 1 }, partition, transactionId: process.env.TXN });
  const [frame] = await qt.log.pop('reminders', { wait: true, timeoutMs: 10_000, partition, consumerGroup: process.env.GROUP, signal });
  if (frame) await qt.log.ack(frame, 'failed', { error: process.env.REASON, signal });
  await qt.log.configure('orders', { encryptionEnabled: undefined, retryLimit: 3 });
  await qt.log.consume('orders', (m) => (m.json() ? undefined : { status: 'dlq', error: process.env.REASON }), { signal, partition, onError: undefined });

  try {
    await qt.usage(undefined, { signal });
  } catch (err) {
    if (!(err instanceof QueenTimersError)) throw err;
    switch (err.code) {
      case 'grant_missing':
      case 'rate_limited':
      case 'network_error':
      case 'http_502':
        break;
    }
    const code: ErrorCode = err.code;
    const retryAfterMs: number | undefined = err.retryAfterMs;
    console.log(code, retryAfterMs);
  }
}
`;

const CONSUMER = `import { assertNever, createClient, QueenTimersError, type ErrorCode } from '@queen-timers/sdk';
${README_USAGE}`;

const MISSPELLED = `import { QueenTimersError } from '@queen-timers/sdk';

export const isGrantMissing = (err: unknown): boolean => err instanceof QueenTimersError && err.code === 'grant_mising';
`;

/** A consumer's tsconfig: the strictest options a user is likely to have, libs of a browser. */
function tsconfig(files: string[]): string {
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    noEmit: true,
    // The SDK's declarations are checked too; TypeScript's own lib files are not.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
  };
  return JSON.stringify({ compilerOptions, files }, null, 2);
}

/** tsc on one of the scratch project's tsconfigs, explaining which declaration files it read. */
function typecheck(name: string, files: Record<string, string>): Promise<Run> {
  for (const [file, text] of Object.entries(files)) writeFileSync(join(project, file), text);
  writeFileSync(join(project, `tsconfig.${name}.json`), tsconfig(Object.keys(files)));
  return run(process.execPath, [TSC, '-p', `tsconfig.${name}.json`, '--explainFiles'], project);
}

/** Runs one of the scripts above in the scratch project and parses the line it prints. */
async function callFrom(file: string, text: string) {
  writeFileSync(join(project, file), text);
  const env = {
    QT_URL: tb.url,
    QT_TOKEN: await tb.token({ tenant: 'sdk-package', sub: 'package' }),
    QT_PRODUCE_TOKEN: await tb.token({ tenant: 'sdk-package', sub: 'package', grants: ['produce'] }),
  };
  return JSON.parse(mustSucceed(`node ${file}`, await run(process.execPath, [file], project, env)).stdout);
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  tb = await startTestBroker({ listen: true });
  // Real path: Node reports the resolved entry point by it.
  work = realpathSync(mkdtempSync(join(tmpdir(), 'qt-sdk-package-')));
  // As from a shell: none of an enclosing `npm test`'s settings, a cache of its own, no update check.
  childEnv = { npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(npm_|NODE_OPTIONS$)/i.test(k)) childEnv[k] = v;

  const packed = join(work, 'packed');
  mkdirSync(packed);
  mustSucceed('npm pack', await run('npm', ['pack', '--pack-destination', packed], SDK));
  const tarballs = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toHaveLength(1);

  project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true }));
  const install = ['install', '--offline', '--no-audit', '--no-fund', join(packed, tarballs[0])];
  const installed = mustSucceed('npm install', await run('npm', install, project));
  installOutput = installed.stdout + installed.stderr;
}, 180_000);

afterAll(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  await tb?.close();
});

describe('the packed SDK', () => {
  it('installs an ES module build and a CommonJS build, each with declarations, and no runtime dependency', () => {
    const installed = join(project, INSTALLED);
    const files = readdirSync(join(installed, 'dist'), { recursive: true }).map(String);
    expect(files).toEqual(
      expect.arrayContaining([
        join('esm', 'index.js'),
        join('esm', 'index.d.ts'),
        join('cjs', 'index.js'),
        join('cjs', 'index.d.ts'),
        join('cjs', 'package.json'),
      ]),
    );
    expect(JSON.parse(readFileSync(join(installed, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest).not.toHaveProperty('dependencies');
    expect(manifest).not.toHaveProperty('peerDependencies');
  });

  it('installs with no script of its own to run: no install-scripts warning for its users', () => {
    const manifest = JSON.parse(readFileSync(join(project, INSTALLED, 'package.json'), 'utf8'));
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts ?? {}).not.toHaveProperty(script);
    expect(installOutput).not.toMatch(/install-scripts|allowScripts/);
  });

  it('imported from an ES module: loads dist/esm, schedules and peeks a timer, and throws its QueenTimersError', async () => {
    const out = await callFrom('call.mjs', ESM_SCRIPT);
    expect(out.entry).toBe(join(project, INSTALLED, 'dist/esm/index.js'));
    expect(out.schedule).toMatchObject({ ok: true, status: 'scheduled', queue: 'package', timerKey: 'esm/1' });
    expect(out.peek).toMatchObject({
      found: true,
      timerKey: 'esm/1',
      txn: out.schedule.txn,
      messageId: out.schedule.messageId,
      payload: base64('{"from":"esm"}'),
      claimed: false,
    });
    expect(out.refused).toEqual({ isQueenTimersError: true, status: 403, code: 'grant_missing' });
  });

  it('required from CommonJS: loads dist/cjs, schedules and peeks a timer, and throws its QueenTimersError', async () => {
    const out = await callFrom('call.cjs', CJS_SCRIPT);
    expect(out.entry).toBe(join(project, INSTALLED, 'dist/cjs/index.js'));
    expect(out.schedule).toMatchObject({ ok: true, status: 'scheduled', queue: 'package', timerKey: 'cjs/1' });
    expect(out.peek).toMatchObject({
      found: true,
      timerKey: 'cjs/1',
      txn: out.schedule.txn,
      messageId: out.schedule.messageId,
      payload: base64('{"from":"cjs"}'),
      claimed: false,
    });
    expect(out.refused).toEqual({ isQueenTimersError: true, status: 403, code: 'grant_missing' });
  });

  it('typechecks the README usage in an ES module (.mts) under strict and exactOptionalPropertyTypes, against the ESM declarations', async () => {
    const r = await typecheck('esm', { 'consumer.mts': CONSUMER });
    expect(r.stdout).not.toMatch(/error TS/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${INSTALLED}/dist/esm/index.d.ts\n  Imported via '@queen-timers/sdk' from file 'consumer.mts'`);
    expect(r.stdout).not.toContain(`${INSTALLED}/dist/cjs/`);
  });

  it('typechecks the README usage in CommonJS (.cts) under strict and exactOptionalPropertyTypes, against the CommonJS declarations', async () => {
    const r = await typecheck('cjs', { 'consumer.cts': CONSUMER });
    expect(r.stdout).not.toMatch(/error TS/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${INSTALLED}/dist/cjs/index.d.ts\n  Imported via '@queen-timers/sdk' from file 'consumer.cts'`);
    expect(r.stdout).toContain(
      `File is CommonJS module because '${INSTALLED}/dist/cjs/package.json' has field "type" whose value is not "module"`,
    );
    expect(r.stdout).not.toContain(`${INSTALLED}/dist/esm/`);
  });

  it('refuses to compile a misspelled broker error code, imported or required', async () => {
    const r = await typecheck('misspelled', { 'misspelled.mts': MISSPELLED, 'misspelled.cts': MISSPELLED });
    expect(r.code).not.toBe(0);
    const errors = r.stdout
      .split('\n')
      .filter((l) => /error TS/.test(l))
      .sort();
    expect(errors).toEqual([
      expect.stringMatching(/^misspelled\.cts\(3,\d+\): error TS2367: .*'"grant_mising"'/),
      expect.stringMatching(/^misspelled\.mts\(3,\d+\): error TS2367: .*'"grant_mising"'/),
    ]);
  });
});
