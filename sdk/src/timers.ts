// The timer routes, ergonomically: schedule / reschedule / cancel / peek / list and a batch
// builder. Cancels always go to DELETE /api/v1/timers/:queue/*timerKey — the one route that no
// grant, pause, quota or cluster block may refuse (docs/sdk.md); a batch
// carries a cancel only when the caller opts into the schedule route's authorization by name.
import { QueenTimersError } from './errors.ts';
import { type CallOptions, type Http, mintId } from './http.ts';
import { segmentPath, timerKeyPath } from './paths.ts';
import { encodePayload, type Payload } from './payload.ts';
import type { CancelResult, PeekResult, ScheduleResult, TimerList, TimerOperation, TimerResult, TimerRow } from './types.ts';

/** The broker's cap on ops per POST /api/v1/timers; the batch builder splits above it. */
export const MAX_OPS_PER_CALL = 256;

export interface ScheduleInput {
  queue: string;
  /** Unique within the queue; may contain '/' (`tenant/42`). */
  timerKey: string;
  /** Milliseconds from now on the broker's (PostgreSQL's) clock; there are no absolute instants. */
  delayMs: number;
  /** See `Payload`: bytes, text (sent as UTF-8), or a JSON value (sent as JSON). */
  payload: Payload;
  /**
   * The delivered frame's transaction id, which the log deduplicates on. When omitted the SDK
   * mints a UUID once per call, so a retry of the same call (after a 503 or a lost response)
   * carries the same txn and cannot deliver twice.
   */
  txn?: string | undefined;
  /** Default `Default`. */
  partition?: string | undefined;
}

export interface CancelOptions extends CallOptions {
  /** Echoed back in the verdict, so an `absent` can be checked against the log without a lookup. */
  txn?: string | undefined;
}

export interface ListOptions extends CallOptions {
  /** Exclusive keyset cursor: the previous page's `nextAfter`. */
  after?: string | undefined;
  /** Page size; the broker clamps it to [1, 1000] (default 100). */
  limit?: number | undefined;
  /** `key` (default): by timerKey in byte order; `deliverAt`: soonest first (its cursor is opaque). */
  order?: 'key' | 'deliverAt' | undefined;
  /** Only keys that start with it (key order only). */
  prefix?: string | undefined;
}

export interface BatchOptions {
  /**
   * Lets `.cancel()` put cancel ops into POST /api/v1/timers. That route has the schedule route's
   * authorization: a produce grant, and it is refused whole while the tenant is paused, over
   * quota or over storage, or while the cluster blocks produce — exactly when a cancel matters.
   * Prefer `timers.cancel()` (the DELETE route, which only the boot flag can refuse).
   */
  allowCancelViaScheduleRoute?: boolean | undefined;
}

/** Accumulates schedule and reschedule ops; `send()` posts them in order, ≤ 256 per call. */
export interface TimerBatch {
  schedule(input: ScheduleInput): this;
  reschedule(input: ScheduleInput): this;
  /** The ops as they will be sent (payloads already base64, txns minted). */
  readonly operations: readonly TimerOperation[];
  /**
   * Sends the ops, in order, in calls of at most 256; one verdict per op, in op order. Each call
   * is one transaction on the broker: when a later call is refused, the earlier ones stay applied
   * and the thrown QueenTimersError carries their verdicts in `appliedResults`.
   */
  send(opts?: CallOptions): Promise<TimerResult[]>;
}

/** A batch that may carry cancels: built only with `{ allowCancelViaScheduleRoute: true }`. */
export interface TimerBatchWithCancel extends TimerBatch {
  /** A cancel op on the schedule route (its authorization; see BatchOptions). */
  cancel(queue: string, timerKey: string, opts?: { txn?: string | undefined }): this;
}

type ScheduleOperation = Extract<TimerOperation, { op: 'schedule' | 'reschedule' }>;

function scheduleOp(op: 'schedule' | 'reschedule', input: ScheduleInput): ScheduleOperation {
  const o: ScheduleOperation = {
    op,
    queue: input.queue,
    timerKey: input.timerKey,
    delayMs: input.delayMs,
    txn: input.txn ?? mintId(),
    payload: encodePayload(input.payload),
  };
  if (input.partition !== undefined) o.partition = input.partition;
  return o;
}

const SCHEDULE_STATUSES: ReadonlySet<string> = new Set(['scheduled', 'rescheduled', 'too_late']);

export class Timers {
  constructor(private readonly http: Http) {}

  /**
   * Schedules a timer: a frame in `queue` not before `delayMs` from now. On an existing pending
   * key it replaces the timer (`rescheduled`); on a claimed one it answers `too_late`.
   */
  async schedule(input: ScheduleInput, opts?: CallOptions): Promise<ScheduleResult> {
    return this.one(scheduleOp('schedule', input), opts);
  }

  /** The same upsert as schedule (a new message under an old name: new txn, attempts reset). */
  async reschedule(input: ScheduleInput, opts?: CallOptions): Promise<ScheduleResult> {
    return this.one(scheduleOp('reschedule', input), opts);
  }

  private async one(op: TimerOperation, opts?: CallOptions): Promise<ScheduleResult> {
    const [result] = await this.post([op], opts);
    if (!result || !SCHEDULE_STATUSES.has(result.status)) {
      throw new QueenTimersError({
        status: 200,
        code: 'unexpected_response',
        message: `a ${op.op} answered ${JSON.stringify(result)}`,
        body: result,
      });
    }
    return result as ScheduleResult;
  }

  /**
   * Cancels one timer through DELETE /api/v1/timers/:queue/*timerKey — always that route, which
   * no grant, pause, quota or cluster block can refuse.
   *
   * Switch on `status`:
   * - `cancelled`: it will not fire.
   * - `too_late`: a sweeper holds it; it will be (or was) delivered. Act on the message.
   * - `absent`: **not pending — maybe delivered; check the log for the txn.** Never treat it as
   *   success: a consumer that compensates must read its own state before compensating.
   */
  async cancel(queue: string, timerKey: string, opts: CancelOptions = {}): Promise<CancelResult> {
    const res = await this.http.request<CancelResult>({
      method: 'DELETE',
      path: `/api/v1/timers/${segmentPath(queue)}/${timerKeyPath(timerKey)}`,
      query: { txn: opts.txn },
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data;
  }

  /** One pending timer, payload base64 exactly as stored (maybe compressed/encrypted); a miss is `{found:false}`. */
  async peek(queue: string, timerKey: string, opts: CallOptions = {}): Promise<PeekResult> {
    const res = await this.http.request<PeekResult>({
      method: 'GET',
      path: `/api/v1/timers/${segmentPath(queue)}/${timerKeyPath(timerKey)}`,
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data;
  }

  /** One page of a queue's pending timers, by timerKey in byte order (or by deliverAt), without payloads. */
  async list(queue: string, opts: ListOptions = {}): Promise<TimerList> {
    const res = await this.http.request<TimerList>({
      method: 'GET',
      path: `/api/v1/timers/${segmentPath(queue)}`,
      query: { after: opts.after, limit: opts.limit, order: opts.order, prefix: opts.prefix },
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data;
  }

  /** Every page from `after` (exclusive) on: `for await (const page of timers.pages('q'))`. */
  async *pages(queue: string, opts: ListOptions = {}): AsyncGenerator<TimerList, void, undefined> {
    let after = opts.after;
    for (;;) {
      const page = await this.list(queue, { ...opts, after });
      yield page;
      if (!page.truncated || page.nextAfter === null) return;
      after = page.nextAfter;
    }
  }

  /** Every pending timer of the queue, page after page: `for await (const row of timers.listAll('q'))`. */
  async *listAll(queue: string, opts: ListOptions = {}): AsyncGenerator<TimerRow, void, undefined> {
    for await (const page of this.pages(queue, opts)) yield* page.rows;
  }

  /** A builder for many schedules and reschedules; see TimerBatch. */
  batch(): TimerBatch;
  batch(opts: BatchOptions & { allowCancelViaScheduleRoute: true }): TimerBatchWithCancel;
  batch(opts?: BatchOptions): TimerBatch;
  batch(opts: BatchOptions = {}): TimerBatch | TimerBatchWithCancel {
    const ops: TimerOperation[] = [];
    const allowCancel = opts.allowCancelViaScheduleRoute === true;
    const builder: TimerBatchWithCancel = {
      operations: ops,
      schedule(input) {
        ops.push(scheduleOp('schedule', input));
        return this;
      },
      reschedule(input) {
        ops.push(scheduleOp('reschedule', input));
        return this;
      },
      cancel(queue, timerKey, o = {}) {
        if (!allowCancel) {
          // Reachable from JavaScript or through a cast; TypeScript callers cannot see cancel here.
          throw new TypeError(
            'cancel in a batch uses the schedule route’s authorization; use timers.cancel() (DELETE), or batch({ allowCancelViaScheduleRoute: true })',
          );
        }
        const op: TimerOperation = { op: 'cancel', queue, timerKey };
        if (o.txn !== undefined) op.txn = o.txn;
        ops.push(op);
        return this;
      },
      send: async (callOpts) => {
        const results: TimerResult[] = [];
        for (let i = 0; i < ops.length; i += MAX_OPS_PER_CALL) {
          try {
            results.push(...(await this.post(ops.slice(i, i + MAX_OPS_PER_CALL), callOpts)));
          } catch (err) {
            if (err instanceof QueenTimersError && results.length > 0) {
              throw new QueenTimersError({
                status: err.status,
                code: err.code,
                message: `${err.message} (ops ${i}–${Math.min(i + MAX_OPS_PER_CALL, ops.length) - 1} refused; ${results.length} earlier op(s) applied)`,
                field: err.field,
                retryAfterMs: err.retryAfterMs,
                hint: err.hint,
                body: err.body,
                cause: err,
                appliedResults: [...results],
              });
            }
            throw err;
          }
        }
        return results;
      },
    };
    return builder;
  }

  private async post(operations: TimerOperation[], opts: CallOptions = {}): Promise<TimerResult[]> {
    if (operations.length === 0) return [];
    const res = await this.http.request<{ results: TimerResult[] }>({
      method: 'POST',
      path: '/api/v1/timers',
      body: { operations },
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    const results = res.data?.results;
    if (!Array.isArray(results) || results.length !== operations.length) {
      throw new QueenTimersError({
        status: res.status,
        code: 'unexpected_response',
        message: `expected ${operations.length} verdicts`,
        body: res.data,
      });
    }
    return results;
  }
}
