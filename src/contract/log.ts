// The log routes' wire: a Queen-compatible core of a PostgreSQL message log (configure, push,
// pop, ack, dead letters), where timers deliver. Wire shapes follow Queen: camelCase frames and
// bodies, snake_case push results. src/services/log/ implements them; src/routers/log.ts serves them.
// One cohesive thing: the wire of one route family, whose shapes refer to each other (an ack item is
// also a transaction operation, a push item a transaction push, a frame what pop answers).
import { z } from 'zod';
import { consumerGroupName, instant, partitionName, queenObject, queryBool, queryInt, queueName, route, txnSchema } from './common.ts';
import { consumerGroupRoutes } from './consumerGroups.ts';
import { deadLetterPageSchema, replayResultSchema } from './deadLetters.ts';
import * as ex from './examples.ts';
import { configureInput, configureResultSchema, LEASE_TIME_MAX_SECONDS } from './queues.ts';

/** Queen's consumer group for competing consumers: one cursor per partition, shared. */
export const QUEUE_MODE = '__QUEUE_MODE__';
export const MAX_PUSH_ITEMS = 1000;
export const MAX_ACKS_PER_BATCH = 1000;
export const POP_BATCH_MAX = 1000;
/** Partitions one pop may take (Queen's `partitions`). */
export const POP_PARTITIONS_MAX = 100;
/** Queen's default long-poll timeout; longer waits are clamped to POP_TIMEOUT_MAX_MS. */
export const POP_TIMEOUT_DEFAULT_MS = 30_000;
export const POP_TIMEOUT_MAX_MS = 60_000;
export const DLQ_LIMIT_DEFAULT = 100;
export const DLQ_LIMIT_MAX = 1000;

// --- push ------------------------------------------------------------------------------------

/**
 * Any JSON value: the body it came in was JSON, and what is stored is its source text
 * (src/http/json.ts), so it is not walked again here.
 */
const jsonPayload = z
  .unknown()
  .refine((v) => v !== undefined, 'is required: any JSON value')
  .describe('any JSON value; stored as the exact bytes sent for it (numbers, escapes, whitespace and key order kept)');

export const pushItemSchema = queenObject({
  queue: queueName,
  partition: partitionName.optional(),
  payload: jsonPayload,
  transactionId: txnSchema.optional().describe('minted (uuid) when absent; a txn already in the partition answers "duplicate"'),
  traceId: z.guid().nullish().describe("a trace id to carry with the frame (Queen's client sends one when given a UUID); returned on pop"),
}).meta({ id: 'PushItem' });

export type PushItem = z.infer<typeof pushItemSchema>;

export const pushResultSchema = z
  .object({
    index: z.number().int().describe("the item's position in the request"),
    transaction_id: z.string(),
    status: z.enum(['queued', 'duplicate']).describe('duplicate: the txn was already in the partition; message_id is the existing frame'),
    message_id: z.guid(),
    queueName: z.string().describe('the queue the item went to (Queen names it so)'),
  })
  .meta({ id: 'PushResult' });

export type PushResult = z.infer<typeof pushResultSchema>;

// --- pop -------------------------------------------------------------------------------------

export const frameSchema = z
  .object({
    id: z.guid().describe("the frame's message id (for a timer: the messageId minted at schedule)"),
    transactionId: z.string(),
    partitionId: z.guid().describe('pass back with transactionId to ack'),
    partition: z.string(),
    queue: z.string(),
    consumerGroup: z.string(),
    leaseId: z.guid().nullable().describe('the partition lease this frame was popped under; null with autoAck'),
    producerSub: z.string().describe('the authenticated subject that pushed or scheduled it'),
    traceId: z
      .guid()
      .nullable()
      .describe('the traceId it was pushed with, else the trace id of the W3C traceparent it was pushed or scheduled with; null when none'),
    traceparent: z
      .string()
      .nullable()
      .describe(
        'the W3C traceparent of the request that pushed or scheduled it (docs/tracing.md): continue it in the consumer; null when none',
      ),
    createdAt: instant.describe('when the frame entered the log, PostgreSQL clock, microseconds'),
    payload: z.string().describe('the exact payload bytes, base64 (decrypted when the queue encrypts and the key fits)'),
    data: z.unknown().optional().describe('the payload bytes parsed, when they are one JSON document; else absent'),
    encrypted: z.boolean().describe('true only when the payload could not be decrypted: payload is then the ciphertext'),
    error: z.string().optional().describe('why the payload is not readable (decryption failed); the frame is still delivered'),
  })
  .meta({ id: 'LogFrame' });

export type Frame = z.infer<typeof frameSchema>;

/**
 * Pop's query. Queen's client also sends parameters this broker does not act on (autopilot,
 * conflation, namespace, task…): they are ignored, as Queen ignores what it does not know
 * (docs/queen.md).
 */
const popQuery = {
  queue: queueName,
  batch: queryInt(`frames to pop at most; clamped to [1, ${POP_BATCH_MAX}], never refused`, 1).optional(),
  wait: queryBool('long-poll: when nothing is there, wait up to `timeout` ms for frames before answering 204').optional(),
  timeout: queryInt(
    `long-poll limit in ms, with wait=true; longer than ${POP_TIMEOUT_MAX_MS} is clamped`,
    POP_TIMEOUT_DEFAULT_MS,
  ).optional(),
  consumerGroup: consumerGroupName.optional(),
  autoAck: queryBool('complete the frames as they are handed out (no lease)').optional(),
  partitions: queryInt(
    `partitions one pop may take, clamped to [1, ${POP_PARTITIONS_MAX}]; batch caps the frames across them, all under one leaseId`,
    1,
  ).optional(),
  subscriptionMode: z
    .string()
    .max(64)
    .describe("where a named group new to the queue starts: `new` after the newest frame; anything else (Queen's `all`) at the beginning")
    .optional(),
  subscriptionFrom: z
    .string()
    .max(64)
    .describe('`now`, or an ISO instant: a new named group starts at the first frame created at or after it (unparsable: ignored)')
    .optional(),
};

const popOutput = z.object({ messages: z.array(frameSchema) }).meta({ id: 'PopResult', examples: [ex.popOutputExample] });

const POP_DESCRIPTION =
  "FIFO per partition. A pop leases the partition to the caller for its consumer group for the queue's leaseTime: " +
  'other consumers of the group skip it until every frame of the batch is acked or the lease expires (then the ' +
  'unacked frames are redelivered). `__QUEUE_MODE__` (the default) is competing consumers sharing one cursor per ' +
  'partition; a named group has its own cursors and starts at the beginning of each partition, unless its first pop ' +
  'says subscriptionMode=new or subscriptionFrom. Answers 204 when ' +
  'there is nothing to pop (after waiting, with wait=true).';

// --- ack -------------------------------------------------------------------------------------

/** The verdicts a frame can have for a group. */
export const ACK_STATUSES = ['completed', 'failed', 'dlq'] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];
/** What an ack may say: a verdict, or Queen's `retry` (redeliver, spending none of the retryLimit). */
export const ACK_REQUESTS = [...ACK_STATUSES, 'retry'] as const;
export type AckRequest = (typeof ACK_REQUESTS)[number];

const ackFields = {
  transactionId: txnSchema,
  partitionId: z.guid().describe("the frame's partitionId"),
  status: z
    .enum(ACK_REQUESTS)
    .default('completed')
    .describe("failed: redelivered up to the queue's retryLimit, then DLQ; retry: redelivered, the limit untouched (recorded as failed)"),
  leaseId: z.string().max(64).nullish().describe('the leaseId of the pop; when given it must be the live lease'),
  error: z
    .string()
    .max(10_000)
    .regex(/^[^\u0000]*$/, 'must not contain NUL characters')
    .nullish()
    .describe('why it failed; kept on the dead letter'),
};

export const ackItemSchema = queenObject({ ...ackFields, consumerGroup: consumerGroupName.nullish() }).meta({
  id: 'Ack',
  examples: [ex.ackInputExample],
});

export const ackResultSchema = z
  .object({
    index: z.number().int().describe('the position of the ack in the request'),
    success: z.boolean().describe('false: the ack was refused (error, code) and changed nothing'),
    transactionId: z.string(),
    partitionId: z.string(),
    queueName: z.string().optional(),
    partitionName: z.string().optional(),
    consumerGroup: z.string().nullable().optional().describe("null for '__QUEUE_MODE__' (as Queen answers)"),
    status: z
      .enum(ACK_STATUSES)
      .optional()
      .describe('completed (committed), failed (to be redelivered) or dlq (dead-lettered: also a failure past retryLimit)'),
    retryCount: z.number().int().optional().describe("the frame's failures so far"),
    leaseReleased: z
      .boolean()
      .optional()
      .describe("this call released the partition's lease: the batch is done, or a failure redelivers it"),
    dlq: z.boolean().optional().describe('the frame went to the dead letters'),
    noop: z.literal(true).optional().describe('a completed ack of a frame already committed: nothing changed'),
    redelivered: z
      .literal(true)
      .optional()
      .describe('not committed: an earlier failure in the same call stopped the cursor before this frame, which comes back'),
    acknowledgedAt: instant.optional(),
    error: z.string().optional().describe('why this ack was refused'),
    code: z.string().optional().describe('the stable code of that refusal: not_found, lease_mismatch, already_committed'),
  })
  .meta({ id: 'AckResult' });

export type AckResult = z.infer<typeof ackResultSchema>;

/** Both ack routes answer Queen's top-level array: one result per acknowledgment, in request order. */
export const ackResultsSchema = z.array(ackResultSchema).meta({ id: 'AckResults', examples: [ex.ackOutputExample] });

// --- transactions ----------------------------------------------------------------------------

export const MAX_TRANSACTION_OPERATIONS = 1000;

const transactionAck = queenObject({ type: z.literal('ack'), ...ackFields, consumerGroup: consumerGroupName.nullish() });
const transactionPush = queenObject({ type: z.literal('push'), items: z.array(pushItemSchema).min(1).max(MAX_PUSH_ITEMS) });

export const transactionOperationSchema = z
  .discriminatedUnion('type', [transactionAck, transactionPush])
  .meta({ id: 'TransactionOperation' });

export type TransactionOperation = z.infer<typeof transactionOperationSchema>;

export const transactionResultSchema = z
  .object({
    transactionId: z.guid().describe("this transaction's id (Queen answers one)"),
    success: z.literal(true),
    results: z.array(
      z
        .object({
          index: z.number().int().describe('the operation this result belongs to (its position in `operations`)'),
          itemIndex: z
            .number()
            .int()
            .optional()
            .describe("push: the item's position in that operation's `items`, so two items of one push are told apart"),
          type: z.enum(['push', 'ack']),
          success: z.literal(true),
          transactionId: z.string().describe("the pushed item's or acked frame's transactionId"),
          messageId: z.guid().optional(),
          queueName: z.string().optional(),
          duplicate: z.boolean().optional().describe('push: the txn was already in the partition'),
          status: z.enum(ACK_STATUSES).optional().describe('ack: the verdict recorded'),
          dlq: z.boolean().optional(),
        })
        .meta({ id: 'TransactionItemResult' }),
    ),
  })
  .meta({ id: 'TransactionResult', examples: [ex.transactionOutputExample] });

export type TransactionResult = z.infer<typeof transactionResultSchema>;

// --- lease renewal ---------------------------------------------------------------------------

export const renewResultSchema = z
  .object({
    leaseId: z.guid(),
    success: z.literal(true),
    newExpiresAt: instant.describe('the lease now ends here, PostgreSQL clock'),
    renewed: z.number().int().describe('partitions held under this lease'),
  })
  .meta({ id: 'RenewResult', examples: [ex.renewOutputExample] });

export type RenewResult = z.infer<typeof renewResultSchema>;

// --- routes ----------------------------------------------------------------------------------

const ACK_DESCRIPTION =
  "Acks commit the consumer group's position in the partition, as Queen's broker does: a completed ack commits its " +
  'frame and every frame before it; in one call the lowest failed, retry or dlq frame stops the cursor before it ' +
  "(completed acks after it are answered redelivered) and releases the lease: failed redelivers up to the queue's " +
  'retryLimit, then dead-letters; retry redelivers spending none of it; dlq dead-letters at once. A leaseId, when ' +
  'given, must be the live lease (else 409 lease_mismatch); an ack without one is accepted after its lease expired. ' +
  'A completed ack of a frame already committed answers noop; a failure of one is 409 already_committed.';

export const logRoutes = {
  ...consumerGroupRoutes,
  configure: route({
    method: 'POST',
    path: '/api/v1/configure',
    tags: ['log'],
    summary: 'Create a queue or change its options (omitted options keep their value); answers the effective options',
    description:
      'Defaults: encryptionEnabled false, leaseTime 300 s, retryLimit 3; those three act. Every other Queen option is ' +
      'accepted, stored and echoed without effect (each says so), as are namespace and task (null or absent: kept). ' +
      'Produce grant. encryptionEnabled=true on a broker without QUEEN_ENCRYPTION_KEY answers 503 encryption_unavailable.',
    errorResponses: [400, 401, 403, 503],
    input: configureInput,
    output: configureResultSchema,
  }),

  push: route({
    method: 'POST',
    path: '/api/v1/push',
    tags: ['log'],
    summary: 'Append messages to queues (created on first use); one snake_case result per item, as Queen answers',
    description:
      `0–${MAX_PUSH_ITEMS} items in one transaction (none: 201 []). A transactionId already in the partition answers "duplicate" with ` +
      "the existing message_id. producerSub is the credential's subject. Pushing to an encrypting queue on a broker " +
      'without QUEEN_ENCRYPTION_KEY answers 503 encryption_unavailable.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({ items: z.array(pushItemSchema).max(MAX_PUSH_ITEMS) }).meta({ examples: [ex.pushInputExample] }),
    output: z.array(pushResultSchema).meta({ examples: [ex.pushOutputExample] }),
    status: 201,
  }),

  popQueue: route({
    method: 'GET',
    path: '/api/v1/pop/queue/{queue}',
    tags: ['log'],
    summary: 'Pop a batch of frames from any free partition of a queue (204 when empty)',
    description: POP_DESCRIPTION,
    errorResponses: [400, 401, 403, 503],
    input: queenObject(popQuery),
    output: popOutput,
  }),

  popPartition: route({
    method: 'GET',
    path: '/api/v1/pop/queue/{queue}/partition/{partition}',
    tags: ['log'],
    summary: 'Pop a batch of frames from one partition (204 when empty or leased to another consumer of the group)',
    description: POP_DESCRIPTION,
    errorResponses: [400, 401, 403, 503],
    input: queenObject({ ...popQuery, partition: partitionName }),
    output: popOutput,
  }),

  ack: route({
    method: 'POST',
    path: '/api/v1/ack',
    tags: ['log'],
    summary: 'Acknowledge one frame: completed, failed (redelivered up to retryLimit, then DLQ), retry or dlq',
    description: ACK_DESCRIPTION + ' Answers a one-item array; a refused ack is its error status (404, 409).',
    errorResponses: [400, 401, 403, 404, 409, 503],
    input: ackItemSchema,
    output: ackResultsSchema,
  }),

  ackBatch: route({
    method: 'POST',
    path: '/api/v1/ack/batch',
    tags: ['log'],
    summary: 'Acknowledge many frames in one transaction; one result per item, refusals reported per item',
    description:
      "Body `{acknowledgments: [...], consumerGroup?}` as Queen names it; an item's consumerGroup overrides the " +
      'top-level one. ' +
      ACK_DESCRIPTION +
      ' Answers one result per item in request order; a refused item (success false, with error and code: not_found, ' +
      'lease_mismatch, already_committed) does not stop the others.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({
      acknowledgments: z.array(ackItemSchema).min(1).max(MAX_ACKS_PER_BATCH),
      consumerGroup: consumerGroupName.nullish(),
    }).meta({ examples: [ex.ackBatchInputExample] }),
    output: ackResultsSchema,
  }),

  transaction: route({
    method: 'POST',
    path: '/api/v1/transaction',
    tags: ['log'],
    summary: "Apply pushes and acks together or not at all (Queen's transaction: consume, transform, produce exactly once)",
    description:
      '`operations`: `{type: "push", items}` and `{type: "ack", transactionId, partitionId, status?, consumerGroup?}` in ' +
      'any order; `requiredLeases`: leases that must still be live. One database transaction: any refused ack (404 ' +
      'not_found, 409 lease_mismatch) or dead lease refuses the whole call and applies nothing. Produce grant, and ' +
      'consume when it acks; the cluster produce block applies.',
    errorResponses: [400, 401, 403, 404, 409, 503],
    input: queenObject({
      operations: z.array(transactionOperationSchema).min(1).max(MAX_TRANSACTION_OPERATIONS),
      requiredLeases: z.array(z.guid()).max(MAX_TRANSACTION_OPERATIONS).optional(),
    }).meta({ examples: [ex.transactionInputExample] }),
    output: transactionResultSchema,
  }),

  deleteQueue: route({
    method: 'DELETE',
    path: '/api/v1/resources/queues/{queue}',
    tags: ['log'],
    summary: "Delete a queue: its frames, partitions, cursors, leases, verdicts and dead letters (Queen's queue(q).delete())",
    description:
      'Answers 200 whether the queue existed or not (deleted and existed say which), as Queen does. Consumer groups ' +
      'stay registered: after a push re-creates the queue they read it from the beginning. Timers scheduled to the queue ' +
      'stay pending and re-create it when they fire; cancel them to withdraw them. Produce grant, as for configure.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({ queue: queueName }),
    output: z
      .object({ deleted: z.boolean(), existed: z.boolean(), queue: z.string() })
      .meta({ id: 'DeleteQueueResult', examples: [ex.deleteQueueOutputExample] }),
  }),

  renewLease: route({
    method: 'POST',
    path: '/api/v1/lease/{leaseId}/extend',
    tags: ['log'],
    summary: "Extend a live lease (Queen's renewLease): the batch stays this consumer's for `seconds` more",
    description:
      "`seconds` defaults to the queue's leaseTime; the lease then ends that long after now, PostgreSQL clock. A lease " +
      'that expired or was released (its batch settled) answers 409 lease_mismatch: its frames are, or will be, ' +
      'redelivered, and acking them under it is refused.',
    errorResponses: [400, 401, 403, 409, 503],
    input: queenObject({
      leaseId: z.guid().meta({ description: 'the leaseId of the pop', examples: [ex.FIELD_EXAMPLES.leaseId] }),
      seconds: z.number().int().min(1).max(LEASE_TIME_MAX_SECONDS).optional().describe("default: the queue's leaseTime"),
    }).meta({ examples: [ex.renewInputExample] }),
    output: renewResultSchema,
  }),

  dlq: route({
    method: 'GET',
    path: '/api/v1/dlq',
    tags: ['log'],
    summary: "List the tenant's dead letters, oldest first, optionally by queue, consumer group, partition and time",
    description: `\`limit\` defaults to ${DLQ_LIMIT_DEFAULT} and is clamped to [1, ${DLQ_LIMIT_MAX}].`,
    errorResponses: [400, 401, 403, 503],
    input: queenObject({
      queue: queueName.optional(),
      consumerGroup: consumerGroupName.optional(),
      partition: partitionName.optional(),
      from: z.iso.datetime({ offset: true }).describe('dead-lettered at or after this instant (ISO 8601)').optional(),
      to: z.iso.datetime({ offset: true }).describe('dead-lettered at or before this instant (ISO 8601)').optional(),
      limit: queryInt(`page size, clamped to [1, ${DLQ_LIMIT_MAX}]`, DLQ_LIMIT_DEFAULT).optional(),
      offset: queryInt('rows to skip', 0).optional(),
    }),
    output: deadLetterPageSchema,
  }),

  replay: route({
    method: 'POST',
    path: '/api/v1/dlq/{id}/replay',
    tags: ['log'],
    summary: "Re-push a consumer's dead letter as a new frame (new message id and transactionId) and remove it from the DLQ",
    description:
      "The new frame is appended to the end of its partition and every consumer group sees it. A timer's dead letter " +
      '(fromTimer, consumer group __timers__) never entered the log and is refused with 403 timer_dlq_not_replayable: ' +
      'schedule the timer again instead.',
    errorResponses: [400, 401, 403, 404, 503],
    input: z.strictObject({ id: z.guid().describe('the dead letter id') }),
    output: replayResultSchema,
    status: 201,
  }),
};
