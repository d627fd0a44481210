/**
 * Tracing through `@opentelemetry/api` (docs/tracing.md). Without an SDK registered by the operator
 * (`node --import ./otel.mjs`), every call here is the API's no-op: spans are not recorded and cost
 * a function call. The standard `OTEL_*` variables configure the SDK the operator installs; the
 * broker reads none of them itself.
 *
 * A timer's trace crosses days: the request that scheduled it has ended when the consumer runs, so
 * the caller's W3C `traceparent` is kept with the timer (or the frame, or the schedule) and handed
 * on. A malformed `traceparent` is ignored, never an error: tracing must not refuse a request.
 */
import {
  context,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  TraceFlags,
} from '@opentelemetry/api';

export const tracer = trace.getTracer('queen-timers');

/** What messaging semantic conventions call this system. */
export const MESSAGING_SYSTEM = 'queen-timers';

/**
 * A fire batch links to at most this many stored traceparents: a span's links are held in memory
 * until it ends and exporters cap them (the SDK's default span limit is 128), so a batch of 1,000
 * timers links the first 128 and counts the rest in `queen.links_dropped`.
 */
export const MAX_LINKS = 128;

// version 00 is the only one defined; a later version is read by its first four fields, as the
// W3C Trace Context spec asks, and written back as 00.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The span context a W3C `traceparent` names, or undefined when it is malformed (a version of
 * `ff`, an all-zero trace or span id, a wrong length, upper-case hex, or extra fields on version
 * 00 are all malformed per the spec).
 */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) & TraceFlags.SAMPLED, isRemote: true };
}

/** A valid traceparent normalised to version 00, or null: what is stored with a timer or frame. */
export function normaliseTraceparent(value: unknown): string | null {
  const sc = parseTraceparent(value);
  return sc ? formatTraceparent(sc) : null;
}

export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}`;
}

/** A W3C trace id as the UUID Queen's `traceId` field carries (the same 128 bits, dashed). */
export function traceIdAsUuid(traceparent: string | null): string | null {
  const sc = traceparent ? parseTraceparent(traceparent) : undefined;
  if (!sc) return null;
  const t = sc.traceId;
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
}

/** The context a stored or incoming traceparent continues; the root context when there is none. */
export function contextFrom(traceparent: unknown): Context {
  const sc = parseTraceparent(traceparent);
  return sc ? trace.setSpanContext(context.active(), sc) : context.active();
}

/** The traceparent of the active span, or null when no span is recording (no SDK, or none started). */
export function activeTraceparent(ctx: Context = context.active()): string | null {
  const sc = trace.getSpanContext(ctx);
  return sc && trace.isSpanContextValid(sc) ? formatTraceparent(sc) : null;
}

/**
 * Names the authenticated tenant on the active span: called once the credential verifies, before
 * the procedure starts spans of its own, so the active span is the request's SERVER span. A
 * refused credential names none (the tenant it claims is not known to be its own).
 */
export function tagRequestTenant(tenant: string): void {
  const span = trace.getSpan(context.active());
  if (span?.isRecording()) span.setAttribute('queen.tenant', tenant);
}

/**
 * Runs `fn` inside a span that ends when it settles; a thrown error marks the span as an error
 * (its message, never a payload) and is rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; links?: Link[]; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Whether an OpenTelemetry SDK is registered, so that a span may record: the API's global provider
 * then delegates to something other than its own no-op. The sweeper's one-statement fire asks
 * for the fired timers (its span's links) only then (src/sweeper/fireDue.ts).
 */
export function tracingInstalled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER;
}

const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

export { context, propagation, SpanKind, SpanStatusCode, trace };
export type { Span, Context };
