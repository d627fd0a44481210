// buildApp() assembles the HTTP service around a set of long-lived services; it never listens
// (src/server.ts does), so tests drive it with inject() or listen on port 0 themselves.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Principal, Verifier } from './auth.ts';
import { CONTRACT_ROUTES } from './contract/index.ts';
import { createContext, type Services } from './context.ts';
import { ApiError } from './errors.ts';
import { parseJsonBody } from './http/json.ts';
import { registerDashboard } from './http/dashboard.ts';
import { checkMetricsAccess } from './http/metricsAccess.ts';
import { requestTimeouts, SlowClients } from './http/slowClients.ts';
import { collectRoutes, dispatch, sendApiError, type Outage } from './http/rest.ts';
import { RequestLogController } from './http/requestLog.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { endServerSpan, requestTraceparent, startServerSpan } from './http/tracing.ts';
import { createCaller } from './routers/_app.ts';

/** A clock face: the tab's icon in place of Swagger's. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#1f4e5f"/>' +
  '<path d="M16 8v8l6 4" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';

export interface AppState {
  /** The boot flag: false while migrating or draining; /api answers 503 while false. */
  ready: boolean;
}

/** A request whose credential the onRequest hook verified: the procedure reuses the outcome. */
type VerifiedRequest = FastifyRequest & { verification?: { authorization: string; principal: Promise<Principal> } };

/** A request whose JSON body had payloads: their source text by path (src/http/json.ts). */
type RawPayloadsRequest = FastifyRequest & { rawPayloads?: () => Map<string, string> };

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(services: Services, state: AppState, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // Set once the /api handler exists: Fastify's router refuses URLs with a bare '%' before any
  // route runs, but a timer key like `50%off` written naturally must still reach its route.
  // eslint-disable-next-line prefer-const -- assigned below, once the handler exists; read by the closure
  let badUrlHandler: ((req: any, reply: any) => unknown) | undefined;
  const timeouts = requestTimeouts(services.config);
  const slowClients: SlowClients = new SlowClients({
    maxUnauthenticated: services.config.QUEEN_MAX_UNAUTHENTICATED_SOCKETS,
    log: (): FastifyBaseLogger => app.log,
  });
  const app = Fastify({
    logger: opts.logger ?? false,
    // One line per request at the level its path deserves (src/http/requestLog.ts).
    logController: new RequestLogController(),
    frameworkErrors: (err, req, reply) => {
      if (err.code === 'FST_ERR_BAD_URL' && badUrlHandler && req.url.startsWith('/api/')) return void badUrlHandler(req, reply);
      return void sendApiError(reply, new ApiError('validation_failed', `bad request: ${err.message}`));
    },
    bodyLimit: services.config.QUEEN_BODY_LIMIT_BYTES,
    // A request must arrive in time (src/http/slowClients.ts); a long-poll's wait comes after
    // its request has arrived, so it is not bounded by these.
    http: timeouts,
    requestTimeout: timeouts.requestTimeout,
    clientErrorHandler: (err, socket) => slowClients.clientError(err, socket),
  });
  slowClients.attach(app.server);
  // A SERVER span per request, continuing the caller's traceparent (src/http/tracing.ts); a no-op
  // until an operator registers an OpenTelemetry SDK (docs/tracing.md).
  app.addHook('onRequest', async (req) => startServerSpan(req));
  // A request whose credential verifies makes its socket authenticated: it no longer counts
  // toward QUEEN_MAX_UNAUTHENTICATED_SOCKETS. The procedure reuses this verification (below), so
  // a credential is verified once per request, whether it verifies or not.
  app.addHook('onRequest', async (req) => {
    const socket = req.raw.socket;
    const authorization = req.headers.authorization;
    if (!authorization || !socket || !slowClients.isUnauthenticated(socket)) return;
    const verification = services.verify(authorization);
    (req as VerifiedRequest).verification = { authorization, principal: verification };
    try {
      await verification;
      slowClients.markAuthenticated(socket);
    } catch {
      // Refused by the route itself, with its own answer.
    }
  });

  // JSON bodies go through src/http/json.ts: payloads keep their source text (stored exactly), a
  // body that is not UTF-8 is refused naming the field, and an empty body sent as
  // application/json is a request without a body (Queen's client, and many others, send that
  // header on every request, a DELETE included).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      const parsed = parseJsonBody(body as Buffer);
      (req as RawPayloadsRequest).rawPayloads = parsed?.payloads;
      done(null, parsed?.value);
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  // The document at /openapi.json (where tools look first) and /docs/json (where Swagger UI reads it).
  const document = buildOpenApiDocument();
  await app.register(fastifySwagger, { mode: 'static', specification: { document: document as any } });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: the API without Swagger UI's top bar (the plugin's Fastify logo and an "Explore"
    // box that loads other documents); the examples are pre-filled and ready to execute.
    uiConfig: { layout: 'BaseLayout', persistAuthorization: true, tryItOutEnabled: true, displayRequestDuration: true },
    theme: {
      title: 'queen-timers API',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON }],
    },
  });
  app.get('/openapi.json', async () => app.swagger());
  // The dashboard: static files, a client of /api like any other (src/http/dashboard.ts).
  registerDashboard(app);

  app.setErrorHandler((err: any, req, reply) => {
    if (err instanceof ApiError) return sendApiError(reply, err); // the body parser's refusals
    // Errors Fastify raises before a route runs: bad JSON, oversized or mistyped bodies.
    const status = err.statusCode ?? 500;
    if (status === 413) {
      const limit = req.routeOptions.bodyLimit ?? services.config.QUEEN_BODY_LIMIT_BYTES;
      return sendApiError(reply, new ApiError('body_too_large', `request body exceeds ${limit} bytes`));
    }
    if (status === 415)
      return sendApiError(reply, new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json'));
    if (status >= 400 && status < 500)
      return sendApiError(reply, new ApiError('invalid_json', `body is not valid JSON: ${err.message}`, { field: '(body)' }));
    req.log.error({ err }, 'unhandled error');
    return sendApiError(reply, new ApiError('internal', 'internal error; it has been logged'));
  });

  app.setNotFoundHandler((req, reply) =>
    sendApiError(reply, new ApiError('route_not_found', `no route ${req.method} ${req.url.split('?')[0]}; see /docs`)),
  );

  app.get('/health', async () => ({ ok: true }));
  app.get('/ready', async (_req, reply) => reply.code(state.ready ? 200 : 503).send({ ready: state.ready }));
  app.get('/metrics', async (req, reply) => {
    try {
      await checkMetricsAccess(services.config, services.verify, req.headers.authorization);
    } catch (err) {
      if (err instanceof ApiError) return sendApiError(reply, err);
      throw err;
    }
    reply.type(services.metrics.registry.contentType);
    return services.metrics.registry.metrics();
  });

  const routes = collectRoutes(CONTRACT_ROUTES);
  const outage: Outage = {};
  const apiHandler = async (req: any, reply: any) =>
    dispatch(
      {
        routes,
        outage,
        ready: () => state.ready,
        call: async (procedurePath, input, request) => {
          // Aborted when the client goes away before its response is written (a long-poll whose
          // caller hung up must not go on leasing frames to nobody).
          const gone = new AbortController();
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) gone.abort();
          });
          const verified = (request as VerifiedRequest).verification;
          const verify: Verifier = verified
            ? Object.assign((a: string | undefined) => (a === verified.authorization ? verified.principal : services.verify(a)), {
                ready: services.verify.ready,
              })
            : services.verify;
          const ctx = createContext(
            { ...services, verify },
            {
              log: request.log,
              authorization: request.headers.authorization,
              signal: gone.signal,
              rawPayloads: (request as RawPayloadsRequest).rawPayloads,
              traceparent: requestTraceparent(request),
            },
          );
          const caller = createCaller(ctx) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
          const [area, name] = procedurePath.split('.');
          const data = await caller[area][name](input);
          return { data, status: ctx.res.status, headers: ctx.res.headers };
        },
      },
      req,
      reply,
    );
  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/api/*', handler: apiHandler });
  // Push alone takes bodies up to QUEEN_PUSH_BODY_LIMIT_BYTES: a pushed payload is bounded by its
  // plan up to 8 MiB, a timer batch by 256 × 1 MiB (QUEEN_BODY_LIMIT_BYTES). Same handler: only the
  // limit differs, and a static route wins over the wildcard.
  app.route({ method: 'POST', url: '/api/v1/push', bodyLimit: services.config.QUEEN_PUSH_BODY_LIMIT_BYTES, handler: apiHandler });
  badUrlHandler = apiHandler;

  // While draining, every response closes its connection, so keep-alive sockets do not hold the
  // shutdown open until their idle timeout.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (!state.ready) reply.header('connection', 'close');
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    // API requests are labelled with their contract route's template (one series per route, not
    // per key); the docs (Swagger UI's files, the document) and the dashboard's files are not counted.
    const route = (req as { apiRoute?: string }).apiRoute ?? req.routeOptions.url ?? 'unmatched';
    endServerSpan(req, route, reply.statusCode);
    if (route.startsWith('/docs') || route.startsWith('/ui') || route === '/openapi.json') return;
    const labels = { method: req.method, route, status: reply.statusCode };
    services.metrics.httpRequests.inc(labels);
    services.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });

  return app;
}
