// Writes sdk/src/generated/schema.ts from openapi.json with openapi-typescript (`npm run sdk` at
// the repository root, after `npm run openapi`). test/sdk-generated.test.ts fails when the
// committed file is stale against openapi.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, UNKNOWN } from 'openapi-typescript';

export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi.json', import.meta.url));
export const SCHEMA_PATH = fileURLToPath(new URL('../src/generated/schema.ts', import.meta.url));

const HEADER = [
  '// generated — do not edit.',
  '// Produced by `npm run sdk` (sdk/scripts/generate.ts) with openapi-typescript from openapi.json,',
  '// which is itself generated from the zod schemas in src/contract. Change those instead.',
  '/* eslint-disable */',
  '',
].join('\n');

/** The generated module's text for a given OpenAPI document (pure: no file is written). */
export async function renderSdkSchema(openapiJson: string = readFileSync(OPENAPI_PATH, 'utf8')): Promise<string> {
  const ast = await openapiTS(JSON.parse(openapiJson), {
    exportType: false,
    alphabetize: false,
    // A schema that references itself (zod's z.json(), the push payload: a JSON value of JSON
    // values) becomes `unknown`: as an indexed access into `components["schemas"]` the recursion
    // is a compile error (TS2502). The SDK types push payloads with its own JsonValue.
    transform(schemaObject, { path }) {
      if (path?.startsWith('#/components/schemas/') && JSON.stringify(schemaObject).includes(`"$ref":"${path}"`)) return UNKNOWN;
      return undefined;
    },
  });
  return HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_PATH, await renderSdkSchema());
  console.log(`wrote ${SCHEMA_PATH}`);
}
