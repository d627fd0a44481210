// `prisma generate` without network: the CLI insists on a schema-engine binary it never runs for
// generate, and cannot download one on our machines. Any existing file satisfies the check.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath };
const r = spawnSync('npx', ['prisma', 'generate'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
