// The dashboard's read routes (read grant, the caller's tenant; whoami: any valid credential): who
// the credential is, the tenant's queues, a per-queue overview, the fire-lag history, a forecast of
// what fires when, and the log's partitions, consumer groups, leases and frames. The browser UI at
// /ui reads only these and the other public routes, through the SDK.
//
// Numbers that would need a scan at volume are never computed by one: each is a Count, exact up to
// a cap and then either "at least the cap" or an estimate (PostgreSQL's statistics or a block
// sample), and it says which. src/services/dashboard/ implements them.
import { z } from 'zod';
import { instant, partitionName, queryInt, queueName, route } from './common.ts';
import * as ex from './dashboardExamples.ts';
import { keysetPage } from './timers.ts';

export const OVERVIEW_LIMIT_DEFAULT = 20;
export const OVERVIEW_LIMIT_MAX = 50;
export const VIEW_LIMIT_DEFAULT = 50;
export const VIEW_LIMIT_MAX = 200;
export const FIRE_LAG_MINUTES_DEFAULT = 60;
export const FIRE_LAG_MINUTES_MAX = 1440;
/** Consumer groups one overview row shows; GET /api/v1/log/{queue}/groups pages through all. */
export const OVERVIEW_GROUPS_MAX = 10;
/** Timers overdue by more than this are a warning: the sweeper fires a due timer within milliseconds. */
export const OVERDUE_WARNING_SECONDS = 5;
/** A consumer group whose oldest unconsumed frame is older than this is a warning. */
export const CONSUMER_LAG_WARNING_SECONDS = 60;

export const countSchema = z
  .object({
    value: z.number().int().nonnegative(),
    basis: z
      .enum(['exact', 'estimate', 'at_least'])
      .describe('exact: counted; estimate: ≈, from statistics or a sample (show "≈"); at_least: counting stopped at value (show "≥")'),
  })
  .meta({ id: 'Count', description: 'a number that would need a scan at volume, and how it was obtained' });
export type Count = z.infer<typeof countSchema>;

/** A count from the query string clamped to [min, max] (absent: the default). */
export const clamp = (n: number | undefined, def: number, min: number, max: number) => Math.min(max, Math.max(min, n ?? def));

/** A page size from the query string, clamped to [1, max] and never refused (as the timer list's). */
export function pageLimit(raw: string | undefined, def: number, max: number): number {
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  if (Number.isNaN(n)) return def;
  return Math.min(max, Math.max(1, Math.floor(n)));
}

const page = (def: number, max: number) => ({
  after: keysetPage.after,
  limit: z
    .string()
    .meta({
      description: `page size, clamped to [1, ${max}], never refused; empty or non-numeric → the default`,
      override: { type: 'integer', default: def },
    })
    .optional(),
});

const paged = <T extends z.ZodType>(row: T, cursor: string) => ({
  rows: z.array(row),
  truncated: z.boolean().describe('true when more rows follow; pass nextAfter as after'),
  nextAfter: z.string().nullable().describe(cursor),
});

export const whoamiSchema = z
  .object({
    tenant: z.string(),
    sub: z.string(),
    // The grants of src/grants.ts, spelled here: the contract imports nothing outside itself.
    grants: z.array(z.enum(['produce', 'consume', 'read', 'admin'])),
    operator: z
      .boolean()
      .describe('the admin grant counts: this credential is of the operator tenant and carries it (the operator routes answer)'),
  })
  .meta({ id: 'Whoami', examples: [ex.whoamiExample] });
export type Whoami = z.infer<typeof whoamiSchema>;

export const queueRowSchema = z
  .object({ queue: z.string(), encryptionEnabled: z.boolean(), createdAt: instant })
  .meta({ id: 'QueueRow', description: 'a queue holds both its pending timers and its log frames' });
export type QueueRow = z.infer<typeof queueRowSchema>;

export const queueListSchema = z
  .object(paged(queueRowSchema, 'the last queue of this page'))
  .meta({ id: 'QueueList', examples: [ex.queueListExample] });
export type QueueList = z.infer<typeof queueListSchema>;

export const groupLagSchema = z
  .object({
    consumerGroup: z.string(),
    framesBehind: countSchema.describe("frames after the group's cursors"),
    partitionsBehind: countSchema.describe('partitions where the group has frames to consume'),
    oldestUnconsumedAt: instant.nullable().describe('when the oldest frame the group has not consumed entered the log'),
    oldestUnconsumedAgeSeconds: z.number().nullable(),
    leasesHeld: z.number().int().describe("partitions leased to the group's consumers now"),
  })
  .meta({ id: 'GroupLag' });
export type GroupLag = z.infer<typeof groupLagSchema>;

export const WARNING_CODES = ['overdue', 'dead_letters', 'consumer_lag', 'sweeper_paused', 'produce_blocked'] as const;

export const warningSchema = z
  .object({ queue: z.string().nullable().describe('null: the whole cell'), code: z.enum(WARNING_CODES), message: z.string() })
  .meta({ id: 'DashboardWarning' });
export type Warning = z.infer<typeof warningSchema>;

export const queueOverviewSchema = z
  .object({
    queue: z.string(),
    pending: countSchema.describe('timers not yet fired'),
    due: z
      .object({ nextMinute: countSchema, nextHour: countSchema, nextDay: countSchema })
      .describe('timers whose deliverAt falls after now and within the window'),
    overdue: countSchema.describe('due (deliverAt at or before now) and not yet fired, claimed ones included'),
    overdueOver5s: countSchema.describe(`overdue by more than ${OVERDUE_WARNING_SECONDS} s: the number that says something is wrong`),
    oldestOverdueSeconds: z.number().nullable(),
    claimed: countSchema.describe("in a sweeper's hands now"),
    fired: z
      .object({ lastMinute: z.number().int(), lastHour: z.number().int() })
      .describe('timers fired, from the fire-lag history (this minute so far, and the last 60 minutes)'),
    deadLetters: countSchema,
    log: z.object({
      frames: countSchema,
      partitions: countSchema,
      groups: z.array(groupLagSchema).describe(`the first ${OVERVIEW_GROUPS_MAX} consumer groups by name`),
      groupsTruncated: z.boolean(),
    }),
  })
  .meta({ id: 'QueueOverview' });
export type QueueOverview = z.infer<typeof queueOverviewSchema>;

export const overviewSchema = z
  .object({
    at: instant.describe("PostgreSQL's clock when the figures were read"),
    ...paged(queueOverviewSchema, 'the last queue of this page'),
    warnings: z.array(warningSchema).describe("what needs attention, in words, for this page's queues and the cell"),
  })
  .meta({ id: 'Overview', examples: [ex.overviewExample] });
export type Overview = z.infer<typeof overviewSchema>;

export const fireLagSchema = z
  .object({
    at: instant,
    queue: z.string().nullable().describe('null: every queue of the tenant'),
    bucketBoundsMs: z.array(z.number()).describe('upper bounds of the histogram buckets, ms; a last bucket holds slower fires'),
    series: z.array(
      z.object({
        minute: instant,
        fired: z.number().int(),
        p50Ms: z.number().nullable().describe('upper bound of the bucket holding the median lag; null when nothing fired'),
        p99Ms: z.number().nullable().describe('upper bound of the bucket holding the 99th percentile; the last bound when slower'),
        slowerThanLastBound: z.number().int().describe('fires slower than the last bound'),
      }),
    ),
  })
  .meta({ id: 'FireLag', examples: [ex.fireLagExample] });
export type FireLag = z.infer<typeof fireLagSchema>;

const bucketSchema = z.object({ start: instant, count: countSchema }).meta({ id: 'ForecastBucket' });

export const forecastSchema = z
  .object({
    at: instant,
    queue: z.string(),
    byMinute: z.array(bucketSchema).describe('the next 60 minutes, from the current minute'),
    byDay: z.array(bucketSchema).describe('the next 90 days (UTC), from today'),
  })
  .meta({ id: 'Forecast', examples: [ex.forecastExample] });
export type Forecast = z.infer<typeof forecastSchema>;

export const partitionRowSchema = z
  .object({ partition: z.string(), frames: countSchema, lastSeq: z.number().int(), createdAt: instant })
  .meta({ id: 'PartitionRow' });
export const partitionListSchema = z
  .object(paged(partitionRowSchema, 'the last partition of this page'))
  .meta({ id: 'PartitionList', examples: [ex.partitionListExample] });
export type PartitionList = z.infer<typeof partitionListSchema>;

export const groupListSchema = z
  .object(paged(groupLagSchema, 'the last consumer group of this page'))
  .meta({ id: 'GroupList', examples: [ex.groupListExample] });
export type GroupList = z.infer<typeof groupListSchema>;

export const leaseRowSchema = z
  .object({ consumerGroup: z.string(), partition: z.string(), expiresAt: instant, batchEndSeq: z.number().int().nullable() })
  .meta({ id: 'LeaseRow', description: 'a partition leased to a consumer (the lease id itself is not shown)' });
export const leaseListSchema = z
  .object(paged(leaseRowSchema, 'an opaque cursor: pass it as after'))
  .meta({ id: 'LeaseList', examples: [ex.leaseListExample] });
export type LeaseList = z.infer<typeof leaseListSchema>;

export const frameRowSchema = z
  .object({
    seq: z.number().int().describe('the frame position: frames of a partition are delivered in seq order'),
    id: z.guid(),
    transactionId: z.string(),
    createdAt: instant,
    producerSub: z.string(),
    timerKey: z.string().nullable().describe('the timer it fired from, if any'),
    deliverAt: instant.nullable(),
    encrypted: z.boolean(),
    bytes: z.number().int(),
    payload: z.string().describe('base64 exactly as stored (encrypted ones are not decrypted)'),
  })
  .meta({ id: 'FrameRow' });
export const frameListSchema = z
  .object(paged(frameRowSchema, 'the last seq of this page'))
  .meta({ id: 'FrameList', examples: [ex.frameListExample] });
export type FrameList = z.infer<typeof frameListSchema>;

const queuePath = { queue: queueName };
const viewPage = page(VIEW_LIMIT_DEFAULT, VIEW_LIMIT_MAX);
const READ_ERRORS = [400, 401, 403, 503];

export const dashboardRoutes = {
  whoami: route({
    method: 'GET',
    path: '/api/v1/whoami',
    tags: ['dashboard'],
    summary: "The credential's tenant, subject and grants, and whether the operator routes answer it",
    description: 'Needs any valid credential (no grant): a UI asks it first, to show only what the credential may do.',
    errorResponses: [401, 503],
    input: z.strictObject({}),
    output: whoamiSchema,
  }),

  queues: route({
    method: 'GET',
    path: '/api/v1/queues',
    tags: ['dashboard'],
    summary: "List the tenant's queues by name in byte order (keyset paging)",
    errorResponses: READ_ERRORS,
    input: z.strictObject(viewPage),
    output: queueListSchema,
  }),

  overview: route({
    method: 'GET',
    path: '/api/v1/overview',
    tags: ['dashboard'],
    summary: 'Per queue: pending, due soon, overdue, claimed, fired, DLQ depth, log depth and consumer lag; warnings in words',
    description:
      'Pages over the queues by name (or one `queue`). Counts are exact up to a cap, then an estimate or a lower ' +
      'bound, and each says which (`basis`): the answer costs the same for a queue of ten timers or ten million.',
    errorResponses: READ_ERRORS,
    input: z.strictObject({ queue: queueName.optional().describe('only this queue'), ...page(OVERVIEW_LIMIT_DEFAULT, OVERVIEW_LIMIT_MAX) }),
    output: overviewSchema,
  }),

  fireLag: route({
    method: 'GET',
    path: '/api/v1/fire-lag',
    tags: ['dashboard'],
    summary: 'Fire lag p50/p99 and timers fired, per minute, over the last minutes (one queue or all the tenant’s)',
    description: `The history is kept a day. \`minutes\` defaults to ${FIRE_LAG_MINUTES_DEFAULT} and is clamped to [1, ${FIRE_LAG_MINUTES_MAX}], never refused.`,
    errorResponses: READ_ERRORS,
    input: z.strictObject({
      queue: queueName.optional().describe('one queue (default: every queue of the tenant)'),
      minutes: queryInt(`minutes of history, clamped to [1, ${FIRE_LAG_MINUTES_MAX}]`, FIRE_LAG_MINUTES_DEFAULT).optional(),
    }),
    output: fireLagSchema,
  }),

  forecast: route({
    method: 'GET',
    path: '/api/v1/forecast/{queue}',
    tags: ['dashboard'],
    summary: 'What fires when in one queue: the next hour by minute and the next 90 days by day',
    description:
      'Buckets are counted exactly up to a cap of timers read in deliverAt order; the buckets past it are estimated ' +
      'from a block sample of the table and say so (`basis: estimate`).',
    errorResponses: READ_ERRORS,
    input: z.strictObject(queuePath),
    output: forecastSchema,
  }),

  partitions: route({
    method: 'GET',
    path: '/api/v1/log/{queue}/partitions',
    tags: ['dashboard'],
    summary: "A queue's partitions by name with their depth (frames in the log)",
    errorResponses: READ_ERRORS,
    input: z.strictObject({ ...queuePath, ...viewPage }),
    output: partitionListSchema,
  }),

  groups: route({
    method: 'GET',
    path: '/api/v1/log/{queue}/groups',
    tags: ['dashboard'],
    summary: "A queue's consumer groups by name with their lag: frames behind, age of the oldest unconsumed, leases held",
    errorResponses: READ_ERRORS,
    input: z.strictObject({ ...queuePath, ...viewPage }),
    output: groupListSchema,
  }),

  leases: route({
    method: 'GET',
    path: '/api/v1/log/{queue}/leases',
    tags: ['dashboard'],
    summary: "A queue's partition leases held now, by partition and consumer group",
    errorResponses: READ_ERRORS,
    input: z.strictObject({ ...queuePath, ...viewPage }),
    output: leaseListSchema,
  }),

  frames: route({
    method: 'GET',
    path: '/api/v1/log/{queue}/frames',
    tags: ['dashboard'],
    summary: "Browse a partition's frames by position (seq), payloads as stored; reading consumes nothing",
    errorResponses: READ_ERRORS,
    input: z.strictObject({
      ...queuePath,
      partition: partitionName.optional().describe("the partition (default 'Default')"),
      after: z
        .string()
        .regex(/^\d{1,15}$/, 'must be a seq: the nextAfter of the previous page')
        .describe('exclusive cursor: the nextAfter (a seq) of the previous page')
        .optional(),
      limit: viewPage.limit,
    }),
    output: frameListSchema,
  }),
};
