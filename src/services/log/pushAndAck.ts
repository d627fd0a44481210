// Queen's transaction (POST /api/v1/transaction): pushes and acks applied together or not at all —
// the consume-transform-produce step of an exactly-once pipeline. One runner transaction: the
// leases the client relies on are checked, the pushes appended (partition locks, then consumer
// rows, as every append takes them), then the acks judged; any refusal rolls everything back.
import { randomUUID } from 'node:crypto';
import type { TransactionOperation, TransactionResult } from '../../contract/log.ts';
import { QUEUE_MODE } from '../../contract/log.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ApiError } from '../../errors.ts';
import { announceReleased, judge, type AckItem } from './ack.ts';
import type { Caller, LogDeps } from './deps.ts';
import { announcePushed, appendPushed } from './push.ts';

/**
 * liveLeases — $1 tenant, $2 lease ids. Locks: none (the acks lock what they judge). Rows: the
 * ones live now, through partition_consumers_lease.
 */
export const LIVE_LEASES_SQL = `
SELECT DISTINCT c.lease_id::text AS lease_id FROM partition_consumers c
 WHERE c.tenant = $1 AND c.lease_id = ANY($2::uuid[]) AND c.lease_expires_at > now()`;

export async function commitTransaction(
  deps: LogDeps,
  caller: Caller,
  req: { operations: TransactionOperation[]; requiredLeases?: string[] },
): Promise<TransactionResult> {
  // Each pushed item keeps its place in the call: the operation's index and its own in that push.
  const pushes = req.operations.flatMap((op, index) =>
    op.type === 'push' ? op.items.map((item, itemIndex) => ({ index, itemIndex, item })) : [],
  );
  const acks = req.operations.flatMap((op, index) =>
    op.type === 'ack'
      ? [
          {
            index,
            item: {
              transactionId: op.transactionId,
              partitionId: op.partitionId,
              status: op.status,
              consumerGroup: op.consumerGroup ?? QUEUE_MODE,
              error: op.error,
              leaseId: op.leaseId,
            } satisfies AckItem,
          },
        ]
      : [],
  );
  const leases = [...new Set((req.requiredLeases ?? []).map((l) => l.toLowerCase()))];
  const done = await inTransaction(
    deps.db.pool,
    async (tx) => {
      if (leases.length > 0) {
        const live = new Set((await tx.query<{ lease_id: string }>(LIVE_LEASES_SQL, [caller.tenant, leases])).rows.map((r) => r.lease_id));
        const dead = leases.findIndex((l) => !live.has(l));
        if (dead >= 0) {
          throw new ApiError(
            'lease_mismatch',
            `requiredLeases: lease ${leases[dead]} is not live (expired or settled); nothing was applied`,
            {
              field: 'requiredLeases',
            },
          );
        }
      }
      const pushed = await appendPushed(
        deps,
        tx,
        caller,
        pushes.map((p) => p.item),
        { commit: false },
      );
      const judged = await judge(
        tx,
        caller.tenant,
        acks.map((a) => a.item),
        { commit: false },
      );
      judged.outcomes.forEach((o, i) => {
        if (o instanceof ApiError) {
          const field = `operations.${acks[i].index}.${(o.details as { field?: string }).field ?? 'transactionId'}`;
          throw new ApiError(o.code, `${field}: ${o.message}; nothing was applied`, { field });
        }
      });
      return { pushed, judged };
    },
    { setup: setLocal(INDEX_PLANS) },
  );
  announcePushed(deps, caller.tenant, done.pushed);
  announceReleased(deps, caller.tenant, done.judged.released);
  const results: TransactionResult['results'] = [];
  done.pushed.results.forEach((r, i) =>
    results.push({
      index: pushes[i].index,
      itemIndex: pushes[i].itemIndex,
      type: 'push',
      success: true,
      transactionId: r.transaction_id,
      messageId: r.message_id,
      queueName: r.queueName,
      duplicate: r.status === 'duplicate',
    }),
  );
  done.judged.outcomes.forEach((o, i) => {
    if (o instanceof ApiError) return; // refused above: never reached
    results.push({
      index: acks[i].index,
      type: 'ack',
      success: true,
      transactionId: o.transactionId,
      status: o.status,
      dlq: o.status === 'dlq',
    });
  });
  results.sort((a, b) => a.index - b.index || (a.itemIndex ?? 0) - (b.itemIndex ?? 0));
  return { transactionId: randomUUID(), success: true, results };
}
