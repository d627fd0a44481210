// One log line per request, written when its response is sent, in place of Fastify's own pair
// (`disableRequestLogging` in src/app.ts). The level says what the line is worth to an operator:
//  - probes (/health, /ready, /metrics) and the API's documentation (/docs and its assets,
//    /openapi.json) at debug: a load balancer checking readiness twice a second, or a scraper,
//    would otherwise write most of a broker's log;
//  - every other request at info, a 5xx at error (Fastify's habit: 5xx logged at error).
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Paths whose requests are logged at debug: probes, metrics and documentation. */
export function isQuietPath(path: string): boolean {
  return (
    path === '/health' ||
    path === '/ready' ||
    path === '/metrics' ||
    path === '/openapi.json' ||
    path === '/docs' ||
    path.startsWith('/docs/')
  );
}

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req: FastifyRequest, reply) => {
    const path = req.url.split('?')[0]!;
    const level = reply.statusCode >= 500 ? 'error' : isQuietPath(path) ? 'debug' : 'info';
    req.log[level]({ req, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
}
