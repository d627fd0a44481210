// The dead letters' wire: a consumer's frame it gave up on, or a timer whose fire exhausted its
// attempts, as GET /api/v1/dlq lists them and POST /api/v1/dlq/:id/replay answers.
import { z } from 'zod';
import { instant } from './common.ts';
import { deadLetterPageExample, replayOutputExample } from './examples.ts';

export const deadLetterSchema = z
  .object({
    id: z.guid(),
    queue: z.string(),
    partition: z.string(),
    consumerGroup: z.string().describe("'__timers__' for a timer whose fire exhausted its attempts"),
    messageId: z.guid(),
    transactionId: z.string(),
    producerSub: z.string(),
    errorMessage: z.string().nullable(),
    retryCount: z.number().int(),
    fromTimer: z.boolean().describe('a timer that never fired: not replayable'),
    timerKey: z.string().nullable(),
    createdAt: instant.describe('when it was dead-lettered'),
    payload: z.string().describe('base64 of the payload bytes (decrypted and decompressed when possible)'),
    data: z.unknown().optional(),
    encrypted: z.boolean(),
    error: z.string().optional(),
  })
  .meta({ id: 'DeadLetter' });

export type DeadLetter = z.infer<typeof deadLetterSchema>;

export const deadLetterPageSchema = z
  .object({ messages: z.array(deadLetterSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'DeadLetterPage', examples: [deadLetterPageExample] });

export type DeadLetterPage = z.infer<typeof deadLetterPageSchema>;

export const replayResultSchema = z
  .object({
    replayed: z.literal(true),
    id: z.string(),
    queue: z.string(),
    partition: z.string(),
    transactionId: z.string().describe("the new frame's transactionId"),
    messageId: z.guid(),
  })
  .meta({ id: 'ReplayResult', examples: [replayOutputExample] });

export type ReplayResult = z.infer<typeof replayResultSchema>;
