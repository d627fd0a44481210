// How a failed fire is classified and how long its timer waits before the next attempt.
import { isConnectionError, isTransientDbError, ReplicationUnconfirmedError, sqlState } from '../errors.ts';

/** transient: costs no attempt. permanent / configuration: spend one of QUEEN_SWEEPER_MAX_ATTEMPTS. */
export type FailureClass = 'transient' | 'permanent' | 'configuration';

/** A failure unpacking one timer (before SQL): corrupt zstd, encrypted+zstd without a key. */
export class UnpackError extends Error {
  constructor(
    readonly failureClass: 'permanent' | 'configuration',
    message: string,
  ) {
    super(message);
  }
}

export function classify(err: unknown): FailureClass {
  if (err instanceof UnpackError) return err.failureClass;
  return isTransientDbError(err) ? 'transient' : 'permanent';
}

/**
 * Failures of the database as a whole rather than of some rows: a lost or refused connection
 * (class 08, 57P01–57P03 administrator/crash shutdown, socket errors), exhausted resources
 * (class 53), or a connection whose protocol state was lost (26000 no such prepared statement,
 * 34000 no such portal — seen on embedded PGlite when its socket multiplexer interleaves two
 * connections' extended-protocol messages), or a commit no synchronous standby confirmed (the
 * standbys are away). Bisecting a batch would only multiply them and they
 * say nothing about the rows; the batch is retried whole, for free, on the next pass.
 */
export function isDatabaseLevel(err: unknown): boolean {
  if (isConnectionError(err) || err instanceof ReplicationUnconfirmedError) return true;
  const code = sqlState(err);
  return code !== undefined && (code.startsWith('53') || code === '26000' || code === '34000');
}

/** "SQLSTATE: message" for last_error and the DLQ row. */
export function describe(err: unknown): string {
  // The sweeper talks to pg directly, so the error's own code is the SQLSTATE (including class
  // P0, PL/pgSQL's RAISE, which sqlState() skips as it cannot tell it from Prisma's P2xxx codes).
  const own = (err as { code?: unknown } | null)?.code;
  const code = typeof own === 'string' && /^[0-9A-Z]{5}$/.test(own) ? own : sqlState(err);
  const msg = err instanceof Error ? err.message : String(err);
  return (code ? `${code}: ${msg}` : msg).slice(0, 1000);
}

/**
 * Backoff after a permanent or configuration failure: 1 s, 2 s, 4 s, … by attempts already spent,
 * capped at 10 min, "equal jitter" (half fixed, half random) so a failing queue's timers spread
 * out instead of retrying in lockstep. With the default 5 attempts a timer reaches its DLQ after
 * ~15 s of retries (1+2+4+8, jittered).
 */
export const PERMANENT_BASE_MS = 1_000;
export const PERMANENT_CAP_MS = 600_000;
/** Transient failures: 250 ms doubling per consecutive transient failure of this sweeper, cap 30 s. */
export const TRANSIENT_BASE_MS = 250;
export const TRANSIENT_CAP_MS = 30_000;

export function backoffMs(base: number, cap: number, exponent: number, random = Math.random): number {
  const full = Math.min(cap, base * 2 ** Math.min(exponent, 30));
  return full / 2 + random() * (full / 2);
}
