// The one error registry: stable string codes (never reused, never renamed) → HTTP status.
// Procedures throw `apiError(code, message)`; the HTTP layer renders
// `{ ok: false, error: "<message>", code, ...details }` with the registry's status (src/http/rest.ts).
import { TRPCError } from '@trpc/server';

export const ERRORS = {
  // 400 — malformed input. The message names the field.
  validation_failed: 400,
  invalid_json: 400,
  server_owned_field: 400,
  unknown_field: 400,
  // 401 — no or bad credential.
  unauthenticated: 401,
  token_invalid: 401,
  token_expired: 401,
  // /metrics with QUEEN_METRICS_AUTH=token: no bearer, or not QUEEN_METRICS_TOKEN.
  metrics_unauthorized: 401,
  // 403 — retrying will not help.
  grant_missing: 403,
  schedule_paused: 403,
  horizon_exceeded: 403,
  payload_too_large_for_plan: 403,
  storage_limit_exceeded: 403,
  timer_dlq_not_replayable: 403,
  // A batch with more ops than the plan's per-second rate: no retry can admit it; split it.
  batch_exceeds_rate: 403,
  // A new schedule past the plan's maxSchedules: delete one or raise the plan.
  schedule_limit_exceeded: 403,
  // A cron whose occurrences come closer than the plan's minScheduleIntervalSeconds.
  schedule_interval_too_short: 403,
  // 404
  not_found: 404,
  route_not_found: 404,
  // 408 — the request's headers or body did not arrive within QUEEN_HEADERS_TIMEOUT_MS / QUEEN_BODY_TIMEOUT_MS.
  request_timeout: 408,
  // 409
  lease_mismatch: 409,
  // A failure reported for a frame the group's cursor already passed: it cannot be redelivered.
  already_committed: 409,
  // 413
  body_too_large: 413,
  // 415
  unsupported_media_type: 415,
  // 429 — retry later (with Retry-After).
  rate_limited: 429,
  pending_quota_exceeded: 429,
  // 503 — not your fault (with Retry-After).
  not_ready: 503,
  produce_blocked: 503,
  database_unavailable: 503,
  // The JWKS endpoint could not be reached to verify a token.
  auth_unavailable: 503,
  // The queue encrypts at rest but this broker has no QUEEN_ENCRYPTION_KEY: an operator must set it.
  encryption_unavailable: 503,
  // 500 — a bug; the message never carries internals.
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERRORS;

export interface ApiErrorDetails {
  /** Seconds, sent as the Retry-After header on 429 and 503. */
  retryAfter?: number;
  /** Extra response headers (e.g. x-queen-timers-hint). */
  headers?: Record<string, string>;
  /** Extra fields in the error body (e.g. field: 'operations.0.delayMs'). */
  [key: string]: unknown;
}

/** An error with a stable code; carried through tRPC as the cause of a TRPCError. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ApiErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.status = ERRORS[code];
  }
}

const TRPC_CODE_BY_STATUS: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export function apiError(code: ErrorCode, message: string, details?: ApiErrorDetails, cause?: unknown): TRPCError {
  const err = new ApiError(code, message, details, { cause });
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[err.status] ?? 'INTERNAL_SERVER_ERROR', message, cause: err });
}

// SQLSTATEs the service reacts to by name.
export const SQLSTATE = {
  uniqueViolation: '23505',
  // A write on a server that is not (or no longer) the primary: a standby, or a fenced primary.
  readOnlySqlTransaction: '25006',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  crashShutdown: '57P02',
  cannotConnectNow: '57P03',
} as const;

/**
 * A statement committed on the primary, but PostgreSQL stopped waiting for a synchronous standby
 * to confirm it (its WARNING "canceling wait for synchronous replication"): a failover may lose
 * it, so it is not acknowledged. Retrying is safe: the request's key and txn find the row if it
 * survived (src/db/primary.ts turns the WARNING into this error).
 */
export class ReplicationUnconfirmedError extends Error {
  constructor(warning: string) {
    super(`the commit was not confirmed by a synchronous standby (${warning})`);
    this.name = 'ReplicationUnconfirmedError';
  }
}

/**
 * Transient database failures: retrying later helps and nothing about the request is wrong.
 * Serialization failure, deadlock, a read-only server (a standby reached during a failover), the
 * classes 08 (connection), 53 (resources) and 57 (operator intervention), and a commit no
 * synchronous standby confirmed.
 */
export function isTransientDbError(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 6; e = e.cause, depth++) if (e instanceof ReplicationUnconfirmedError) return true;
  const code = sqlState(err);
  if (code) {
    return (
      code === SQLSTATE.serializationFailure ||
      code === SQLSTATE.deadlockDetected ||
      code === SQLSTATE.readOnlySqlTransaction ||
      code.startsWith('08') ||
      code.startsWith('53') ||
      code.startsWith('57')
    );
  }
  return isConnectionError(err);
}

/** SQLSTATE of a pg error, or of a Prisma driver-adapter error wrapping one. */
export function sqlState(err: unknown): string | undefined {
  for (let e: any = err, depth = 0; e && depth < 6; e = e.cause, depth++) {
    // Prisma wraps the server's error: its own code (P1001, P2010, …) is not a SQLSTATE (P0001,
    // PL/pgSQL's RAISE, is); the driver
    // adapter keeps the original one.
    const original = e.meta?.driverAdapterError?.cause?.originalCode ?? e.cause?.originalCode;
    if (typeof original === 'string' && /^[0-9A-Z]{5}$/.test(original)) return original;
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !/^P[1-9]\d{3}$/.test(e.code)) return e.code;
  }
  return undefined;
}

const CONNECTION_MESSAGES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'Connection terminated',
  'connection error',
  'Client has encountered a connection error',
  'terminating connection',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end',
  'DatabaseNotReachable',
  'Too many connections',
];

/** Prisma's codes for an unreachable or vanished server, and pool exhaustion. */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** Driver-adapter error kinds that mean the connection, not the statement, failed. */
const ADAPTER_CONNECTION_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
]);

/** A failure to reach the database at all (refused, reset, pool closed). */
export function isConnectionError(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 6; e = e.cause, depth++) {
    if (typeof e.code === 'string' && PRISMA_CONNECTION_CODES.has(e.code)) return true;
    const kind = e.meta?.driverAdapterError?.cause?.kind ?? e.kind;
    if (typeof kind === 'string' && ADAPTER_CONNECTION_KINDS.has(kind)) return true;
    const text = `${e.code ?? ''} ${e.name ?? ''} ${e.message ?? ''} ${e.kind ?? ''}`;
    if (CONNECTION_MESSAGES.some((m) => text.includes(m))) return true;
    if (typeof e.code === 'string' && (e.code.startsWith('08') || e.code.startsWith('57P'))) return true;
  }
  return false;
}
