// scripts/postinstall.mjs builds nothing it need not: never under `npm exec` / `npx` (a CLI call),
// and not when dist/.install-stamp holds the hash of the build's inputs and the outputs are there.
// Run in a scratch copy of the checkout (node_modules linked), so this checkout's dist/ is never
// touched; the stamp is what scripts/install-stamp.mjs computes.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script of the install, without declarations
import { inputsHash } from '../scripts/install-stamp.mjs';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const OUTPUTS = ['dist/src/server.js', 'dist/src/cli.js', 'dist/ui/index.html', 'dist/ui/assets/app.js'];
let copy: string;
const copyUrl = () => pathToFileURL(`${copy}/`);

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'qt-postinstall-'));
  for (const p of [
    'src',
    'sdk/src',
    'dashboard',
    'prisma',
    'scripts',
    'prisma.config.ts',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
  ])
    cpSync(join(ROOT, p), join(copy, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  for (const d of ['dist/src', 'dist/ui/assets']) mkdirSync(join(copy, d), { recursive: true });
  for (const f of OUTPUTS) writeFileSync(join(copy, f), '// built\n');
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** Runs the copy's postinstall as npm would, with npm_command set; answers its output. */
const postinstall = async (npmCommand: string) =>
  (await run(process.execPath, ['scripts/postinstall.mjs'], { cwd: copy, env: { ...process.env, npm_command: npmCommand } })).stdout;

describe('postinstall', () => {
  it('does nothing under npm exec (npx queen-timers): no build, no stamp', async () => {
    expect(await postinstall('exec')).toBe('');
    expect(() => statSync(join(copy, 'dist/.install-stamp'))).toThrow();
    for (const f of OUTPUTS) expect(readFileSync(join(copy, f), 'utf8')).toBe('// built\n');
  });

  it('builds nothing on an install whose stamp matches the inputs, the outputs being there', async () => {
    writeFileSync(join(copy, 'dist/.install-stamp'), `${inputsHash(copyUrl())}\n`);
    expect(await postinstall('ci')).toContain('Prisma client and dist/ are up to date');
    for (const f of OUTPUTS) expect(readFileSync(join(copy, f), 'utf8')).toBe('// built\n');
  });

  it('stamps a change to any source (the dashboard too), the schema or a tsconfig', () => {
    const before = inputsHash(copyUrl());
    for (const f of [
      'src/cli/words.ts',
      'prisma/schema.prisma',
      'tsconfig.build.json',
      'sdk/src/index.ts',
      'dashboard/src/main.ts',
      'dashboard/style.css',
    ]) {
      const original = readFileSync(join(copy, f), 'utf8');
      writeFileSync(join(copy, f), `${original}\n`);
      expect(inputsHash(copyUrl())).not.toBe(before);
      writeFileSync(join(copy, f), original);
    }
    expect(inputsHash(copyUrl())).toBe(before);
  });
});
