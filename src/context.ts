// What a request runs with, as the tRPC starter keeps it: the broker's long-lived services and the
// per-request context built from them. Services take narrow slices of this (their own `Deps`
// types), never the context itself.
import type { FastifyBaseLogger } from 'fastify';
import type { Principal, Verifier } from './auth.ts';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { Metrics } from './metrics.ts';
import type { Notifier } from './notify.ts';
import type { PayloadCipher } from './payload.ts';
import type { ClusterFlagsCache } from './services/cluster.ts';
import type { TenantDirectory } from './plans/tenants.ts';
import type { KnownGroups } from './services/log/groups.ts';
import type { Waiters } from './services/log/waiters.ts';
import type { PendingCounts } from './plans/pendingCounts.ts';

/** Long-lived parts shared by every request of one broker. */
export interface Services {
  config: Config;
  db: Database;
  verify: Verifier;
  metrics: Metrics;
  cluster: ClusterFlagsCache;
  tenants: TenantDirectory;
  /** The pending-timer quota's cached counts (src/plans/pendingCounts.ts). */
  pendingCounts: PendingCounts;
  /** Wakes waiters (long-poll pops) and the sweeper; see src/notify.ts. */
  notifier: Notifier;
  /** Long-poll pops waiting in memory (src/services/log/waiters.ts). */
  waiters: Waiters;
  /** Consumer groups known to be registered (src/services/log/groups.ts). */
  knownGroups: KnownGroups;
  log: FastifyBaseLogger;
  /** Present when QUEEN_ENCRYPTION_KEY is set; queues with encryptionEnabled need it. */
  cipher: PayloadCipher | undefined;
}

/** One request: the services, its credential (verified by the procedure) and its response. */
export interface RequestContext extends Services {
  authorization: string | undefined;
  /** Response status and headers a procedure wants sent (e.g. 204 from an empty pop). */
  res: { status?: number; headers: Record<string, string> };
  /** Aborted when the client disconnects before its response. */
  signal: AbortSignal;
  /** The source text of the body's payloads by path (`items.0.payload`): what push stores. */
  rawPayloads?: Map<string, string>;
}

export interface AuthedContext extends RequestContext {
  principal: Principal;
}

/** The context of one request, built by the HTTP layer for each call. */
export function createContext(
  services: Services,
  request: { log: FastifyBaseLogger; authorization: string | undefined; signal: AbortSignal; rawPayloads?: Map<string, string> },
): RequestContext {
  return { ...services, ...request, res: { headers: {} } };
}
