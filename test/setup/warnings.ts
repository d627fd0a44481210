// In every test file: pg's warning that a client was handed a query while it was still executing
// one (two queries at once on one connection, which pg 9 will refuse) fails the test it fired in,
// with the stack of the call, so the concurrent use is found where it happens. Pipelined pools
// (src/db/index.ts) issue queries back to back on purpose and never raise it.
import { afterEach } from 'vitest';

const CONCURRENT_QUERY = /Calling client\.query\(\) when the client is already executing a query/;
const seen: Error[] = [];

process.on('warning', (warning) => {
  if (warning.name === 'DeprecationWarning' && CONCURRENT_QUERY.test(warning.message)) seen.push(warning);
});

afterEach(() => {
  const [first] = seen.splice(0);
  if (first) throw new Error(`two queries at once on one pg client: ${first.message}\n${first.stack ?? ''}`);
});
