// delayedProcessing (Queen's queue option): a message pushed to such a queue becomes visible N
// seconds later. Here that is the product's own promise: each such item is scheduled as a timer
// due N s after the push, on PostgreSQL's clock, and the sweeper fires it into the log as it fires
// every timer — exactly once (the log deduplicates the fire on the item's txn), never early, and
// pending (the timers gauge, the dashboard) until then. The frame's id is the timer's messageId,
// answered by the push as message_id, and its transactionId the item's.
//
// What follows from riding on timers, and is documented (docs/queen.md): the item passes the timer
// gates (plan rate, pending-timer quota, a payload ceiling of min(1 MiB, plan)) and is metered as a
// schedule; a repeat of a txn still pending or already in the log answers `duplicate` with the
// first one's id; a push that mixes delayed and immediate queues applies the two parts one after
// the other, not in one transaction.
import { createHash, randomUUID } from 'node:crypto';
import { DEFAULT_PARTITION } from '../../contract/common.ts';
import type { PushResult } from '../../contract/log.ts';
import { MAX_OPS_PER_BATCH, type TimerOperation } from '../../contract/timers.ts';
import type { Queryable } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { applyBatch } from '../timers/apply.ts';
import type { TimerDeps } from '../timers/deps.ts';
import type { Caller } from './deps.ts';
import type { SentItem } from './push.ts';

/**
 * delayedQueues — $1 tenant, $2 queue names. Locks: none. Rows: one per queue whose
 * delayedProcessing (seconds, a JSON number) is above 0.
 */
const DELAYED_QUEUES_SQL = `
SELECT name, (queen_options->>'delayedProcessing')::float8 AS seconds
  FROM queues
 WHERE tenant = $1 AND name = ANY($2::text[])
   AND jsonb_typeof(queen_options->'delayedProcessing') = 'number' AND (queen_options->>'delayedProcessing')::float8 > 0`;

/**
 * existingDelayed — $1 tenant, $2 queues, $3 partitions, $4 txns, $5 timer keys (parallel).
 * Locks: none. Rows: for each item whose txn is pending as a delayed push or already in the log,
 * its position and that message's id.
 */
const EXISTING_SQL = `
SELECT i.ord::int - 1 AS at,
       coalesce((SELECT t.message_id::text FROM timers t WHERE t.tenant = $1 AND t.queue = i.q AND t.timer_key = i.k),
                (SELECT m.id::text FROM messages m
                  WHERE m.tenant = $1 AND m.queue = i.q AND m.partition = i.p AND m.transaction_id = i.txn LIMIT 1)) AS id
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i(q, p, txn, k, ord)`;

/** A refusal of the timer batch, reworded for the push: `operations.N…` is the item it came from. */
function inPushTerms(err: unknown, itemOf: (op: number) => number): unknown {
  const field = err instanceof ApiError ? err.details.field : undefined;
  const m = typeof field === 'string' ? /^operations\.(\d+)(.*)$/.exec(field) : null;
  if (!(err instanceof ApiError) || !m) return err;
  const item = `items.${itemOf(Number(m[1]))}${m[2]}`;
  const message = err.message.replaceAll(`operations.${m[1]}`, item);
  return new ApiError(err.code, `${message} (a push to a queue with delayedProcessing is held as a timer)`, {
    ...err.details,
    field: item,
  });
}

/** The delay in seconds of each queue of `queues` that delays its pushes. */
export async function delayedQueues(db: Queryable, tenant: string, queues: string[]): Promise<Map<string, number>> {
  const r = await db.query<{ name: string; seconds: number }>(DELAYED_QUEUES_SQL, [tenant, [...new Set(queues)]]);
  return new Map(r.rows.map((row) => [row.name, Number(row.seconds)]));
}

/** The timer a delayed push becomes: one key per (partition, txn), as the log's dedupe is. */
const timerKeyOf = (partition: string, txn: string) =>
  `delayed-push:${createHash('sha256').update(`${partition}\u0000${txn}`).digest('hex')}`;

/** Schedules the delayed items; answers their push results (index: position in `items`). */
export async function pushDelayed(
  deps: TimerDeps,
  caller: Caller,
  items: SentItem[],
  delaySeconds: (queue: string) => number,
): Promise<PushResult[]> {
  const rows = items.map((item) => {
    const partition = item.partition ?? DEFAULT_PARTITION;
    const txn = item.transactionId ?? randomUUID();
    return { item, partition, txn, key: timerKeyOf(partition, txn) };
  });
  const existingIds = async (ats: number[]) => {
    const r = await deps.db.pool.query<{ at: number; id: string | null }>(EXISTING_SQL, [
      caller.tenant,
      ats.map((at) => rows[at].item.queue),
      ats.map((at) => rows[at].partition),
      ats.map((at) => rows[at].txn),
      ats.map((at) => rows[at].key),
    ]);
    return r.rows.filter((e) => e.id !== null).map((e) => ({ at: ats[e.at], id: e.id! }));
  };
  const duplicate = (at: number, id: string): PushResult => ({
    index: at,
    transaction_id: rows[at].txn,
    status: 'duplicate',
    message_id: id,
    queueName: rows[at].item.queue,
  });
  const results: (PushResult | undefined)[] = rows.map(() => undefined);
  for (const e of await existingIds(rows.map((_, at) => at))) results[e.at] = duplicate(e.at, e.id);
  // A txn repeated within the request: the first one is scheduled, the others are its duplicates.
  const first = new Map<string, number>();
  const ops: { at: number; op: TimerOperation }[] = [];
  rows.forEach((r, at) => {
    if (results[at]) return;
    const seen = first.get(`${r.item.queue}\u0000${r.key}`);
    if (seen !== undefined) return;
    first.set(`${r.item.queue}\u0000${r.key}`, at);
    const bytes = Buffer.from(r.item.rawPayload ?? JSON.stringify(r.item.payload), 'utf8');
    ops.push({
      at,
      op: {
        op: 'schedule',
        queue: r.item.queue,
        timerKey: r.key,
        delayMs: Math.round(delaySeconds(r.item.queue) * 1000),
        txn: r.txn,
        payload: bytes.toString('base64'),
        partition: r.partition,
      },
    });
  });
  for (let i = 0; i < ops.length; i += MAX_OPS_PER_BATCH) {
    const chunk = ops.slice(i, i + MAX_OPS_PER_BATCH);
    const { results: verdicts } = await applyBatch(
      deps,
      caller,
      chunk.map((c) => c.op),
    ).catch((err: unknown) => {
      throw inPushTerms(err, (n) => chunk[n].at);
    });
    const raced: number[] = [];
    verdicts.forEach((v, k) => {
      const at = chunk[k].at;
      if (v.status === 'scheduled' || v.status === 'rescheduled') {
        results[at] = {
          index: at,
          transaction_id: rows[at].txn,
          status: 'queued',
          message_id: v.messageId,
          queueName: rows[at].item.queue,
        };
      } else raced.push(at); // too_late: a concurrent push of the same txn is being fired right now
    });
    // The one being fired is this item's first push: a duplicate of it (its timer or its frame).
    for (const e of await existingIds(raced)) results[e.at] = duplicate(e.at, e.id);
  }
  return rows.map((r, at) => {
    if (results[at]) return results[at]!;
    const firstAt = first.get(`${r.item.queue}\u0000${r.key}`)!;
    return { ...results[firstAt]!, index: at, status: 'duplicate' };
  });
}
