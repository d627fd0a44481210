// A queue's configuration as Queen's client sends it (POST /api/v1/configure): the options this
// broker acts on, Queen's other options (kept and echoed), namespace and task.
import { z } from 'zod';
import { NAME_MAX_BYTES, queenObject, queueName, utf8Key } from './common.ts';
import { configureInputExample, configureOutputExample } from './examples.ts';

/** A week: a lease longer than that is a consumer that died, not one that is slow. */
export const LEASE_TIME_MAX_SECONDS = 7 * 24 * 3600;

/** The options this broker acts on. */
const actingOptions = {
  encryptionEnabled: z.boolean().describe('encrypt payloads at rest (AES-256-GCM); needs QUEEN_ENCRYPTION_KEY on the broker'),
  leaseTime: z.number().int().min(1).max(LEASE_TIME_MAX_SECONDS).describe('seconds a pop leases its partition'),
  retryLimit: z.number().int().min(0).max(1000).describe('redeliveries after a failed ack before the frame goes to the DLQ'),
};

const INERT = 'accepted, stored and echoed; no effect on this broker (docs/queen.md)';
const count = (what: string, effect = INERT) =>
  z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .describe(`${what}: ${effect}`);

/** Ten years: the longest retention a queue may ask for. */
export const RETENTION_MAX_SECONDS = 10 * 365 * 24 * 3600;

const retention = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(RETENTION_MAX_SECONDS)
    .describe(`${what}; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years`);

/**
 * Queen's other queue options, with the defaults Queen's broker gives them. Queen's client sends
 * them on every create; they are kept per queue (queues.queen_options) and answered back. The
 * retention ones act (src/maintenance/retention.ts), delayedProcessing (src/services/log/delayedPush.ts)
 * and windowBuffer (src/services/log/pop.ts) too; the others act on nothing here.
 */
export const QUEEN_QUEUE_OPTIONS = {
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
} as const;

const queenOptions = {
  priority: count('priority among queues'),
  delayedProcessing: count('seconds a frame stays invisible after push', 'a push becomes a timer due then (docs/queen.md)'),
  windowBuffer: count(
    'seconds frames are held back to batch',
    "a partition's frames are handed out once its newest is that old, on PostgreSQL's clock (docs/queen.md)",
  ),
  maxSize: count('frames the queue may hold'),
  retentionSeconds: retention('seconds a frame is kept, consumed or not'),
  completedRetentionSeconds: retention('seconds a frame is kept once every consumer group has passed it'),
  retentionEnabled: z.boolean().describe('false: no retention for this queue, whatever the cell defaults say'),
  retryDelay: count('milliseconds before a failed frame is redelivered'),
  ttl: count('seconds a frame lives'),
  deadLetterQueue: z.boolean().describe(`dead-lettering (always on here): ${INERT}`),
  dlqAfterMaxRetries: z.boolean().describe(`dead-letter after retryLimit (always, here): ${INERT}`),
  maxWaitTimeSeconds: count('seconds a frame may wait'),
  dedupWindowSeconds: count('seconds the txn dedupe lasts (forever, here)'),
} satisfies Record<keyof typeof QUEEN_QUEUE_OPTIONS, z.ZodType>;

export const queueOptionsSchema = z.object({ ...actingOptions, ...queenOptions }).meta({ id: 'QueueOptions' });

export type QueueOptions = z.infer<typeof queueOptionsSchema>;

/** A text of Queen's queue naming (namespace, task): null when unset. */
const queenLabel = (what: string) => utf8Key(NAME_MAX_BYTES).nullish().describe(`${what} (Queen's); kept and echoed`);

export const configureResultSchema = z
  .object({
    configured: z.literal(true),
    queueId: z.guid(),
    queue: z.string(),
    namespace: z.string().nullable(),
    task: z.string().nullable(),
    options: queueOptionsSchema,
  })
  .meta({ id: 'ConfigureResult', examples: [configureOutputExample] });

export type ConfigureResult = z.infer<typeof configureResultSchema>;

export const configureInput = queenObject({
  queue: queueName,
  namespace: queenLabel('the namespace'),
  task: queenLabel('the task'),
  options: queenObject(queueOptionsSchema.partial().shape).default({}),
}).meta({ examples: [configureInputExample] });
