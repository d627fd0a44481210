// The schedule routes, with the timers' ergonomics: put (create or replace), get, list, delete.
// Each occurrence of a schedule becomes an ordinary timer `<scheduleKey>@<instant>` in its queue,
// so `timers.peek`/`timers.cancel` reach one occurrence; `schedules.delete` always goes to
// DELETE /api/v1/schedules/:queue/*scheduleKey, which no grant, pause, quota or cluster block
// may refuse.
import type { CallOptions, Http } from './http.ts';
import { segmentPath, timerKeyPath } from './paths.ts';
import { encodePayload, type Payload } from './payload.ts';
import type { ScheduleDeleteResult, ScheduleGetResult, ScheduleList, SchedulePutResult, ScheduleRow } from './types.ts';
import type { ListOptions } from './timers.ts';

export interface ScheduleDefinition {
  queue: string;
  /** Unique within the queue; may contain '/' (`acme/daily-digest`); at most 1,000 bytes. */
  scheduleKey: string;
  /**
   * Five fields (`0 9 * * *`: 09:00 every day) or six with seconds first (`*\/10 * * * * *`);
   * day-of-month OR day-of-week when both are restricted; `@daily`-style nicknames.
   */
  cron: string;
  /** IANA zone the expression is read in (default `UTC`), e.g. `Europe/Rome`. */
  timezone?: string | undefined;
  /** See `Payload`: bytes, text (sent as UTF-8), or a JSON value (sent as JSON). */
  payload: Payload;
  /** Default `Default`. */
  partition?: string | undefined;
}

const schedulePath = (queue: string, scheduleKey: string) => `/api/v1/schedules/${segmentPath(queue)}/${timerKeyPath(scheduleKey)}`;

export class Schedules {
  constructor(private readonly http: Http) {}

  /**
   * Creates or replaces a schedule (PUT; the same call twice is the same schedule). Answers it
   * with its next occurrences; a replace lists the old definition's occurrences it withdrew —
   * none of them fires after this call returns.
   */
  async put(input: ScheduleDefinition, opts: CallOptions = {}): Promise<SchedulePutResult> {
    const body: Record<string, string> = { cron: input.cron, payload: encodePayload(input.payload) };
    if (input.timezone !== undefined) body.timezone = input.timezone;
    if (input.partition !== undefined) body.partition = input.partition;
    const res = await this.http.request<SchedulePutResult>({
      method: 'PUT',
      path: schedulePath(input.queue, input.scheduleKey),
      body,
      signal: opts.signal,
    });
    return res.data;
  }

  /** One schedule with its next occurrences, payload base64 as stored; a miss is `{found:false}`. */
  async get(
    queue: string,
    scheduleKey: string,
    opts: CallOptions & {
      /** Upcoming occurrences shown, 1 to 100 (default 5), each with its DST shift. */ occurrences?: number | undefined;
    } = {},
  ): Promise<ScheduleGetResult> {
    return (
      await this.http.request<ScheduleGetResult>({
        method: 'GET',
        path: schedulePath(queue, scheduleKey),
        query: { occurrences: opts.occurrences },
        signal: opts.signal,
      })
    ).data;
  }

  /** One page of a queue's schedules, by scheduleKey in byte order, without payloads. */
  async list(queue: string, opts: ListOptions = {}): Promise<ScheduleList> {
    const res = await this.http.request<ScheduleList>({
      method: 'GET',
      path: `/api/v1/schedules/${segmentPath(queue)}`,
      query: { after: opts.after, limit: opts.limit },
      signal: opts.signal,
    });
    return res.data;
  }

  /** Every schedule of the queue, page after page: `for await (const s of schedules.listAll('q'))`. */
  async *listAll(queue: string, opts: ListOptions = {}): AsyncGenerator<ScheduleRow, void, undefined> {
    let after = opts.after;
    for (;;) {
      const page = await this.list(queue, { ...opts, after });
      yield* page.rows;
      if (!page.truncated || page.nextAfter === null) return;
      after = page.nextAfter;
    }
  }

  /**
   * Deletes a schedule through DELETE /api/v1/schedules/:queue/*scheduleKey — the route only the
   * boot flag can refuse — and withdraws its materialized occurrence (`withdrawn`). An occurrence
   * a sweeper already holds is in `tooLate`: it will be (or was) delivered. `absent`: no such
   * schedule.
   */
  async delete(queue: string, scheduleKey: string, opts: CallOptions = {}): Promise<ScheduleDeleteResult> {
    return (
      await this.http.request<ScheduleDeleteResult>({ method: 'DELETE', path: schedulePath(queue, scheduleKey), signal: opts.signal })
    ).data;
  }
}
