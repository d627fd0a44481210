// Verdicts that must stay true when the row changes under a statement: a cancel waiting on a
// concurrent reschedule, and a claim cleared (backoff, lease expiry, release) between the
// statement that applies an op and the look-up that explains why it changed nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthedContext } from '../src/context.ts';
import type { Queryable } from '../src/db/transaction.ts';
import { applyBatch, cancelOne } from '../src/services/timers/apply.ts';
import { api, onRealPostgres, startTestBroker, type TestBroker } from './helpers/broker.ts';
import { batch, cancel, claimRow, keyPath, row, sched } from './helpers/timers.ts';

let tb: TestBroker;
beforeAll(async () => {
  tb = await startTestBroker();
});
afterAll(() => tb?.close());

/** What backOff does to a claimed row: the claim is cleared, the timer stays pending. */
const BACK_OFF_SQL = `UPDATE timers SET claim_token = NULL, claim_expires_at = NULL, attempts = attempts + 1,
                        last_error = 'boom' WHERE tenant = 'acme' AND queue = $1 AND timer_key = $2`;

/**
 * A broker context whose pool runs `after` once, right after the first statement whose text
 * matches `when` — on the same connection, so it also works inside the batch's transaction.
 */
function contextClearingClaim(when: RegExp, queue: string, timerKey: string): AuthedContext {
  const real = tb.broker.db.pool;
  let done = false;
  const intercept = async (q: Queryable, text: string) => {
    if (!done && when.test(text)) {
      done = true;
      await q.query(BACK_OFF_SQL, [queue, timerKey]);
    }
  };
  const pool = {
    async query(text: string, values?: unknown[]) {
      const r = await real.query(text, values);
      await intercept(real, text);
      return r;
    },
    async connect() {
      const client = await real.connect();
      return {
        async query(text: string, values?: unknown[]) {
          const r = await client.query(text, values);
          await intercept(client, text);
          return r;
        },
        release: (err?: Error | boolean) => client.release(err),
        on: (event: 'error', fn: (err: Error) => void) => client.on(event, fn),
        off: (event: 'error', fn: (err: Error) => void) => client.off(event, fn),
      };
    },
  };
  return {
    ...tb.broker.services,
    db: { ...tb.broker.db, pool },
    principal: { tenant: 'acme', sub: 'tester', grants: new Set(['produce', 'read']) },
  } as unknown as AuthedContext;
}

describe('a claim cleared between the DELETE and the look-up', () => {
  it('the cancel route answers cancelled, not absent, and the timer is gone', async () => {
    await batch(tb, [sched('clr', 'route', { txn: 't-route' })]);
    await claimRow(tb, 'clr', 'route');
    const ctx = contextClearingClaim(/DELETE FROM timers/, 'clr', 'route');
    expect(await cancelOne(ctx, ctx.principal, 'clr', 'route')).toEqual({
      ok: true,
      status: 'cancelled',
      queue: 'clr',
      timerKey: 'route',
      txn: 't-route',
    });
    expect(await row(tb, 'clr', 'route')).toBeUndefined();
  });

  it('a cancel in a batch answers cancelled, not absent', async () => {
    await batch(tb, [sched('clr', 'batch', { txn: 't-batch' })]);
    await claimRow(tb, 'clr', 'batch');
    const ctx = contextClearingClaim(/DELETE FROM timers/, 'clr', 'batch');
    const { results } = await applyBatch(ctx, ctx.principal, [cancel('clr', 'batch')]);
    expect(results).toEqual([{ ok: true, status: 'cancelled', queue: 'clr', timerKey: 'batch', txn: 't-batch' }]);
    expect(await row(tb, 'clr', 'batch')).toBeUndefined();
  });

  it('a schedule in a batch answers rescheduled, not too_late with a null txn', async () => {
    await batch(tb, [sched('clr', 'sched', { txn: 't-old' })]);
    await claimRow(tb, 'clr', 'sched');
    const ctx = contextClearingClaim(/INSERT INTO timers/, 'clr', 'sched');
    const { results } = await applyBatch(ctx, ctx.principal, [sched('clr', 'sched', { txn: 't-new' })]);
    expect(results[0]).toMatchObject({ ok: true, status: 'rescheduled', txn: 't-new' });
    expect(await row(tb, 'clr', 'sched')).toMatchObject({ txn: 't-new', claim_token: null, attempts: 0 });
  });

  it('a timer still claimed at the look-up answers too_late with its txn', async () => {
    await batch(tb, [sched('clr', 'held', { txn: 't-held' })]);
    await claimRow(tb, 'clr', 'held');
    expect((await api(tb, 'DELETE', keyPath('clr', 'held'))).body).toEqual({
      ok: false,
      status: 'too_late',
      queue: 'clr',
      timerKey: 'held',
      txn: 't-held',
    });
    expect((await batch(tb, [sched('clr', 'held')])).body.results[0]).toMatchObject({ status: 'too_late', txn: 't-held' });
  });
});

// Real PostgreSQL only: the concurrent update is held open on a second connection, which embedded
// PGlite (one backend, one transaction at a time) cannot do.
describe.skipIf(!onRealPostgres)('a cancel that waits on a concurrent reschedule of its key', () => {
  /** Holds an uncommitted reschedule of the key while `during` runs, then commits it. */
  async function underConcurrentReschedule<T>(queue: string, key: string, during: () => Promise<T>): Promise<T> {
    const other = await tb.sql.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `UPDATE timers SET txn = 'v2', deliver_at = now() + interval '2 minutes', updated_at = now()
          WHERE tenant = 'acme' AND queue = $1 AND timer_key = $2`,
        [queue, key],
      );
      const pending = during();
      await new Promise((r) => setTimeout(r, 200)); // the cancel is now waiting on the row lock
      await other.query('COMMIT');
      return await pending;
    } finally {
      other.release();
    }
  }

  it('by the cancel route: cancelled (the newest version), not absent', async () => {
    await batch(tb, [sched('wait', 'route', { txn: 'v1' })]);
    const res = await underConcurrentReschedule('wait', 'route', () => api(tb, 'DELETE', keyPath('wait', 'route')));
    expect(res.body).toEqual({ ok: true, status: 'cancelled', queue: 'wait', timerKey: 'route', txn: 'v2' });
    expect(await row(tb, 'wait', 'route')).toBeUndefined();
  });

  it('in a batch: cancelled (the newest version), not absent', async () => {
    await batch(tb, [sched('wait', 'batch', { txn: 'v1' })]);
    const res = await underConcurrentReschedule('wait', 'batch', () => batch(tb, [cancel('wait', 'batch')]));
    expect(res.body.results).toEqual([{ ok: true, status: 'cancelled', queue: 'wait', timerKey: 'batch', txn: 'v2' }]);
    expect(await row(tb, 'wait', 'batch')).toBeUndefined();
  });
});
