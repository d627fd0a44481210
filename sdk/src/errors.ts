// The SDK's one error class. Every refusal the broker answers ({ok:false, error, code, field?}),
// every network failure that outlived its retries and every response the SDK cannot read becomes
// a QueenTimersError, so callers branch on `status`/`code` and never on message text.

import type { components } from './generated/schema.ts';

/** The broker's error codes: the registry, as its OpenAPI document lists them. */
export type BrokerErrorCode = components['schemas']['Error']['code'];

/**
 * Every code a QueenTimersError can carry: the broker's, `network_error` (no response, after
 * retries), `unexpected_response` (a body the SDK cannot read), and `http_<status>` for an error
 * response that is not the broker's (a proxy's 502, say).
 */
export type ErrorCode = BrokerErrorCode | 'network_error' | 'unexpected_response' | `http_${number}`;

/** The header a refused POST /api/v1/timers batch carries when it contained a cancel. */
export const HINT_HEADER = 'x-queen-timers-hint';

export interface QueenTimersErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  field?: string | undefined;
  retryAfterMs?: number | undefined;
  hint?: string | undefined;
  body?: unknown;
  cause?: unknown;
  appliedResults?: readonly unknown[] | undefined;
}

export class QueenTimersError extends Error {
  /** HTTP status; 0 when no response arrived (network failure, after retries). */
  readonly status: number;
  /**
   * The broker's stable error code (`grant_missing`, `pending_quota_exceeded`, …), or one of the
   * SDK's own: `network_error` (status 0), `unexpected_response` (a body the SDK cannot read).
   */
  readonly code: ErrorCode;
  /** The offending input field, when the broker named one (400s). */
  readonly field?: string | undefined;
  /** The Retry-After the broker sent (429/503), in milliseconds. */
  readonly retryAfterMs?: number | undefined;
  /**
   * The `x-queen-timers-hint` header: on a refused batch that contained a cancel it names the
   * route that only the boot flag can refuse — `DELETE /api/v1/timers/:queue/*timerKey`.
   */
  readonly hint?: string | undefined;
  /** The parsed response body, if any. */
  readonly body?: unknown;
  /**
   * For `timers.batch().send()` of more than 256 ops: the verdicts of the chunks that were
   * applied before this one was refused (each chunk of ≤ 256 is its own transaction).
   */
  readonly appliedResults?: readonly unknown[] | undefined;

  constructor(init: QueenTimersErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'QueenTimersError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.retryAfterMs = init.retryAfterMs;
    this.hint = init.hint;
    this.body = init.body;
    this.appliedResults = init.appliedResults;
  }

  /** 429 and 503 (and network failures): the same call may succeed later. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503 || this.status === 0;
  }
}
