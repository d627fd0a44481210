// The SQL helpers that stand in for the driver's or the database's own rendering: each must give
// exactly the text the one it replaces gives.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoFromMicros, textArray } from '../src/db/sql.ts';

// pg's own encoder of an array parameter, which textArray replaces on the schedule's hot path.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => string };

describe('textArray', () => {
  it("is the literal pg's prepareValue builds from the same strings, quotes, backslashes, braces and commas included", () => {
    const piece = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('"', '\\', '\\"', '{', '}', ',', ' ', 'NULL', ''));
    const element = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(element, { maxLength: 20 }), (values) => {
        expect(textArray(values)).toBe(prepareValue(values));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isoFromMicros', () => {
  // The rendering it had before it kept the last second's text: milliseconds by toISOString, then
  // the three digits of microseconds.
  const reference = (us: number) => {
    const ms = Math.floor(us / 1000);
    return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
  };
  // Up to 2^53 µs (the year 2255), where a double stops holding every microsecond (microsSql).
  const instant = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 2_000_000 });

  it('renders whole microseconds as isoSql does, in the same second as the call before it or not', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -2_000_000, max: 2_000_000 }), (us, step) => {
        expect(isoFromMicros(us)).toBe(reference(us));
        const next = Math.max(0, us + step);
        expect(isoFromMicros(next)).toBe(reference(next));
      }),
      { numRuns: 5000 },
    );
    expect(isoFromMicros(1_700_000_000_000_001)).toBe('2023-11-14T22:13:20.000001Z');
    expect(isoFromMicros(1_700_000_000_999_999)).toBe('2023-11-14T22:13:20.999999Z');
  });
});
