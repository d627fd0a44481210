// The one place the SDK talks HTTP: fetch, the bearer token, JSON in and out, the error body,
// and bounded retries with backoff and jitter — only where a retry can help.
import { HINT_HEADER, QueenTimersError, type BrokerErrorCode } from './errors.ts';
import { traceparentFor } from './tracing.ts';

export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. Default 4. */
  maxAttempts: number;
  /** First backoff step; each later one doubles. Default 100 ms. */
  baseDelayMs: number;
  /** Ceiling of one backoff step (Retry-After aside). Default 5 000 ms. */
  maxDelayMs: number;
  /**
   * The longest Retry-After the SDK will sleep through. A broker asking for more gets the error
   * back at once, so a caller is never parked for minutes inside one call. Default 30 000 ms.
   */
  maxRetryAfterMs: number;
  /** Called before each retry's sleep (logging, metrics). */
  onRetry?: ((info: { attempt: number; delayMs: number; error: QueenTimersError }) => void) | undefined;
}

/** A client's retry settings: any of RetryPolicy's; one omitted or undefined keeps its default. */
export type RetryOptions = { [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined };

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

// Optional fields are typed `T | undefined` throughout the options a caller builds, so a project
// compiled with `exactOptionalPropertyTypes` may pass `{ token: process.env.QUEEN_TOKEN }`; an
// undefined field always means the same as an omitted one.
export interface ClientOptions {
  /** The broker, e.g. `http://localhost:6632` (a path prefix is kept). */
  baseUrl: string;
  /** Bearer JWT, or a function returning one per request (for rotating credentials). */
  token?: string | (() => string | Promise<string>) | undefined;
  /** A fetch implementation; default the global one (Node 20+, browsers). */
  fetch?: typeof fetch | undefined;
  /** Retry policy for 429, 503 and network failures, or `false` for none. */
  retry?: RetryOptions | false | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Each call carries the active OpenTelemetry span's W3C traceparent when the app runs the
   * OpenTelemetry API (nothing to install for the SDK; see docs/tracing.md). `false` sends one only
   * when a call gives it. Default true.
   */
  traceContext?: boolean | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /**
   * The W3C traceparent this call carries: the broker stores it with what the call creates (a
   * timer, a message, a schedule) and its spans continue it. Default: the active OpenTelemetry
   * span's (ClientOptions.traceContext); `null` sends none.
   */
  traceparent?: string | null | undefined;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base URL, already encoded (see paths.ts). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** The call's traceparent option (CallOptions.traceparent). */
  traceparent?: string | null | undefined;
}

export interface HttpResponse<T> {
  status: number;
  /** Parsed JSON body; undefined for 204. */
  data: T;
  headers: Headers;
}

export class Http {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: RetryPolicy;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const f = opts.fetch ?? globalThis.fetch;
    if (!f) throw new TypeError('no fetch implementation: pass options.fetch (Node 20+ and browsers have one)');
    // Unbound, a browser's window.fetch throws "Illegal invocation".
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = retryPolicy(opts.retry);
  }

  async request<T>(spec: RequestSpec): Promise<HttpResponse<T>> {
    for (let attempt = 1; ; attempt++) {
      let error: QueenTimersError;
      try {
        return await this.once<T>(spec);
      } catch (err) {
        if (!(err instanceof QueenTimersError)) throw err;
        error = err;
      }
      // Never retry 400/401/403 (or any other status): only "later" and "not your fault" help.
      if (!error.retryable || attempt >= this.retry.maxAttempts) throw error;
      if (error.retryAfterMs !== undefined && error.retryAfterMs > this.retry.maxRetryAfterMs) throw error;
      const delayMs = this.delayFor(attempt, error.retryAfterMs);
      this.retry.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, spec.signal);
    }
  }

  /**
   * Full jitter over an exponential step (`random(0, min(max, base·2^(n-1)))`, the AWS
   * architecture blog's choice: it spreads a herd of clients best). A Retry-After is a floor: the
   * SDK never comes back sooner than the broker asked, and adds the jitter on top of it.
   */
  delayFor(attempt: number, retryAfterMs?: number): number {
    const step = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jitter = Math.floor(Math.random() * step);
    return retryAfterMs === undefined ? jitter : retryAfterMs + Math.floor(jitter / 4);
  }

  private async once<T>(spec: RequestSpec): Promise<HttpResponse<T>> {
    const url = new URL(this.baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...this.opts.headers };
    const token = typeof this.opts.token === 'function' ? await this.opts.token() : this.opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const traceparent = traceparentFor(spec.traceparent, this.opts.traceContext !== false);
    if (traceparent) headers.traceparent = traceparent;
    else if (spec.traceparent === null) delete headers.traceparent;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';

    // Only the fields that apply (RequestInit takes no undefined under exactOptionalPropertyTypes).
    const init: RequestInit = { method: spec.method, headers };
    if (spec.body !== undefined) init.body = JSON.stringify(spec.body);
    if (spec.signal) init.signal = spec.signal;
    let res: Response;
    try {
      res = await this.fetchImpl(url, init);
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      throw new QueenTimersError({
        status: 0,
        code: 'network_error',
        message: `${spec.method} ${url.pathname}: ${(err as Error)?.message ?? err}`,
        cause: err,
      });
    }

    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      // The connection broke mid-body: a network failure like any other (retried when allowed).
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      throw new QueenTimersError({
        status: 0,
        code: 'network_error',
        message: `${spec.method} ${url.pathname}: ${(err as Error)?.message ?? err}`,
        cause: err,
      });
    }
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (res.ok) {
      if (res.status !== 204 && body === undefined) {
        throw new QueenTimersError({
          status: res.status,
          code: 'unexpected_response',
          message: `${spec.method} ${url.pathname}: response is not JSON`,
        });
      }
      return { status: res.status, data: body as T, headers: res.headers };
    }
    const e = body as { error?: unknown; code?: unknown; field?: unknown } | undefined;
    throw new QueenTimersError({
      status: res.status,
      code: typeof e?.code === 'string' ? (e.code as BrokerErrorCode) : `http_${res.status}`,
      message: typeof e?.error === 'string' ? e.error : `${spec.method} ${url.pathname} answered ${res.status}`,
      field: typeof e?.field === 'string' ? e.field : undefined,
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      hint: res.headers.get(HINT_HEADER) ?? undefined,
      body,
    });
  }
}

/** The policy a client runs: `false` is one attempt; each field left undefined is the default. */
function retryPolicy(retry: ClientOptions['retry']): RetryPolicy {
  if (retry === false) return { ...DEFAULT_RETRY, maxAttempts: 1 };
  return {
    maxAttempts: retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: retry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    maxRetryAfterMs: retry?.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs,
    onRetry: retry?.onRetry,
  };
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A UUID v4, from crypto.randomUUID where it exists (Node, secure browser contexts). */
export function mintId(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
