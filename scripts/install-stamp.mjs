// The stamp scripts/postinstall.mjs keeps in dist/.install-stamp: one hash of everything
// `prisma generate` and the build read, so that an install with nothing changed builds nothing.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** What scripts/build-ui.mjs needs: esbuild and the libraries it bundles (dev dependencies). */
export const UI_BUILD_PACKAGES = ['esbuild', 'preact', 'htm', '@tanstack/query-core', 'uplot'];

/** Files under a folder of `root` (a file: URL ending in /), sorted, skipping the generated client (an output). */
function filesUnder(root, dir) {
  const out = [];
  for (const e of readdirSync(new URL(dir, root), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = `${dir}/${e.name}`;
    if (path === 'src/generated') continue;
    if (e.isDirectory()) out.push(...filesUnder(root, path));
    else out.push(path);
  }
  return out;
}

/** The hash of the build's inputs in the checkout at `root` (a file: URL ending in /). */
export function inputsHash(root) {
  const h = createHash('sha256');
  const files = [
    'prisma/schema.prisma',
    'prisma.config.ts',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/postinstall.mjs',
    'scripts/install-stamp.mjs',
    'scripts/prisma-generate.mjs',
    'node_modules/prisma/package.json',
    'node_modules/@prisma/client/package.json',
    'node_modules/typescript/package.json',
    'scripts/build-ui.mjs',
    // The dashboard's bundler and the libraries bundled into dist/ui/ (absent without the dev dependencies).
    ...UI_BUILD_PACKAGES.map((p) => `node_modules/${p}/package.json`),
    ...filesUnder(root, 'src'),
    ...filesUnder(root, 'dashboard'),
    ...filesUnder(root, 'sdk/src'),
  ];
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(existsSync(new URL(f, root)) || !f.startsWith('node_modules/') ? readFileSync(new URL(f, root)) : '(absent)')
      .update('\0');
  return h.digest('hex');
}
