// What a request runs with, as the tRPC starter keeps it: the broker's long-lived services
// (src/services/index.ts, re-exported here for the transport) and the per-request context built
// from them. Services take narrow slices of this (their own `Deps` types), never the context itself.
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from './auth.ts';
import type { Services } from './services/index.ts';

export type { Services };

/** One request: the services, its credential (verified by the procedure) and its response. */
export interface RequestContext extends Services {
  authorization: string | undefined;
  /** Response status and headers a procedure wants sent (e.g. 204 from an empty pop). */
  res: { status?: number; headers: Record<string, string> };
  /** Aborted when the client disconnects before its response. */
  signal: AbortSignal;
  /** The source text of the body's payloads by path (`items.0.payload`): what push stores. Scanned when first asked. */
  rawPayloads?: () => Map<string, string>;
  /** The W3C traceparent what this request stores carries on (src/http/tracing.ts); null when none. */
  traceparent: string | null;
}

export interface AuthedContext extends RequestContext {
  principal: Principal;
}

/** The context of one request, built by the HTTP layer for each call. */
export function createContext(
  services: Services,
  request: {
    log: FastifyBaseLogger;
    authorization: string | undefined;
    signal: AbortSignal;
    rawPayloads?: () => Map<string, string>;
    traceparent?: string | null;
  },
): RequestContext {
  return { ...services, ...request, traceparent: request.traceparent ?? null, res: { headers: {} } };
}
