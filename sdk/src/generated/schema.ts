// generated — do not edit.
// Produced by `npm run sdk` (sdk/scripts/generate.ts) with openapi-typescript from openapi.json,
// which is itself generated from the zod schemas in src/contract. Change those instead.
/* eslint-disable */
export interface paths {
    "/api/v1/timers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Schedule, reschedule or cancel timers: 1–256 ops in one transaction, one verdict per op
         * @description A refusal (400, 401, 403, 429, 503) refuses the whole batch: nothing is applied or metered. When a refused batch contains a cancel, the response carries `x-queen-timers-hint: DELETE /api/v1/timers/:queue/*timerKey` — the cancel route that only the boot flag can refuse. Ops apply in order; schedule and reschedule are one upsert on (queue, timerKey) that answers too_late on a claimed timer.
         */
        post: operations["timers-batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{queue}/{timerKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Peek at one pending timer, payload exactly as stored; a miss is 200 {found:false} */
        get: operations["timers-peek"];
        put?: never;
        post?: never;
        /**
         * Cancel one timer. Only the boot flag can refuse it: no grant, pause, quota or block applies
         * @description `absent` means "no longer pending" and may mean ALREADY DELIVERED: look for the txn in the destination queue. The response echoes the `txn` you pass (or the cancelled row’s txn).
         */
        delete: operations["timers-cancel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pending timers of one queue by timerKey in byte order, or by deliverAt (keyset paging, no payloads)
         * @description `limit` defaults to 100 and is clamped to [1, 1000], never rejected. `order=deliverAt` pages by (deliverAt, timerKey): its `nextAfter` is an opaque cursor. `prefix` keeps the keys that start with it (key order only).
         */
        get: operations["timers-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Billed messages of the caller's tenant in a calendar month (UTC); one per scheduled or rescheduled op */
        get: operations["timers-usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedules/{queue}/{scheduleKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one schedule with its next occurrences; a miss is 200 {found:false}
         * @description `occurrences` (default 5, clamped to [1, 100]): how many upcoming occurrences to show, each with the DST shift that moved it.
         */
        get: operations["schedules-get"];
        /**
         * Create or replace a recurring schedule: each occurrence of the cron expression becomes one timer in the queue
         * @description Needs the produce grant and passes the timer gates (cluster block, paused tenant, rate, pending-timer quota, storage); 403 `horizon_exceeded` when even the next occurrence is beyond the plan's horizon, 403 `payload_too_large_for_plan` over the payload ceiling. Each occurrence is metered as one message when it is materialized. A replace withdraws the old definition's materialized occurrences in the same transaction: none fires after this answer. After an outage or a pause, the latest missed occurrence fires and the earlier ones are counted in `skipped`.
         */
        put: operations["schedules-put"];
        post?: never;
        /**
         * Delete a schedule and withdraw its materialized occurrence. Only the boot flag can refuse it
         * @description No grant, pause, quota or cluster block applies: any valid credential of the tenant stops its schedule. An occurrence already claimed by a sweeper is listed in `tooLate`.
         */
        delete: operations["schedules-delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedules/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the schedules of one queue by scheduleKey in byte order (keyset paging, no payloads)
         * @description `limit` defaults to 100 and is clamped to [1, 1000], never rejected.
         */
        get: operations["schedules-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/configure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a queue or change its options (omitted options keep their value); answers the effective options
         * @description Defaults: encryptionEnabled false, leaseTime 300 s, retryLimit 3; those three act. Every other Queen option is accepted, stored and echoed without effect (each says so), as are namespace and task (null or absent: kept). Produce grant. encryptionEnabled=true on a broker without QUEEN_ENCRYPTION_KEY answers 503 encryption_unavailable.
         */
        post: operations["log-configure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Append messages to queues (created on first use); one snake_case result per item, as Queen answers
         * @description 0–1000 items in one transaction (none: 201 []). A transactionId already in the partition answers "duplicate" with the existing message_id. producerSub is the credential's subject. Pushing to an encrypting queue on a broker without QUEEN_ENCRYPTION_KEY answers 503 encryption_unavailable.
         */
        post: operations["log-push"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pop/queue/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pop a batch of frames from any free partition of a queue (204 when empty)
         * @description FIFO per partition. A pop leases the partition to the caller for its consumer group for the queue's leaseTime: other consumers of the group skip it until every frame of the batch is acked or the lease expires (then the unacked frames are redelivered). `__QUEUE_MODE__` (the default) is competing consumers sharing one cursor per partition; a named group has its own cursors and starts at the beginning of each partition, unless its first pop says subscriptionMode=new or subscriptionFrom. Answers 204 when there is nothing to pop (after waiting, with wait=true).
         */
        get: operations["log-popQueue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pop/queue/{queue}/partition/{partition}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pop a batch of frames from one partition (204 when empty or leased to another consumer of the group)
         * @description FIFO per partition. A pop leases the partition to the caller for its consumer group for the queue's leaseTime: other consumers of the group skip it until every frame of the batch is acked or the lease expires (then the unacked frames are redelivered). `__QUEUE_MODE__` (the default) is competing consumers sharing one cursor per partition; a named group has its own cursors and starts at the beginning of each partition, unless its first pop says subscriptionMode=new or subscriptionFrom. Answers 204 when there is nothing to pop (after waiting, with wait=true).
         */
        get: operations["log-popPartition"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge one frame: completed, failed (redelivered up to retryLimit, then DLQ), retry or dlq
         * @description Acks commit the consumer group's position in the partition, as Queen's broker does: a completed ack commits its frame and every frame before it; in one call the lowest failed, retry or dlq frame stops the cursor before it (completed acks after it are answered redelivered) and releases the lease: failed redelivers up to the queue's retryLimit, then dead-letters; retry redelivers spending none of it; dlq dead-letters at once. A leaseId, when given, must be the live lease (else 409 lease_mismatch); an ack without one is accepted after its lease expired. A completed ack of a frame already committed answers noop; a failure of one is 409 already_committed. Answers a one-item array; a refused ack is its error status (404, 409).
         */
        post: operations["log-ack"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ack/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge many frames in one transaction; one result per item, refusals reported per item
         * @description Body `{acknowledgments: [...], consumerGroup?}` as Queen names it; an item's consumerGroup overrides the top-level one. Acks commit the consumer group's position in the partition, as Queen's broker does: a completed ack commits its frame and every frame before it; in one call the lowest failed, retry or dlq frame stops the cursor before it (completed acks after it are answered redelivered) and releases the lease: failed redelivers up to the queue's retryLimit, then dead-letters; retry redelivers spending none of it; dlq dead-letters at once. A leaseId, when given, must be the live lease (else 409 lease_mismatch); an ack without one is accepted after its lease expired. A completed ack of a frame already committed answers noop; a failure of one is 409 already_committed. Answers one result per item in request order; a refused item (success false, with error and code: not_found, lease_mismatch, already_committed) does not stop the others.
         */
        post: operations["log-ackBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transaction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply pushes and acks together or not at all (Queen's transaction: consume, transform, produce exactly once)
         * @description `operations`: `{type: "push", items}` and `{type: "ack", transactionId, partitionId, status?, consumerGroup?}` in any order; `requiredLeases`: leases that must still be live. One database transaction: any refused ack (404 not_found, 409 lease_mismatch) or dead lease refuses the whole call and applies nothing. Produce grant, and consume when it acks; the cluster produce block applies.
         */
        post: operations["log-transaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/queues/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a queue: its frames, partitions, cursors, leases, verdicts and dead letters (Queen's queue(q).delete())
         * @description Answers 200 whether the queue existed or not (deleted and existed say which), as Queen does. Consumer groups stay registered: after a push re-creates the queue they read it from the beginning. Timers scheduled to the queue stay pending and re-create it when they fire; cancel them to withdraw them. Produce grant, as for configure.
         */
        delete: operations["log-deleteQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{consumerGroup}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a consumer group on every queue of the tenant: its cursors, leases and verdicts (Queen's deleteConsumerGroup)
         * @description The group's next pop registers it again, as a new group: from the beginning, or as its subscriptionMode / subscriptionFrom say. Frames in flight under its leases can no longer be acked (409 lease_mismatch). Its dead letters stay. Answers 200 with deletedPartitions 0 when the group was not registered. Consume grant.
         */
        delete: operations["log-deleteConsumerGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{consumerGroup}/queues/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a consumer group on one queue (Queen's deleteConsumerGroupForQueue)
         * @description As the delete on every queue, for this queue only. Consume grant.
         */
        delete: operations["log-deleteConsumerGroupForQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{consumerGroup}/queues/{queue}/seek": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a consumer group's cursors on a queue: to the end, to an instant, or to the beginning (Queen's seekConsumerGroup)
         * @description One of `toEnd: true` (skip everything pending), `timestamp` (the next frame read on each partition is the first one created after that instant, PostgreSQL clock; an instant before every frame is the beginning) or `toBeginning: true` (this broker's addition). Every partition of the queue where the group is registered moves; its lease is released (frames in flight are redelivered from the new cursor) and the failure counts of the frames after the new cursor are forgotten. A group not registered on the queue answers partitionsUpdated 0. Consume grant.
         */
        post: operations["log-seekConsumerGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lease/{leaseId}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend a live lease (Queen's renewLease): the batch stays this consumer's for `seconds` more
         * @description `seconds` defaults to the queue's leaseTime; the lease then ends that long after now, PostgreSQL clock. A lease that expired or was released (its batch settled) answers 409 lease_mismatch: its frames are, or will be, redelivered, and acking them under it is refused.
         */
        post: operations["log-renewLease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dlq": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's dead letters, oldest first, optionally by queue, consumer group, partition and time
         * @description `limit` defaults to 100 and is clamped to [1, 1000].
         */
        get: operations["log-dlq"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dlq/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-push a consumer's dead letter as a new frame (new message id and transactionId) and remove it from the DLQ
         * @description The new frame is appended to the end of its partition and every consumer group sees it. A timer's dead letter (fromTimer, consumer group __timers__) never entered the log and is refused with 403 timer_dlq_not_replayable: schedule the timer again instead.
         */
        post: operations["log-replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenants by name with their effective plans (keyset paging)
         * @description `limit` defaults to 100 and is clamped to [1, 1000], never rejected.
         */
        get: operations["admin-listTenants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/tenants/{tenant}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a tenant's effective plan */
        get: operations["admin-getTenant"];
        /** Create a tenant or change its plan; null resets a field to the cell default */
        put: operations["admin-putTenant"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/cluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the cluster flags */
        get: operations["admin-getCluster"];
        /** Block produce cluster-wide, or pause the sweeper (resuming fires everything that matured meanwhile) */
        put: operations["admin-putCluster"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read Queen's maintenance mode: the cluster's produce block
         * @description Queen's maintenance mode maps onto the cluster's produce block (PUT /api/v1/admin/cluster, produceBlocked). Nothing is buffered: bufferedMessages is always 0.
         */
        get: operations["admin-getMaintenance"];
        put?: never;
        /**
         * Turn Queen's maintenance mode on or off: block or unblock produce cluster-wide
         * @description While on, every push, schedule and schedule PUT answers 503 produce_blocked with Retry-After (Queen buffers them instead; here the producer retries). Consumers keep popping and the sweeper keeps firing timers already scheduled.
         */
        post: operations["admin-setMaintenance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The credential's tenant, subject and grants, and whether the operator routes answer it
         * @description Needs any valid credential (no grant): a UI asks it first, to show only what the credential may do.
         */
        get: operations["dashboard-whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the tenant's queues by name in byte order (keyset paging) */
        get: operations["dashboard-queues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Per queue: pending, due soon, overdue, claimed, fired, DLQ depth, log depth and consumer lag; warnings in words
         * @description Pages over the queues by name (or one `queue`). Counts are exact up to a cap, then an estimate or a lower bound, and each says which (`basis`): the answer costs the same for a queue of ten timers or ten million.
         */
        get: operations["dashboard-overview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fire-lag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fire lag p50/p99 and timers fired, per minute, over the last minutes (one queue or all the tenant’s)
         * @description The history is kept a day. `minutes` defaults to 60 and is clamped to [1, 1440], never refused.
         */
        get: operations["dashboard-fireLag"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/forecast/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What fires when in one queue: the next hour by minute and the next 90 days by day
         * @description Buckets are counted exactly up to a cap of timers read in deliverAt order; the buckets past it are estimated from a block sample of the table and say so (`basis: estimate`).
         */
        get: operations["dashboard-forecast"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/log/{queue}/partitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A queue's partitions by name with their depth (frames in the log) */
        get: operations["dashboard-partitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/log/{queue}/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A queue's consumer groups by name with their lag: frames behind, age of the oldest unconsumed, leases held */
        get: operations["dashboard-groups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/log/{queue}/leases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A queue's partition leases held now, by partition and consumer group */
        get: operations["dashboard-leases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/log/{queue}/frames": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Browse a partition's frames by position (seq), payloads as stored; reading consumes nothing */
        get: operations["dashboard-frames"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        TimerOperation: {
            /** @constant */
            op: "schedule";
            /**
             * @description queue name (created on first use); at most 256 bytes (UTF-8)
             * @example reminders
             */
            queue: string;
            /**
             * @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8)
             * @example trial:acme:day7
             */
            timerKey: string;
            /** @description milliseconds from now (PostgreSQL clock); the only way to say when — no absolute instants */
            delayMs: number;
            /**
             * @description minted by the server when absent; every reschedule is a new message with a new txn
             * @example trial-acme-day7-v1
             */
            txn?: string;
            /**
             * Format: base64
             * @description the exact payload bytes, base64
             */
            payload: string;
            /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
            partition?: string;
        } | {
            /** @constant */
            op: "reschedule";
            /**
             * @description queue name (created on first use); at most 256 bytes (UTF-8)
             * @example reminders
             */
            queue: string;
            /**
             * @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8)
             * @example trial:acme:day7
             */
            timerKey: string;
            /** @description milliseconds from now (PostgreSQL clock); the only way to say when — no absolute instants */
            delayMs: number;
            /**
             * @description minted by the server when absent; every reschedule is a new message with a new txn
             * @example trial-acme-day7-v1
             */
            txn?: string;
            /**
             * Format: base64
             * @description the exact payload bytes, base64
             */
            payload: string;
            /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
            partition?: string;
        } | {
            /** @constant */
            op: "cancel";
            /**
             * @description queue name (created on first use); at most 256 bytes (UTF-8)
             * @example reminders
             */
            queue: string;
            /**
             * @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8)
             * @example trial:acme:day7
             */
            timerKey: string;
            /**
             * @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)
             * @example trial-acme-day7-v1
             */
            txn?: string;
        };
        PushItem: {
            /**
             * @description queue name (created on first use); at most 256 bytes (UTF-8)
             * @example reminders
             */
            queue: string;
            /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
            partition?: string;
            /** @description any JSON value; stored as the exact bytes sent for it (numbers, escapes, whitespace and key order kept) */
            payload: unknown;
            /**
             * @description minted (uuid) when absent; a txn already in the partition answers "duplicate"
             * @example trial-acme-day7-v1
             */
            transactionId?: string;
            /** @description a trace id to carry with the frame (Queen's client sends one when given a UUID); returned on pop */
            traceId?: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "transactionId": "tenant-42-v1",
         *       "partitionId": "06dc8c40-3b50-4120-a49f-443de53b9b4a",
         *       "status": "completed",
         *       "leaseId": "8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68"
         *     }
         */
        Ack: {
            /**
             * @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)
             * @example trial-acme-day7-v1
             */
            transactionId: string;
            /**
             * Format: uuid
             * @description the frame's partitionId
             */
            partitionId: string;
            /**
             * @description failed: redelivered up to the queue's retryLimit, then DLQ; retry: redelivered, the limit untouched (recorded as failed)
             * @default completed
             * @enum {string}
             */
            status: "completed" | "failed" | "dlq" | "retry";
            /** @description the leaseId of the pop; when given it must be the live lease */
            leaseId?: string | null;
            /** @description why it failed; kept on the dead letter */
            error?: string | null;
            consumerGroup?: string | null;
        } & {
            [key: string]: unknown;
        };
        TransactionOperation: ({
            /** @constant */
            type: "ack";
            /**
             * @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)
             * @example trial-acme-day7-v1
             */
            transactionId: string;
            /**
             * Format: uuid
             * @description the frame's partitionId
             */
            partitionId: string;
            /**
             * @description failed: redelivered up to the queue's retryLimit, then DLQ; retry: redelivered, the limit untouched (recorded as failed)
             * @default completed
             * @enum {string}
             */
            status: "completed" | "failed" | "dlq" | "retry";
            /** @description the leaseId of the pop; when given it must be the live lease */
            leaseId?: string | null;
            /** @description why it failed; kept on the dead letter */
            error?: string | null;
            consumerGroup?: string | null;
        } & {
            [key: string]: unknown;
        }) | ({
            /** @constant */
            type: "push";
            items: components["schemas"]["PushItem"][];
        } & {
            [key: string]: unknown;
        });
        TimerResult: {
            /** @constant */
            ok: true;
            /** @constant */
            status: "scheduled";
            queue: string;
            timerKey: string;
            txn: string;
            /** Format: uuid */
            messageId: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            deliverAt: string;
        } | {
            /** @constant */
            ok: true;
            /** @constant */
            status: "rescheduled";
            queue: string;
            timerKey: string;
            txn: string;
            /** Format: uuid */
            messageId: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            deliverAt: string;
        } | {
            /** @constant */
            ok: true;
            /** @constant */
            status: "cancelled";
            queue: string;
            timerKey: string;
            txn: string;
        } | {
            /** @constant */
            ok: false;
            /** @constant */
            status: "too_late";
            queue: string;
            timerKey: string;
            txn: string | null;
        } | {
            /** @constant */
            ok: false;
            /** @constant */
            status: "absent";
            queue: string;
            timerKey: string;
            txn: string | null;
        };
        /**
         * @example {
         *       "ok": true,
         *       "status": "cancelled",
         *       "queue": "reminders",
         *       "timerKey": "trial:acme:day7",
         *       "txn": "trial-acme-day7-v1"
         *     }
         */
        CancelResult: {
            /** @constant */
            ok: true;
            /** @constant */
            status: "cancelled";
            queue: string;
            timerKey: string;
            txn: string;
        } | {
            /** @constant */
            ok: false;
            /** @constant */
            status: "too_late";
            queue: string;
            timerKey: string;
            txn: string | null;
        } | {
            /** @constant */
            ok: false;
            /** @constant */
            status: "absent";
            queue: string;
            timerKey: string;
            txn: string | null;
        };
        /**
         * @example {
         *       "found": true,
         *       "queue": "reminders",
         *       "timerKey": "trial:acme:day7",
         *       "partition": "acme",
         *       "deliverAt": "2026-12-07T07:59:39.193000Z",
         *       "txn": "trial-acme-day7-v1",
         *       "messageId": "0f7f5659-4533-4d08-8a66-85cedad3ff6c",
         *       "payloadZstd": false,
         *       "encrypted": false,
         *       "producerSub": "dev",
         *       "attempts": 0,
         *       "lastError": null,
         *       "claimed": false,
         *       "createdAt": "2026-11-30T07:59:39.193000Z",
         *       "updatedAt": "2026-11-30T07:59:39.193000Z",
         *       "payload": "eyJraW5kIjoiZGF5NyJ9"
         *     }
         */
        PeekResult: {
            /** @constant */
            found: true;
            queue: string;
            timerKey: string;
            partition: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            deliverAt: string;
            txn: string;
            /** Format: uuid */
            messageId: string;
            payloadZstd: boolean;
            encrypted: boolean;
            producerSub: string;
            attempts: number;
            lastError: string | null;
            /** @description in a sweeper's hands (lease not expired); a row in backoff is not claimed */
            claimed: boolean;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            updatedAt: string;
            /** @description base64 exactly as stored: compressed and/or encrypted; never decrypted */
            payload: string;
        } | {
            /** @constant */
            found: false;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "queue": "reminders",
         *           "timerKey": "trial:acme:day7",
         *           "partition": "acme",
         *           "deliverAt": "2026-12-07T07:59:39.193000Z",
         *           "txn": "trial-acme-day7-v1",
         *           "messageId": "0f7f5659-4533-4d08-8a66-85cedad3ff6c",
         *           "payloadZstd": false,
         *           "encrypted": false,
         *           "producerSub": "dev",
         *           "attempts": 0,
         *           "lastError": null,
         *           "claimed": false,
         *           "createdAt": "2026-11-30T07:59:39.193000Z",
         *           "updatedAt": "2026-11-30T07:59:39.193000Z"
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "trial:acme:day7"
         *     }
         */
        TimerList: {
            rows: components["schemas"]["TimerRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last timerKey of this page */
            nextAfter: string | null;
        };
        TimerRow: {
            queue: string;
            timerKey: string;
            partition: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            deliverAt: string;
            txn: string;
            /** Format: uuid */
            messageId: string;
            payloadZstd: boolean;
            encrypted: boolean;
            producerSub: string;
            attempts: number;
            lastError: string | null;
            /** @description in a sweeper's hands (lease not expired); a row in backoff is not claimed */
            claimed: boolean;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            updatedAt: string;
        };
        /**
         * @example {
         *       "tenant": "dev",
         *       "period": "2026-11",
         *       "messages": 2
         *     }
         */
        Usage: {
            tenant: string;
            period: string;
            messages: number;
        };
        /**
         * @example {
         *       "ok": true,
         *       "status": "created",
         *       "queue": "reminders",
         *       "scheduleKey": "acme/daily-digest",
         *       "cron": "0 9 * * *",
         *       "timezone": "Europe/Rome",
         *       "partition": "acme",
         *       "payloadZstd": false,
         *       "encrypted": false,
         *       "producerSub": "dev",
         *       "revision": 1,
         *       "nextAt": "2026-11-30T08:00:00.000000Z",
         *       "lastAt": null,
         *       "skipped": 0,
         *       "createdAt": "2026-11-30T07:59:39.193000Z",
         *       "updatedAt": "2026-11-30T07:59:39.193000Z",
         *       "nextOccurrences": [
         *         {
         *           "at": "2026-11-30T08:00:00.000000Z",
         *           "local": "2026-11-30T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-01T08:00:00.000000Z",
         *           "local": "2026-12-01T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-02T08:00:00.000000Z",
         *           "local": "2026-12-02T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-03T08:00:00.000000Z",
         *           "local": "2026-12-03T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-04T08:00:00.000000Z",
         *           "local": "2026-12-04T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         }
         *       ],
         *       "withdrawn": []
         *     }
         */
        SchedulePutResult: {
            /** @constant */
            ok: true;
            /** @enum {string} */
            status: "created" | "replaced";
            queue: string;
            scheduleKey: string;
            cron: string;
            /** @description canonical IANA name */
            timezone: string;
            partition: string;
            payloadZstd: boolean;
            encrypted: boolean;
            producerSub: string;
            /** @description 1 when created; +1 at every replace */
            revision: number;
            /** @description the next occurrence not yet materialized as a timer (null: the expression has no more) */
            nextAt: string | null;
            /** @description the last occurrence materialized as a timer */
            lastAt: string | null;
            /** @description occurrences missed (outage, sweeper or tenant pause): only the latest missed one fires */
            skipped: number;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            updatedAt: string;
            /** @description the next 5 occurrences from now (PostgreSQL's clock) */
            nextOccurrences: components["schemas"]["ScheduleOccurrence"][];
            /** @description a replace: the old definition's materialized occurrences, withdrawn — none of them fires after this answer */
            withdrawn: components["schemas"]["ScheduleTimer"][];
        };
        ScheduleOccurrence: {
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            at: string;
            /** @description the same instant on the schedule's wall clock, with its offset (2026-12-05T09:00:00+01:00) */
            local: string;
            /** @description skipped: the wall-clock time does not exist that day (clocks spring forward), it fires at the shift; repeated: it happens twice (clocks fall back), it fires the first time */
            dstShift: ("skipped" | "repeated") | null;
            /** @description the zone's offset differs from the previous occurrence's (for the first: from now's): a DST change lies between */
            offsetChanged: boolean;
        };
        ScheduleTimer: {
            /** @description the occurrence’s timer: `<scheduleKey>@<instant>` in the schedule’s queue */
            timerKey: string;
            /** @description the occurrence instant */
            at: string;
            txn: string;
        };
        /**
         * @example {
         *       "ok": true,
         *       "status": "deleted",
         *       "queue": "reminders",
         *       "scheduleKey": "acme/daily-digest",
         *       "withdrawn": [
         *         {
         *           "timerKey": "acme/daily-digest@2026-11-30T08:00:00Z",
         *           "at": "2026-11-30T08:00:00.000000Z",
         *           "txn": "schedule:6a1f0c2e-9b4d-4e3a-8c57-2d9e0f1b7a64@2026-11-30T08:00:00Z"
         *         }
         *       ],
         *       "tooLate": []
         *     }
         */
        ScheduleDeleteResult: {
            /** @constant */
            ok: true;
            /** @constant */
            status: "deleted";
            queue: string;
            scheduleKey: string;
            /** @description materialized occurrences withdrawn with it: they will not fire */
            withdrawn: components["schemas"]["ScheduleTimer"][];
            /** @description materialized occurrences in a sweeper's hands: each will be (or was) delivered; nothing else will */
            tooLate: components["schemas"]["ScheduleTimer"][];
        } | {
            /** @constant */
            ok: false;
            /** @constant */
            status: "absent";
            queue: string;
            scheduleKey: string;
            /** @description materialized occurrences withdrawn with it: they will not fire */
            withdrawn: components["schemas"]["ScheduleTimer"][];
            /** @description materialized occurrences in a sweeper's hands: each will be (or was) delivered; nothing else will */
            tooLate: components["schemas"]["ScheduleTimer"][];
        };
        /**
         * @example {
         *       "found": true,
         *       "queue": "reminders",
         *       "scheduleKey": "acme/daily-digest",
         *       "cron": "0 9 * * *",
         *       "timezone": "Europe/Rome",
         *       "partition": "acme",
         *       "payloadZstd": false,
         *       "encrypted": false,
         *       "producerSub": "dev",
         *       "revision": 1,
         *       "nextAt": "2026-11-30T08:00:00.000000Z",
         *       "lastAt": null,
         *       "skipped": 0,
         *       "createdAt": "2026-11-30T07:59:39.193000Z",
         *       "updatedAt": "2026-11-30T07:59:39.193000Z",
         *       "payload": "eyJraW5kIjoiZGFpbHktZGlnZXN0In0=",
         *       "nextOccurrences": [
         *         {
         *           "at": "2026-11-30T08:00:00.000000Z",
         *           "local": "2026-11-30T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-01T08:00:00.000000Z",
         *           "local": "2026-12-01T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-02T08:00:00.000000Z",
         *           "local": "2026-12-02T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-03T08:00:00.000000Z",
         *           "local": "2026-12-03T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         },
         *         {
         *           "at": "2026-12-04T08:00:00.000000Z",
         *           "local": "2026-12-04T09:00:00+01:00",
         *           "dstShift": null,
         *           "offsetChanged": false
         *         }
         *       ]
         *     }
         */
        ScheduleGetResult: {
            /** @constant */
            found: true;
            queue: string;
            scheduleKey: string;
            cron: string;
            /** @description canonical IANA name */
            timezone: string;
            partition: string;
            payloadZstd: boolean;
            encrypted: boolean;
            producerSub: string;
            /** @description 1 when created; +1 at every replace */
            revision: number;
            /** @description the next occurrence not yet materialized as a timer (null: the expression has no more) */
            nextAt: string | null;
            /** @description the last occurrence materialized as a timer */
            lastAt: string | null;
            /** @description occurrences missed (outage, sweeper or tenant pause): only the latest missed one fires */
            skipped: number;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            updatedAt: string;
            /** @description base64 exactly as stored: compressed and/or encrypted; never decrypted */
            payload: string;
            /** @description the next 5 occurrences from now (PostgreSQL's clock) */
            nextOccurrences: components["schemas"]["ScheduleOccurrence"][];
        } | {
            /** @constant */
            found: false;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "queue": "reminders",
         *           "scheduleKey": "acme/daily-digest",
         *           "cron": "0 9 * * *",
         *           "timezone": "Europe/Rome",
         *           "partition": "acme",
         *           "payloadZstd": false,
         *           "encrypted": false,
         *           "producerSub": "dev",
         *           "revision": 1,
         *           "nextAt": "2026-11-30T08:00:00.000000Z",
         *           "lastAt": null,
         *           "skipped": 0,
         *           "createdAt": "2026-11-30T07:59:39.193000Z",
         *           "updatedAt": "2026-11-30T07:59:39.193000Z"
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "acme/daily-digest"
         *     }
         */
        ScheduleList: {
            rows: components["schemas"]["ScheduleRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last scheduleKey of this page */
            nextAfter: string | null;
        };
        ScheduleRow: {
            queue: string;
            scheduleKey: string;
            cron: string;
            /** @description canonical IANA name */
            timezone: string;
            partition: string;
            payloadZstd: boolean;
            encrypted: boolean;
            producerSub: string;
            /** @description 1 when created; +1 at every replace */
            revision: number;
            /** @description the next occurrence not yet materialized as a timer (null: the expression has no more) */
            nextAt: string | null;
            /** @description the last occurrence materialized as a timer */
            lastAt: string | null;
            /** @description occurrences missed (outage, sweeper or tenant pause): only the latest missed one fires */
            skipped: number;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            updatedAt: string;
        };
        /**
         * @example {
         *       "configured": true,
         *       "queueId": "c3a0e6d2-5b1f-4e8a-9d27-41f6b0c8e513",
         *       "queue": "reminders",
         *       "namespace": null,
         *       "task": null,
         *       "options": {
         *         "encryptionEnabled": false,
         *         "leaseTime": 60,
         *         "retryLimit": 5,
         *         "priority": 0,
         *         "delayedProcessing": 0,
         *         "windowBuffer": 0,
         *         "maxSize": 0,
         *         "retentionSeconds": 0,
         *         "completedRetentionSeconds": 0,
         *         "retentionEnabled": false,
         *         "retryDelay": 1000,
         *         "ttl": 3600,
         *         "deadLetterQueue": true,
         *         "dlqAfterMaxRetries": true,
         *         "maxWaitTimeSeconds": 0,
         *         "dedupWindowSeconds": 3600
         *       }
         *     }
         */
        ConfigureResult: {
            /** @constant */
            configured: true;
            /** Format: uuid */
            queueId: string;
            queue: string;
            namespace: string | null;
            task: string | null;
            options: components["schemas"]["QueueOptions"];
        };
        QueueOptions: {
            /** @description encrypt payloads at rest (AES-256-GCM); needs QUEEN_ENCRYPTION_KEY on the broker */
            encryptionEnabled: boolean;
            /** @description seconds a pop leases its partition */
            leaseTime: number;
            /** @description redeliveries after a failed ack before the frame goes to the DLQ */
            retryLimit: number;
            /** @description priority among queues: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            priority: number;
            /** @description seconds a frame stays invisible after push: a push becomes a timer due then (docs/queen.md) */
            delayedProcessing: number;
            /** @description seconds frames are held back to batch: a partition's frames are handed out once its newest is that old, on PostgreSQL's clock (docs/queen.md) */
            windowBuffer: number;
            /** @description frames the queue may hold: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            maxSize: number;
            /** @description seconds a frame is kept, consumed or not; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
            retentionSeconds: number;
            /** @description seconds a frame is kept once every consumer group has passed it; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
            completedRetentionSeconds: number;
            /** @description false: no retention for this queue, whatever the cell defaults say */
            retentionEnabled: boolean;
            /** @description milliseconds before a failed frame is redelivered: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            retryDelay: number;
            /** @description seconds a frame lives: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            ttl: number;
            /** @description dead-lettering (always on here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            deadLetterQueue: boolean;
            /** @description dead-letter after retryLimit (always, here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            dlqAfterMaxRetries: boolean;
            /** @description seconds a frame may wait: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            maxWaitTimeSeconds: number;
            /** @description seconds the txn dedupe lasts (forever, here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
            dedupWindowSeconds: number;
        };
        PushResult: {
            /** @description the item's position in the request */
            index: number;
            transaction_id: string;
            /**
             * @description duplicate: the txn was already in the partition; message_id is the existing frame
             * @enum {string}
             */
            status: "queued" | "duplicate";
            /** Format: uuid */
            message_id: string;
            /** @description the queue the item went to (Queen names it so) */
            queueName: string;
        };
        /**
         * @example {
         *       "messages": [
         *         {
         *           "id": "5f485d42-ac77-4ba9-a119-bb6ecc02c013",
         *           "transactionId": "tenant-42-v1",
         *           "partitionId": "06dc8c40-3b50-4120-a49f-443de53b9b4a",
         *           "partition": "Default",
         *           "queue": "reminders",
         *           "consumerGroup": "__QUEUE_MODE__",
         *           "leaseId": null,
         *           "producerSub": "dev",
         *           "traceId": null,
         *           "traceparent": null,
         *           "createdAt": "2026-11-30T07:59:41.390000Z",
         *           "payload": "eyJoZWxsbyI6IndvcmxkIn0=",
         *           "data": {
         *             "hello": "world"
         *           },
         *           "encrypted": false
         *         }
         *       ]
         *     }
         */
        PopResult: {
            messages: components["schemas"]["LogFrame"][];
        };
        LogFrame: {
            /**
             * Format: uuid
             * @description the frame's message id (for a timer: the messageId minted at schedule)
             */
            id: string;
            transactionId: string;
            /**
             * Format: uuid
             * @description pass back with transactionId to ack
             */
            partitionId: string;
            partition: string;
            queue: string;
            consumerGroup: string;
            /** @description the partition lease this frame was popped under; null with autoAck */
            leaseId: string | null;
            /** @description the authenticated subject that pushed or scheduled it */
            producerSub: string;
            /** @description the traceId it was pushed with, else the trace id of the W3C traceparent it was pushed or scheduled with; null when none */
            traceId: string | null;
            /** @description the W3C traceparent of the request that pushed or scheduled it (docs/tracing.md): continue it in the consumer; null when none */
            traceparent: string | null;
            /** @description when the frame entered the log, PostgreSQL clock, microseconds */
            createdAt: string;
            /** @description the exact payload bytes, base64 (decrypted when the queue encrypts and the key fits) */
            payload: string;
            /** @description the payload bytes parsed, when they are one JSON document; else absent */
            data?: unknown;
            /** @description true only when the payload could not be decrypted: payload is then the ciphertext */
            encrypted: boolean;
            /** @description why the payload is not readable (decryption failed); the frame is still delivered */
            error?: string;
        };
        /**
         * @example [
         *       {
         *         "index": 0,
         *         "success": true,
         *         "transactionId": "tenant-42-v1",
         *         "partitionId": "06dc8c40-3b50-4120-a49f-443de53b9b4a",
         *         "queueName": "reminders",
         *         "partitionName": "Default",
         *         "consumerGroup": null,
         *         "status": "completed",
         *         "retryCount": 0,
         *         "leaseReleased": true,
         *         "dlq": false,
         *         "acknowledgedAt": "2026-11-30T07:59:41.512000Z"
         *       }
         *     ]
         */
        AckResults: components["schemas"]["AckResult"][];
        AckResult: {
            /** @description the position of the ack in the request */
            index: number;
            /** @description false: the ack was refused (error, code) and changed nothing */
            success: boolean;
            transactionId: string;
            partitionId: string;
            queueName?: string;
            partitionName?: string;
            /** @description null for '__QUEUE_MODE__' (as Queen answers) */
            consumerGroup?: string | null;
            /**
             * @description completed (committed), failed (to be redelivered) or dlq (dead-lettered: also a failure past retryLimit)
             * @enum {string}
             */
            status?: "completed" | "failed" | "dlq";
            /** @description the frame's failures so far */
            retryCount?: number;
            /** @description this call released the partition's lease: the batch is done, or a failure redelivers it */
            leaseReleased?: boolean;
            /** @description the frame went to the dead letters */
            dlq?: boolean;
            /**
             * @description a completed ack of a frame already committed: nothing changed
             * @constant
             */
            noop?: true;
            /**
             * @description not committed: an earlier failure in the same call stopped the cursor before this frame, which comes back
             * @constant
             */
            redelivered?: true;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            acknowledgedAt?: string;
            /** @description why this ack was refused */
            error?: string;
            /** @description the stable code of that refusal: not_found, lease_mismatch, already_committed */
            code?: string;
        };
        /**
         * @example {
         *       "transactionId": "2e9b7c14-6a3d-4f81-b0e5-93c7d1a4f268",
         *       "success": true,
         *       "results": [
         *         {
         *           "index": 0,
         *           "type": "ack",
         *           "success": true,
         *           "transactionId": "tenant-42-v1",
         *           "status": "completed",
         *           "dlq": false
         *         },
         *         {
         *           "index": 1,
         *           "itemIndex": 0,
         *           "type": "push",
         *           "success": true,
         *           "transactionId": "email-tenant-42-v1",
         *           "messageId": "a41c8e07-2f5b-4d96-8b3a-6e0d9f1c7b52",
         *           "queueName": "emails",
         *           "duplicate": false
         *         }
         *       ]
         *     }
         */
        TransactionResult: {
            /**
             * Format: uuid
             * @description this transaction's id (Queen answers one)
             */
            transactionId: string;
            /** @constant */
            success: true;
            results: components["schemas"]["TransactionItemResult"][];
        };
        TransactionItemResult: {
            /** @description the operation this result belongs to (its position in `operations`) */
            index: number;
            /** @description push: the item's position in that operation's `items`, so two items of one push are told apart */
            itemIndex?: number;
            /** @enum {string} */
            type: "push" | "ack";
            /** @constant */
            success: true;
            /** @description the pushed item's or acked frame's transactionId */
            transactionId: string;
            /** Format: uuid */
            messageId?: string;
            queueName?: string;
            /** @description push: the txn was already in the partition */
            duplicate?: boolean;
            /**
             * @description ack: the verdict recorded
             * @enum {string}
             */
            status?: "completed" | "failed" | "dlq";
            dlq?: boolean;
        };
        /**
         * @example {
         *       "deleted": true,
         *       "existed": true,
         *       "queue": "reminders"
         *     }
         */
        DeleteQueueResult: {
            deleted: boolean;
            existed: boolean;
            queue: string;
        };
        /**
         * @example {
         *       "success": true,
         *       "consumerGroup": "mailer",
         *       "deletedPartitions": 3,
         *       "metadataDeleted": true
         *     }
         */
        DeleteConsumerGroupResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            /** @description cursors removed: one per partition of each queue the group was registered on */
            deletedPartitions: number;
            /** @description the deleteMetadata asked for (the registration goes either way) */
            metadataDeleted: boolean;
        };
        /**
         * @example {
         *       "success": true,
         *       "consumerGroup": "mailer",
         *       "deletedPartitions": 3,
         *       "metadataDeleted": true,
         *       "queueName": "reminders"
         *     }
         */
        DeleteConsumerGroupForQueueResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            /** @description cursors removed: one per partition of each queue the group was registered on */
            deletedPartitions: number;
            /** @description the deleteMetadata asked for (the registration goes either way) */
            metadataDeleted: boolean;
            queueName: string;
        };
        /**
         * @example {
         *       "success": true,
         *       "consumerGroup": "mailer",
         *       "queueName": "reminders",
         *       "seekToEnd": false,
         *       "targetTimestamp": "2026-12-01T00:00:00.000Z",
         *       "partitionsUpdated": 3
         *     }
         */
        SeekConsumerGroupResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            queueName: string;
            seekToEnd: boolean;
            /** @description the instant sought, as given; null for toEnd and toBeginning */
            targetTimestamp: string | null;
            /** @description the group's cursors that moved: one per partition of the queue */
            partitionsUpdated: number;
        };
        /**
         * @example {
         *       "leaseId": "8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68",
         *       "success": true,
         *       "newExpiresAt": "2026-11-30T08:00:41.400000Z",
         *       "renewed": 1
         *     }
         */
        RenewResult: {
            /** Format: uuid */
            leaseId: string;
            /** @constant */
            success: true;
            /** @description the lease now ends here, PostgreSQL clock */
            newExpiresAt: string;
            /** @description partitions held under this lease */
            renewed: number;
        };
        /**
         * @example {
         *       "messages": [
         *         {
         *           "id": "f0d4b6a2-8c1e-4b73-9a5d-2e7c6f3b1a09",
         *           "queue": "reminders",
         *           "partition": "Default",
         *           "consumerGroup": "__QUEUE_MODE__",
         *           "messageId": "5f485d42-ac77-4ba9-a119-bb6ecc02c013",
         *           "transactionId": "tenant-42-v1",
         *           "producerSub": "dev",
         *           "errorMessage": "SMTP 451",
         *           "retryCount": 3,
         *           "fromTimer": false,
         *           "timerKey": null,
         *           "createdAt": "2026-11-30T08:04:12.077000Z",
         *           "payload": "eyJoZWxsbyI6IndvcmxkIn0=",
         *           "data": {
         *             "hello": "world"
         *           },
         *           "encrypted": false
         *         }
         *       ],
         *       "total": 1,
         *       "limit": 100,
         *       "offset": 0
         *     }
         */
        DeadLetterPage: {
            messages: components["schemas"]["DeadLetter"][];
            total: number;
            limit: number;
            offset: number;
        };
        DeadLetter: {
            /** Format: uuid */
            id: string;
            queue: string;
            partition: string;
            /** @description '__timers__' for a timer whose fire exhausted its attempts */
            consumerGroup: string;
            /** Format: uuid */
            messageId: string;
            transactionId: string;
            producerSub: string;
            errorMessage: string | null;
            retryCount: number;
            /** @description a timer that never fired: not replayable */
            fromTimer: boolean;
            timerKey: string | null;
            /** @description when it was dead-lettered */
            createdAt: string;
            /** @description base64 of the payload bytes (decrypted and decompressed when possible) */
            payload: string;
            data?: unknown;
            encrypted: boolean;
            error?: string;
        };
        /**
         * @example {
         *       "replayed": true,
         *       "id": "f0d4b6a2-8c1e-4b73-9a5d-2e7c6f3b1a09",
         *       "queue": "reminders",
         *       "partition": "Default",
         *       "transactionId": "5c8e1f3a-7b2d-4e69-a0f4-d13b6c9e8a27",
         *       "messageId": "e6b3a9d1-4c7f-4a28-9e05-b2d8f1c6a374"
         *     }
         */
        ReplayResult: {
            /** @constant */
            replayed: true;
            id: string;
            queue: string;
            partition: string;
            /** @description the new frame's transactionId */
            transactionId: string;
            /** Format: uuid */
            messageId: string;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "tenant": "acme",
         *           "maxPayloadBytes": 4194304,
         *           "maxTimerPayloadBytes": 1048576,
         *           "horizonSeconds": 2592000,
         *           "maxPendingTimers": 1000000,
         *           "scheduleRatePerSecond": 100000,
         *           "storageLimitBytes": 0,
         *           "schedulePaused": false,
         *           "maxSchedules": 1000,
         *           "minScheduleIntervalSeconds": 1,
         *           "overrides": {
         *             "maxPayloadBytes": null,
         *             "horizonSeconds": 2592000,
         *             "maxPendingTimers": null,
         *             "scheduleRatePerSecond": null,
         *             "storageLimitBytes": null,
         *             "schedulePaused": false,
         *             "maxSchedules": null,
         *             "minScheduleIntervalSeconds": null
         *           }
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "acme"
         *     }
         */
        TenantList: {
            rows: components["schemas"]["TenantPlan"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last tenant of this page */
            nextAfter: string | null;
        };
        /**
         * @example {
         *       "tenant": "acme",
         *       "maxPayloadBytes": 4194304,
         *       "maxTimerPayloadBytes": 1048576,
         *       "horizonSeconds": 2592000,
         *       "maxPendingTimers": 1000000,
         *       "scheduleRatePerSecond": 100000,
         *       "storageLimitBytes": 0,
         *       "schedulePaused": false,
         *       "maxSchedules": 1000,
         *       "minScheduleIntervalSeconds": 1,
         *       "overrides": {
         *         "maxPayloadBytes": null,
         *         "horizonSeconds": 2592000,
         *         "maxPendingTimers": null,
         *         "scheduleRatePerSecond": null,
         *         "storageLimitBytes": null,
         *         "schedulePaused": false,
         *         "maxSchedules": null,
         *         "minScheduleIntervalSeconds": null
         *       }
         *     }
         */
        TenantPlan: {
            tenant: string;
            /** @description the plan's max payload in bytes (at most the cell's 8 MiB): the ceiling of a pushed message */
            maxPayloadBytes: number;
            /** @description min(1 MiB, maxPayloadBytes): the ceiling of a timer's or a schedule's decoded payload */
            maxTimerPayloadBytes: number;
            /** @description how far ahead a timer may be scheduled; never wider than the cell's */
            horizonSeconds: number;
            maxPendingTimers: number;
            scheduleRatePerSecond: number;
            /** @description 0 = unlimited */
            storageLimitBytes: number;
            schedulePaused: boolean;
            /** @description schedules the tenant may hold; a PUT creating one more is 403 schedule_limit_exceeded */
            maxSchedules: number;
            /** @description the shortest gap between two occurrences of one schedule; a cron firing more often is 403 schedule_interval_too_short */
            minScheduleIntervalSeconds: number;
            /** @description what this tenant sets; null = the cell default */
            overrides: {
                maxPayloadBytes: number | null;
                horizonSeconds: number | null;
                maxPendingTimers: number | null;
                scheduleRatePerSecond: number | null;
                storageLimitBytes: number | null;
                maxSchedules: number | null;
                minScheduleIntervalSeconds: number | null;
                schedulePaused: boolean;
            };
        };
        /**
         * @example {
         *       "produceBlocked": false,
         *       "sweeperPaused": false
         *     }
         */
        ClusterFlags: {
            produceBlocked: boolean;
            sweeperPaused: boolean;
        };
        /**
         * @example {
         *       "maintenanceMode": true,
         *       "popMaintenanceMode": false,
         *       "bufferedMessages": 0,
         *       "bufferHealthy": true
         *     }
         */
        MaintenanceState: {
            /** @description the cluster's produce block: pushes and schedules answer 503 produce_blocked while true */
            maintenanceMode: boolean;
            /** @description always false: consumers are never paused (Queen's pop maintenance is not built) */
            popMaintenanceMode: boolean;
            /** @description always 0: a push in maintenance is refused, not buffered */
            bufferedMessages: number;
            /** @description always true: there is no buffer */
            bufferHealthy: boolean;
        };
        /**
         * @example {
         *       "maintenanceMode": true,
         *       "popMaintenanceMode": false,
         *       "bufferedMessages": 0,
         *       "bufferHealthy": true,
         *       "message": "Maintenance mode on: the cluster refuses pushes and schedules (503 produce_blocked) until it is turned off."
         *     }
         */
        MaintenanceChange: {
            /** @description the cluster's produce block: pushes and schedules answer 503 produce_blocked while true */
            maintenanceMode: boolean;
            /** @description always false: consumers are never paused (Queen's pop maintenance is not built) */
            popMaintenanceMode: boolean;
            /** @description always 0: a push in maintenance is refused, not buffered */
            bufferedMessages: number;
            /** @description always true: there is no buffer */
            bufferHealthy: boolean;
            message: string;
        };
        /**
         * @example {
         *       "tenant": "acme",
         *       "sub": "ops@acme",
         *       "grants": [
         *         "produce",
         *         "read"
         *       ],
         *       "operator": false
         *     }
         */
        Whoami: {
            tenant: string;
            sub: string;
            grants: ("produce" | "consume" | "read" | "admin")[];
            /** @description the admin grant counts: this credential is of the operator tenant and carries it (the operator routes answer) */
            operator: boolean;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "queue": "reminders",
         *           "encryptionEnabled": false,
         *           "createdAt": "2026-11-30T07:59:39.193000Z"
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "reminders"
         *     }
         */
        QueueList: {
            rows: components["schemas"]["QueueRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last queue of this page */
            nextAfter: string | null;
        };
        /** @description a queue holds both its pending timers and its log frames */
        QueueRow: {
            queue: string;
            encryptionEnabled: boolean;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
        };
        /**
         * @example {
         *       "at": "2026-11-30T08:00:00.000000Z",
         *       "rows": [
         *         {
         *           "queue": "reminders",
         *           "pending": {
         *             "value": 10200000,
         *             "basis": "estimate"
         *           },
         *           "due": {
         *             "nextMinute": {
         *               "value": 812,
         *               "basis": "exact"
         *             },
         *             "nextHour": {
         *               "value": 9930,
         *               "basis": "exact"
         *             },
         *             "nextDay": {
         *               "value": 10000,
         *               "basis": "at_least"
         *             }
         *           },
         *           "overdue": {
         *             "value": 1204,
         *             "basis": "exact"
         *           },
         *           "overdueOver5s": {
         *             "value": 1204,
         *             "basis": "exact"
         *           },
         *           "oldestOverdueSeconds": 42.5,
         *           "claimed": {
         *             "value": 0,
         *             "basis": "exact"
         *           },
         *           "fired": {
         *             "lastMinute": 350,
         *             "lastHour": 21000
         *           },
         *           "deadLetters": {
         *             "value": 2,
         *             "basis": "exact"
         *           },
         *           "log": {
         *             "frames": {
         *               "value": 3,
         *               "basis": "exact"
         *             },
         *             "partitions": {
         *               "value": 1,
         *               "basis": "exact"
         *             },
         *             "groups": [
         *               {
         *                 "consumerGroup": "mailer",
         *                 "framesBehind": {
         *                   "value": 3,
         *                   "basis": "exact"
         *                 },
         *                 "partitionsBehind": {
         *                   "value": 1,
         *                   "basis": "exact"
         *                 },
         *                 "oldestUnconsumedAt": "2026-11-30T07:59:41.390000Z",
         *                 "oldestUnconsumedAgeSeconds": 4.2,
         *                 "leasesHeld": 1
         *               }
         *             ],
         *             "groupsTruncated": false
         *           }
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "reminders",
         *       "warnings": [
         *         {
         *           "queue": "reminders",
         *           "code": "overdue",
         *           "message": "queue reminders: 1,204 timers overdue by more than 5 s"
         *         }
         *       ]
         *     }
         */
        Overview: {
            /** @description PostgreSQL's clock when the figures were read */
            at: string;
            rows: components["schemas"]["QueueOverview"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last queue of this page */
            nextAfter: string | null;
            /** @description what needs attention, in words, for this page's queues and the cell */
            warnings: components["schemas"]["DashboardWarning"][];
        };
        QueueOverview: {
            queue: string;
            /** @description timers not yet fired */
            pending: components["schemas"]["Count"];
            /** @description timers whose deliverAt falls after now and within the window */
            due: {
                nextMinute: components["schemas"]["Count"];
                nextHour: components["schemas"]["Count"];
                nextDay: components["schemas"]["Count"];
            };
            /** @description due (deliverAt at or before now) and not yet fired, claimed ones included */
            overdue: components["schemas"]["Count"];
            /** @description overdue by more than 5 s: the number that says something is wrong */
            overdueOver5s: components["schemas"]["Count"];
            oldestOverdueSeconds: number | null;
            /** @description in a sweeper's hands now */
            claimed: components["schemas"]["Count"];
            /** @description timers fired, from the fire-lag history (this minute so far, and the last 60 minutes) */
            fired: {
                lastMinute: number;
                lastHour: number;
            };
            deadLetters: components["schemas"]["Count"];
            log: {
                frames: components["schemas"]["Count"];
                partitions: components["schemas"]["Count"];
                /** @description the first 10 consumer groups by name */
                groups: components["schemas"]["GroupLag"][];
                groupsTruncated: boolean;
            };
        };
        /** @description a number that would need a scan at volume, and how it was obtained */
        Count: {
            value: number;
            /**
             * @description exact: counted; estimate: ≈, from statistics or a sample (show "≈"); at_least: counting stopped at value (show "≥")
             * @enum {string}
             */
            basis: "exact" | "estimate" | "at_least";
        };
        GroupLag: {
            consumerGroup: string;
            /** @description frames after the group's cursors */
            framesBehind: components["schemas"]["Count"];
            /** @description partitions where the group has frames to consume */
            partitionsBehind: components["schemas"]["Count"];
            /** @description when the oldest frame the group has not consumed entered the log */
            oldestUnconsumedAt: string | null;
            oldestUnconsumedAgeSeconds: number | null;
            /** @description partitions leased to the group's consumers now */
            leasesHeld: number;
        };
        DashboardWarning: {
            /** @description null: the whole cell */
            queue: string | null;
            /** @enum {string} */
            code: "overdue" | "dead_letters" | "consumer_lag" | "sweeper_paused" | "produce_blocked";
            message: string;
        };
        /**
         * @example {
         *       "at": "2026-11-30T08:00:00.000000Z",
         *       "queue": "reminders",
         *       "bucketBoundsMs": [
         *         1,
         *         2.5,
         *         5,
         *         10,
         *         25,
         *         50,
         *         100,
         *         250,
         *         500,
         *         1000,
         *         2500,
         *         5000,
         *         10000,
         *         30000,
         *         60000
         *       ],
         *       "series": [
         *         {
         *           "minute": "2026-11-30T07:59:00.000000Z",
         *           "fired": 350,
         *           "p50Ms": 5,
         *           "p99Ms": 25,
         *           "slowerThanLastBound": 0
         *         }
         *       ]
         *     }
         */
        FireLag: {
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            at: string;
            /** @description null: every queue of the tenant */
            queue: string | null;
            /** @description upper bounds of the histogram buckets, ms; a last bucket holds slower fires */
            bucketBoundsMs: number[];
            series: {
                /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
                minute: string;
                fired: number;
                /** @description upper bound of the bucket holding the median lag; null when nothing fired */
                p50Ms: number | null;
                /** @description upper bound of the bucket holding the 99th percentile; the last bound when slower */
                p99Ms: number | null;
                /** @description fires slower than the last bound */
                slowerThanLastBound: number;
            }[];
        };
        /**
         * @example {
         *       "at": "2026-11-30T08:00:00.000000Z",
         *       "queue": "reminders",
         *       "byMinute": [
         *         {
         *           "start": "2026-11-30T08:00:00.000000Z",
         *           "count": {
         *             "value": 812,
         *             "basis": "exact"
         *           }
         *         }
         *       ],
         *       "byDay": [
         *         {
         *           "start": "2026-11-30T00:00:00.000000Z",
         *           "count": {
         *             "value": 1450000,
         *             "basis": "estimate"
         *           }
         *         }
         *       ]
         *     }
         */
        Forecast: {
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            at: string;
            queue: string;
            /** @description the next 60 minutes, from the current minute */
            byMinute: components["schemas"]["ForecastBucket"][];
            /** @description the next 90 days (UTC), from today */
            byDay: components["schemas"]["ForecastBucket"][];
        };
        ForecastBucket: {
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            start: string;
            count: components["schemas"]["Count"];
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "partition": "Default",
         *           "frames": {
         *             "value": 3,
         *             "basis": "exact"
         *           },
         *           "lastSeq": 1042,
         *           "createdAt": "2026-11-30T07:59:39.193000Z"
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "Default"
         *     }
         */
        PartitionList: {
            rows: components["schemas"]["PartitionRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last partition of this page */
            nextAfter: string | null;
        };
        PartitionRow: {
            partition: string;
            frames: components["schemas"]["Count"];
            lastSeq: number;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "consumerGroup": "mailer",
         *           "framesBehind": {
         *             "value": 3,
         *             "basis": "exact"
         *           },
         *           "partitionsBehind": {
         *             "value": 1,
         *             "basis": "exact"
         *           },
         *           "oldestUnconsumedAt": "2026-11-30T07:59:41.390000Z",
         *           "oldestUnconsumedAgeSeconds": 4.2,
         *           "leasesHeld": 1
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "mailer"
         *     }
         */
        GroupList: {
            rows: components["schemas"]["GroupLag"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last consumer group of this page */
            nextAfter: string | null;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "consumerGroup": "mailer",
         *           "partition": "Default",
         *           "expiresAt": "2026-11-30T08:05:00.000000Z",
         *           "batchEndSeq": 1042
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": null
         *     }
         */
        LeaseList: {
            rows: components["schemas"]["LeaseRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description an opaque cursor: pass it as after */
            nextAfter: string | null;
        };
        /** @description a partition leased to a consumer (the lease id itself is not shown) */
        LeaseRow: {
            consumerGroup: string;
            partition: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            expiresAt: string;
            batchEndSeq: number | null;
        };
        /**
         * @example {
         *       "rows": [
         *         {
         *           "seq": 1042,
         *           "id": "5f485d42-ac77-4ba9-a119-bb6ecc02c013",
         *           "transactionId": "tenant-42-v1",
         *           "createdAt": "2026-11-30T07:59:41.390000Z",
         *           "producerSub": "tester",
         *           "timerKey": "tenant/42",
         *           "deliverAt": "2026-11-30T07:59:41.389000Z",
         *           "encrypted": false,
         *           "bytes": 16,
         *           "payload": "eyJraW5kIjoiZGF5NyJ9"
         *         }
         *       ],
         *       "truncated": false,
         *       "nextAfter": "1042"
         *     }
         */
        FrameList: {
            rows: components["schemas"]["FrameRow"][];
            /** @description true when more rows follow; pass nextAfter as after */
            truncated: boolean;
            /** @description the last seq of this page */
            nextAfter: string | null;
        };
        FrameRow: {
            /** @description the frame position: frames of a partition are delivered in seq order */
            seq: number;
            /** Format: uuid */
            id: string;
            transactionId: string;
            /** @description ISO 8601 instant in UTC with microseconds, on PostgreSQL clock */
            createdAt: string;
            producerSub: string;
            /** @description the timer it fired from, if any */
            timerKey: string | null;
            deliverAt: string | null;
            encrypted: boolean;
            bytes: number;
            /** @description base64 exactly as stored (encrypted ones are not decrypted) */
            payload: string;
        };
        /**
         * @example {
         *       "ok": false,
         *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
         *       "code": "horizon_exceeded",
         *       "field": "operations.0.delayMs",
         *       "horizonSeconds": 7776000
         *     }
         */
        Error: {
            /** @constant */
            ok: false;
            /** @description what went wrong and how to fix it, naming the field */
            error: string;
            /**
             * @description stable error code; never reused
             * @enum {string}
             */
            code: "validation_failed" | "invalid_json" | "server_owned_field" | "unknown_field" | "unauthenticated" | "token_invalid" | "token_expired" | "metrics_unauthorized" | "grant_missing" | "schedule_paused" | "horizon_exceeded" | "payload_too_large_for_plan" | "storage_limit_exceeded" | "timer_dlq_not_replayable" | "batch_exceeds_rate" | "schedule_limit_exceeded" | "schedule_interval_too_short" | "not_found" | "route_not_found" | "request_timeout" | "lease_mismatch" | "already_committed" | "body_too_large" | "unsupported_media_type" | "rate_limited" | "pending_quota_exceeded" | "not_ready" | "produce_blocked" | "database_unavailable" | "auth_unavailable" | "encryption_unavailable" | "internal";
            /** @description the offending input field, when there is one */
            field?: string;
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "timers-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    operations: components["schemas"]["TimerOperation"][];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["TimerResult"][];
                    };
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Retry later (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "over the plan's rate of 100000 ops/s; retry after the current second",
                     *       "code": "rate_limited",
                     *       "scheduleRatePerSecond": 100000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-peek": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /**
                 * @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded.
                 * @example trial:acme:day7
                 */
                timerKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PeekResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-cancel": {
        parameters: {
            query?: {
                /**
                 * @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)
                 * @example trial-acme-day7-v1
                 */
                txn?: string;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /**
                 * @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded.
                 * @example trial:acme:day7
                 */
                timerKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-list": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 1000], never refused; empty or non-numeric → the default */
                limit?: number;
                /** @description key (default): by timerKey in byte order; deliverAt: soonest first, then by key */
                order?: "key" | "deliverAt";
                /** @description only keys that start with it, in key order (a search by key prefix) */
                prefix?: string;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TimerList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-usage": {
        parameters: {
            query?: {
                /** @description calendar month, UTC, as YYYY-MM (default: the current month on PostgreSQL clock) */
                period?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "schedules-get": {
        parameters: {
            query?: {
                /** @description upcoming occurrences shown, clamped to [1, 100] */
                occurrences?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /**
                 * @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded.
                 * @example acme/daily-digest
                 */
                scheduleKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleGetResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "schedules-put": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /**
                 * @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded.
                 * @example acme/daily-digest
                 */
                scheduleKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description cron expression: five fields (minute hour day-of-month month day-of-week) or six with seconds first; day-of-month OR day-of-week when both are restricted (Vixie cron); L, W, # and @daily-style nicknames
                     * @example 0 9 * * *
                     */
                    cron: string;
                    /**
                     * @description IANA time zone the expression is read in (default UTC). DST: a local time the zone skips fires once at the shift; one it repeats fires once, the first time
                     * @example Europe/Rome
                     */
                    timezone?: string;
                    /**
                     * Format: base64
                     * @description the exact payload bytes, base64
                     */
                    payload: string;
                    /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
                    partition?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SchedulePutResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Retry later (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "over the plan's rate of 100000 ops/s; retry after the current second",
                     *       "code": "rate_limited",
                     *       "scheduleRatePerSecond": 100000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "schedules-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /**
                 * @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded.
                 * @example acme/daily-digest
                 */
                scheduleKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleDeleteResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "schedules-list": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 1000], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-configure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description queue name (created on first use); at most 256 bytes (UTF-8)
                     * @example reminders
                     */
                    queue: string;
                    /** @description the namespace (Queen's); kept and echoed */
                    namespace?: string | null;
                    /** @description the task (Queen's); kept and echoed */
                    task?: string | null;
                    /** @default {} */
                    options?: {
                        /** @description encrypt payloads at rest (AES-256-GCM); needs QUEEN_ENCRYPTION_KEY on the broker */
                        encryptionEnabled?: boolean;
                        /** @description seconds a pop leases its partition */
                        leaseTime?: number;
                        /** @description redeliveries after a failed ack before the frame goes to the DLQ */
                        retryLimit?: number;
                        /** @description priority among queues: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        priority?: number;
                        /** @description seconds a frame stays invisible after push: a push becomes a timer due then (docs/queen.md) */
                        delayedProcessing?: number;
                        /** @description seconds frames are held back to batch: a partition's frames are handed out once its newest is that old, on PostgreSQL's clock (docs/queen.md) */
                        windowBuffer?: number;
                        /** @description frames the queue may hold: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        maxSize?: number;
                        /** @description seconds a frame is kept, consumed or not; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
                        retentionSeconds?: number;
                        /** @description seconds a frame is kept once every consumer group has passed it; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
                        completedRetentionSeconds?: number;
                        /** @description false: no retention for this queue, whatever the cell defaults say */
                        retentionEnabled?: boolean;
                        /** @description milliseconds before a failed frame is redelivered: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        retryDelay?: number;
                        /** @description seconds a frame lives: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        ttl?: number;
                        /** @description dead-lettering (always on here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        deadLetterQueue?: boolean;
                        /** @description dead-letter after retryLimit (always, here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        dlqAfterMaxRetries?: boolean;
                        /** @description seconds a frame may wait: accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        maxWaitTimeSeconds?: number;
                        /** @description seconds the txn dedupe lasts (forever, here): accepted, stored and echoed; no effect on this broker (docs/queen.md) */
                        dedupWindowSeconds?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigureResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    items: components["schemas"]["PushItem"][];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushResult"][];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-popQueue": {
        parameters: {
            query?: {
                /** @description frames to pop at most; clamped to [1, 1000], never refused */
                batch?: number;
                /** @description long-poll: when nothing is there, wait up to `timeout` ms for frames before answering 204 (`true`/`false`, also `1`/`0`; default false) */
                wait?: boolean;
                /** @description long-poll limit in ms, with wait=true; longer than 60000 is clamped */
                timeout?: number;
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup?: string;
                /** @description complete the frames as they are handed out (no lease) (`true`/`false`, also `1`/`0`; default false) */
                autoAck?: boolean;
                /** @description partitions one pop may take, clamped to [1, 100]; batch caps the frames across them, all under one leaseId */
                partitions?: number;
                /** @description where a named group new to the queue starts: `new` after the newest frame; anything else (Queen's `all`) at the beginning */
                subscriptionMode?: string;
                /** @description `now`, or an ISO instant: a new named group starts at the first frame created at or after it (unparsable: ignored) */
                subscriptionFrom?: string;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-popPartition": {
        parameters: {
            query?: {
                /** @description frames to pop at most; clamped to [1, 1000], never refused */
                batch?: number;
                /** @description long-poll: when nothing is there, wait up to `timeout` ms for frames before answering 204 (`true`/`false`, also `1`/`0`; default false) */
                wait?: boolean;
                /** @description long-poll limit in ms, with wait=true; longer than 60000 is clamped */
                timeout?: number;
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup?: string;
                /** @description complete the frames as they are handed out (no lease) (`true`/`false`, also `1`/`0`; default false) */
                autoAck?: boolean;
                /** @description partitions one pop may take, clamped to [1, 100]; batch caps the frames across them, all under one leaseId */
                partitions?: number;
                /** @description where a named group new to the queue starts: `new` after the newest frame; anything else (Queen's `all`) at the beginning */
                subscriptionMode?: string;
                /** @description `now`, or an ISO instant: a new named group starts at the first frame created at or after it (unparsable: ignored) */
                subscriptionFrom?: string;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
                /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
                partition: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8)
                     * @example trial-acme-day7-v1
                     */
                    transactionId: string;
                    /**
                     * Format: uuid
                     * @description the frame's partitionId
                     */
                    partitionId: string;
                    /**
                     * @description failed: redelivered up to the queue's retryLimit, then DLQ; retry: redelivered, the limit untouched (recorded as failed)
                     * @default completed
                     * @enum {string}
                     */
                    status?: "completed" | "failed" | "dlq" | "retry";
                    /** @description the leaseId of the pop; when given it must be the live lease */
                    leaseId?: string | null;
                    /** @description why it failed; kept on the dead letter */
                    error?: string | null;
                    consumerGroup?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AckResults"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the live state: a lease that is not live, or a frame already committed */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "lease 8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68 is not live: it expired or its batch was settled; its frames are redelivered to the next pop",
                     *       "code": "lease_mismatch",
                     *       "field": "leaseId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-ackBatch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    acknowledgments: components["schemas"]["Ack"][];
                    consumerGroup?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AckResults"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-transaction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    operations: components["schemas"]["TransactionOperation"][];
                    requiredLeases?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the live state: a lease that is not live, or a frame already committed */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "lease 8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68 is not live: it expired or its batch was settled; its frames are redelivered to the next pop",
                     *       "code": "lease_mismatch",
                     *       "field": "leaseId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-deleteQueue": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteQueueResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-deleteConsumerGroup": {
        parameters: {
            query?: {
                /** @description Queen's flag, echoed: a group here has no metadata apart from its registration, which goes either way (`true`/`false`, also `1`/`0`; default true) */
                deleteMetadata?: boolean;
            };
            header?: never;
            path: {
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteConsumerGroupResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-deleteConsumerGroupForQueue": {
        parameters: {
            query?: {
                /** @description Queen's flag, echoed: a group here has no metadata apart from its registration, which goes either way (`true`/`false`, also `1`/`0`; default true) */
                deleteMetadata?: boolean;
            };
            header?: never;
            path: {
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup: string;
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteConsumerGroupForQueueResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-seekConsumerGroup": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup: string;
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description true: after the newest frame of each partition */
                    toEnd?: boolean;
                    /**
                     * Format: date-time
                     * @description ISO 8601: the group next reads the first frame created after this instant, on each partition
                     */
                    timestamp?: string;
                    /** @description true: before the oldest frame of each partition */
                    toBeginning?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeekConsumerGroupResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-renewLease": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description the leaseId of the pop
                 * @example 8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68
                 */
                leaseId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description default: the queue's leaseTime */
                    seconds?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RenewResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with the live state: a lease that is not live, or a frame already committed */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "lease 8d2f64c1-93a7-4b5e-a0c2-7e1f3b9d4a68 is not live: it expired or its batch was settled; its frames are redelivered to the next pop",
                     *       "code": "lease_mismatch",
                     *       "field": "leaseId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-dlq": {
        parameters: {
            query?: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue?: string;
                /** @description consumer group; '__QUEUE_MODE__' = competing consumers; at most 256 bytes (UTF-8) */
                consumerGroup?: string;
                /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
                partition?: string;
                /** @description dead-lettered at or after this instant (ISO 8601) */
                from?: string;
                /** @description dead-lettered at or before this instant (ISO 8601) */
                to?: string;
                /** @description page size, clamped to [1, 1000] */
                limit?: number;
                /** @description rows to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetterPage"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-replay": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dead letter id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayResult"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-listTenants": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 1000], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-getTenant": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example acme */
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantPlan"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-putTenant": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example acme */
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    maxPayloadBytes?: number | null;
                    horizonSeconds?: number | null;
                    maxPendingTimers?: number | null;
                    scheduleRatePerSecond?: number | null;
                    storageLimitBytes?: number | null;
                    schedulePaused?: boolean;
                    maxSchedules?: number | null;
                    minScheduleIntervalSeconds?: number | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantPlan"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-getCluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClusterFlags"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-putCluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    produceBlocked?: boolean;
                    sweeperPaused?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClusterFlags"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-getMaintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceState"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "no frame with transactionId \"tenant-42-v1\" in partition 06dc8c40-3b50-4120-a49f-443de53b9b4a",
                     *       "code": "not_found",
                     *       "field": "transactionId"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "admin-setMaintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description true blocks produce cluster-wide, false lifts the block */
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceChange"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Whoami"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-queues": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 200], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-overview": {
        parameters: {
            query?: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue?: string;
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 50], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Overview"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-fireLag": {
        parameters: {
            query?: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue?: string;
                /** @description minutes of history, clamped to [1, 1440] */
                minutes?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FireLag"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-forecast": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Forecast"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-partitions": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 200], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartitionList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-groups": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 200], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-leases": {
        parameters: {
            query?: {
                /** @description exclusive cursor: the nextAfter of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 200], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LeaseList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dashboard-frames": {
        parameters: {
            query?: {
                /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
                partition?: string;
                /** @description exclusive cursor: the nextAfter (a seq) of the previous page */
                after?: string;
                /** @description page size, clamped to [1, 200], never refused; empty or non-numeric → the default */
                limit?: number;
            };
            header?: never;
            path: {
                /**
                 * @description queue name (created on first use); at most 256 bytes (UTF-8)
                 * @example reminders
                 */
                queue: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FrameList"];
                };
            };
            /** @description Malformed input: the message names the field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.deliverAt is not a known field; remove it or check its spelling",
                     *       "code": "unknown_field",
                     *       "field": "operations.0.deliverAt"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "missing Authorization header: send \"Authorization: Bearer <token>\"",
                     *       "code": "unauthenticated"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "operations.0.delayMs: 8640000000 ms is beyond the plan's horizon of 7776000 s",
                     *       "code": "horizon_exceeded",
                     *       "field": "operations.0.delayMs",
                     *       "horizonSeconds": 7776000
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "internal error; it has been logged",
                     *       "code": "internal"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "error": "the broker is starting or draining; retry shortly",
                     *       "code": "not_ready"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
