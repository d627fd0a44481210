// createClient(): the SDK's entry point.
import { Admin } from './admin.ts';
import { Dashboard } from './dashboard.ts';
import { DeadLetters } from './deadLetters.ts';
import { type CallOptions, type ClientOptions, Http } from './http.ts';
import { Log } from './log.ts';
import { Schedules } from './schedules.ts';
import { Timers } from './timers.ts';
import type { Usage, Whoami } from './types.ts';

export interface QueenTimersClient {
  /** Timer routes: schedule, reschedule, cancel (DELETE), peek, list, batch. */
  readonly timers: Timers;
  /** Recurring schedules: put, get, list, delete (DELETE, which only the boot flag can refuse). */
  readonly schedules: Schedules;
  /** Log routes: push, pop, ack, consume. */
  readonly log: Log;
  /** The DLQ: list, replay. */
  readonly deadLetters: DeadLetters;
  /** Operator routes (admin grant on the operator tenant): plans, cluster flags. */
  readonly admin: Admin;
  /** The dashboard's read routes: whoami, queues, overview, fire lag, forecast, log views. */
  readonly dashboard: Dashboard;
  /** The credential's tenant, subject and grants (any valid credential): `dashboard.whoami()`. */
  whoami(opts?: CallOptions): Promise<Whoami>;
  /** Billed messages of the caller's tenant in a month (`YYYY-MM`, UTC; default the current one). */
  usage(period?: string, opts?: CallOptions): Promise<Usage>;
}

export function createClient(options: ClientOptions): QueenTimersClient {
  const http = new Http(options);
  const dashboard = new Dashboard(http);
  return {
    timers: new Timers(http),
    schedules: new Schedules(http),
    log: new Log(http),
    deadLetters: new DeadLetters(http),
    admin: new Admin(http),
    dashboard,
    whoami: (opts) => dashboard.whoami(opts),
    async usage(period, opts = {}) {
      return (
        await http.request<Usage>({
          method: 'GET',
          path: '/api/v1/usage',
          query: { period },
          signal: opts.signal,
          traceparent: opts.traceparent,
        })
      ).data;
    },
  };
}
