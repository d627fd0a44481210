#!/usr/bin/env node
// The `queen-timers` CLI. Compiled (dist/src/cli.js: `npm run build`, which npm install runs) it
// starts in a fraction of a second; in a checkout that has not been built it runs the sources
// through tsx, which takes seconds.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/cli.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
