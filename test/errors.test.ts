// What a database failure answers, however it arrives: a pg error carries its SQLSTATE as `code`;
// Prisma's driver adapter wraps it (code P2010, the SQLSTATE nested as originalCode). A server that
// restarts, refuses connections or runs out of them is 503 database_unavailable, never 500.
import { describe, expect, it } from 'vitest';
import { toApiError } from '../src/http/rest.ts';

const pgError = (code: string) => Object.assign(new Error(`pg says ${code}`), { code });
const prismaWrapped = (code: string) =>
  Object.assign(new Error('Raw query failed'), {
    code: 'P2010',
    meta: { driverAdapterError: { cause: { originalCode: code, kind: 'postgres' } } },
  });

describe('toApiError', () => {
  for (const [name, code] of [
    ['the server starting or shutting down (57P03)', '57P03'],
    ['a terminated session (57P01)', '57P01'],
    ['too many connections (53300)', '53300'],
    ['a broken connection (08006)', '08006'],
  ]) {
    it(`${name}, from pg or wrapped by Prisma, is 503 database_unavailable with Retry-After`, () => {
      for (const err of [pgError(code), prismaWrapped(code)]) {
        const api = toApiError(err);
        expect({ code: api.code, status: api.status, retryAfter: api.details.retryAfter }).toEqual({
          code: 'database_unavailable',
          status: 503,
          retryAfter: 1,
        });
      }
    });
  }

  it('a failure of the statement itself (23505) stays an internal error', () => {
    expect(toApiError(prismaWrapped('23505')).code).toBe('internal');
    expect(toApiError(pgError('23505')).code).toBe('internal');
  });
});
