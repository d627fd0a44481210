// Wire types, named. All of them come from the generated schema (zod → openapi.json →
// openapi-typescript), so a change to a router's zod schema is a compile error here.
import type { components } from './generated/schema.ts';

type Schemas = components['schemas'];

/** One op's verdict in a POST /api/v1/timers response: the closed status taxonomy. */
export type TimerResult = Schemas['TimerResult'];
/** The closed status union: `scheduled | rescheduled | cancelled | too_late | absent`. */
export type TimerStatus = TimerResult['status'];
/** A schedule or reschedule op's verdict: a schedule never answers `cancelled` or `absent`. */
export type ScheduleResult = Extract<TimerResult, { status: 'scheduled' | 'rescheduled' | 'too_late' }>;
/**
 * DELETE /api/v1/timers/:queue/*timerKey's verdict.
 * - `cancelled` (ok): it was pending and now will not fire.
 * - `too_late`: a sweeper holds it; it will be (or was) delivered; nothing changed.
 * - `absent`: **not pending — maybe delivered; check the log for the txn.** Never existed,
 *   another tenant's, or already fired. `ok` is false on purpose: do not read it as success.
 */
export type CancelResult = Schemas['CancelResult'];
export type PeekResult = Schemas['PeekResult'];
export type TimerList = Schemas['TimerList'];
export type TimerRow = Schemas['TimerRow'];
export type TimerOperation = Schemas['TimerOperation'];
export type Usage = Schemas['Usage'];
export type ErrorBody = Schemas['Error'];

/** Exhaustiveness guard for `switch (result.status)`: a missing case is a compile error. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

// Schedule shapes: a cron expression in a time zone whose occurrences become timers.
/** PUT /api/v1/schedules/:queue/*scheduleKey: the schedule, its next occurrences, what a replace withdrew. */
export type SchedulePutResult = Schemas['SchedulePutResult'];
export type ScheduleGetResult = Schemas['ScheduleGetResult'];
export type ScheduleList = Schemas['ScheduleList'];
export type ScheduleRow = Schemas['ScheduleRow'];
export type ScheduleOccurrence = Schemas['ScheduleOccurrence'];
/** A materialized occurrence: its timer key (`<scheduleKey>@<instant>`), instant and txn. */
export type ScheduleTimer = Schemas['ScheduleTimer'];
/** `deleted` (ok) or `absent` (no such schedule), with the occurrences withdrawn or too late. */
export type ScheduleDeleteResult = Schemas['ScheduleDeleteResult'];

// Log shapes (the Queen-compatible core a timer delivers into).
/** A popped frame: `payload` the exact bytes (base64), `data` the same bytes parsed when they are JSON. */
export type Frame = Schemas['LogFrame'];
export type PushResult = Schemas['PushResult'];
export type AckResult = Schemas['AckResult'];
export type QueueOptions = Schemas['QueueOptions'];
export type ConfigureResult = Schemas['ConfigureResult'];
export type DeadLetterPage = Schemas['DeadLetterPage'];
export type DeadLetter = Schemas['DeadLetter'];
export type ReplayResult = Schemas['ReplayResult'];
export type DeleteConsumerGroupResult = Schemas['DeleteConsumerGroupResult'];
export type DeleteConsumerGroupForQueueResult = Schemas['DeleteConsumerGroupForQueueResult'];
export type SeekConsumerGroupResult = Schemas['SeekConsumerGroupResult'];
// Dashboard shapes (read routes of the browser UI).
/** A number that would need a scan at volume: `basis` exact, estimate (≈) or at_least (≥). */
export type Count = Schemas['Count'];
export type Whoami = Schemas['Whoami'];
export type QueueList = Schemas['QueueList'];
export type QueueRow = Schemas['QueueRow'];
export type Overview = Schemas['Overview'];
export type QueueOverview = Schemas['QueueOverview'];
export type GroupLag = Schemas['GroupLag'];
export type DashboardWarning = Schemas['DashboardWarning'];
export type FireLag = Schemas['FireLag'];
export type Forecast = Schemas['Forecast'];
export type ForecastBucket = Schemas['ForecastBucket'];
export type PartitionList = Schemas['PartitionList'];
export type PartitionRow = Schemas['PartitionRow'];
export type GroupList = Schemas['GroupList'];
export type LeaseList = Schemas['LeaseList'];
export type LeaseRow = Schemas['LeaseRow'];
export type FrameList = Schemas['FrameList'];
export type FrameRow = Schemas['FrameRow'];
// Operator shapes (admin routes).
export type TenantPlan = Schemas['TenantPlan'];
export type TenantList = Schemas['TenantList'];
export type ClusterFlags = Schemas['ClusterFlags'];
export type MaintenanceState = Schemas['MaintenanceState'];
