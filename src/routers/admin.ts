// The operator routes (src/contract/admin.ts): tenants' plans and the cluster flags.
import { adminRoutes as r } from '../contract/admin.ts';
import { openapiMeta } from '../contract/common.ts';
import { listLimit } from '../contract/timers.ts';
import { adminProcedure, router } from '../trpc.ts';

export const adminRouter = router({
  listTenants: adminProcedure
    .meta(openapiMeta(r.listTenants))
    .input(r.listTenants.input)
    .output(r.listTenants.output)
    .query(({ ctx, input }) => ctx.tenants.list(input.after, listLimit(input.limit))),

  getTenant: adminProcedure
    .meta(openapiMeta(r.getTenant))
    .input(r.getTenant.input)
    .output(r.getTenant.output)
    .query(({ ctx, input }) => ctx.tenants.plan(input.tenant)),

  putTenant: adminProcedure
    .meta(openapiMeta(r.putTenant))
    .input(r.putTenant.input)
    .output(r.putTenant.output)
    .mutation(({ ctx, input }) => {
      const { tenant, ...patch } = input;
      return ctx.tenants.update(tenant, patch);
    }),

  getCluster: adminProcedure
    .meta(openapiMeta(r.getCluster))
    .input(r.getCluster.input)
    .output(r.getCluster.output)
    .query(({ ctx }) => ctx.cluster.get()),

  putCluster: adminProcedure
    .meta(openapiMeta(r.putCluster))
    .input(r.putCluster.input)
    .output(r.putCluster.output)
    .mutation(({ ctx, input }) => ctx.cluster.set(input)),

  getMaintenance: adminProcedure
    .meta(openapiMeta(r.getMaintenance))
    .input(r.getMaintenance.input)
    .output(r.getMaintenance.output)
    .query(async ({ ctx }) => maintenanceState((await ctx.cluster.get(true)).produceBlocked)),

  setMaintenance: adminProcedure
    .meta(openapiMeta(r.setMaintenance))
    .input(r.setMaintenance.input)
    .output(r.setMaintenance.output)
    .mutation(async ({ ctx, input }) => {
      const { produceBlocked } = await ctx.cluster.set({ produceBlocked: input.enabled });
      return {
        ...maintenanceState(produceBlocked),
        message: produceBlocked
          ? 'Maintenance mode on: the cluster refuses pushes and schedules (503 produce_blocked) until it is turned off.'
          : 'Maintenance mode off: the cluster accepts pushes and schedules again.',
      };
    }),
});

/** Queen's maintenance answer for the produce block's state: nothing is ever buffered. */
const maintenanceState = (produceBlocked: boolean) => ({
  maintenanceMode: produceBlocked,
  popMaintenanceMode: false,
  bufferedMessages: 0,
  bufferHealthy: true,
});
