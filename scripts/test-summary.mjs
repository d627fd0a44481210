// Prints vitest's JSON report as one plain line, "<label>: N passed, N failed, N skipped", so a
// CI log says at a glance how many tests ran (used by .ci/run).
import { readFileSync } from 'node:fs';

const [file, label] = process.argv.slice(2);
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (r.numTotalTests === 0) {
  console.error('no test ran');
  process.exit(1);
}
