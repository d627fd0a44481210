// Builds dist/ with tsc alone, from a clean slate: dist/esm (ES modules) and dist/cjs (CommonJS),
// each with its own declarations, so that `import` and `require` both get code and types of one
// format (package.json "exports"). The package is "type": "module"; dist/cjs/package.json says
// "commonjs" for its folder, without which Node would load those files as ES modules and
// TypeScript (node16/nodenext) would read their .d.ts as ES module declarations.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const SDK = fileURLToPath(new URL('..', import.meta.url));
// sdk/node_modules' TypeScript, or the repository root's: resolution walks up from here.
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [TSC, '-p', project], { cwd: SDK, stdio: 'inherit' });
}
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
