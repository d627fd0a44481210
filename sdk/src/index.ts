// queen-timers SDK: typed calls generated from the broker's own schemas (see README.md).
export { Admin, type ClusterChange, type PlanChange } from './admin.ts';
export { createClient, type QueenTimersClient } from './client.ts';
export { Dashboard, type FireLagOptions, type FrameOptions, type OverviewOptions, type PageOptions } from './dashboard.ts';
export { DeadLetters, type DeadLetterQuery } from './deadLetters.ts';
export { QueenTimersError, HINT_HEADER, type BrokerErrorCode, type ErrorCode } from './errors.ts';
export { DEFAULT_RETRY, type CallOptions, type ClientOptions, type RetryOptions, type RetryPolicy } from './http.ts';
export {
  decodeFrame,
  Log,
  type AckStatus,
  type ConsumeOptions,
  type HandlerVerdict,
  type Message,
  type PopOptions,
  type PushItem,
  type QueueOptionsInput,
  type SeekTarget,
} from './log.ts';
export { timerKeyPath } from './paths.ts';
export {
  base64ToBytes,
  bytesToBase64,
  decodePayload,
  encodePayload,
  payloadBytes,
  type DecodedPayload,
  type JsonValue,
  type Payload,
} from './payload.ts';
export { Schedules, type ScheduleDefinition } from './schedules.ts';
export {
  MAX_OPS_PER_CALL,
  Timers,
  type BatchOptions,
  type CancelOptions,
  type ListOptions,
  type ScheduleInput,
  type TimerBatch,
  type TimerBatchWithCancel,
} from './timers.ts';
export * from './types.ts';
export type { components, paths } from './generated/schema.ts';
