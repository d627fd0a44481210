// Type-level specification of the SDK, checked by `tsc --noEmit` (the root tsconfig includes
// test/): each `@ts-expect-error` below fails the typecheck if the line it guards compiles.
// The runtime assertions only keep vitest from calling the file empty.
import { describe, expect, it } from 'vitest';
import {
  assertNever,
  createClient,
  type BrokerErrorCode,
  type CancelResult,
  type ErrorCode,
  type QueenTimersError,
  type ScheduleResult,
  type TimerResult,
  type TimerStatus,
} from '../sdk/src/index.ts';
import { ERRORS } from '../src/errors.ts';

/** Every status of the closed taxonomy, handled; adding a sixth to the schema breaks this. */
export function describeVerdict(r: TimerResult): string {
  switch (r.status) {
    case 'scheduled':
    case 'rescheduled':
      return `${r.status} ${r.messageId} at ${r.deliverAt}`;
    case 'cancelled':
      return `cancelled ${r.txn}`;
    case 'too_late':
      return 'claimed by a sweeper: it will be (or was) delivered';
    case 'absent':
      return `not pending — maybe delivered; check the log for txn ${r.txn}`;
    default:
      return assertNever(r);
  }
}

export function missingCaseIsACompileError(r: CancelResult): string {
  switch (r.status) {
    case 'cancelled':
      return 'cancelled';
    case 'too_late':
      return 'too_late';
    default:
      // @ts-expect-error — `absent` is not handled, so r is not `never` here.
      return assertNever(r);
  }
}

export function scheduleNeverAnswersAbsent(r: ScheduleResult): string {
  switch (r.status) {
    case 'scheduled':
    case 'rescheduled':
    case 'too_late':
      return r.status;
    default:
      return assertNever(r);
  }
}

export function okNarrowsToSuccess(r: TimerResult): string | undefined {
  // `ok` is a literal on every variant: ok === true excludes too_late and absent.
  if (r.ok) return r.txn;
  const notOk: 'too_late' | 'absent' = r.status;
  return notOk;
}

export function batchCancelNeedsTheNamedOption() {
  const timers = createClient({ baseUrl: 'http://localhost:6632' }).timers;
  // @ts-expect-error — a plain batch has no cancel: cancels go to DELETE (timers.cancel).
  timers.batch().cancel('q', 'k');
  timers.batch({ allowCancelViaScheduleRoute: true }).schedule({ queue: 'q', timerKey: 'a', delayMs: 1, payload: 'x' }).cancel('q', 'k');
  // @ts-expect-error — there is no absolute instant on this wire.
  timers.schedule({ queue: 'q', timerKey: 'k', deliverAt: '2030-01-01T00:00:00Z', payload: 'x' });
}

/** An error's code is a closed union: a misspelt case is a compile error, not a silent miss. */
export function isRetryLater(err: QueenTimersError): boolean {
  switch (err.code) {
    case 'rate_limited':
    case 'pending_quota_exceeded':
    case 'database_unavailable':
    case 'network_error':
      return true;
    // @ts-expect-error — not a code of the registry nor of the SDK.
    case 'rate_limit':
      return true;
    default:
      return false;
  }
}

/** The SDK's registry is the broker's, key for key: both directions are checked. */
const SAME_REGISTRY: [BrokerErrorCode, keyof typeof ERRORS] extends [keyof typeof ERRORS, BrokerErrorCode] ? true : false = true;
const OWN_CODES: ErrorCode[] = ['network_error', 'unexpected_response', 'http_502'];

const ALL: Record<TimerStatus, true> = { scheduled: true, rescheduled: true, cancelled: true, too_late: true, absent: true };

describe('SDK types', () => {
  it('expose exactly the five statuses of the closed taxonomy', () => {
    expect(Object.keys(ALL).sort()).toEqual(['absent', 'cancelled', 'rescheduled', 'scheduled', 'too_late']);
  });

  it('type error codes as the registry plus the SDK own codes', () => {
    expect(SAME_REGISTRY).toBe(true);
    expect(OWN_CODES).toHaveLength(3);
  });

  it('assertNever throws on a value the types said could not exist', () => {
    expect(() => describeVerdict({ ok: false, status: 'gone' } as unknown as TimerResult)).toThrow(/unexpected/);
  });
});
