// The W3C traceparent a call carries (docs/tracing.md): the caller's explicit one, else the active
// OpenTelemetry span's when the app runs the OpenTelemetry API with a context manager.
//
// The active span is read without importing @opentelemetry/api, so the SDK has no dependency to
// install and nothing for a bundler to resolve. The API keeps what an app registers (the context
// manager among them) on globalThis under Symbol.for('opentelemetry.js.api.1'), so that every copy
// of the package in one app shares one registration, and a context holds its span under
// Symbol.for('OpenTelemetry Context Key SPAN'), for the same reason; these keys are the API's
// contract between its own copies across the 1.x line. An app without the API, or without a
// context manager, has neither, and a call then carries no traceparent.

const API_KEY = Symbol.for('opentelemetry.js.api.1');
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-[^\r\n]*)?$/;
const HEX = (n: number) => new RegExp(`^(?!0+$)[0-9a-f]{${n}}$`);
const TRACE_ID = HEX(32);
const SPAN_ID = HEX(16);

interface SpanContextLike {
  traceId?: unknown;
  spanId?: unknown;
  traceFlags?: unknown;
}

/** The active OpenTelemetry span's traceparent, or undefined when there is none. */
export function activeTraceparent(): string | undefined {
  try {
    const api = (globalThis as Record<symbol, { context?: { active?: () => unknown } } | undefined>)[API_KEY];
    const ctx = api?.context?.active?.() as { getValue?: (key: symbol) => unknown } | undefined;
    const span = ctx?.getValue?.(SPAN_KEY) as { spanContext?: () => SpanContextLike } | undefined;
    const sc = span?.spanContext?.();
    if (!sc || typeof sc.traceId !== 'string' || typeof sc.spanId !== 'string') return undefined;
    if (!TRACE_ID.test(sc.traceId) || !SPAN_ID.test(sc.spanId)) return undefined;
    const sampled = typeof sc.traceFlags === 'number' && (sc.traceFlags & 1) === 1;
    return `00-${sc.traceId}-${sc.spanId}-${sampled ? '01' : '00'}`;
  } catch {
    // A foreign object under the key: tracing never fails a call.
    return undefined;
  }
}

/**
 * The traceparent a request sends: the call's own when it gives one (`null`: none), else the
 * active span's unless the client turned that off. One that is not a traceparent is not sent
 * (the broker would ignore it; a header with a line break would fail the call).
 */
export function traceparentFor(explicit: string | null | undefined, fromActive: boolean): string | undefined {
  if (explicit === null) return undefined;
  if (explicit !== undefined) return TRACEPARENT.test(explicit) && explicit.length <= 512 ? explicit : undefined;
  return fromActive ? activeTraceparent() : undefined;
}
