// The schedule routes' wire: recurring schedules — a cron expression in an IANA time zone whose
// every occurrence becomes one ordinary timer in the schedule's queue. src/services/schedules/
// implements them (occurrences.ts states the DST rules); src/routers/schedules.ts serves them.
import { Cron } from 'croner';
import { z } from 'zod';
import { base64Payload, instant, partitionName, queryInt, queueName, route } from './common.ts';
import * as ex from './examples.ts';
import { keysetPage, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, pathKey, TIMER_KEY_MAX_BYTES } from './timers.ts';

export const DELETE_SCHEDULE_ROUTE = 'DELETE /api/v1/schedules/:queue/*scheduleKey';
/** How many upcoming occurrences PUT and GET show. */
export const SHOWN_OCCURRENCES = 5;
/** The most upcoming occurrences GET shows (?occurrences=). */
export const MAX_SHOWN_OCCURRENCES = 100;
export const DEFAULT_TIMEZONE = 'UTC';

/**
 * An occurrence's timer is `<scheduleKey>@<instant>` in the schedule's queue, the instant in
 * whole seconds, UTC (`daily@2026-12-05T08:00:00Z`): readable, unique per occurrence, and within
 * the timer key's 1,024 bytes because a schedule key has at most 1,000.
 */
export const SCHEDULE_KEY_MAX_BYTES = 1000;
const OCCURRENCE_SUFFIX = '@YYYY-MM-DDTHH:MM:SSZ'.length;
if (SCHEDULE_KEY_MAX_BYTES + OCCURRENCE_SUFFIX > TIMER_KEY_MAX_BYTES)
  throw new Error('schedule keys must leave room for the occurrence suffix');

export const occurrenceTimerKey = (scheduleKey: string, atMs: number) => `${scheduleKey}@${new Date(atMs).toISOString().slice(0, 19)}Z`;

/**
 * croner, configured once: five fields (minute precision) or six (seconds first); Vixie-cron
 * rules (day-of-month OR day-of-week when both are restricted); nicknames like `@daily`. It runs
 * in UTC mode, as a wall-clock calendar: the zone is applied by src/services/schedules/occurrences.ts.
 * Throws croner's TypeError on an expression it cannot parse.
 */
export function cronPattern(cron: string): Cron {
  return new Cron(cron, { utcOffset: 0, mode: '5-or-6-parts', paused: true });
}

function cronError(cron: string): string | undefined {
  try {
    cronPattern(cron);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
}

/** The zone's canonical IANA name, or undefined when the platform's database does not know it. */
export function canonicalZone(timezone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export const scheduleKey = pathKey(SCHEDULE_KEY_MAX_BYTES).meta({
  description: `the schedule's key within its queue; may contain '/' (but no '.' or '..' segment); at most ${SCHEDULE_KEY_MAX_BYTES} bytes (UTF-8)`,
  examples: [ex.FIELD_EXAMPLES.scheduleKey],
});

const cronField = z
  .string()
  .min(1)
  .max(256)
  .superRefine((cron, ctx) => {
    const error = cronError(cron);
    if (error !== undefined) ctx.addIssue({ code: 'custom', message: `not a cron expression: ${error}` });
  })
  .meta({
    description:
      'cron expression: five fields (minute hour day-of-month month day-of-week) or six with seconds first; ' +
      'day-of-month OR day-of-week when both are restricted (Vixie cron); L, W, # and @daily-style nicknames',
    examples: [ex.schedulePutInputExample.cron],
  });

const timezoneField = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => canonicalZone(tz) !== undefined, 'not an IANA time zone (e.g. Europe/Rome, America/New_York, UTC)')
  .meta({
    description:
      'IANA time zone the expression is read in (default UTC). DST: a local time the zone skips fires once at the shift; one it repeats fires once, the first time',
    examples: [ex.schedulePutInputExample.timezone],
  });

const occurrenceSchema = z
  .object({
    at: instant,
    local: z.string().describe("the same instant on the schedule's wall clock, with its offset (2026-12-05T09:00:00+01:00)"),
    dstShift: z
      .enum(['skipped', 'repeated'])
      .nullable()
      .describe(
        'skipped: the wall-clock time does not exist that day (clocks spring forward), it fires at the shift; repeated: it happens twice (clocks fall back), it fires the first time',
      ),
    offsetChanged: z
      .boolean()
      .describe("the zone's offset differs from the previous occurrence's (for the first: from now's): a DST change lies between"),
  })
  .meta({ id: 'ScheduleOccurrence' });

const materializedSchema = z
  .object({
    timerKey: z.string().describe('the occurrence’s timer: `<scheduleKey>@<instant>` in the schedule’s queue'),
    at: instant.describe('the occurrence instant'),
    txn: z.string(),
  })
  .meta({ id: 'ScheduleTimer' });

const scheduleView = {
  queue: z.string(),
  scheduleKey: z.string(),
  cron: z.string(),
  timezone: z.string().describe('canonical IANA name'),
  partition: z.string(),
  payloadZstd: z.boolean(),
  encrypted: z.boolean(),
  producerSub: z.string(),
  revision: z.number().int().describe('1 when created; +1 at every replace'),
  nextAt: instant.nullable().describe('the next occurrence not yet materialized as a timer (null: the expression has no more)'),
  lastAt: instant.nullable().describe('the last occurrence materialized as a timer'),
  skipped: z.number().int().describe('occurrences missed (outage, sweeper or tenant pause): only the latest missed one fires'),
  createdAt: instant,
  updatedAt: instant,
};

export const scheduleRowSchema = z.object(scheduleView).meta({ id: 'ScheduleRow' });
export type ScheduleRow = z.infer<typeof scheduleRowSchema>;

const nextOccurrences = z.array(occurrenceSchema).describe(`the next ${SHOWN_OCCURRENCES} occurrences from now (PostgreSQL's clock)`);

export const putScheduleResultSchema = z
  .object({
    ok: z.literal(true),
    status: z.enum(['created', 'replaced']),
    ...scheduleView,
    nextOccurrences,
    withdrawn: z
      .array(materializedSchema)
      .describe("a replace: the old definition's materialized occurrences, withdrawn — none of them fires after this answer"),
  })
  .meta({ id: 'SchedulePutResult', examples: [ex.schedulePutOutputExample] });
export type PutScheduleResult = z.infer<typeof putScheduleResultSchema>;

export const getScheduleResultSchema = z
  .union([
    z.object({
      found: z.literal(true),
      ...scheduleView,
      payload: z.string().describe('base64 exactly as stored: compressed and/or encrypted; never decrypted'),
      nextOccurrences,
    }),
    z.object({ found: z.literal(false) }),
  ])
  .meta({ id: 'ScheduleGetResult', examples: [ex.scheduleGetOutputExample] });
export type GetScheduleResult = z.infer<typeof getScheduleResultSchema>;

export const scheduleListSchema = z
  .object({
    rows: z.array(scheduleRowSchema),
    truncated: z.boolean().describe('true when more rows follow; pass nextAfter as after'),
    nextAfter: z.string().nullable().describe('the last scheduleKey of this page'),
  })
  .meta({ id: 'ScheduleList', examples: [ex.scheduleListOutputExample] });
export type ScheduleList = z.infer<typeof scheduleListSchema>;

const deleteBase = {
  queue: z.string(),
  scheduleKey: z.string(),
  withdrawn: z.array(materializedSchema).describe('materialized occurrences withdrawn with it: they will not fire'),
  tooLate: z
    .array(materializedSchema)
    .describe("materialized occurrences in a sweeper's hands: each will be (or was) delivered; nothing else will"),
};

export const deleteScheduleResultSchema = z
  .discriminatedUnion('status', [
    z.object({ ok: z.literal(true), status: z.literal('deleted'), ...deleteBase }),
    z.object({ ok: z.literal(false), status: z.literal('absent'), ...deleteBase }).describe('no schedule under this key for you'),
  ])
  .meta({ id: 'ScheduleDeleteResult', examples: [ex.scheduleDeleteOutputExample] });
export type DeleteScheduleResult = z.infer<typeof deleteScheduleResultSchema>;

const keyPath = { queue: queueName, scheduleKey };

export const scheduleRoutes = {
  put: route({
    method: 'PUT',
    path: '/api/v1/schedules/{queue}/{scheduleKey}',
    tags: ['schedules'],
    summary: 'Create or replace a recurring schedule: each occurrence of the cron expression becomes one timer in the queue',
    description:
      'Needs the produce grant and passes the timer gates (cluster block, paused tenant, rate, pending-timer quota, storage); ' +
      "403 `horizon_exceeded` when even the next occurrence is beyond the plan's horizon, 403 `payload_too_large_for_plan` " +
      'over the payload ceiling. Each occurrence is metered as one message when it is materialized. A replace withdraws ' +
      "the old definition's materialized occurrences in the same transaction: none fires after this answer. " +
      'After an outage or a pause, the latest missed occurrence fires and the earlier ones are counted in `skipped`.',
    errorResponses: [400, 401, 403, 429, 503],
    input: z
      .strictObject({
        ...keyPath,
        cron: cronField,
        timezone: timezoneField.optional(),
        payload: base64Payload,
        partition: partitionName.optional(),
      })
      .meta({ examples: [ex.schedulePutInputExample] }),
    output: putScheduleResultSchema,
    catchAll: 'scheduleKey',
  }),

  delete: route({
    method: 'DELETE',
    path: '/api/v1/schedules/{queue}/{scheduleKey}',
    tags: ['schedules'],
    summary: 'Delete a schedule and withdraw its materialized occurrence. Only the boot flag can refuse it',
    description:
      'No grant, pause, quota or cluster block applies: any valid credential of the tenant stops its schedule. ' +
      'An occurrence already claimed by a sweeper is listed in `tooLate`.',
    errorResponses: [400, 401, 503],
    input: z.strictObject(keyPath),
    output: deleteScheduleResultSchema,
    catchAll: 'scheduleKey',
  }),

  get: route({
    method: 'GET',
    path: '/api/v1/schedules/{queue}/{scheduleKey}',
    tags: ['schedules'],
    summary: 'Read one schedule with its next occurrences; a miss is 200 {found:false}',
    description: `\`occurrences\` (default ${SHOWN_OCCURRENCES}, clamped to [1, ${MAX_SHOWN_OCCURRENCES}]): how many upcoming occurrences to show, each with the DST shift that moved it.`,
    errorResponses: [400, 401, 403, 503],
    input: z.strictObject({
      ...keyPath,
      occurrences: queryInt(`upcoming occurrences shown, clamped to [1, ${MAX_SHOWN_OCCURRENCES}]`, SHOWN_OCCURRENCES).optional(),
    }),
    output: getScheduleResultSchema,
    catchAll: 'scheduleKey',
  }),

  list: route({
    method: 'GET',
    path: '/api/v1/schedules/{queue}',
    tags: ['schedules'],
    summary: 'List the schedules of one queue by scheduleKey in byte order (keyset paging, no payloads)',
    description: `\`limit\` defaults to ${LIST_LIMIT_DEFAULT} and is clamped to [1, ${LIST_LIMIT_MAX}], never rejected.`,
    errorResponses: [400, 401, 403, 503],
    input: z.strictObject({ queue: queueName, ...keysetPage }),
    output: scheduleListSchema,
  }),
};
