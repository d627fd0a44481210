// Slow clients: what a socket may hold without finishing its request.
//
// - QUEEN_HEADERS_TIMEOUT_MS: the request's headers must have arrived within this time of its
//   first byte; QUEEN_BODY_TIMEOUT_MS: the whole request, body included. Node's HTTP server
//   enforces both while a request is being received and stops timing once it is complete, so
//   a long-poll is untouched: a pop has no body, its request completes with its headers, and its
//   wait is the route's own timer (at most POP_TIMEOUT_MAX_MS).
// - A request cut for either answers 408 `request_timeout` (when nothing of a response was
//   written yet; otherwise the socket is closed), logged at most once per source address and
//   minute with the number of refusals in between.
// - Unauthenticated sockets are cut first: a socket counts as authenticated once one of its
//   requests carried a credential that verifies. The broker holds at most
//   QUEEN_MAX_UNAUTHENTICATED_SOCKETS sockets that have not; one more cuts the oldest of them.
//   This cap is per broker rather than per source address on purpose: behind a load balancer
//   every client has the balancer's address, so a per-address cap would either cut every
//   client or none, while this one still holds there — and a client with a credential is never
//   counted, so sockets opened without one cannot push out the ones that authenticated.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { errorBody } from './rest.ts';

/** How often the refusals of one source are logged at most. */
const LOG_EVERY_MS = 60_000;
/** Sources remembered for that; past it the memory starts over (a log line more, never a leak). */
const LOG_SOURCES_MAX = 10_000;

/** Node's HTTP server options that bound how long a request may take to arrive. */
export function requestTimeouts(config: Pick<Config, 'QUEEN_HEADERS_TIMEOUT_MS' | 'QUEEN_BODY_TIMEOUT_MS'>) {
  const shortest = Math.min(config.QUEEN_HEADERS_TIMEOUT_MS, config.QUEEN_BODY_TIMEOUT_MS);
  return {
    headersTimeout: config.QUEEN_HEADERS_TIMEOUT_MS,
    requestTimeout: config.QUEEN_BODY_TIMEOUT_MS,
    // Node looks for expired requests on this period (30 s by default, which would let a
    // timeout overrun by as much): a quarter of the shortest timeout, within [50 ms, 1 s].
    connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(shortest / 4))),
  };
}

export class SlowClients {
  /** Sockets that have not authenticated yet, oldest first (a Set keeps insertion order). */
  private readonly unauthenticated = new Set<Socket>();
  private readonly logged = new Map<string, { at: number; suppressed: number }>();

  constructor(private readonly opts: { maxUnauthenticated: number; log: () => FastifyBaseLogger }) {}

  /** Tracks the server's sockets; new ones count as unauthenticated until markAuthenticated. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.unauthenticated.add(socket);
      socket.once('close', () => this.unauthenticated.delete(socket));
      if (this.unauthenticated.size > this.opts.maxUnauthenticated) {
        const oldest = this.unauthenticated.values().next().value!;
        this.unauthenticated.delete(oldest);
        this.refuse(oldest, 'unauthenticated_cap', 'too many connections without a credential: the oldest is closed; send Authorization');
      }
    });
  }

  /** Whether the socket still counts toward the cap (no request on it has authenticated). */
  isUnauthenticated(socket: Socket): boolean {
    return this.unauthenticated.has(socket);
  }

  markAuthenticated(socket: Socket): void {
    this.unauthenticated.delete(socket);
  }

  /** Fastify's clientErrorHandler: a request that did not arrive in time, or malformed HTTP. */
  readonly clientError = (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      this.refuse(socket, 'request_timeout', 'the request did not arrive in time (QUEEN_HEADERS_TIMEOUT_MS, QUEEN_BODY_TIMEOUT_MS)');
      return;
    }
    const [status, text] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
    respond(socket, status, text, JSON.stringify(errorBody('validation_failed', `malformed HTTP request: ${err.message}`)));
  };

  /** Answers 408 when no response was started on the socket, then closes it; logs once per source and minute. */
  private refuse(socket: Socket, reason: string, message: string): void {
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent ?? false;
    if (started) socket.destroy();
    else respond(socket, 408, 'Request Timeout', JSON.stringify(errorBody('request_timeout', message)));
    const source = socket.remoteAddress ?? 'unknown';
    const now = Date.now();
    const seen = this.logged.get(source);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.suppressed++;
      return;
    }
    if (this.logged.size >= LOG_SOURCES_MAX) this.logged.clear();
    this.logged.set(source, { at: now, suppressed: 0 });
    this.opts.log().warn({ source, reason, refusedSinceLastLine: seen?.suppressed ?? 0 }, `slow client refused: ${message}`);
  }
}

function respond(socket: Socket, status: number, text: string, body: string): void {
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroySoon?.();
  // A peer that never reads its response must not keep the socket either.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
