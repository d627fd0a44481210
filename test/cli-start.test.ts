// The CLI starts fast because `queen-timers --help` (and a usage mistake) load nothing but the
// CLI's own words: no SDK, no jose, no zod, no Prisma, no package at all. Each module a command
// needs is imported by that command. Measured against the modules the compiled CLI resolves
// (the speed itself is a bench line: `npm run bench -- cli`).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'qt-cli-start-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The modules `queen-timers <args>` loads, builtins aside, relative to the repository. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const file = join(work, `${args.join('_') || 'none'}.txt`);
  await run(process.execPath, ['--import', './test/helpers/record-imports.mjs', 'bin/queen-timers.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, RECORD_IMPORTS_TO: file, QUEEN_JWT_SECRET: 'x'.repeat(32) },
  }).catch((e: { code?: number }) => {
    if (e.code !== 2) throw e;
  });
  const root = pathToFileURL(ROOT).href;
  const urls = readFileSync(file, 'utf8').trim().split('\n');
  return [...new Set(urls.filter((u) => !u.startsWith('node:')).map((u) => u.replace(root, '')))].filter(
    (u) => !u.startsWith('test/helpers/'),
  );
}

describe('the CLI start', () => {
  it('--help loads the compiled CLI and its words only: no package, no SDK, no auth', async () => {
    expect((await modulesLoadedBy(['--help'])).sort()).toEqual([
      'bin/queen-timers.mjs',
      'dist/src/cli.js',
      'dist/src/cli/words.js',
      'dist/src/grants.js',
    ]);
  });

  it('a usage mistake loads no more than --help', async () => {
    expect((await modulesLoadedBy(['frobnicate'])).sort()).toEqual([
      'bin/queen-timers.mjs',
      'dist/src/cli.js',
      'dist/src/cli/words.js',
      'dist/src/grants.js',
    ]);
  });

  it('a token is minted with jose, loaded by the token command (the recorder sees what a command imports)', async () => {
    const loaded = await modulesLoadedBy(['token', '--tenant', 'a', '--sub', 's', '--grant', 'read']);
    expect(loaded).toContain('dist/src/auth.js');
    expect(loaded.some((u) => u.includes('node_modules/jose/'))).toBe(true);
  });
});
