// The HTTP side of tracing (src/tracing.ts): a SERVER span per request that continues the
// caller's W3C traceparent, named by the contract route's template (one name per route, never
// per key), and the traceparent a request hands to what it stores (a timer, a frame, a schedule).
import type { FastifyRequest } from 'fastify';
import {
  activeTraceparent,
  context,
  contextFrom,
  normaliseTraceparent,
  SpanKind,
  SpanStatusCode,
  trace,
  tracer,
  type Context,
  type Span,
} from '../tracing.ts';

interface TracedRequest extends FastifyRequest {
  traceSpan?: Span;
  traceContext?: Context;
  /** The caller's traceparent, normalised; null when absent or malformed (ignored, never refused). */
  callerTraceparent?: string | null;
}

/** Starts the request's SERVER span; a malformed traceparent starts a new trace instead. */
export function startServerSpan(req: FastifyRequest): void {
  const r = req as TracedRequest;
  const header = req.headers.traceparent;
  r.callerTraceparent = normaliseTraceparent(Array.isArray(header) ? undefined : header);
  const parent = contextFrom(r.callerTraceparent);
  const span = tracer.startSpan(
    req.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.scheme': req.protocol } },
    parent,
  );
  r.traceSpan = span;
  r.traceContext = trace.setSpan(parent, span);
}

/** Names the span by its route template, records the status and ends it. */
export function endServerSpan(req: FastifyRequest, route: string, status: number): void {
  const span = (req as TracedRequest).traceSpan;
  if (!span) return;
  span.updateName(`${req.method} ${route}`);
  span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The context the request's procedure runs in: its SERVER span, or the caller's span context. */
export function requestContext(req: FastifyRequest): Context {
  return (req as TracedRequest).traceContext ?? context.active();
}

/**
 * The traceparent a request stores with what it creates: its own SERVER span when an SDK records
 * it (so the fire links to the request that scheduled), else the caller's traceparent passed
 * through unchanged, so a consumer can still continue the producer's trace with no SDK here.
 */
export function requestTraceparent(req: FastifyRequest): string | null {
  const r = req as TracedRequest;
  const span = r.traceSpan;
  if (span?.isRecording()) return activeTraceparent(trace.setSpan(context.active(), span));
  return r.callerTraceparent ?? null;
}
