// The schedule routes (src/contract/schedules.ts) served by the schedule services. The grants are
// the timer routes': PUT needs produce (and passes the cluster block), GET needs read, DELETE any
// valid credential of the tenant.
import { openapiMeta } from '../contract/common.ts';
import { MAX_SHOWN_OCCURRENCES, scheduleRoutes as r, SHOWN_OCCURRENCES } from '../contract/schedules.ts';
import { listLimit } from '../contract/timers.ts';
import { putSchedule } from '../services/schedules/put.ts';
import { getSchedule, listSchedules } from '../services/schedules/read.ts';
import { deleteSchedule } from '../services/schedules/remove.ts';
import { authedProcedure, produceProcedure, readProcedure, router } from '../trpc.ts';

export const schedulesRouter = router({
  put: produceProcedure
    .meta(openapiMeta(r.put))
    .input(r.put.input)
    .output(r.put.output)
    .mutation(({ ctx, input }) => putSchedule(ctx, ctx.principal, input)),

  delete: authedProcedure
    .meta(openapiMeta(r.delete))
    .input(r.delete.input)
    .output(r.delete.output)
    .mutation(({ ctx, input }) => deleteSchedule(ctx, ctx.principal, input.queue, input.scheduleKey)),

  get: readProcedure
    .meta(openapiMeta(r.get))
    .input(r.get.input)
    .output(r.get.output)
    .query(({ ctx, input }) =>
      getSchedule(
        ctx,
        ctx.principal,
        input.queue,
        input.scheduleKey,
        Math.min(MAX_SHOWN_OCCURRENCES, Math.max(1, input.occurrences ?? SHOWN_OCCURRENCES)),
      ),
    ),

  list: readProcedure
    .meta(openapiMeta(r.list))
    .input(r.list.input)
    .output(r.list.output)
    .query(({ ctx, input }) => listSchedules(ctx, ctx.principal, input.queue, input.after, listLimit(input.limit))),
});
