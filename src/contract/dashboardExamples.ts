// The examples of the dashboard's routes (src/contract/dashboard.ts), in the README tour's values
// as src/contract/examples.ts gives them (queue `reminders`, the frame of `tenant/42`). Pure data,
// like that module; test/openapi-examples.test.ts proves each one against its schema.
import { FIELD_EXAMPLES, tenantPlanExample } from './examples.ts';

const QUEUE = FIELD_EXAMPLES.queue;
const SCHEDULED_AT = '2026-11-30T07:59:39.193000Z';
const FRAME_ID = '5f485d42-ac77-4ba9-a119-bb6ecc02c013';
const FRAME_TXN = 'tenant-42-v1';
const FIRED_AT = '2026-11-30T07:59:41.390000Z';

const AT = '2026-11-30T08:00:00.000000Z';
const exact = (value: number) => ({ value, basis: 'exact' });

export const whoamiExample = { tenant: 'acme', sub: 'ops@acme', grants: ['produce', 'read'], operator: false };

export const queueListExample = {
  rows: [{ queue: QUEUE, encryptionEnabled: false, createdAt: SCHEDULED_AT }],
  truncated: false,
  nextAfter: QUEUE,
};

const groupLag = {
  consumerGroup: 'mailer',
  framesBehind: exact(3),
  partitionsBehind: exact(1),
  oldestUnconsumedAt: FIRED_AT,
  oldestUnconsumedAgeSeconds: 4.2,
  leasesHeld: 1,
};

export const overviewExample = {
  at: AT,
  rows: [
    {
      queue: QUEUE,
      pending: { value: 10_200_000, basis: 'estimate' },
      due: { nextMinute: exact(812), nextHour: exact(9_930), nextDay: { value: 10_000, basis: 'at_least' } },
      overdue: exact(1_204),
      overdueOver5s: exact(1_204),
      oldestOverdueSeconds: 42.5,
      claimed: exact(0),
      fired: { lastMinute: 350, lastHour: 21_000 },
      deadLetters: exact(2),
      log: { frames: exact(3), partitions: exact(1), groups: [groupLag], groupsTruncated: false },
    },
  ],
  truncated: false,
  nextAfter: QUEUE,
  warnings: [{ queue: QUEUE, code: 'overdue', message: 'queue reminders: 1,204 timers overdue by more than 5 s' }],
};

export const fireLagExample = {
  at: AT,
  queue: QUEUE,
  bucketBoundsMs: [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000],
  series: [{ minute: '2026-11-30T07:59:00.000000Z', fired: 350, p50Ms: 5, p99Ms: 25, slowerThanLastBound: 0 }],
};

export const forecastExample = {
  at: AT,
  queue: QUEUE,
  byMinute: [{ start: '2026-11-30T08:00:00.000000Z', count: exact(812) }],
  byDay: [{ start: '2026-11-30T00:00:00.000000Z', count: { value: 1_450_000, basis: 'estimate' } }],
};

export const partitionListExample = {
  rows: [{ partition: 'Default', frames: exact(3), lastSeq: 1042, createdAt: SCHEDULED_AT }],
  truncated: false,
  nextAfter: 'Default',
};

export const groupListExample = { rows: [groupLag], truncated: false, nextAfter: 'mailer' };

export const leaseListExample = {
  rows: [{ consumerGroup: 'mailer', partition: 'Default', expiresAt: '2026-11-30T08:05:00.000000Z', batchEndSeq: 1042 }],
  truncated: false,
  nextAfter: null,
};

export const frameListExample = {
  rows: [
    {
      seq: 1042,
      id: FRAME_ID,
      transactionId: FRAME_TXN,
      createdAt: FIRED_AT,
      producerSub: 'tester',
      timerKey: 'tenant/42',
      deliverAt: '2026-11-30T07:59:41.389000Z',
      encrypted: false,
      bytes: 16,
      payload: 'eyJraW5kIjoiZGF5NyJ9',
    },
  ],
  truncated: false,
  nextAfter: '1042',
};

export const tenantListExample = { rows: [tenantPlanExample], truncated: false, nextAfter: 'acme' };
