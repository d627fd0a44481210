// The logger domain code takes: the few methods it calls, so services, the sweeper and the
// background duties depend on this interface, not on Fastify's type. The broker passes Fastify's
// pino logger (src/broker.ts), which satisfies it; a duty or the sweeper logs through a child
// with its `component`.

/** One level: a message, or bindings (an `err` among them) then a message. */
export interface LogFn {
  (msg: string): void;
  (obj: object, msg?: string): void;
}

export interface Logger {
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  /** A logger whose lines carry `bindings` (e.g. `{ component: 'sweeper' }`). */
  child(bindings: Record<string, unknown>): Logger;
}
