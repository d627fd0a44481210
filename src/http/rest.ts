// The REST projection of the tRPC router: the routing layer that trpc-to-openapi's adapters do
// not cover for us. It routes by the contract's route table (src/contract/index.ts) — the same
// method and path each procedure declares as `meta.openapi` — and adds what this product needs:
//  - catch-all path parameters (`catchAll` of a route): `/api/v1/timers/{queue}/{timerKey}` takes
//    `tenant/42` written naturally, slashes and all (trpc-to-openapi matches each param as [^/]+);
//  - percent-decoding of path parameters (lenient: a `%` not followed by two hex digits stays
//    literal, so `50%off` works unencoded; send `%25` for a literal `%` before hex digits);
//  - strict input on the timer routes: a body or query key the schema does not know is a 400
//    naming it (the Queen routes ignore one: queenObject in src/contract/common.ts), and the
//    server-owned fields (producerSub, messageId, tenant, any `_`-prefixed key) get their own code
//    on every route;
//  - the error body `{ ok: false, error: "<message>", code, field?, ...details }` with the registry's status,
//    Retry-After on 429/503 and any headers the error carries.
import { TRPCError } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { isServerOwned, type RouteDef } from '../contract/common.ts';
import { ApiError, type ApiErrorDetails, type ErrorCode, isConnectionError, isTransientDbError, sqlState } from '../errors.ts';
import { context } from '../tracing.ts';
import { requestContext } from './tracing.ts';

export interface Route {
  method: string;
  path: string;
  regex: RegExp;
  params: string[];
  /** The tRPC procedure serving it, e.g. `timers.batch`. */
  procedurePath: string;
  def: RouteDef;
  bodyInput: boolean;
}

/** The routing table of the contract's routes (keyed by procedure path). */
export function collectRoutes(contract: Readonly<Record<string, RouteDef>>): Route[] {
  const routes: Route[] = [];
  for (const [procedurePath, def] of Object.entries(contract)) {
    const { method, path } = def;
    const params: string[] = [];
    const pattern = path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const m = /^\{(.+)\}$/.exec(part);
        if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        params.push(m[1]);
        return m[1] === def.catchAll ? '(.+)' : '([^/]+)';
      })
      .join('');
    const catchAll = def.catchAll && path.endsWith(`{${def.catchAll}}`);
    // A trailing slash is tolerated everywhere except where it is part of a catch-all key.
    routes.push({
      method,
      path,
      regex: new RegExp(`^${pattern}${catchAll ? '' : '/?'}$`),
      params,
      procedurePath,
      def,
      bodyInput: method === 'POST' || method === 'PUT',
    });
  }
  // Fixed paths before parameterised ones, longer before shorter.
  return routes.sort((a, b) => a.params.length - b.params.length || b.path.length - a.path.length);
}

/** Decodes %XX sequences that form valid UTF-8; leaves any other `%` as a literal. */
export function decodePathSegment(raw: string): string {
  return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

export function matchRoute(routes: Route[], method: string, pathname: string) {
  let methodMismatch = false;
  for (const route of routes) {
    const m = route.regex.exec(pathname);
    if (!m) continue;
    if (route.method !== method) {
      methodMismatch = true;
      continue;
    }
    const params: Record<string, string> = {};
    route.params.forEach((name, i) => (params[name] = decodePathSegment(m[i + 1])));
    return { route, params };
  }
  return { methodMismatch };
}

/**
 * Every error response, on every route: `error` is the message as a string (Queen's client builds
 * `new Error(body.error)`), `code` the stable key a program switches on, `field` the offending
 * input when there is one, and any detail the error carries (a limit, a count) beside them.
 */
export interface ErrorBody {
  ok: false;
  error: string;
  code: ErrorCode;
  field?: string;
  [key: string]: unknown;
}

export function errorBody(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { ...extra, ok: false, error: message, code };
}

/** Sends an ApiError as the HTTP error response. */
export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  const { retryAfter, headers, ...extra } = err.details as ApiErrorDetails;
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  for (const [k, v] of Object.entries(headers ?? {})) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/json')
    .send(errorBody(err.code, err.message, extra));
}

/** Turns whatever a procedure threw into an ApiError (unknowns become `internal`). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof TRPCError) {
    if (err.cause instanceof ApiError) return err.cause;
    if (err.cause instanceof ZodError && err.code === 'BAD_REQUEST') return fromZodError(err.cause);
    if (err.cause && isConnectionError(err.cause)) return unavailable(err.cause);
    if (err.code === 'TOO_MANY_REQUESTS') return new ApiError('rate_limited', err.message, { retryAfter: 1 });
    // Input that could not even be validated (e.g. JSON nested so deep the validator overflows).
    if (err.code === 'BAD_REQUEST' && !(err.cause instanceof ApiError)) {
      return new ApiError('validation_failed', `(body): the input could not be validated: ${err.cause?.message ?? err.message}`, {
        field: '(body)',
      });
    }
  }
  // A lost connection, a server shutting down or out of resources (classes 08, 53, 57), however
  // wrapped (Prisma nests the SQLSTATE): not the caller's fault, retry shortly.
  if (isConnectionError(err) || isTransientDbError(err)) return unavailable(err);
  // 54000 program_limit_exceeded: a value too large to index (btree row limit). The schemas cap
  // keys in UTF-8 bytes so this should not happen; if it does, it is the input, not a bug.
  if (sqlState(err) === '54000') {
    return new ApiError(
      'validation_failed',
      'a key is too long to store (index row size limit); shorten the queue, partition, txn or timerKey',
      {},
      { cause: err },
    );
  }
  return new ApiError('internal', 'internal error; it has been logged', {}, { cause: err });
}

const unavailable = (cause: unknown) =>
  new ApiError('database_unavailable', 'the database is unreachable; retry shortly', { retryAfter: 1 }, { cause });

/** The first zod issue, phrased with the field path; unknown keys get their own codes. */
export function fromZodError(e: ZodError): ApiError {
  const issue = e.issues[0];
  const at = (path: PropertyKey[]) => path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const field = at([...issue.path, key]);
    if (isServerOwned(key)) {
      return new ApiError('server_owned_field', `${field} is set by the server and cannot be supplied; remove it`, { field });
    }
    return new ApiError('unknown_field', `${field} is not a known field; remove it or check its spelling`, { field });
  }
  const field = at(issue.path) || '(body)';
  return new ApiError('validation_failed', `${field}: ${issue.message}`, { field });
}

/**
 * Whether the database is known to be away: its first 503 is logged once, at warn, and its return
 * once, at info; the refusals in between are not logged one by one.
 */
export interface Outage {
  since?: number;
}

export interface DispatchOptions {
  routes: Route[];
  outage: Outage;
  /** The boot flag: while false every matched route answers 503 not_ready. */
  ready: () => boolean;
  call: (
    procedurePath: string,
    input: unknown,
    req: FastifyRequest,
  ) => Promise<{ data: unknown; status?: number; headers: Record<string, string> }>;
}

/** Routes one /api request to its procedure and writes the response. */
export async function dispatch(opts: DispatchOptions, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  // The raw path, not new URL(...).pathname: URL parsing would turn a backslash in a key into '/'.
  const rawUrl = req.raw.url ?? '/';
  const q = rawUrl.indexOf('?');
  const pathname = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const url = { pathname, searchParams: new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1)) };
  const found = matchRoute(opts.routes, req.method, url.pathname);
  if (!('route' in found) || !found.route) {
    const code = 'route_not_found';
    const message = found.methodMismatch
      ? `${req.method} is not supported on ${url.pathname}`
      : `no route ${req.method} ${url.pathname}; see /docs`;
    return sendApiError(reply, new ApiError(code, message));
  }
  const { route, params } = found;
  (req as FastifyRequest & { apiRoute?: string }).apiRoute = route.path;
  let input: Record<string, unknown>;
  if (route.bodyInput) {
    const type = req.headers['content-type'];
    if (req.body !== undefined && !type?.toLowerCase().startsWith('application/json')) {
      return sendApiError(reply, new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json'));
    }
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body) || body === null) {
      return sendApiError(reply, new ApiError('validation_failed', '(body): must be a JSON object', { field: '(body)' }));
    }
    input = { ...(body as Record<string, unknown>) };
  } else {
    input = {};
    // Own keys only: `constructor`, `toString` or `__proto__` in a query string is a parameter like
    // any other (defined, not assigned: assigning `__proto__` would set the object's prototype).
    for (const [k, v] of url.searchParams) {
      if (!Object.hasOwn(input, k)) Object.defineProperty(input, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  for (const [k, v] of Object.entries(params)) {
    if (Object.hasOwn(input, k)) {
      return sendApiError(
        reply,
        new ApiError('unknown_field', `${k} comes from the path and cannot also be sent in the ${route.bodyInput ? 'body' : 'query'}`, {
          field: k,
        }),
      );
    }
    input[k] = v;
  }
  const refuse = (err: ApiError) => {
    const extra = route.def.refusalHeaders?.(input) ?? {};
    for (const [k, v] of Object.entries(extra)) reply.header(k, v);
    return sendApiError(reply, err);
  };
  if (!opts.ready()) {
    return refuse(new ApiError('not_ready', 'the broker is starting or draining; retry shortly', { retryAfter: 1 }));
  }
  try {
    // Inside the request's span, so the spans the procedure starts (pop, ack) are its children.
    const result = await context.with(requestContext(req), () => opts.call(route.procedurePath, input, req));
    if (opts.outage.since !== undefined) {
      req.log.info({ outageMs: Date.now() - opts.outage.since }, 'database reachable again');
      opts.outage.since = undefined;
    }
    for (const [k, v] of Object.entries(result.headers)) reply.header(k, v);
    const status = result.status ?? route.def.status ?? 200;
    if (status === 204) return reply.code(204).send();
    return reply.code(status).type('application/json').send(JSON.stringify(result.data));
  } catch (err) {
    const apiErr = toApiError(err);
    if (apiErr.code === 'database_unavailable') {
      if (opts.outage.since === undefined) {
        opts.outage.since = Date.now();
        const cause = apiErr.cause as Error | undefined;
        req.log.warn({ code: sqlState(cause), reason: cause?.message }, 'database unavailable: answering 503 until it is back');
      }
    } else if (apiErr.status >= 500) req.log.error({ err: (apiErr.cause as Error) ?? apiErr, route: route.path }, 'request failed');
    else req.log.info({ code: apiErr.code, route: route.path }, 'request refused');
    return refuse(apiErr);
  }
}
