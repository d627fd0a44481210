// The dashboard's one way to the broker: the SDK (sdk/src), with the token the user pasted, and
// TanStack Query's cache in front of it (polling, deduplicated requests, retry on 503). It also
// keeps the two states every view shares: the credential was refused (→ the sign-in screen) and
// the database is unavailable (→ the banner "database unavailable, retrying").
import { MutationCache, QueryCache, QueryClient, QueryObserver, type QueryKey } from '@tanstack/query-core';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createClient, QueenTimersError, type QueenTimersClient } from '../../sdk/src/index.ts';

const TOKEN_KEY = 'queen-timers.dashboard.token';

/** The token lives in this tab's sessionStorage only: never in a URL, gone when the tab closes. */
export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  // Nothing another token read may show under this one.
  queryClient.clear();
  tokenVersion.set(tokenVersion.value + 1);
}

type Listener = () => void;
/** A tiny observable value: the app re-renders when the sign-in or outage state changes. */
class Signal<T> {
  private listeners = new Set<Listener>();
  constructor(private v: T) {}
  get value(): T {
    return this.v;
  }
  set(v: T): void {
    if (v === this.v) return;
    this.v = v;
    for (const l of this.listeners) l();
  }
  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

/** Bumped whenever the stored token changes: the app re-renders signed in or out. */
export const tokenVersion = new Signal<number>(0);
/** Why the user must sign in again (a 401): shown on the sign-in screen. */
export const signInReason = new Signal<string | null>(null);
/** True while requests answer 503 (or get no answer): the banner, while queries keep retrying. */
export const outage = new Signal<boolean>(false);

export function useSignal<T>(s: Signal<T>): T {
  const [, tick] = useState(0);
  useEffect(() => s.subscribe(() => tick((n) => n + 1)), [s]);
  return s.value;
}

const isUnavailable = (e: unknown) => e instanceof QueenTimersError && (e.status === 503 || e.status === 0);

function noticeError(e: unknown): void {
  if (e instanceof QueenTimersError && e.status === 401) {
    storeToken(null);
    signInReason.set(`The broker refused this token (${e.message}). It may have expired: paste a valid one.`);
  } else if (isUnavailable(e)) outage.set(true);
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: noticeError, onSuccess: () => outage.set(false) }),
  mutationCache: new MutationCache({ onError: noticeError, onSuccess: () => outage.set(false) }),
  defaultOptions: {
    queries: {
      // A 503 or a lost connection is retried without end (the banner says so); a refusal is not.
      retry: (_n, e) => isUnavailable(e) || (e instanceof QueenTimersError && e.status === 429),
      retryDelay: (n) => Math.min(1000 * 2 ** n, 10_000),
      refetchOnWindowFocus: true,
      staleTime: 2_000,
    },
  },
});

let client: QueenTimersClient | null = null;
let clientToken: string | null = null;

/** The SDK client of the current token (one per token). */
export function api(): QueenTimersClient {
  const token = storedToken();
  if (!token) throw new Error('not signed in');
  if (!client || clientToken !== token) {
    // The SDK retries a 503 twice on its own; past that, the query retries and the banner shows.
    client = createClient({
      baseUrl: location.origin,
      token,
      retry: {
        maxAttempts: 2,
        onRetry: ({ error }) => {
          if (isUnavailable(error)) outage.set(true);
        },
      },
    });
    clientToken = token;
  }
  return client;
}

export interface QueryState<T> {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  refetch: () => void;
}

/** A query bound to a component: `fn` is called through the cache under `key`; `every` polls (ms). */
export function useQuery<T>(key: QueryKey, fn: () => Promise<T>, every?: number, enabled = true): QueryState<T> {
  const observer = useMemo(
    () => new QueryObserver<T>(queryClient, { queryKey: key, queryFn: fn, refetchInterval: every, enabled }),
    // One observer per key (the key names the query).
    [JSON.stringify(key)],
  );
  const [result, setResult] = useState(() => observer.getCurrentResult());
  useEffect(() => {
    observer.setOptions({ queryKey: key, queryFn: fn, refetchInterval: every, enabled });
    setResult(observer.getCurrentResult());
    return observer.subscribe(setResult);
    // Subscribed while mounted; the observer changes with the key.
  }, [observer, enabled]);
  return { data: result.data, error: result.error, isLoading: result.isLoading, refetch: () => void observer.refetch() };
}

/** Refetches every query whose key starts with `prefix` (after an action changed what it shows). */
export const invalidate = (...prefix: unknown[]): Promise<void> => queryClient.invalidateQueries({ queryKey: prefix });

/** An error's words for the user: the broker's message and code, or the exception's. */
export function errorText(e: unknown): string {
  if (e instanceof QueenTimersError) return `${e.message} (${e.code}, HTTP ${e.status})`;
  return e instanceof Error ? e.message : String(e);
}

// Refetch when the tab regains focus or the network comes back.
queryClient.mount();
