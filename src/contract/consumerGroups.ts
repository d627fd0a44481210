// Consumer-group control as Queen's client calls it (Queen.deleteConsumerGroup, Admin's
// deleteConsumerGroupForQueue and seekConsumerGroup): delete a group, on one queue or on all of the
// tenant's, and move its cursors to the end, to an instant, or to the beginning. Tenant-scoped:
// a group name reaches only the caller's tenant's groups.
import { z } from 'zod';
import { consumerGroupName, queenObject, queryBool, queueName, route } from './common.ts';
import * as ex from './examples.ts';

const deleteMetadata = queryBool(
  "Queen's flag, echoed: a group here has no metadata apart from its registration, which goes either way",
  true,
).optional();

const deleteGroupResult = z.object({
  success: z.literal(true),
  consumerGroup: z.string(),
  deletedPartitions: z.number().int().describe('cursors removed: one per partition of each queue the group was registered on'),
  metadataDeleted: z.boolean().describe('the deleteMetadata asked for (the registration goes either way)'),
});

export const consumerGroupRoutes = {
  deleteConsumerGroup: route({
    method: 'DELETE',
    path: '/api/v1/consumer-groups/{consumerGroup}',
    tags: ['log'],
    summary: "Delete a consumer group on every queue of the tenant: its cursors, leases and verdicts (Queen's deleteConsumerGroup)",
    description:
      "The group's next pop registers it again, as a new group: from the beginning, or as its subscriptionMode / " +
      'subscriptionFrom say. Frames in flight under its leases can no longer be acked (409 lease_mismatch). Its dead ' +
      'letters stay. Answers 200 with deletedPartitions 0 when the group was not registered. Consume grant.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({ consumerGroup: consumerGroupName, deleteMetadata }),
    output: deleteGroupResult.meta({ id: 'DeleteConsumerGroupResult', examples: [ex.deleteGroupOutputExample] }),
  }),

  deleteConsumerGroupForQueue: route({
    method: 'DELETE',
    path: '/api/v1/consumer-groups/{consumerGroup}/queues/{queue}',
    tags: ['log'],
    summary: "Delete a consumer group on one queue (Queen's deleteConsumerGroupForQueue)",
    description: 'As the delete on every queue, for this queue only. Consume grant.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({ consumerGroup: consumerGroupName, queue: queueName, deleteMetadata }),
    output: deleteGroupResult
      .extend({ queueName: z.string() })
      .meta({ id: 'DeleteConsumerGroupForQueueResult', examples: [ex.deleteGroupForQueueOutputExample] }),
  }),

  seekConsumerGroup: route({
    method: 'POST',
    path: '/api/v1/consumer-groups/{consumerGroup}/queues/{queue}/seek',
    tags: ['log'],
    summary: "Move a consumer group's cursors on a queue: to the end, to an instant, or to the beginning (Queen's seekConsumerGroup)",
    description:
      'One of `toEnd: true` (skip everything pending), `timestamp` (the next frame read on each partition is the first ' +
      'one created after that instant, PostgreSQL clock; an instant before every frame is the beginning) or ' +
      "`toBeginning: true` (this broker's addition). Every partition of the queue where the group " +
      'is registered moves; its lease is released (frames in flight are redelivered from the new cursor) and the ' +
      'failure counts of the frames after the new cursor are forgotten. A group not registered on the queue answers ' +
      'partitionsUpdated 0. Consume grant.',
    errorResponses: [400, 401, 403, 503],
    input: queenObject({
      consumerGroup: consumerGroupName,
      queue: queueName,
      toEnd: z.boolean().optional().describe('true: after the newest frame of each partition'),
      timestamp: z.iso
        .datetime({ offset: true })
        .optional()
        .describe('ISO 8601: the group next reads the first frame created after this instant, on each partition'),
      toBeginning: z.boolean().optional().describe('true: before the oldest frame of each partition'),
    }).meta({ examples: [ex.seekInputExample] }),
    output: z
      .object({
        success: z.literal(true),
        consumerGroup: z.string(),
        queueName: z.string(),
        seekToEnd: z.boolean(),
        targetTimestamp: z.string().nullable().describe('the instant sought, as given; null for toEnd and toBeginning'),
        partitionsUpdated: z.number().int().describe("the group's cursors that moved: one per partition of the queue"),
      })
      .meta({ id: 'SeekConsumerGroupResult', examples: [ex.seekOutputExample] }),
  }),
};
