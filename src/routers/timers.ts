// The timer routes (src/contract/timers.ts) served by the timer services.
import { openapiMeta } from '../contract/common.ts';
import { listLimit, timerRoutes as r } from '../contract/timers.ts';
import { applyBatch, cancelOne } from '../services/timers/apply.ts';
import { list, peek } from '../services/timers/read.ts';
import { usage } from '../plans/meter.ts';
import { authedProcedure, produceProcedure, readProcedure, router } from '../trpc.ts';

export const timersRouter = router({
  batch: produceProcedure
    .meta(openapiMeta(r.batch))
    .input(r.batch.input)
    .output(r.batch.output)
    .mutation(({ ctx, input }) => applyBatch(ctx, ctx.principal, input.operations)),

  cancel: authedProcedure
    .meta(openapiMeta(r.cancel))
    .input(r.cancel.input)
    .output(r.cancel.output)
    .mutation(({ ctx, input }) => cancelOne(ctx, ctx.principal, input.queue, input.timerKey, input.txn)),

  peek: readProcedure
    .meta(openapiMeta(r.peek))
    .input(r.peek.input)
    .output(r.peek.output)
    .query(({ ctx, input }) => peek(ctx, ctx.principal, input.queue, input.timerKey)),

  list: readProcedure
    .meta(openapiMeta(r.list))
    .input(r.list.input)
    .output(r.list.output)
    .query(({ ctx, input }) =>
      list(ctx, ctx.principal, input.queue, input.after, listLimit(input.limit), { order: input.order, prefix: input.prefix }),
    ),

  usage: authedProcedure
    .meta(openapiMeta(r.usage))
    .input(r.usage.input)
    .output(r.usage.output)
    .query(({ ctx, input }) => usage(ctx, ctx.principal, input.period)),
});
