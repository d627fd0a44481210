// `npm install` / `npm ci`: generates the Prisma client (scripts/prisma-generate.mjs) and compiles
// the broker and its CLI to dist/ (`npm run build`), so that a fresh clone has both. `npm ci
// --omit=dev` still brings both tools (peer dependencies of @prisma/client) and builds too; an
// install without them needs a dist/ built beforehand (docs/operations.md, "Run in production"), and this says
// so instead of failing the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const installed = (pkg) => existsSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url));
const run = (args) => {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!installed('prisma') || !installed('typescript')) {
  const built = existsSync(new URL('../dist/src/server.js', import.meta.url));
  console.log(
    built
      ? 'queen-timers: installed without dev dependencies; running the dist/ that is here (node dist/src/server.js)'
      : 'queen-timers: installed without dev dependencies and no dist/ here: build first (npm ci && npm run build), then copy dist/ (docs/operations.md, "Run in production")',
  );
  process.exit(0);
}
run(['scripts/prisma-generate.mjs']);
run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
