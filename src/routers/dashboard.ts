// The dashboard's read routes (src/contract/dashboard.ts): read grant, the caller's tenant; whoami
// needs only a valid credential.
import { openapiMeta } from '../contract/common.ts';
import {
  dashboardRoutes as r,
  clamp,
  FIRE_LAG_MINUTES_DEFAULT,
  FIRE_LAG_MINUTES_MAX,
  OVERVIEW_LIMIT_DEFAULT,
  OVERVIEW_LIMIT_MAX,
  pageLimit,
  VIEW_LIMIT_DEFAULT,
  VIEW_LIMIT_MAX,
} from '../contract/dashboard.ts';
import { DEFAULT_PARTITION } from '../contract/common.ts';
import { fireLag } from '../services/dashboard/fireLag.ts';
import { forecast } from '../services/dashboard/forecast.ts';
import { listFrames, listGroups, listLeases, listPartitions } from '../services/dashboard/logViews.ts';
import { overview } from '../services/dashboard/overview.ts';
import { listQueues } from '../services/dashboard/queues.ts';
import { authedProcedure, readProcedure, router } from '../trpc.ts';

const viewLimit = (raw: string | undefined) => pageLimit(raw, VIEW_LIMIT_DEFAULT, VIEW_LIMIT_MAX);

export const dashboardRouter = router({
  whoami: authedProcedure
    .meta(openapiMeta(r.whoami))
    .input(r.whoami.input)
    .output(r.whoami.output)
    .query(({ ctx }) => {
      const p = ctx.principal;
      return {
        tenant: p.tenant,
        sub: p.sub,
        grants: [...p.grants].sort(),
        operator: p.grants.has('admin') && p.tenant === ctx.config.QUEEN_OPERATOR_TENANT,
      };
    }),

  queues: readProcedure
    .meta(openapiMeta(r.queues))
    .input(r.queues.input)
    .output(r.queues.output)
    .query(({ ctx, input }) => listQueues(ctx, ctx.principal, input.after, viewLimit(input.limit))),

  overview: readProcedure
    .meta(openapiMeta(r.overview))
    .input(r.overview.input)
    .output(r.overview.output)
    .query(({ ctx, input }) =>
      overview(ctx, ctx.principal, {
        after: input.after,
        queue: input.queue,
        limit: pageLimit(input.limit, OVERVIEW_LIMIT_DEFAULT, OVERVIEW_LIMIT_MAX),
      }),
    ),

  fireLag: readProcedure
    .meta(openapiMeta(r.fireLag))
    .input(r.fireLag.input)
    .output(r.fireLag.output)
    .query(({ ctx, input }) =>
      fireLag(ctx, ctx.principal, input.queue, clamp(input.minutes, FIRE_LAG_MINUTES_DEFAULT, 1, FIRE_LAG_MINUTES_MAX)),
    ),

  forecast: readProcedure
    .meta(openapiMeta(r.forecast))
    .input(r.forecast.input)
    .output(r.forecast.output)
    .query(({ ctx, input }) => forecast(ctx, ctx.principal, input.queue)),

  partitions: readProcedure
    .meta(openapiMeta(r.partitions))
    .input(r.partitions.input)
    .output(r.partitions.output)
    .query(({ ctx, input }) => listPartitions(ctx, ctx.principal, input.queue, input.after, viewLimit(input.limit))),

  groups: readProcedure
    .meta(openapiMeta(r.groups))
    .input(r.groups.input)
    .output(r.groups.output)
    .query(({ ctx, input }) => listGroups(ctx, ctx.principal, input.queue, input.after, viewLimit(input.limit))),

  leases: readProcedure
    .meta(openapiMeta(r.leases))
    .input(r.leases.input)
    .output(r.leases.output)
    .query(({ ctx, input }) => listLeases(ctx, ctx.principal, input.queue, input.after, viewLimit(input.limit))),

  frames: readProcedure
    .meta(openapiMeta(r.frames))
    .input(r.frames.input)
    .output(r.frames.output)
    .query(({ ctx, input }) =>
      listFrames(ctx, ctx.principal, input.queue, input.partition ?? DEFAULT_PARTITION, Number(input.after ?? 0), viewLimit(input.limit)),
    ),
});
