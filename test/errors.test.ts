// What a database failure answers, however it arrives: a pg error carries its SQLSTATE as `code`;
// Prisma's driver adapter wraps it (code P2010, the SQLSTATE nested as originalCode). A server that
// restarts, refuses connections or runs out of them is 503 database_unavailable, never 500.
import { describe, expect, it } from 'vitest';
import { NoPrimaryError } from '../src/db/primary.ts';
import { unavailableOr } from '../src/db/transaction.ts';
import { ApiError, ReplicationUnconfirmedError } from '../src/errors.ts';
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
    ['a write on a read-only server: a standby, or a demoted primary (25006)', '25006'],
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

  it('no listed host answering as a primary is 503 database_unavailable with Retry-After', () => {
    const api = toApiError(new NoPrimaryError('no primary among 127.0.0.1:1, 127.0.0.1:2'));
    expect({ code: api.code, status: api.status, retryAfter: api.details.retryAfter }).toEqual({
      code: 'database_unavailable',
      status: 503,
      retryAfter: 1,
    });
  });

  it('a commit no synchronous standby confirmed is 503 database_unavailable, saying the write may be lost and to retry it', () => {
    const unconfirmed = new ReplicationUnconfirmedError('canceling wait for synchronous replication due to user request');
    const api = unavailableOr(unconfirmed) as ApiError;
    expect(api).toBeInstanceOf(ApiError);
    expect({ code: api.code, status: api.status, retryAfter: api.details.retryAfter }).toEqual({
      code: 'database_unavailable',
      status: 503,
      retryAfter: 1,
    });
    expect(api.message).toBe('the write was not confirmed by a standby and may be lost in a failover; retry the same request shortly');
    expect(toApiError(unconfirmed).status).toBe(503);
  });

  it('a failure of the statement itself (23505) stays an internal error', () => {
    expect(toApiError(prismaWrapped('23505')).code).toBe('internal');
    expect(toApiError(pgError('23505')).code).toBe('internal');
  });
});
