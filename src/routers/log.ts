// The log routes (src/contract/log.ts) served by the log services. Here the wire's defaults and
// clamps are applied, and Queen's shapes of the ack answers are built.
import { inSpan, MAX_LINKS, MESSAGING_SYSTEM, parseTraceparent, SpanKind } from '../tracing.ts';
import { openapiMeta } from '../contract/common.ts';
import {
  DLQ_LIMIT_DEFAULT,
  DLQ_LIMIT_MAX,
  POP_BATCH_MAX,
  POP_PARTITIONS_MAX,
  POP_TIMEOUT_DEFAULT_MS,
  POP_TIMEOUT_MAX_MS,
  QUEUE_MODE,
  logRoutes as r,
  type AckResult,
  type PushResult,
} from '../contract/log.ts';
import type { AuthedContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { ack, type AckOutcome } from '../services/log/ack.ts';
import { listDeadLetters, replayDeadLetter } from '../services/log/deadLetters.ts';
import { deleteGroup, seekGroup, type SeekTarget } from '../services/log/consumerGroups.ts';
import { delayedQueues, pushDelayed } from '../services/log/delayedPush.ts';
import { deleteQueue } from '../services/log/deleteQueue.ts';
import { renewLease } from '../services/log/lease.ts';
import { commitTransaction } from '../services/log/pushAndAck.ts';
import type { GroupStart } from '../services/log/groups.ts';
import { pop } from '../services/log/pop.ts';
import { push, withRawPayloads } from '../services/log/push.ts';
import { configure } from '../services/queues.ts';
import { consumeProcedure, grantProcedure, produceProcedure, readProcedure, requireGrant, router } from '../trpc.ts';

type PopInput = {
  queue: string;
  partition?: string;
  batch?: number;
  wait?: boolean;
  timeout?: number;
  consumerGroup?: string;
  autoAck?: boolean;
  subscriptionMode?: string;
  subscriptionFrom?: string;
  partitions?: number;
};

/** The attributes every consumer span carries (messaging semantic conventions, then queen's own). */
function consumerAttributes(ctx: AuthedContext, operation: 'receive' | 'settle', group: string, queue?: string) {
  return {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': operation,
    'messaging.consumer.group.name': group,
    'queen.tenant': ctx.principal.tenant,
    ...(queue !== undefined ? { 'messaging.destination.name': queue } : {}),
  };
}

/** An ack (or a batch of acks) in a CONSUMER span: the settled txn and status when it is one. */
function ackInSpan(ctx: AuthedContext, items: Parameters<typeof ack>[2]) {
  const groups = [...new Set(items.map((i) => i.consumerGroup))];
  return inSpan(
    'ack',
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...consumerAttributes(ctx, 'settle', groups.length === 1 ? groups[0] : '(several)'),
        'messaging.batch.message_count': items.length,
        ...(items.length === 1 ? { 'queen.txn': items[0].transactionId, 'queen.status': items[0].status ?? 'completed' } : {}),
      },
    },
    async (span) => {
      const outcomes = await ack(ctx, ctx.principal, items);
      span.setAttribute('queen.refused', outcomes.filter((o) => o instanceof ApiError).length);
      // Where the ack settled, once the broker has located it (the request names a partition id).
      const [only] = outcomes;
      if (outcomes.length === 1 && only && !(only instanceof ApiError) && span.isRecording()) {
        span.setAttributes({ 'messaging.destination.name': only.queueName, 'queen.partition': only.partitionName });
      }
      return outcomes;
    },
  );
}

async function popRoute(ctx: AuthedContext, input: PopInput) {
  const group = input.consumerGroup ?? QUEUE_MODE;
  const messages = await inSpan(
    'pop',
    { kind: SpanKind.CONSUMER, attributes: consumerAttributes(ctx, 'receive', group, input.queue) },
    async (span) => {
      const frames = await pop(ctx, ctx.principal, {
        queue: input.queue,
        partition: input.partition,
        consumerGroup: group,
        batch: Math.min(POP_BATCH_MAX, Math.max(1, input.batch ?? 1)),
        autoAck: input.autoAck ?? false,
        wait: input.wait ?? false,
        timeoutMs: Math.min(POP_TIMEOUT_MAX_MS, input.timeout ?? POP_TIMEOUT_DEFAULT_MS),
        partitions: Math.min(POP_PARTITIONS_MAX, Math.max(1, input.partitions ?? 1)),
        // Queue mode reads every partition whole, whatever it is asked (as Queen's broker does).
        start:
          input.consumerGroup === undefined || input.consumerGroup === QUEUE_MODE
            ? undefined
            : groupStart(input.subscriptionMode, input.subscriptionFrom),
      });
      // Each popped frame links to the trace that pushed or scheduled it (the consumer continues it
      // from the frame's traceparent); payloads are never an attribute. Only a recording span is
      // described: with no SDK a pop pays for no pass over its frames.
      if (!span.isRecording()) return frames;
      const partitions = [...new Set(frames.map((f) => f.partition))];
      span.setAttributes({
        'messaging.batch.message_count': frames.length,
        ...(partitions.length === 1 ? { 'queen.partition': partitions[0] } : {}),
        ...(frames.length === 1 ? { 'queen.txn': frames[0].transactionId, 'messaging.message.id': frames[0].id } : {}),
      });
      for (const f of frames.slice(0, MAX_LINKS)) {
        const sc = parseTraceparent(f.traceparent);
        if (sc) span.addLink({ context: sc, attributes: { 'queen.txn': f.transactionId, 'messaging.message.id': f.id } });
      }
      return frames;
    },
  );
  if (messages.length === 0) ctx.res.status = 204;
  return { messages };
}

/**
 * Queen's subscription modes, read as Queen's broker reads them: `new` (also new-only, new_only,
 * newonly) or subscriptionFrom=now start after the newest frame; an ISO instant starts at the
 * first frame created at or after it; anything else, or nothing, starts at the beginning (Queen's
 * `all`). An instant that does not parse is ignored, as Queen ignores it. Queue mode always reads
 * the whole partition.
 */
export function groupStart(mode: string | undefined, from: string | undefined): GroupStart {
  if (from !== undefined && from !== '') {
    if (from.toLowerCase() === 'now') return { at: 'tail' };
    const t = Date.parse(from);
    if (!Number.isNaN(t)) return { at: 'since', instant: new Date(t).toISOString() };
  }
  return mode !== undefined && ['new', 'new-only', 'new_only', 'newonly'].includes(mode.toLowerCase())
    ? { at: 'tail' }
    : { at: 'beginning' };
}

/** An accepted ack as Queen answers it (consumerGroup null for '__QUEUE_MODE__'). */
const viewOutcome = (o: AckOutcome, index: number): AckResult => ({
  index,
  success: true,
  ...o,
  consumerGroup: o.consumerGroup === QUEUE_MODE ? null : o.consumerGroup,
  dlq: o.status === 'dlq',
});

export const logRouter = router({
  /**
   * configure needs the produce grant: a queue's options govern what producers' messages become
   * (encrypted at rest, how long they are leased, when they die), and Queen lets any producer
   * configure. It is not refused by the cluster produce block: it writes no message.
   * encryptionEnabled=true on a broker without QUEEN_ENCRYPTION_KEY is 503 encryption_unavailable:
   * the request is well-formed and the fix is the operator's, not the caller's.
   */
  configure: grantProcedure('produce')
    .meta(openapiMeta(r.configure))
    .input(r.configure.input)
    .output(r.configure.output)
    .mutation(async ({ ctx, input }) => ({
      configured: true as const,
      queue: input.queue,
      ...(await configure(ctx, ctx.principal.tenant, input.queue, input)),
    })),

  push: produceProcedure
    .meta(openapiMeta(r.push))
    .input(r.push.input)
    .output(r.push.output)
    .mutation(async ({ ctx, input }) => {
      const items = withRawPayloads(input.items, 'items', ctx.rawPayloads?.());
      if (items.length === 0) return push(ctx, ctx.principal, items);
      // Items of queues with delayedProcessing become timers (src/services/log/delayedPush.ts).
      const delays = await delayedQueues(
        ctx.db.pool,
        ctx.principal.tenant,
        items.map((i) => i.queue),
      );
      if (delays.size === 0) return push(ctx, ctx.principal, items);
      const delayed = items.flatMap((item, at) => (delays.has(item.queue) ? [at] : []));
      const immediate = items.flatMap((item, at) => (delays.has(item.queue) ? [] : [at]));
      const results = new Array<PushResult>(items.length);
      const scheduled = await pushDelayed(
        ctx,
        ctx.principal,
        delayed.map((at) => items[at]),
        (q) => delays.get(q)!,
      );
      scheduled.forEach((r, k) => (results[delayed[k]] = { ...r, index: delayed[k] }));
      if (immediate.length > 0) {
        const pushed = await push(
          ctx,
          ctx.principal,
          immediate.map((at) => items[at]),
        );
        pushed.forEach((r, k) => (results[immediate[k]] = { ...r, index: immediate[k] }));
      }
      return results;
    }),

  popQueue: consumeProcedure
    .meta(openapiMeta(r.popQueue))
    .input(r.popQueue.input)
    .output(r.popQueue.output)
    .query(({ ctx, input }) => popRoute(ctx, input)),

  popPartition: consumeProcedure
    .meta(openapiMeta(r.popPartition))
    .input(r.popPartition.input)
    .output(r.popPartition.output)
    .query(({ ctx, input }) => popRoute(ctx, input)),

  ack: consumeProcedure
    .meta(openapiMeta(r.ack))
    .input(r.ack.input)
    .output(r.ack.output)
    .mutation(async ({ ctx, input }): Promise<AckResult[]> => {
      const items = [{ ...input, consumerGroup: input.consumerGroup ?? QUEUE_MODE }];
      const [outcome] = await ackInSpan(ctx, items);
      if (outcome instanceof ApiError) throw outcome;
      return [viewOutcome(outcome, 0)];
    }),

  ackBatch: consumeProcedure
    .meta(openapiMeta(r.ackBatch))
    .input(r.ackBatch.input)
    .output(r.ackBatch.output)
    .mutation(async ({ ctx, input }): Promise<AckResult[]> => {
      const items = input.acknowledgments.map((a) => ({ ...a, consumerGroup: a.consumerGroup ?? input.consumerGroup ?? QUEUE_MODE }));
      const outcomes = await ackInSpan(ctx, items);
      return outcomes.map((o, index) =>
        o instanceof ApiError
          ? {
              index,
              success: false,
              transactionId: items[index].transactionId,
              partitionId: items[index].partitionId,
              error: o.message,
              code: o.code,
            }
          : viewOutcome(o, index),
      );
    }),

  /** Produce class (grant and cluster block); acking in it needs the consume grant too. */
  transaction: produceProcedure
    .meta(openapiMeta(r.transaction))
    .input(r.transaction.input)
    .output(r.transaction.output)
    .mutation(({ ctx, input }) => {
      if (input.operations.some((op) => op.type === 'ack')) requireGrant(ctx.principal, 'consume');
      const operations = input.operations.map((op, j) =>
        op.type === 'push' ? { ...op, items: withRawPayloads(op.items, `operations.${j}.items`, ctx.rawPayloads?.()) } : op,
      );
      return commitTransaction(ctx, ctx.principal, { ...input, operations });
    }),

  /** Produce grant, as configure: who may create a queue may remove it. */
  deleteQueue: grantProcedure('produce')
    .meta(openapiMeta(r.deleteQueue))
    .input(r.deleteQueue.input)
    .output(r.deleteQueue.output)
    .mutation(({ ctx, input }) => deleteQueue(ctx, ctx.principal, input.queue)),

  deleteConsumerGroup: consumeProcedure
    .meta(openapiMeta(r.deleteConsumerGroup))
    .input(r.deleteConsumerGroup.input)
    .output(r.deleteConsumerGroup.output)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      consumerGroup: input.consumerGroup,
      deletedPartitions: await deleteGroup(ctx, ctx.principal, input.consumerGroup, undefined),
      metadataDeleted: input.deleteMetadata ?? true,
    })),

  deleteConsumerGroupForQueue: consumeProcedure
    .meta(openapiMeta(r.deleteConsumerGroupForQueue))
    .input(r.deleteConsumerGroupForQueue.input)
    .output(r.deleteConsumerGroupForQueue.output)
    .mutation(async ({ ctx, input }) => ({
      success: true as const,
      consumerGroup: input.consumerGroup,
      queueName: input.queue,
      deletedPartitions: await deleteGroup(ctx, ctx.principal, input.consumerGroup, input.queue),
      metadataDeleted: input.deleteMetadata ?? true,
    })),

  seekConsumerGroup: consumeProcedure
    .meta(openapiMeta(r.seekConsumerGroup))
    .input(r.seekConsumerGroup.input)
    .output(r.seekConsumerGroup.output)
    .mutation(async ({ ctx, input }) => {
      const chosen = [input.toEnd === true, input.timestamp !== undefined, input.toBeginning === true].filter(Boolean).length;
      if (chosen !== 1) {
        throw new ApiError('validation_failed', 'timestamp: give exactly one of toEnd: true, a timestamp (ISO 8601) or toBeginning: true', {
          field: 'timestamp',
        });
      }
      const target: SeekTarget = input.toEnd
        ? { to: 'end' }
        : input.timestamp !== undefined
          ? { to: 'instant', instant: input.timestamp }
          : { to: 'beginning' };
      return {
        success: true as const,
        consumerGroup: input.consumerGroup,
        queueName: input.queue,
        seekToEnd: target.to === 'end',
        targetTimestamp: input.timestamp ?? null,
        partitionsUpdated: await seekGroup(ctx, ctx.principal, input.consumerGroup, input.queue, target),
      };
    }),

  renewLease: consumeProcedure
    .meta(openapiMeta(r.renewLease))
    .input(r.renewLease.input)
    .output(r.renewLease.output)
    .mutation(({ ctx, input }) => renewLease(ctx, ctx.principal, input.leaseId.toLowerCase(), input.seconds)),

  dlq: readProcedure
    .meta(openapiMeta(r.dlq))
    .input(r.dlq.input)
    .output(r.dlq.output)
    .query(({ ctx, input }) =>
      listDeadLetters(ctx, ctx.principal, {
        queue: input.queue,
        consumerGroup: input.consumerGroup,
        partition: input.partition,
        from: input.from,
        to: input.to,
        limit: Math.min(DLQ_LIMIT_MAX, Math.max(1, input.limit ?? DLQ_LIMIT_DEFAULT)),
        offset: input.offset ?? 0,
      }),
    ),

  replay: produceProcedure
    .meta(openapiMeta(r.replay))
    .input(r.replay.input)
    .output(r.replay.output)
    .mutation(({ ctx, input }) => replayDeadLetter(ctx, ctx.principal, input.id)),
});
