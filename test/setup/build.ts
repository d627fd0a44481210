// Before any test file runs: `npm run build`, so the tests that start the compiled broker or the
// CLI (test/production.test.ts, test/cli.test.ts) and the dashboard (test/browser-dashboard.test.ts)
// run what the sources say now, never a dist/ left from an older checkout. A failed build fails the run.
import { execFileSync } from 'node:child_process';

export default function setup() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: new URL('../..', import.meta.url),
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/build-ui.mjs'], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' });
}
