// The operator routes' wire (admin grant): tenants' plans and the cluster flags.
import { z } from 'zod';
import { route, tenantName } from './common.ts';
import { tenantListExample } from './dashboardExamples.ts';
import { clusterFlagsExample, putTenantInputExample, tenantPlanExample } from './examples.ts';
import { keysetPage } from './timers.ts';

const planFields = {
  maxPayloadBytes: z
    .number()
    .int()
    .positive()
    .max(1024 * 1024)
    .nullable(),
  horizonSeconds: z.number().int().positive().max(2_147_483_647).nullable(),
  maxPendingTimers: z.number().int().nonnegative().max(2_000_000_000).nullable(),
  scheduleRatePerSecond: z.number().int().positive().max(2_000_000_000).nullable(),
  storageLimitBytes: z.number().int().nonnegative().nullable(),
  maxSchedules: z.number().int().nonnegative().max(2_000_000_000).nullable(),
  minScheduleIntervalSeconds: z.number().int().positive().max(2_147_483_647).nullable(),
};

const overridesSchema = z.object({ ...planFields, schedulePaused: z.boolean() }).describe('what this tenant sets; null = the cell default');

/** What a tenant's row sets; null fields follow the cell default. */
export type PlanOverrides = z.infer<typeof overridesSchema>;

export const planSchema = z
  .object({
    tenant: z.string(),
    maxPayloadBytes: z.number().int().describe('min(1 MiB, plan): the payload ceiling in bytes of the decoded payload'),
    horizonSeconds: z.number().int().describe("how far ahead a timer may be scheduled; never wider than the cell's"),
    maxPendingTimers: z.number().int(),
    scheduleRatePerSecond: z.number().int(),
    storageLimitBytes: z.number().int().describe('0 = unlimited'),
    schedulePaused: z.boolean(),
    maxSchedules: z.number().int().describe('schedules the tenant may hold; a PUT creating one more is 403 schedule_limit_exceeded'),
    minScheduleIntervalSeconds: z
      .number()
      .int()
      .describe('the shortest gap between two occurrences of one schedule; a cron firing more often is 403 schedule_interval_too_short'),
    overrides: overridesSchema,
  })
  .meta({ id: 'TenantPlan', examples: [tenantPlanExample] });

/** A tenant's plan in force: its overrides over the cell defaults. */
export type EffectivePlan = z.infer<typeof planSchema>;

export const clusterFlagsSchema = z
  .object({ produceBlocked: z.boolean(), sweeperPaused: z.boolean() })
  .meta({ id: 'ClusterFlags', examples: [clusterFlagsExample] });
export type ClusterFlags = z.infer<typeof clusterFlagsSchema>;

export const tenantListSchema = z
  .object({
    rows: z.array(planSchema),
    truncated: z.boolean().describe('true when more rows follow; pass nextAfter as after'),
    nextAfter: z.string().nullable().describe('the last tenant of this page'),
  })
  .meta({ id: 'TenantList', examples: [tenantListExample] });
export type TenantList = z.infer<typeof tenantListSchema>;

const tenantPath = z.object({ tenant: tenantName });

export const adminRoutes = {
  listTenants: route({
    method: 'GET',
    path: '/api/v1/admin/tenants',
    tags: ['admin'],
    summary: 'List the tenants by name with their effective plans (keyset paging)',
    description: '`limit` defaults to 100 and is clamped to [1, 1000], never rejected.',
    input: z.strictObject(keysetPage),
    output: tenantListSchema,
  }),

  getTenant: route({
    method: 'GET',
    path: '/api/v1/admin/tenants/{tenant}',
    tags: ['admin'],
    summary: "Read a tenant's effective plan",
    input: tenantPath.strict(),
    output: planSchema,
  }),

  putTenant: route({
    method: 'PUT',
    path: '/api/v1/admin/tenants/{tenant}',
    tags: ['admin'],
    summary: 'Create a tenant or change its plan; null resets a field to the cell default',
    input: tenantPath
      .extend({
        maxPayloadBytes: planFields.maxPayloadBytes.optional(),
        horizonSeconds: planFields.horizonSeconds.optional(),
        maxPendingTimers: planFields.maxPendingTimers.optional(),
        scheduleRatePerSecond: planFields.scheduleRatePerSecond.optional(),
        storageLimitBytes: planFields.storageLimitBytes.optional(),
        schedulePaused: z.boolean().optional(),
        maxSchedules: planFields.maxSchedules.optional(),
        minScheduleIntervalSeconds: planFields.minScheduleIntervalSeconds.optional(),
      })
      .strict()
      .meta({ examples: [putTenantInputExample] }),
    output: planSchema,
  }),

  getCluster: route({
    method: 'GET',
    path: '/api/v1/admin/cluster',
    tags: ['admin'],
    summary: 'Read the cluster flags',
    input: z.object({}).strict(),
    output: clusterFlagsSchema,
  }),

  putCluster: route({
    method: 'PUT',
    path: '/api/v1/admin/cluster',
    tags: ['admin'],
    summary: 'Block produce cluster-wide, or pause the sweeper (resuming fires everything that matured meanwhile)',
    input: z
      .object({ produceBlocked: z.boolean().optional(), sweeperPaused: z.boolean().optional() })
      .strict()
      .meta({ examples: [clusterFlagsExample] }),
    output: clusterFlagsSchema,
  }),
};
