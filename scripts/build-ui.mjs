// Bundles the dashboard (dashboard/) into dist/ui/ with esbuild: one script, one stylesheet and the
// page, everything from node_modules inlined, so /ui works offline and loads nothing from elsewhere.
// `npm run build` and the install (scripts/postinstall.mjs) run it; the broker serves the result
// (src/http/dashboard.ts).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const at = (path) => new URL(`../${path}`, import.meta.url).pathname;

rmSync(at('dist/ui'), { recursive: true, force: true });
mkdirSync(at('dist/ui/assets'), { recursive: true });
await build({
  entryPoints: { app: at('dashboard/src/main.ts'), style: at('dashboard/style.css') },
  outdir: at('dist/ui/assets'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(at('dashboard/index.html'), at('dist/ui/index.html'));
copyFileSync(at('dashboard/favicon.svg'), at('dist/ui/favicon.svg'));
