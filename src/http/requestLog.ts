// One log line per request, written when its response is sent (Fastify's `incoming request` line
// is dropped: it doubled every request and says nothing the completion line does not). The level
// says what the line is worth to an operator:
//  - probes (/health, /ready), metrics (/metrics), the API's documentation (/docs and its
//    assets, /openapi.json) and the dashboard's files (/ui; its data comes through /api) at debug: a load balancer checking readiness twice a second, or a
//    scraper, would otherwise write most of a broker's log;
//  - every other request at info; a request that errored at error, as Fastify does.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Paths whose requests are logged at debug: probes, metrics, documentation and the dashboard's files. */
export function isQuietPath(path: string): boolean {
  return (
    path === '/health' ||
    path === '/ready' ||
    path === '/metrics' ||
    path === '/openapi.json' ||
    path === '/docs' ||
    path.startsWith('/docs/') ||
    path === '/ui' ||
    path.startsWith('/ui/')
  );
}

export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) return void reply.log.error({ ...line, err: error }, 'request errored');
    reply.log[isQuietPath(request.url.split('?')[0]!) ? 'debug' : 'info'](line, 'request completed');
  }
}
