// Dead letters: the frames a consumer group gave up on, and the timers whose fire exhausted its
// attempts (consumer group `__timers__`, not replayable).
import type { CallOptions, Http } from './http.ts';
import { segmentPath } from './paths.ts';
import type { DeadLetterPage, ReplayResult } from './types.ts';

export interface DeadLetterQuery extends CallOptions {
  queue?: string | undefined;
  consumerGroup?: string | undefined;
  partition?: string | undefined;
  /** Dead-lettered at or after this instant (ISO 8601, or a Date). */
  from?: string | Date | undefined;
  /** Dead-lettered at or before this instant (ISO 8601, or a Date). */
  to?: string | Date | undefined;
  /** Page size; the broker clamps it. */
  limit?: number | undefined;
  offset?: number | undefined;
}

const iso = (v: string | Date | undefined) => (v instanceof Date ? v.toISOString() : v);

export class DeadLetters {
  constructor(private readonly http: Http) {}

  /** One page of the tenant's dead letters, oldest first, with the total that matched. */
  async list(query: DeadLetterQuery = {}): Promise<DeadLetterPage> {
    const { signal, traceparent, from, to, ...rest } = query;
    return (
      await this.http.request<DeadLetterPage>({
        method: 'GET',
        path: '/api/v1/dlq',
        query: { ...rest, from: iso(from), to: iso(to) },
        signal,
        traceparent,
      })
    ).data;
  }

  /** Re-pushes a consumer's dead letter as a new frame and removes it from the DLQ. */
  async replay(id: string, opts: CallOptions = {}): Promise<ReplayResult> {
    return (
      await this.http.request<ReplayResult>({
        method: 'POST',
        path: `/api/v1/dlq/${segmentPath(id)}/replay`,
        signal: opts.signal,
        traceparent: opts.traceparent,
      })
    ).data;
  }
}
