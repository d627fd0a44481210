import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdkSchema, SCHEMA_PATH } from '../sdk/scripts/generate.ts';
import { renderOpenApiJson } from '../src/openapi.ts';

describe('sdk/src/generated/schema.ts', () => {
  it('is up to date with openapi.json (run `npm run sdk` when this fails)', async () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(await renderSdkSchema());
  });

  it('is up to date with the zod schemas themselves, not just the committed openapi.json', async () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(await renderSdkSchema(renderOpenApiJson()));
  });

  it('says it is generated and must not be edited', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8').split('\n')[0]).toBe('// generated — do not edit.');
  });
});
