// The dashboard's read routes: who the credential is, the tenant's queues, the per-queue overview,
// the fire-lag chart, the forecast, and the log's partitions, consumer groups, leases and frames.
// Every one needs the read grant except whoami (any valid credential). Counts that would need a
// scan at volume come as a `Count`: `{ value, basis }`, basis `exact`, `estimate` (≈) or
// `at_least` (≥).
import type { CallOptions, Http } from './http.ts';
import { segmentPath } from './paths.ts';
import type { FireLag, Forecast, FrameList, GroupList, LeaseList, Overview, PartitionList, QueueList, Whoami } from './types.ts';

/** A keyset page: `after` is the previous page's `nextAfter`; the broker clamps `limit`. */
export interface PageOptions extends CallOptions {
  after?: string | undefined;
  limit?: number | undefined;
}

export interface OverviewOptions extends PageOptions {
  /** Only this queue. */
  queue?: string | undefined;
}

export interface FireLagOptions extends CallOptions {
  /** One queue (default: every queue of the tenant). */
  queue?: string | undefined;
  /** Minutes of history, 1 to 1440 (default 60). */
  minutes?: number | undefined;
}

export interface FrameOptions extends PageOptions {
  /** Default `Default`. */
  partition?: string | undefined;
}

export class Dashboard {
  constructor(private readonly http: Http) {}

  private async get<T>(path: string, query: Record<string, string | number | undefined>, opts: CallOptions): Promise<T> {
    return (await this.http.request<T>({ method: 'GET', path, query, signal: opts.signal })).data;
  }

  /** The credential's tenant, subject and grants, and whether the operator routes answer it. */
  whoami(opts: CallOptions = {}): Promise<Whoami> {
    return this.get('/api/v1/whoami', {}, opts);
  }

  /** One page of the tenant's queues by name. */
  queues(opts: PageOptions = {}): Promise<QueueList> {
    return this.get('/api/v1/queues', { after: opts.after, limit: opts.limit }, opts);
  }

  /** Per queue: pending, due soon, overdue, claimed, fired, DLQ, log depth and consumer lag, with warnings. */
  overview(opts: OverviewOptions = {}): Promise<Overview> {
    return this.get('/api/v1/overview', { queue: opts.queue, after: opts.after, limit: opts.limit }, opts);
  }

  /** Fire lag p50/p99 and timers fired, per minute. */
  fireLag(opts: FireLagOptions = {}): Promise<FireLag> {
    return this.get('/api/v1/fire-lag', { queue: opts.queue, minutes: opts.minutes }, opts);
  }

  /** What fires when in one queue: the next hour by minute, the next 90 days by day. */
  forecast(queue: string, opts: CallOptions = {}): Promise<Forecast> {
    return this.get(`/api/v1/forecast/${segmentPath(queue)}`, {}, opts);
  }

  /** One page of a queue's partitions with their depth. */
  partitions(queue: string, opts: PageOptions = {}): Promise<PartitionList> {
    return this.get(`/api/v1/log/${segmentPath(queue)}/partitions`, { after: opts.after, limit: opts.limit }, opts);
  }

  /** One page of a queue's consumer groups with their lag. */
  groups(queue: string, opts: PageOptions = {}): Promise<GroupList> {
    return this.get(`/api/v1/log/${segmentPath(queue)}/groups`, { after: opts.after, limit: opts.limit }, opts);
  }

  /** One page of the partition leases held now. */
  leases(queue: string, opts: PageOptions = {}): Promise<LeaseList> {
    return this.get(`/api/v1/log/${segmentPath(queue)}/leases`, { after: opts.after, limit: opts.limit }, opts);
  }

  /** One page of a partition's frames by seq, payloads as stored; reading consumes nothing. */
  frames(queue: string, opts: FrameOptions = {}): Promise<FrameList> {
    return this.get(`/api/v1/log/${segmentPath(queue)}/frames`, { partition: opts.partition, after: opts.after, limit: opts.limit }, opts);
  }
}
