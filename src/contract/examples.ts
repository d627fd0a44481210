// The examples of the OpenAPI document: the README tour's values (queue `reminders`, timer
// `trial:acme:day7` seven days ahead, payload `{"kind":"day7"}` in base64, the frame of
// `tenant/42`), so that what a reader meets first in /docs is what the tour does, and Swagger UI's
// "Try it out" → "Execute" on an example as shipped succeeds with a fresh dev token. The contract
// attaches them to its schemas with `.meta({ examples })`; test/openapi-examples.test.ts proves
// each one parses with its zod schema and validates against the document's JSON Schema.
// Pure data, importing nothing: the contract modules import this one (and an example typed by the
// schema it is attached to would make that schema's type circular), so the test is the type check.

const QUEUE = 'reminders';
const TIMER_KEY = 'trial:acme:day7';
const TXN = 'trial-acme-day7-v1';
const MESSAGE_ID = '0f7f5659-4533-4d08-8a66-85cedad3ff6c';
const SCHEDULED_AT = '2026-11-30T07:59:39.193000Z';
const DELIVER_AT = '2026-12-07T07:59:39.193000Z';
// The frame the tour's `tenant/42` timer fired, and the lease a pop without autoAck takes.
const FRAME_ID = '5f485d42-ac77-4ba9-a119-bb6ecc02c013';
const FRAME_TXN = 'tenant-42-v1';
const PARTITION_ID = '06dc8c40-3b50-4120-a49f-443de53b9b4a';
const LEASE_ID = '8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68';
const FIRED_AT = '2026-11-30T07:59:41.390000Z';

/** The path and query values the examples below are about (Swagger UI pre-fills parameters with them). */
export const FIELD_EXAMPLES = {
  queue: QUEUE,
  timerKey: TIMER_KEY,
  txn: TXN,
  leaseId: LEASE_ID,
  tenant: 'acme',
  scheduleKey: 'acme/daily-digest',
};

// --- timers ----------------------------------------------------------------------------------

/** The tour's schedule: 7 days ahead, well inside the default 90-day horizon. */
const scheduleOp = {
  op: 'schedule',
  queue: QUEUE,
  timerKey: TIMER_KEY,
  delayMs: 604_800_000,
  txn: TXN,
  payload: 'eyJraW5kIjoiZGF5NyJ9',
  partition: 'acme',
};

export const batchInputExample = { operations: [scheduleOp] };

const scheduled = {
  ok: true,
  status: 'scheduled',
  queue: QUEUE,
  timerKey: TIMER_KEY,
  txn: TXN,
  messageId: MESSAGE_ID,
  deliverAt: DELIVER_AT,
};

export const batchOutputExample = { results: [scheduled] };

export const cancelOutputExample = { ok: true, status: 'cancelled', queue: QUEUE, timerKey: TIMER_KEY, txn: TXN };

const timerRow = {
  queue: QUEUE,
  timerKey: TIMER_KEY,
  partition: 'acme',
  deliverAt: DELIVER_AT,
  txn: TXN,
  messageId: MESSAGE_ID,
  payloadZstd: false,
  encrypted: false,
  producerSub: 'dev',
  attempts: 0,
  lastError: null,
  claimed: false,
  createdAt: SCHEDULED_AT,
  updatedAt: SCHEDULED_AT,
};

export const peekOutputExample = { found: true, ...timerRow, payload: scheduleOp.payload };

export const listOutputExample = { rows: [timerRow], truncated: false, nextAfter: TIMER_KEY };

export const usageOutputExample = { tenant: 'dev', period: '2026-11', messages: 2 };

// --- schedules -------------------------------------------------------------------------------

// The schedule of docs/schedules.md: a daily digest at 09:00 in Rome, created at the tour's instant (08:59:39
// in Rome), so its first occurrence is the same morning.
const SCHEDULE_KEY = 'acme/daily-digest';
const DEFINITION_TXN = (at: string) => `schedule:6a1f0c2e-9b4d-4e3a-8c57-2d9e0f1b7a64@${at}`;

export const schedulePutInputExample = {
  cron: '0 9 * * *',
  timezone: 'Europe/Rome',
  payload: 'eyJraW5kIjoiZGFpbHktZGlnZXN0In0=',
  partition: 'acme',
};

const scheduleView = {
  queue: QUEUE,
  scheduleKey: SCHEDULE_KEY,
  cron: schedulePutInputExample.cron,
  timezone: schedulePutInputExample.timezone,
  partition: 'acme',
  payloadZstd: false,
  encrypted: false,
  producerSub: 'dev',
  revision: 1,
  nextAt: '2026-11-30T08:00:00.000000Z',
  lastAt: null,
  skipped: 0,
  createdAt: SCHEDULED_AT,
  updatedAt: SCHEDULED_AT,
};

const nextOccurrences = ['11-30', '12-01', '12-02', '12-03', '12-04'].map((day) => ({
  at: `2026-${day}T08:00:00.000000Z`,
  local: `2026-${day}T09:00:00+01:00`,
  dstShift: null,
  offsetChanged: false,
}));

export const schedulePutOutputExample = { ok: true, status: 'created', ...scheduleView, nextOccurrences, withdrawn: [] };

export const scheduleGetOutputExample = { found: true, ...scheduleView, payload: schedulePutInputExample.payload, nextOccurrences };

export const scheduleListOutputExample = { rows: [scheduleView], truncated: false, nextAfter: SCHEDULE_KEY };

export const scheduleDeleteOutputExample = {
  ok: true,
  status: 'deleted',
  queue: QUEUE,
  scheduleKey: SCHEDULE_KEY,
  withdrawn: [
    {
      timerKey: `${SCHEDULE_KEY}@2026-11-30T08:00:00Z`,
      at: '2026-11-30T08:00:00.000000Z',
      txn: DEFINITION_TXN('2026-11-30T08:00:00Z'),
    },
  ],
  tooLate: [],
};

// --- log -------------------------------------------------------------------------------------

export const configureInputExample = { queue: QUEUE, options: { leaseTime: 60, retryLimit: 5 } };

export const configureOutputExample = {
  configured: true,
  queueId: 'c3a0e6d2-5b1f-4e8a-9d27-41f6b0c8e513',
  queue: QUEUE,
  namespace: null,
  task: null,
  options: {
    encryptionEnabled: false,
    leaseTime: 60,
    retryLimit: 5,
    priority: 0,
    delayedProcessing: 0,
    windowBuffer: 0,
    maxSize: 0,
    retentionSeconds: 0,
    completedRetentionSeconds: 0,
    retentionEnabled: false,
    retryDelay: 1000,
    ttl: 3600,
    deadLetterQueue: true,
    dlqAfterMaxRetries: true,
    maxWaitTimeSeconds: 0,
    dedupWindowSeconds: 3600,
  },
};

export const pushInputExample = {
  items: [{ queue: QUEUE, partition: 'acme', payload: { kind: 'welcome' }, transactionId: 'acme-welcome-v1' }],
};

export const pushOutputExample = [
  { index: 0, transaction_id: 'acme-welcome-v1', status: 'queued', message_id: '7b0e2c55-1d4f-4a9b-8e63-0c9a5f2d7e14', queueName: QUEUE },
];

/** The tour's popped frame (autoAck: no lease). */
const frame = {
  id: FRAME_ID,
  transactionId: FRAME_TXN,
  partitionId: PARTITION_ID,
  partition: 'Default',
  queue: QUEUE,
  consumerGroup: '__QUEUE_MODE__',
  leaseId: null,
  producerSub: 'dev',
  traceId: null,
  traceparent: null,
  createdAt: FIRED_AT,
  payload: 'eyJoZWxsbyI6IndvcmxkIn0=',
  data: { hello: 'world' },
  encrypted: false,
};

export const popOutputExample = { messages: [frame] };

/** An ack of that frame as a pop without autoAck handed it out. */
const ackItem = { transactionId: FRAME_TXN, partitionId: PARTITION_ID, status: 'completed', leaseId: LEASE_ID };

export const ackInputExample = ackItem;

export const ackBatchInputExample = {
  acknowledgments: [
    ackItem,
    { transactionId: 'tenant-43-v1', partitionId: PARTITION_ID, status: 'failed', leaseId: LEASE_ID, error: 'SMTP 451' },
  ],
};

export const ackOutputExample = [
  {
    index: 0,
    success: true,
    transactionId: FRAME_TXN,
    partitionId: PARTITION_ID,
    queueName: QUEUE,
    partitionName: 'Default',
    consumerGroup: null,
    status: 'completed',
    retryCount: 0,
    leaseReleased: true,
    dlq: false,
    acknowledgedAt: '2026-11-30T07:59:41.512000Z',
  },
];

/** Consume, transform, produce: ack the frame and push the mail it asks for, or neither. */
export const transactionInputExample = {
  operations: [
    { type: 'ack', ...ackItem },
    {
      type: 'push',
      items: [{ queue: 'emails', payload: { to: 'owner@acme.example', template: 'day7' }, transactionId: 'email-tenant-42-v1' }],
    },
  ],
  requiredLeases: [LEASE_ID],
};

export const transactionOutputExample = {
  transactionId: '2e9b7c14-6a3d-4f81-b0e5-93c7d1a4f268',
  success: true,
  results: [
    { index: 0, type: 'ack', success: true, transactionId: FRAME_TXN, status: 'completed', dlq: false },
    {
      index: 1,
      itemIndex: 0,
      type: 'push',
      success: true,
      transactionId: 'email-tenant-42-v1',
      messageId: 'a41c8e07-2f5b-4d96-8b3a-6e0d9f1c7b52',
      queueName: 'emails',
      duplicate: false,
    },
  ],
};

export const deleteQueueOutputExample = { deleted: true, existed: true, queue: QUEUE };

export const renewInputExample = { seconds: 60 };

export const renewOutputExample = {
  leaseId: LEASE_ID,
  success: true,
  newExpiresAt: '2026-11-30T08:00:41.400000Z',
  renewed: 1,
};

const DEAD_LETTER_ID = 'f0d4b6a2-8c1e-4b73-9a5d-2e7c6f3b1a09';

export const deadLetterPageExample = {
  messages: [
    {
      id: DEAD_LETTER_ID,
      queue: QUEUE,
      partition: 'Default',
      consumerGroup: '__QUEUE_MODE__',
      messageId: FRAME_ID,
      transactionId: FRAME_TXN,
      producerSub: 'dev',
      errorMessage: 'SMTP 451',
      retryCount: 3,
      fromTimer: false,
      timerKey: null,
      createdAt: '2026-11-30T08:04:12.077000Z',
      payload: frame.payload,
      data: frame.data,
      encrypted: false,
    },
  ],
  total: 1,
  limit: 100,
  offset: 0,
};

export const replayOutputExample = {
  replayed: true,
  id: DEAD_LETTER_ID,
  queue: QUEUE,
  partition: 'Default',
  transactionId: '5c8e1f3a-7b2d-4e69-a0f4-d13b6c9e8a27',
  messageId: 'e6b3a9d1-4c7f-4a28-9e05-b2d8f1c6a374',
};

// --- admin -----------------------------------------------------------------------------------

/** Narrow acme's horizon to 30 days; the other fields keep following the cell defaults. */
export const putTenantInputExample = { horizonSeconds: 2_592_000 };

export const tenantPlanExample = {
  tenant: 'acme',
  maxPayloadBytes: 1_048_576,
  horizonSeconds: 2_592_000,
  maxPendingTimers: 1_000_000,
  scheduleRatePerSecond: 100_000,
  storageLimitBytes: 0,
  schedulePaused: false,
  maxSchedules: 1_000,
  minScheduleIntervalSeconds: 1,
  overrides: {
    maxPayloadBytes: null,
    horizonSeconds: 2_592_000,
    maxPendingTimers: null,
    scheduleRatePerSecond: null,
    storageLimitBytes: null,
    schedulePaused: false,
    maxSchedules: null,
    minScheduleIntervalSeconds: null,
  },
};

export const clusterFlagsExample = { produceBlocked: false, sweeperPaused: false };

// --- errors ----------------------------------------------------------------------------------

interface ErrorExample {
  ok: false;
  error: string;
  /** A code of src/errors.ts's registry whose status is the example's (the test checks). */
  code: string;
  field?: string;
  [detail: string]: unknown;
}

/** What the tour's schedule answers 100 days ahead instead of 7: the default horizon is 90 days. */
export const errorExample: ErrorExample = {
  ok: false,
  error: "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
  code: 'horizon_exceeded',
  field: 'operations.0.delayMs',
  horizonSeconds: 7_776_000,
};

/** One typical refusal per HTTP status, as the server words it (src/openapi.ts puts each on its response). */
export const errorExamplesByStatus: Record<number, ErrorExample> = {
  400: {
    ok: false,
    error: 'operations.0.deliverAt is not a known field; remove it or check its spelling',
    code: 'unknown_field',
    field: 'operations.0.deliverAt',
  },
  401: { ok: false, error: 'missing Authorization header: send "Authorization: Bearer <token>"', code: 'unauthenticated' },
  403: errorExample,
  404: {
    ok: false,
    error: `no frame with transactionId "${FRAME_TXN}" in partition ${PARTITION_ID}`,
    code: 'not_found',
    field: 'transactionId',
  },
  409: {
    ok: false,
    error: `lease ${LEASE_ID} is not live: it expired or its batch was settled; its frames are redelivered to the next pop`,
    code: 'lease_mismatch',
    field: 'leaseId',
  },
  413: { ok: false, error: 'request body exceeds 8388608 bytes', code: 'body_too_large' },
  429: {
    ok: false,
    error: "over the plan's rate of 100000 ops/s; retry after the current second",
    code: 'rate_limited',
    scheduleRatePerSecond: 100_000,
  },
  500: { ok: false, error: 'internal error; it has been logged', code: 'internal' },
  503: { ok: false, error: 'the broker is starting or draining; retry shortly', code: 'not_ready' },
};
