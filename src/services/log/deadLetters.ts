// Dead letters: listing a tenant's, and replaying a consumer's dead letter into the log.
import { randomUUID } from 'node:crypto';
import type { DeadLetter, DeadLetterPage, ReplayResult } from '../../contract/deadLetters.ts';
import { bytesOf, isoSql } from '../../db/sql.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { openStored } from '../../payload.ts';
import { append } from './append.ts';
import type { Caller, LogDeps } from './deps.ts';

/**
 * The page's filter: $1 tenant, $2 queue|null, $3 group|null, $4 partition|null, $5 from|null,
 * $6 to|null (dead-lettered at or after / at or before, PostgreSQL's instants).
 */
const DEAD_LETTER_FILTER = `
 WHERE d.tenant = $1 AND ($2::text IS NULL OR d.queue = $2) AND ($3::text IS NULL OR d.consumer_group = $3)
   AND ($4::text IS NULL OR d.partition = $4)
   AND ($5::timestamptz IS NULL OR d.created_at >= $5) AND ($6::timestamptz IS NULL OR d.created_at <= $6)`;

/**
 * deadLetterPage — one page of the tenant's dead letters, oldest first.
 * $1..$6 the filter, $7 limit, $8 offset. Locks: none. Rows: 0..limit.
 */
const DEAD_LETTER_PAGE_SQL = `
SELECT d.id::text AS id, d.queue, d.partition, d.consumer_group, d.message_id::text AS message_id, d.transaction_id,
       d.payload, d.encrypted, d.payload_zstd, d.producer_sub, d.error_message, d.retry_count, d.from_timer,
       d.timer_key, ${isoSql('d.created_at')} AS created_at
  FROM dead_letters d${DEAD_LETTER_FILTER}
 ORDER BY d.created_at, d.id
 LIMIT $7 OFFSET $8`;

/** deadLetterCount — the filter's total, for paging. $1..$6 the filter. Locks: none. Rows: 1. */
const DEAD_LETTER_COUNT_SQL = `SELECT count(*) AS total FROM dead_letters d${DEAD_LETTER_FILTER}`;

export async function listDeadLetters(
  deps: Pick<LogDeps, 'db' | 'cipher'>,
  caller: Pick<Caller, 'tenant'>,
  q: { queue?: string; consumerGroup?: string; partition?: string; from?: string; to?: string; limit: number; offset: number },
): Promise<DeadLetterPage> {
  const params = [caller.tenant, q.queue ?? null, q.consumerGroup ?? null, q.partition ?? null, q.from ?? null, q.to ?? null];
  const [page, count] = await inTransaction(deps.db.pool, async (tx) => [
    await tx.query(DEAD_LETTER_PAGE_SQL, [...params, q.limit, q.offset]),
    await tx.query<{ total: number }>(DEAD_LETTER_COUNT_SQL, params),
  ]);
  const messages: DeadLetter[] = [];
  for (const r of page.rows) {
    messages.push({
      id: r.id,
      queue: r.queue,
      partition: r.partition,
      consumerGroup: r.consumer_group,
      messageId: r.message_id,
      transactionId: r.transaction_id,
      producerSub: r.producer_sub,
      errorMessage: r.error_message,
      retryCount: Number(r.retry_count),
      fromTimer: r.from_timer,
      timerKey: r.timer_key,
      createdAt: r.created_at,
      ...(await openStored(deps.cipher, bytesOf(r.payload), r.encrypted, r.payload_zstd)),
    });
  }
  return { messages, total: Number(count.rows[0].total), limit: q.limit, offset: q.offset };
}

/**
 * lockDeadLetter — the dead letter, locked so two replays cannot both push it.
 * $1 tenant, $2 id. Locks: the dead letter row. Rows: 0 or 1.
 */
const LOCK_DEAD_LETTER_SQL = `
SELECT queue, partition, from_timer, consumer_group, timer_key FROM dead_letters WHERE tenant = $1 AND id = $2::uuid FOR UPDATE`;

/**
 * The dead letter's stored bytes (encrypted stays encrypted) as one new frame. Consumer dead
 * letters are copies of log frames, which are never compressed.
 * $1 tenant, $2 dead letter id, $3 new message id, $4 new txn, $5 producer sub.
 */
const REPLAYED_FRAME = `
frames AS (
  SELECT 1 AS ord, d.tenant, $3::uuid AS id, d.queue, d.partition, $4::text AS transaction_id, d.payload, d.encrypted,
         $5::text AS producer_sub, NULL::text AS timer_key, NULL::timestamptz AS deliver_at, NULL::uuid AS trace_id,
         NULL::text AS traceparent
    FROM dead_letters d WHERE d.tenant = $1 AND d.id = $2::uuid
)`;

/** removeDeadLetter — $1 tenant, $2 id. Locks: the row (already held). Rows: 1. */
const REMOVE_DEAD_LETTER_SQL = 'DELETE FROM dead_letters WHERE tenant = $1 AND id = $2::uuid';

/**
 * Re-pushes a consumer's dead letter as a NEW frame (new message id, new transaction id: the
 * original txn still names the original frame, which the dedupe would otherwise match) at the
 * end of its partition, and removes the dead letter. The new frame is in the log, so every
 * consumer group sees it. Its producerSub is the replaying subject: they pushed it.
 */
export async function replayDeadLetter(deps: LogDeps, caller: Caller, id: string): Promise<ReplayResult> {
  const { tenant, sub } = caller;
  const result = await inTransaction(
    deps.db.pool,
    async (tx) => {
      const found = await tx.query<{
        queue: string;
        partition: string;
        from_timer: boolean;
        consumer_group: string;
        timer_key: string | null;
      }>(LOCK_DEAD_LETTER_SQL, [tenant, id]);
      const row = found.rows[0];
      if (!row) throw new ApiError('not_found', `no dead letter ${id}`, { field: 'id' });
      if (row.from_timer) {
        throw new ApiError(
          'timer_dlq_not_replayable',
          `dead letter ${id} is a timer whose fire exhausted its attempts (consumer group "${row.consumer_group}"), not a frame a consumer gave up on; ` +
            'it never entered the log, so there is nothing to replay — schedule it again with POST /api/v1/timers once the cause is fixed',
          { timerKey: row.timer_key },
        );
      }
      const messageId = randomUUID();
      const txn = randomUUID();
      await append(tx, [{ tenant, queue: row.queue, partition: row.partition }], {
        ctes: REPLAYED_FRAME,
        tenants: 'ARRAY[$1::text]',
        params: [tenant, id, messageId, txn, sub],
      });
      await tx.query(REMOVE_DEAD_LETTER_SQL, [tenant, id]);
      return { replayed: true as const, id, queue: row.queue, partition: row.partition, transactionId: txn, messageId };
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  deps.notifier.messagesPushed(tenant, result.queue, [result.partition]);
  return result;
}
