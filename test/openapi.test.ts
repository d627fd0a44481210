import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApiJson } from '../src/openapi.ts';

describe('openapi.json', () => {
  it('is up to date with the zod schemas (run `npm run openapi` when this fails)', () => {
    const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(renderOpenApiJson());
  });
});
