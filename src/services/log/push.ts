// push — appends producers' messages to queues (created on first use), deduplicated on txn per
// partition; answers one result per item in Queen's snake_case shape.
import { randomUUID } from 'node:crypto';
import { DEFAULT_PARTITION } from '../../contract/common.ts';
import type { PushItem, PushResult } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plans.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { encryptionUnavailable } from '../queues.ts';
import { append } from './append.ts';
import type { Caller, LogDeps } from './deps.ts';

/**
 * The pushed frames, in item order. $1 tenant, $2 ids, $3 queues, $4 partitions, $5 txns,
 * $6 payloads (bytea[]), $7 encrypted, $8 producer sub.
 */
export const PUSHED_FRAMES = `
frames AS (
  SELECT t.ord, $1::text AS tenant, t.id, t.q AS queue, t.p AS partition, t.txn AS transaction_id, t.payload,
         t.enc AS encrypted, $8::text AS producer_sub, NULL::text AS timer_key, NULL::timestamptz AS deliver_at
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::boolean[])
         WITH ORDINALITY AS t(id, q, p, txn, payload, enc, ord)
)`;

/**
 * duplicateFrames — $1 tenant, $2 queues, $3 partitions, $4 txns (parallel). No lock.
 * Rows: the frames that made the duplicates duplicates, one per distinct key (a retried push: the
 * rare path; see FIND_FRAMES_SQL in ./ack.ts for what the planner may do without statistics).
 */
export const DUPLICATE_FRAMES_SQL = `
SELECT m.queue, m.partition, m.transaction_id, m.id::text AS id
  FROM unnest($2::text[], $3::text[], $4::text[]) AS t(q, p, txn)
 CROSS JOIN LATERAL (SELECT m.queue, m.partition, m.transaction_id, m.id FROM messages m
                      WHERE m.tenant = $1 AND m.queue = t.q AND m.partition = t.p AND m.transaction_id = t.txn
                      LIMIT 1) m`;

const keyOf = (queue: string, partition: string, txn: string) => `${queue}\u0000${partition}\u0000${txn}`;

export async function push(deps: LogDeps, caller: Caller, items: PushItem[]): Promise<PushResult[]> {
  const { tenant, sub } = caller;
  const rows = items.map((item) => ({
    queue: item.queue,
    partition: item.partition ?? DEFAULT_PARTITION,
    txn: item.transactionId ?? randomUUID(),
    id: randomUUID(),
    // The exact UTF-8 bytes of the JSON document; `data` on pop is these bytes parsed.
    bytes: Buffer.from(JSON.stringify(item.payload), 'utf8') as Buffer,
  }));
  // The stored payloads: rewritten in place once the lock has said which queues encrypt.
  const payloads: Buffer[] = rows.map((r) => r.bytes);
  const encrypted = rows.map(() => false);
  const results = await inTransaction(
    deps.db.pool,
    async (tx) => {
      const appended = await append<{ id: string }>(
        tx,
        rows.map((r) => ({ tenant, queue: r.queue, partition: r.partition })),
        {
          ctes: PUSHED_FRAMES,
          params: [
            tenant,
            rows.map((r) => r.id),
            rows.map((r) => r.queue),
            rows.map((r) => r.partition),
            rows.map((r) => r.txn),
            payloads,
            encrypted,
            sub,
          ],
        },
        (locked) => {
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
          const encrypting = new Set(locked.filter((p) => p.encrypted).map((p) => p.queue));
          rows.forEach((r, i) => {
            if (!encrypting.has(r.queue)) return;
            // Refuse rather than store plaintext in a queue that promises encryption at rest.
            if (!deps.cipher) throw encryptionUnavailable(r.queue);
            payloads[i] = deps.cipher.encrypt(r.bytes);
            encrypted[i] = true;
          });
        },
      );
      const queued = new Set(appended.map((r) => r.id));
      const dupes = rows.filter((r) => !queued.has(r.id));
      const existing = new Map<string, string>();
      if (dupes.length > 0) {
        const found = await tx.query<{ queue: string; partition: string; transaction_id: string; id: string }>(DUPLICATE_FRAMES_SQL, [
          tenant,
          dupes.map((r) => r.queue),
          dupes.map((r) => r.partition),
          dupes.map((r) => r.txn),
        ]);
        for (const f of found.rows) existing.set(keyOf(f.queue, f.partition, f.transaction_id), f.id);
      }
      return rows.map((r, index): PushResult => {
        if (queued.has(r.id)) return { index, transaction_id: r.txn, status: 'queued', message_id: r.id };
        const id = existing.get(keyOf(r.queue, r.partition, r.txn))!;
        return { index, transaction_id: r.txn, status: 'duplicate', message_id: id };
      });
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  const queued = rows.filter((_, i) => results[i].status === 'queued');
  for (const queue of new Set(queued.map((r) => r.queue))) {
    deps.notifier.messagesPushed(
      tenant,
      queue,
      queued.filter((r) => r.queue === queue).map((r) => r.partition),
    );
  }
  return results;
}
