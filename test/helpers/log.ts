// The log routes (push, pop, ack, dead letters, configure) through inject(), and the wire formats
// their answers carry. Each helper takes the TestBroker first, like api(); `token` defaults to
// tb.token() (acme, every grant), and null sends no credential.
import { expect } from 'vitest';
import { inTransaction } from '../../src/db/transaction.ts';
import { append } from '../../src/services/log/append.ts';
import { api, type TestBroker } from './broker.ts';

type Token = string | null | undefined;

/** Base64 of a string's UTF-8 bytes or of a buffer: how payloads travel on the wire. */
export const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** A lowercase UUID, as ids, leases and generated transaction ids are written. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An instant as the log writes it (createdAt, acknowledgedAt): UTC with microseconds. */
export const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** What an ack names: a popped frame (its lease included), or just a transaction in a partition. */
export interface FrameRef {
  transactionId: string;
  partitionId: string;
  leaseId?: string | null;
}

/** POST /api/v1/push with these items. */
export function push(tb: TestBroker, items: unknown[], token?: Token) {
  return api(tb, 'POST', '/api/v1/push', { body: { items }, token });
}

/** GET a pop path as written, e.g. `/api/v1/pop/queue/q?batch=10&consumerGroup=g`. */
export function pop(tb: TestBroker, path: string, token?: Token) {
  return api(tb, 'GET', path, { token });
}

/**
 * POST /api/v1/ack for a frame: its transactionId, partitionId and leaseId (omitted when the
 * reference has none), then `extra` (status, consumerGroup, error, or fields the route must refuse).
 */
export function ack(tb: TestBroker, frame: FrameRef, extra: Record<string, unknown> = {}, token?: Token) {
  return api(tb, 'POST', '/api/v1/ack', {
    body: { transactionId: frame.transactionId, partitionId: frame.partitionId, leaseId: frame.leaseId, ...extra },
    token,
  });
}

/** Pops frames one by one (acking each in its consumer group) until the queue answers 204; returns their data. */
export async function drain(tb: TestBroker, path: string): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (;;) {
    const res = await pop(tb, path);
    if (res.status === 204) return seen;
    for (const f of res.body.messages) {
      seen.push(f.data);
      expect((await ack(tb, f, { consumerGroup: f.consumerGroup })).status).toBe(200);
    }
  }
}

/** GET /api/v1/dlq with a query string as written (`queue=q&consumerGroup=g`), or none. */
export function deadLetters(tb: TestBroker, query = '', token?: Token) {
  return api(tb, 'GET', query ? `/api/v1/dlq?${query}` : '/api/v1/dlq', { token });
}

/** POST /api/v1/dlq/:id/replay. */
export function replay(tb: TestBroker, id: string, token?: Token) {
  return api(tb, 'POST', `/api/v1/dlq/${id}/replay`, { token });
}

/** POST /api/v1/configure for one queue with these options (unknown ones are sent as given). */
export function configure(tb: TestBroker, queue: string, options: Record<string, unknown>, token?: Token) {
  return api(tb, 'POST', '/api/v1/configure', { body: { queue, options }, token });
}

/** A frame written straight into the log, for payloads the routes would refuse to carry. */
export interface RawFrame {
  tenant?: string;
  queue: string;
  partition?: string;
  transactionId: string;
  /** The stored bytes, or an SQL expression computing them (a constant of the test). */
  payload: Buffer | { sql: string };
  encrypted?: boolean;
  producerSub?: string;
  /** Marks a timer's frame: its key, and deliver_at = now(). */
  timerKey?: string;
}

/**
 * Appends one frame through the log's own append (src/services/log/append.ts), in a transaction
 * on the test's pool, so it is found by pops exactly as a pushed or fired frame is.
 */
export async function appendFrame(tb: TestBroker, f: RawFrame): Promise<void> {
  const payload = Buffer.isBuffer(f.payload) ? '$8::bytea' : f.payload.sql;
  const tenant = f.tenant ?? 'acme';
  const partition = f.partition ?? 'Default';
  await inTransaction(tb.sql, (tx) =>
    append(tx, [{ tenant, queue: f.queue, partition }], {
      tenants: 'ARRAY[$1::text]',
      ctes: `frames AS (
        SELECT 1 AS ord, $1::text AS tenant, gen_random_uuid() AS id, $2::text AS queue, $3::text AS partition,
               $4::text AS transaction_id, ${payload} AS payload, $5::boolean AS encrypted, $6::text AS producer_sub,
               $7::text AS timer_key, CASE WHEN $7::text IS NULL THEN NULL ELSE now() END AS deliver_at, NULL::uuid AS trace_id,
               NULL::text AS traceparent)`,
      params: [
        tenant,
        f.queue,
        partition,
        f.transactionId,
        f.encrypted ?? false,
        f.producerSub ?? 'tester',
        f.timerKey ?? null,
        ...(Buffer.isBuffer(f.payload) ? [f.payload] : []),
      ],
    }),
  );
}

/**
 * The body of Queen's QueueBuilder.create() (queen-mq client-v2): namespace and task null, and
 * the client's QUEUE_DEFAULTS under what .config() set.
 */
export const queenCreateBody = (queue: string, options: Record<string, unknown> = {}) => ({
  queue,
  namespace: null,
  task: null,
  options: {
    leaseTime: 300,
    retryLimit: 3,
    priority: 0,
    delayedProcessing: 0,
    windowBuffer: 0,
    maxSize: 0,
    retentionSeconds: 0,
    completedRetentionSeconds: 0,
    encryptionEnabled: false,
    ...options,
  },
});

export interface QueenAnswer {
  status: number;
  data: any;
  /** For a refusal, the Error Queen's client would build from it: `error` as message, status, code. */
  error?: Error & { status: number; code?: string };
}

/**
 * A request over the network as Queen's JavaScript client (client-v2's HttpClient) sends it: its
 * JSON content type on every request, GET and DELETE included, a body only when there is one; the
 * answer read as the client reads it (null for an empty body such as a 204).
 */
export async function queenRequest(
  tb: TestBroker,
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<QueenAnswer> {
  const res = await fetch(`${tb.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (res.ok) return { status: res.status, data };
  const error = new Error(data?.error ?? `HTTP ${res.status}`) as Error & { status: number; code?: string };
  error.status = res.status;
  error.code = data?.code;
  return { status: res.status, data, error };
}
