// The dashboard at /ui: the static files `npm run build` bundles into dist/ui/ (scripts/build-ui.mjs),
// served by every broker. Each view has its own URL (/ui/queues/reminders), so a path that names no
// file answers the page itself and the page's router picks the view. The page only talks to /api
// (through the SDK), so nothing here reads a credential.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../root.ts';

export const DASHBOARD_DIR = join(PACKAGE_ROOT, 'dist', 'ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

// The page loads only its own files and calls only this origin; it may not be framed. Inline
// style attributes are allowed: the chart library positions its cursor and legend with them.
const HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** Registers GET /ui and /ui/* on the app. */
export function registerDashboard(app: FastifyInstance, dir = DASHBOARD_DIR): void {
  const send = (reply: FastifyReply, file: string) =>
    reply
      .headers(HEADERS)
      .type(TYPES[extname(file)] ?? 'application/octet-stream')
      .send(readFileSync(file));
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const index = join(dir, 'index.html');
    if (!existsSync(index))
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built here: run `npm run build` (it bundles dist/ui/), then reload.\n');
    // The router has decoded the path already: a '%' left in it is a character, never decoded again.
    const rest = ((req.params as Record<string, string>)['*'] ?? '').split('?')[0] ?? '';
    const file = normalize(join(dir, rest));
    if (file !== dir && !file.startsWith(dir + sep)) return reply.code(404).send();
    if (rest && existsSync(file) && statSync(file).isFile()) return send(reply, file);
    // A missing asset is a 404; any other path is a view of the page.
    if (extname(rest)) return reply.code(404).type('text/plain; charset=utf-8').send(`no file /ui/${rest}\n`);
    return send(reply, index);
  };
  app.get('/ui', handler);
  app.get('/ui/*', handler);
}
