// push — appends producers' messages to queues (created on first use), deduplicated on txn per
// partition; answers one result per item in Queen's snake_case shape.
import { randomUUID } from 'node:crypto';
import { DEFAULT_PARTITION } from '../../contract/common.ts';
import type { PushItem, PushResult } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction, type Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { weighStorage } from '../../plans/gates.ts';
import { encryptionUnavailable } from '../queues.ts';
import { append } from './append.ts';
import type { Caller, LogDeps } from './deps.ts';

/**
 * The pushed frames, in item order. $1 tenant, $2 ids, $3 queues, $4 partitions, $5 txns,
 * $6 payloads (bytea[]), $7 encrypted, $8 producer sub, $9 trace ids (uuid[], nulls), $10 the request's
 * traceparent (or null). A frame pushed without a traceId takes the traceparent's trace id as one, so
 * Queen's field names the trace a W3C-aware producer pushed it in.
 */
export const PUSHED_FRAMES = `
frames AS (
  SELECT t.ord, $1::text AS tenant, t.id, t.q AS queue, t.p AS partition, t.txn AS transaction_id, t.payload,
         t.enc AS encrypted, $8::text AS producer_sub, NULL::text AS timer_key, NULL::timestamptz AS deliver_at,
         coalesce(t.trace, substr($10::text, 4, 32)::uuid) AS trace_id, $10::text AS traceparent
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::boolean[], $9::uuid[])
         WITH ORDINALITY AS t(id, q, p, txn, payload, enc, trace, ord)
)`;

/**
 * What the push answers, from the append statement itself (so the COMMIT can travel with it): the
 * appended frames, then for each frame not appended the one already in its partition under its
 * txn (a retried push). A repeat within the request finds no such row — the statement does not see
 * its own inserts — and is matched against the appended ones in memory. The append statement runs
 * after the partition lock was taken, so every frame a concurrent push committed there is visible.
 */
export const PUSH_RESULT = `
SELECT a.id, a.queue, a.partition, a.transaction_id, true AS appended FROM appended a
UNION ALL
SELECT m.id::text, m.queue, m.partition, m.transaction_id, false
  FROM frames f
 CROSS JOIN LATERAL (SELECT m.id, m.queue, m.partition, m.transaction_id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = f.queue AND m.partition = f.partition
                        AND m.transaction_id = f.transaction_id
                      LIMIT 1) m
 WHERE f.id::text NOT IN (SELECT id FROM appended)`;

interface PushedRow extends Record<string, unknown> {
  id: string;
  queue: string;
  partition: string;
  transaction_id: string;
  appended: boolean;
}

const keyOf = (queue: string, partition: string, txn: string) => `${queue}\u0000${partition}\u0000${txn}`;

/** A pushed item, with the source text of its payload when the HTTP layer kept it (src/http/json.ts). */
export type SentItem = PushItem & { rawPayload?: string };

/** The items of a body with their payloads' source text: `prefix` is their path (`items`). */
export const withRawPayloads = (items: PushItem[], prefix: string, raw: Map<string, string> | undefined): SentItem[] =>
  items.map((item, i) => ({ ...item, rawPayload: raw?.get(`${prefix}.${i}.payload`) }));

export async function push(deps: LogDeps, caller: Caller, items: SentItem[]): Promise<PushResult[]> {
  // Queen answers an empty push with an empty list; there is nothing to lock or store.
  if (items.length === 0) return [];
  const pushed = await inTransaction(deps.db.pool, (tx) => appendPushed(deps, tx, caller, items, { commit: true }), {
    setup: setLocal(INDEX_PLANS),
  });
  announcePushed(deps, caller.tenant, pushed);
  return pushed.results;
}

/** What a push appended: its answers, and where frames were queued (to wake waiters after commit). */
export interface Pushed {
  results: PushResult[];
  queued: { queue: string; partition: string }[];
}

/**
 * Appends pushed items inside the caller's transaction (push's own, or a Queen transaction's).
 * `commit`: the append is that transaction's last statement and goes out with its COMMIT.
 */
export async function appendPushed(
  deps: LogDeps,
  tx: Queryable,
  caller: Caller,
  items: SentItem[],
  { commit }: { commit: boolean },
): Promise<Pushed> {
  const { tenant, sub } = caller;
  const rows = items.map((item) => ({
    queue: item.queue,
    partition: item.partition ?? DEFAULT_PARTITION,
    txn: item.transactionId ?? randomUUID(),
    id: randomUUID(),
    // The bytes the client sent for the payload (its source text, from a valid UTF-8 body); a
    // caller without a body (a test calling the service) gets the value's JSON text. `data` on
    // pop is these bytes parsed.
    bytes: Buffer.from(item.rawPayload ?? JSON.stringify(item.payload), 'utf8') as Buffer,
  }));
  // The stored payloads: rewritten in place once the lock has said which queues encrypt.
  const payloads: Buffer[] = rows.map((r) => r.bytes);
  const encrypted = rows.map(() => false);
  const stored = await append<PushedRow>(
    tx,
    rows.map((r) => ({ tenant, queue: r.queue, partition: r.partition })),
    {
      ctes: PUSHED_FRAMES,
      tenants: 'ARRAY[$1::text]',
      params: [
        tenant,
        rows.map((r) => r.id),
        rows.map((r) => r.queue),
        rows.map((r) => r.partition),
        rows.map((r) => r.txn),
        payloads,
        encrypted,
        sub,
        items.map((item) => item.traceId ?? null),
        deps.traceparent ?? null,
      ],
      result: PUSH_RESULT,
    },
    {
      commit,
      prepare: async (locked) => {
        // The plan's payload ceiling binds pushed messages as it binds timers (a timer becomes one).
        const maxPayloadBytes = deps.tenants.payloadCeiling(locked[0].max_payload_bytes);
        const over = rows.findIndex((r) => r.bytes.length > maxPayloadBytes);
        if (over >= 0) {
          throw new ApiError(
            'payload_too_large_for_plan',
            `items.${over}.payload is ${rows[over].bytes.length} bytes; this tenant's ceiling is ${maxPayloadBytes} bytes`,
            { field: `items.${over}.payload` },
          );
        }
        // The storage gate binds pushes as it binds schedules (frames count toward the limit); the
        // limit came with the partition lock, so a tenant without one costs no statement.
        const refusal = await weighStorage(
          tx,
          tenant,
          deps.tenants.storageLimit(locked[0].storage_limit_bytes),
          rows.reduce((n, r) => n + r.bytes.length, 0),
          'this push',
        );
        if (refusal) throw refusal;
        const encrypting = new Set(locked.filter((p) => p.encrypted).map((p) => p.queue));
        rows.forEach((r, i) => {
          if (!encrypting.has(r.queue)) return;
          // Refuse rather than store plaintext in a queue that promises encryption at rest.
          if (!deps.cipher) throw encryptionUnavailable(r.queue);
          payloads[i] = deps.cipher.encrypt(r.bytes);
          encrypted[i] = true;
        });
      },
    },
  );
  const queued = new Set(stored.filter((r) => r.appended).map((r) => r.id));
  const existing = new Map(stored.map((r) => [keyOf(r.queue, r.partition, r.transaction_id), r.id]));
  const results = rows.map((r, index): PushResult => {
    if (queued.has(r.id)) return { index, transaction_id: r.txn, status: 'queued', message_id: r.id, queueName: r.queue };
    const id = existing.get(keyOf(r.queue, r.partition, r.txn))!;
    return { index, transaction_id: r.txn, status: 'duplicate', message_id: id, queueName: r.queue };
  });
  return { results, queued: rows.filter((r) => queued.has(r.id)) };
}

/** Wakes the waiters of the partitions that received frames; after the commit made them visible. */
export function announcePushed(deps: LogDeps, tenant: string, pushed: Pushed): void {
  for (const queue of new Set(pushed.queued.map((r) => r.queue))) {
    deps.notifier.messagesPushed(
      tenant,
      queue,
      pushed.queued.filter((r) => r.queue === queue).map((r) => r.partition),
    );
  }
}
