import { defineConfig } from 'vitest/config';

// Every test file starts its own broker(s) on its own database. Two workers for two cores;
// generous timeouts because CI machines are slow and shared (no test depends on speed).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/build.ts'],
    // Fails a test during which pg warned of two queries at once on one client.
    setupFiles: ['test/setup/warnings.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // A broker's start (the embedded database compiles its WebAssembly first) took ~50 s beside
    // the Citus suites' clusters on two cores: a ceiling for a stalled start, not a speed target.
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
