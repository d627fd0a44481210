// The operator routes' wire (admin grant): tenants' plans and the cluster flags.
import { z } from 'zod';
import { queenObject, route, tenantName } from './common.ts';
import {
  clusterFlagsExample,
  maintenanceStateExample,
  putTenantInputExample,
  setMaintenanceInputExample,
  setMaintenanceOutputExample,
  tenantPlanExample,
} from './examples.ts';
import { tenantListExample } from './dashboardExamples.ts';
import { keysetPage } from './timers.ts';

/**
 * The cell's maximum of any plan's max payload: 8 MiB. A pushed message is bounded by its plan up
 * to this (Queen's clients push payloads of several MiB); the push route's body limit
 * (QUEEN_PUSH_BODY_LIMIT_BYTES) leaves room for one. A pop hands out at least one frame whatever
 * its size, so this is also the largest frame a consumer receives.
 */
export const PAYLOAD_CEILING_BYTES = 8 * 1024 * 1024;

/**
 * A timer's payload ceiling, whatever its plan says: 1 MiB (the contract's min(1 MiB, plan)). A
 * timer is a promise kept in the timers table and fired in batches of up to 1,000, so its payload
 * stays small; a pushed message is not bound by it.
 */
export const TIMER_PAYLOAD_CEILING_BYTES = 1024 * 1024;

const planFields = {
  maxPayloadBytes: z.number().int().positive().max(PAYLOAD_CEILING_BYTES).nullable(),
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
    maxPayloadBytes: z
      .number()
      .int()
      .describe("the plan's max payload in bytes (at most the cell's 8 MiB): the ceiling of a pushed message"),
    maxTimerPayloadBytes: z
      .number()
      .int()
      .describe("min(1 MiB, maxPayloadBytes): the ceiling of a timer's or a schedule's decoded payload"),
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

/**
 * Queen's maintenance mode, as this cell means it: the cluster's produce block. Queen's broker
 * keeps accepting pushes in maintenance and holds them in a file buffer it drains afterwards; here
 * a push (or a schedule) in maintenance is refused, 503 produce_blocked with Retry-After, and
 * nothing is held anywhere: a frame is in the log, durable, or it was refused and the producer
 * retries. So `bufferedMessages` is always 0 and `bufferHealthy` always true.
 */
const maintenanceStateSchema = z
  .object({
    maintenanceMode: z.boolean().describe("the cluster's produce block: pushes and schedules answer 503 produce_blocked while true"),
    popMaintenanceMode: z.boolean().describe("always false: consumers are never paused (Queen's pop maintenance is not built)"),
    bufferedMessages: z.number().int().describe('always 0: a push in maintenance is refused, not buffered'),
    bufferHealthy: z.boolean().describe('always true: there is no buffer'),
  })
  .meta({ id: 'MaintenanceState', examples: [maintenanceStateExample] });
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

  getMaintenance: route({
    method: 'GET',
    path: '/api/v1/system/maintenance',
    tags: ['admin'],
    summary: "Read Queen's maintenance mode: the cluster's produce block",
    description:
      "Queen's maintenance mode maps onto the cluster's produce block (PUT /api/v1/admin/cluster, produceBlocked). " +
      'Nothing is buffered: bufferedMessages is always 0.',
    input: queenObject({}),
    output: maintenanceStateSchema,
  }),

  setMaintenance: route({
    method: 'POST',
    path: '/api/v1/system/maintenance',
    tags: ['admin'],
    summary: "Turn Queen's maintenance mode on or off: block or unblock produce cluster-wide",
    description:
      'While on, every push, schedule and schedule PUT answers 503 produce_blocked with Retry-After (Queen buffers them ' +
      'instead; here the producer retries). Consumers keep popping and the sweeper keeps firing timers already scheduled.',
    input: queenObject({ enabled: z.boolean().describe('true blocks produce cluster-wide, false lifts the block') }).meta({
      examples: [setMaintenanceInputExample],
    }),
    output: maintenanceStateSchema
      .extend({ message: z.string() })
      .meta({ id: 'MaintenanceChange', examples: [setMaintenanceOutputExample] }),
  }),
};
