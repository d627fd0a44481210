// Operator routes (admin grant): tenants' plans and the cluster flags.
import { z } from 'zod';
import { tenantName } from '../auth.ts';
import { adminProcedure, router } from '../trpc.ts';

const planFields = {
  maxPayloadBytes: z.number().int().positive().max(1024 * 1024).nullable(),
  horizonSeconds: z.number().int().positive().max(2_147_483_647).nullable(),
  maxPendingTimers: z.number().int().nonnegative().max(2_000_000_000).nullable(),
  scheduleRatePerSecond: z.number().int().positive().max(2_000_000_000).nullable(),
  storageLimitBytes: z.number().int().nonnegative().nullable(),
};

export const planSchema = z
  .object({
    tenant: z.string(),
    maxPayloadBytes: z.number().int().describe('min(1 MiB, plan): the payload ceiling in bytes of the decoded payload'),
    horizonSeconds: z.number().int().describe("how far ahead a timer may be scheduled; never wider than the cell's"),
    maxPendingTimers: z.number().int(),
    scheduleRatePerSecond: z.number().int(),
    storageLimitBytes: z.number().int().describe('0 = unlimited'),
    schedulePaused: z.boolean(),
    overrides: z.object({ ...planFields, schedulePaused: z.boolean() }).describe('what this tenant sets; null = the cell default'),
  })
  .meta({ id: 'TenantPlan' });

const tenantPath = z.object({ tenant: tenantName });

const clusterSchema = z.object({ produceBlocked: z.boolean(), sweeperPaused: z.boolean() }).meta({ id: 'ClusterFlags' });

export const adminRouter = router({
  getTenant: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/admin/tenants/{tenant}', tags: ['admin'], summary: "Read a tenant's effective plan" } })
    .input(tenantPath.strict())
    .output(planSchema)
    .query(({ ctx, input }) => ctx.tenants.plan(input.tenant)),

  putTenant: adminProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/admin/tenants/{tenant}',
        tags: ['admin'],
        summary: "Create a tenant or change its plan; null resets a field to the cell default",
      },
    })
    .input(
      tenantPath
        .extend({
          ...Object.fromEntries(Object.entries(planFields).map(([k, v]) => [k, v.optional()])),
          schedulePaused: z.boolean().optional(),
        } as { [K in keyof typeof planFields]: z.ZodOptional<(typeof planFields)[K]> } & { schedulePaused: z.ZodOptional<z.ZodBoolean> })
        .strict(),
    )
    .output(planSchema)
    .mutation(({ ctx, input }) => {
      const { tenant, ...patch } = input;
      return ctx.tenants.update(tenant, patch);
    }),

  getCluster: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/admin/cluster', tags: ['admin'], summary: 'Read the cluster flags' } })
    .input(z.object({}).strict())
    .output(clusterSchema)
    .query(({ ctx }) => ctx.cluster.get()),

  putCluster: adminProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/admin/cluster',
        tags: ['admin'],
        summary: 'Block produce cluster-wide, or pause the sweeper (resuming fires everything that matured meanwhile)',
      },
    })
    .input(z.object({ produceBlocked: z.boolean().optional(), sweeperPaused: z.boolean().optional() }).strict())
    .output(clusterSchema)
    .mutation(({ ctx, input }) => ctx.cluster.set(input)),
});
