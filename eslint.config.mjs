// Lint: ESLint's and typescript-eslint's recommended rules, plus the layering of src/ that
// test/architecture.test.ts also checks (domain code never imports the transport).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The zstd module is initialised once per process by src/payload.ts (initCodec); another init()
// would leave the library's memory views on a stale instance and break every later decompress.
const zstdOnlyThroughPayload = {
  name: '@bokuweb/zstd-wasm',
  message: 'use src/payload.ts (maybeCompress, zstdDecompress): a second init() of the module breaks it',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', 'sdk/src/generated/', 'sdk/dist/', 'dist/', '.queen-data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node's globals, for the plain JavaScript files (TypeScript files are checked by tsc).
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'Buffer', 'URL', 'fetch', 'performance', 'setTimeout', 'clearTimeout'].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      // Row shapes from pg and tRPC's caller are untyped at the edges; `any` there is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      // Key schemas refuse control characters by matching them, on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    ignores: ['src/payload.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [zstdOnlyThroughPayload] }] },
  },
  {
    files: ['src/services/**/*.ts', 'src/sweeper/**/*.ts', 'src/db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [zstdOnlyThroughPayload],
          patterns: [
            { group: ['**/routers/*', '**/http/*', '**/trpc.ts', '**/app.ts'], message: 'domain code must not import the transport layer' },
          ],
        },
      ],
    },
  },
);
