// Writes openapi.json at the repository root from the zod schemas (npm run openapi).
// test/openapi.test.ts fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiJson } from '../src/openapi.ts';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
writeFileSync(target, renderOpenApiJson());
console.log(`wrote ${target}`);
