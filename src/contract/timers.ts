// The timer routes' wire: the contract (schedule, reschedule, cancel, peek, list) rule by rule,
// and the usage meter. src/services/timers/ implements it; src/routers/timers.ts serves it.
import { z } from 'zod';
import { base64Payload, DEFAULT_PARTITION, instant, partitionName, queueName, route, txnSchema, utf8Key } from './common.ts';
import * as ex from './examples.ts';

export const MAX_OPS_PER_BATCH = 256;
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1000;
export const LIST_ORDERS = ['key', 'deliverAt'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];
/** A deliverAt-order cursor: the instant (27 characters), a space and a key of up to 1,024 characters. */
export const LIST_CURSOR_MAX = 1100;
export const CANCEL_ROUTE_HINT = 'DELETE /api/v1/timers/:queue/*timerKey';

/**
 * A timer key is a catch-all path tail: slashes allowed, control characters not. A '.' or '..'
 * segment is refused: URL clients and servers resolve dot segments (even as %2E), so such a key
 * could be scheduled but never peeked or cancelled through its path. At most 1,024 bytes (UTF-8).
 */
export const TIMER_KEY_MAX_BYTES = 1024;

/** A key addressed as a catch-all path tail (a timer's, a schedule's): the rules above. */
export const pathKey = (maxBytes: number) =>
  utf8Key(maxBytes)
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
    .refine((k) => !/(^|\/)\.\.?(\/|$)/.test(k), "must not contain a '.' or '..' path segment");

export const timerKey = pathKey(TIMER_KEY_MAX_BYTES).meta({
  description: "the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8)",
  examples: [ex.FIELD_EXAMPLES.timerKey],
});

const delayMs = z
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('milliseconds from now (PostgreSQL clock); the only way to say when — no absolute instants');

const scheduleFields = {
  queue: queueName,
  timerKey,
  delayMs,
  txn: txnSchema.optional().describe('minted by the server when absent; every reschedule is a new message with a new txn'),
  payload: base64Payload,
  partition: partitionName.optional(),
};

export const operationSchema = z
  .discriminatedUnion('op', [
    z.strictObject({ op: z.literal('schedule'), ...scheduleFields }),
    z.strictObject({ op: z.literal('reschedule'), ...scheduleFields }),
    z.strictObject({ op: z.literal('cancel'), queue: queueName, timerKey, txn: txnSchema.optional() }),
  ])
  .meta({ id: 'TimerOperation' });

export type TimerOperation = z.infer<typeof operationSchema>;

export const TIMER_STATUSES = ['scheduled', 'rescheduled', 'cancelled', 'too_late', 'absent'] as const;
export type TimerStatus = (typeof TIMER_STATUSES)[number];

const resultBase = { queue: z.string(), timerKey: z.string() };

/** One element per op: `ok` and exactly one status of the closed taxonomy. */
export const timerResultSchema = z
  .discriminatedUnion('status', [
    z.object({
      ok: z.literal(true),
      status: z.literal('scheduled'),
      ...resultBase,
      txn: z.string(),
      messageId: z.uuid(),
      deliverAt: instant,
    }),
    z.object({
      ok: z.literal(true),
      status: z.literal('rescheduled'),
      ...resultBase,
      txn: z.string(),
      messageId: z.uuid(),
      deliverAt: instant,
    }),
    z.object({ ok: z.literal(true), status: z.literal('cancelled'), ...resultBase, txn: z.string() }),
    z
      .object({ ok: z.literal(false), status: z.literal('too_late'), ...resultBase, txn: z.string().nullable() })
      .describe('claimed by a sweeper: it will be (or was) delivered; nothing changed'),
    z
      .object({ ok: z.literal(false), status: z.literal('absent'), ...resultBase, txn: z.string().nullable() })
      .describe('not pending: never existed, another tenant’s, or ALREADY DELIVERED — look for the txn in the log'),
  ])
  .meta({ id: 'TimerResult' });

export type TimerResult = z.infer<typeof timerResultSchema>;

export const cancelResultSchema = z
  .discriminatedUnion('status', [
    z.object({ ok: z.literal(true), status: z.literal('cancelled'), ...resultBase, txn: z.string() }),
    z.object({ ok: z.literal(false), status: z.literal('too_late'), ...resultBase, txn: z.string().nullable() }),
    z.object({ ok: z.literal(false), status: z.literal('absent'), ...resultBase, txn: z.string().nullable() }),
  ])
  .meta({ id: 'CancelResult', examples: [ex.cancelOutputExample] });

export type CancelResult = z.infer<typeof cancelResultSchema>;

const timerView = {
  queue: z.string(),
  timerKey: z.string(),
  partition: z.string(),
  deliverAt: instant,
  txn: z.string(),
  messageId: z.uuid(),
  payloadZstd: z.boolean(),
  encrypted: z.boolean(),
  producerSub: z.string(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  claimed: z.boolean().describe("in a sweeper's hands (lease not expired); a row in backoff is not claimed"),
  createdAt: instant,
  updatedAt: instant,
};

export const timerRowSchema = z.object(timerView).meta({ id: 'TimerRow' });
export type TimerRow = z.infer<typeof timerRowSchema>;

export const peekResultSchema = z
  .union([
    z.object({
      found: z.literal(true),
      ...timerView,
      payload: z.string().describe('base64 exactly as stored: compressed and/or encrypted; never decrypted'),
    }),
    z.object({ found: z.literal(false) }),
  ])
  .meta({ id: 'PeekResult', examples: [ex.peekOutputExample] });

export type PeekResult = z.infer<typeof peekResultSchema>;

export const listResultSchema = z
  .object({
    rows: z.array(timerRowSchema),
    truncated: z.boolean().describe('true when more rows follow; pass nextAfter as after'),
    nextAfter: z.string().nullable().describe('the last timerKey of this page'),
  })
  .meta({ id: 'TimerList', examples: [ex.listOutputExample] });

export type ListResult = z.infer<typeof listResultSchema>;

export const usageSchema = z
  .object({ tenant: z.string(), period: z.string(), messages: z.number().int() })
  .meta({ id: 'Usage', examples: [ex.usageOutputExample] });
export type Usage = z.infer<typeof usageSchema>;

const keyPath = { queue: queueName, timerKey };

/**
 * The query of a keyset-paged list (timers and schedules): the exclusive cursor and the page size.
 * `limit` is a string on the wire (documented as an integer), parsed by listLimit: the contract
 * clamps it and never rejects it, so the document gives no bounds, only the default.
 */
export const keysetPage = {
  after: z
    .string()
    .max(1024)
    .regex(/^[^\u0000]*$/, 'must not contain NUL characters')
    .describe('exclusive cursor: the nextAfter of the previous page')
    .optional(),
  limit: z
    .string()
    .meta({
      description: `page size, clamped to [1, ${LIST_LIMIT_MAX}], never refused; empty or non-numeric → the default`,
      override: { type: 'integer', default: LIST_LIMIT_DEFAULT },
    })
    .optional(),
};

/**
 * The list's page size from the query string: clamped to [1, LIST_LIMIT_MAX], never rejected.
 * Absent, empty or non-numeric → the default; Infinity → the maximum.
 */
export function listLimit(raw: string | undefined): number {
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  if (Number.isNaN(n)) return LIST_LIMIT_DEFAULT;
  return Math.min(LIST_LIMIT_MAX, Math.max(1, Math.floor(n)));
}

/**
 * The log delivers one frame per txn in a queue and partition, so two timers of one batch must not
 * share a txn there: the second would never be delivered. (A txn taken outside the batch, by a
 * pending timer or a frame, is found at fire: that timer is dead-lettered with the reason.)
 * Scheduling one key twice with its txn is an upsert, not a collision.
 */
function oneTimerPerTxn(ops: z.infer<typeof operationSchema>[], ctx: z.RefinementCtx) {
  const owner = new Map<string, string>();
  ops.forEach((op, i) => {
    if (op.op !== 'schedule' || op.txn === undefined) return;
    const slot = `${op.queue}\u0000${op.partition ?? DEFAULT_PARTITION}\u0000${op.txn}`;
    const key = owner.get(slot);
    if (key === undefined) owner.set(slot, op.timerKey);
    else if (key !== op.timerKey) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'txn'],
        message: `txn "${op.txn}" is also the txn of timer "${key}" in this batch, same queue and partition: the log delivers one frame per txn there, so give each timer its own txn`,
      });
    }
  });
}

/** A refused batch that contains a cancel names the route that always works. */
function hintWhenCancel(raw: Record<string, unknown>): Record<string, string> {
  const ops = raw.operations;
  const hasCancel = Array.isArray(ops) && ops.some((o) => o && typeof o === 'object' && (o as { op?: unknown }).op === 'cancel');
  return hasCancel ? { 'x-queen-timers-hint': CANCEL_ROUTE_HINT } : {};
}

export const timerRoutes = {
  batch: route({
    method: 'POST',
    path: '/api/v1/timers',
    tags: ['timers'],
    summary: 'Schedule, reschedule or cancel timers: 1–256 ops in one transaction, one verdict per op',
    description:
      'A refusal (400, 401, 403, 429, 503) refuses the whole batch: nothing is applied or metered. When a refused ' +
      'batch contains a cancel, the response carries `x-queen-timers-hint: ' +
      CANCEL_ROUTE_HINT +
      '` — the cancel ' +
      'route that only the boot flag can refuse. Ops apply in order; schedule and reschedule are one upsert on ' +
      '(queue, timerKey) that answers too_late on a claimed timer.',
    errorResponses: [400, 401, 403, 429, 503],
    input: z
      .strictObject({ operations: z.array(operationSchema).min(1).max(MAX_OPS_PER_BATCH).superRefine(oneTimerPerTxn) })
      .meta({ examples: [ex.batchInputExample] }),
    output: z.object({ results: z.array(timerResultSchema) }).meta({ examples: [ex.batchOutputExample] }),
    refusalHeaders: hintWhenCancel,
  }),

  cancel: route({
    method: 'DELETE',
    path: '/api/v1/timers/{queue}/{timerKey}',
    tags: ['timers'],
    summary: 'Cancel one timer. Only the boot flag can refuse it: no grant, pause, quota or block applies',
    description:
      '`absent` means "no longer pending" and may mean ALREADY DELIVERED: look for the txn in the destination queue. ' +
      'The response echoes the `txn` you pass (or the cancelled row’s txn).',
    errorResponses: [400, 401, 503],
    input: z.strictObject({ ...keyPath, txn: txnSchema.optional() }),
    output: cancelResultSchema,
    catchAll: 'timerKey',
  }),

  peek: route({
    method: 'GET',
    path: '/api/v1/timers/{queue}/{timerKey}',
    tags: ['timers'],
    summary: 'Peek at one pending timer, payload exactly as stored; a miss is 200 {found:false}',
    errorResponses: [400, 401, 403, 503],
    input: z.strictObject(keyPath),
    output: peekResultSchema,
    catchAll: 'timerKey',
  }),

  list: route({
    method: 'GET',
    path: '/api/v1/timers/{queue}',
    tags: ['timers'],
    summary: 'List pending timers of one queue by timerKey in byte order, or by deliverAt (keyset paging, no payloads)',
    description:
      `\`limit\` defaults to ${LIST_LIMIT_DEFAULT} and is clamped to [1, ${LIST_LIMIT_MAX}], never rejected. ` +
      '`order=deliverAt` pages by (deliverAt, timerKey): its `nextAfter` is an opaque cursor. `prefix` keeps the keys ' +
      'that start with it (key order only).',
    errorResponses: [400, 401, 403, 503],
    input: z
      .strictObject({
        queue: queueName,
        ...keysetPage,
        after: keysetPage.after.unwrap().max(LIST_CURSOR_MAX).optional(),
        order: z.enum(LIST_ORDERS).describe('key (default): by timerKey in byte order; deliverAt: soonest first, then by key').optional(),
        prefix: utf8Key(TIMER_KEY_MAX_BYTES)
          .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
          .describe('only keys that start with it, in key order (a search by key prefix)')
          .optional(),
      })
      .superRefine((v, ctx) => {
        if (v.prefix !== undefined && v.order === 'deliverAt')
          ctx.addIssue({
            code: 'custom',
            path: ['prefix'],
            message: 'works with order=key only: drop order=deliverAt to search by key prefix',
          });
      }),
    output: listResultSchema,
  }),

  usage: route({
    method: 'GET',
    path: '/api/v1/usage',
    tags: ['timers'],
    summary: "Billed messages of the caller's tenant in a calendar month (UTC); one per scheduled or rescheduled op",
    errorResponses: [400, 401, 503],
    input: z.strictObject({
      period: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')
        .describe('calendar month, UTC, as YYYY-MM (default: the current month on PostgreSQL clock)')
        .optional(),
    }),
    output: usageSchema,
  }),
};
