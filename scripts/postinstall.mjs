// `npm install` / `npm ci`: generates the Prisma client (scripts/prisma-generate.mjs) and compiles
// the broker and its CLI to dist/ and bundles the dashboard into dist/ui/ (`npm run build`), so
// that a fresh clone has all three.
//
// It does so only when an install asks for it and something changed:
//  - never under `npm exec` / `npx` (npm links the project and reruns this script there): a CLI call
//    must not rebuild anything, nor rewrite the dist/ and src/generated/ a running broker loaded;
//  - not when dist/.install-stamp holds the hash of everything both steps read (the Prisma schema
//    and config, the sources, the tsconfigs, the installed prisma, @prisma/client and typescript,
//    this script) and their outputs are there: a second `npm install` changes nothing.
// An install without the build tools (`npm ci --omit=dev --omit=optional`, docs/operations.md) needs a
// dist/ built beforehand, and this says so instead of failing the install. There it also removes
// the query compilers of the databases this schema does not use from @prisma/client's runtime
// (mysql, sqlite, sqlserver, cockroachdb, the edge build) and its source maps: the generated
// client loads PostgreSQL's only, and they are most of a production install.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { inputsHash, UI_BUILD_PACKAGES } from './install-stamp.mjs';

const root = new URL('..', import.meta.url);
const at = (path) => new URL(path, root);
const STAMP = 'dist/.install-stamp';
const OUTPUTS = ['dist/src/server.js', 'dist/src/cli.js', 'src/generated/prisma/client.ts'];
const UI_OUTPUTS = ['dist/ui/index.html', 'dist/ui/assets/app.js'];

if (process.env.npm_command === 'exec') process.exit(0);

/** Removes what the generated client never loads from @prisma/client/runtime; answers bytes freed. */
function prunePrismaRuntime() {
  const dir = 'node_modules/@prisma/client/runtime';
  if (!existsSync(at(dir))) return 0;
  const unused = (name) =>
    name.endsWith('.map') ||
    name.startsWith('wasm-compiler-edge.') ||
    (/^query_compiler_\w+_bg\.\w+\./.test(name) && !/^query_compiler_\w+_bg\.postgresql\./.test(name));
  let freed = 0;
  for (const name of readdirSync(at(dir)).filter(unused)) {
    freed += statSync(at(`${dir}/${name}`)).size;
    rmSync(at(`${dir}/${name}`));
  }
  return freed;
}

const installed = (pkg) => existsSync(at(`node_modules/${pkg}/package.json`));
// Production: the dev dependencies are absent (@types/node stands for them; prisma and typescript
// may still come as peers of @prisma/client and @trpc/server with a bare --omit=dev).
if (!installed('prisma') || !installed('typescript') || !installed('@types/node')) {
  const freed = prunePrismaRuntime();
  if (freed)
    console.log(`queen-timers: removed ${Math.round(freed / 2 ** 20)} MiB of other databases' query compilers from @prisma/client`);
  const built = existsSync(at('dist/src/server.js'));
  console.log(
    built
      ? 'queen-timers: installed without the build tools; running the dist/ that is here (node dist/src/server.js)'
      : 'queen-timers: installed without the build tools and no dist/ here: build first (npm ci && npm run build), then copy dist/ (docs/operations.md, "Run in production")',
  );
  process.exit(0);
}

// The dashboard's bundler and libraries are dev dependencies: an install with the compiler but
// without them (a bare --omit=dev keeps typescript as a peer) keeps the dist/ui/ that is here.
const uiTools = UI_BUILD_PACKAGES.every(installed);
const hash = inputsHash(root);
const stamp = existsSync(at(STAMP)) ? readFileSync(at(STAMP), 'utf8').trim() : '';
if (stamp === hash && [...OUTPUTS, ...(uiTools ? UI_OUTPUTS : [])].every((f) => existsSync(at(f)))) {
  console.log('queen-timers: Prisma client and dist/ are up to date (dist/.install-stamp); nothing to build');
  process.exit(0);
}

const run = (args) => {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(['scripts/prisma-generate.mjs']);
run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
if (uiTools) run(['scripts/build-ui.mjs']);
else
  console.log(
    existsSync(at('dist/ui/index.html'))
      ? 'queen-timers: the dashboard bundler (a dev dependency) is not installed; keeping the dist/ui/ that is here'
      : 'queen-timers: the dashboard bundler (a dev dependency) is not installed and no dist/ui/ is here: /ui answers 503 until `npm ci && npm run build`',
  );
writeFileSync(at(STAMP), `${hash}\n`);
