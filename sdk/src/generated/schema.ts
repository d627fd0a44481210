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
         * List pending timers of one queue by timerKey in byte order (keyset paging, no payloads)
         * @description `limit` defaults to 100 and is clamped to [1, 1000], never rejected.
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
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        TimerOperation: {
            /** @constant */
            op: "schedule";
            /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
            queue: string;
            /** @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8) */
            timerKey: string;
            /** @description milliseconds from now (PostgreSQL clock); the only way to say when — no absolute instants */
            delayMs: number;
            /** @description minted by the server when absent; every reschedule is a new message with a new txn */
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
            /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
            queue: string;
            /** @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8) */
            timerKey: string;
            /** @description milliseconds from now (PostgreSQL clock); the only way to say when — no absolute instants */
            delayMs: number;
            /** @description minted by the server when absent; every reschedule is a new message with a new txn */
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
            /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
            queue: string;
            /** @description the timer's key within its queue; may contain '/' (but no '.' or '..' segment); at most 1024 bytes (UTF-8) */
            timerKey: string;
            /** @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8) */
            txn?: string;
        };
        PushItem: {
            /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
            queue: string;
            /** @description partition within the queue (default 'Default'); at most 256 bytes (UTF-8) */
            partition?: string;
            /** @description any JSON value; stored as the exact bytes sent for it (numbers, escapes, whitespace and key order kept) */
            payload: unknown;
            /** @description minted (uuid) when absent; a txn already in the partition answers "duplicate" */
            transactionId?: string;
            /** @description a trace id to carry with the frame (Queen's client sends one when given a UUID); returned on pop */
            traceId?: string | null;
        } & {
            [key: string]: unknown;
        };
        Ack: {
            /** @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8) */
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
            /** @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8) */
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
         * Bad request error (400)
         * @description The error information
         * @example {
         *       "code": "BAD_REQUEST",
         *       "message": "Bad request",
         *       "issues": []
         *     }
         */
        "error.BAD_REQUEST": {
            /**
             * @description The error message
             * @example Bad request
             */
            message: string;
            /**
             * @description The error code
             * @example BAD_REQUEST
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        /**
         * Unauthorized error (401)
         * @description The error information
         * @example {
         *       "code": "UNAUTHORIZED",
         *       "message": "Unauthorized",
         *       "issues": []
         *     }
         */
        "error.UNAUTHORIZED": {
            /**
             * @description The error message
             * @example Unauthorized
             */
            message: string;
            /**
             * @description The error code
             * @example UNAUTHORIZED
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        /**
         * Forbidden error (403)
         * @description The error information
         * @example {
         *       "code": "FORBIDDEN",
         *       "message": "Forbidden",
         *       "issues": []
         *     }
         */
        "error.FORBIDDEN": {
            /**
             * @description The error message
             * @example Forbidden
             */
            message: string;
            /**
             * @description The error code
             * @example FORBIDDEN
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        /**
         * Too many requests error (429)
         * @description The error information
         * @example {
         *       "code": "TOO_MANY_REQUESTS",
         *       "message": "Too many requests",
         *       "issues": []
         *     }
         */
        "error.TOO_MANY_REQUESTS": {
            /**
             * @description The error message
             * @example Too many requests
             */
            message: string;
            /**
             * @description The error code
             * @example TOO_MANY_REQUESTS
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        /**
         * Service unavailable error (503)
         * @description The error information
         * @example {
         *       "code": "SERVICE_UNAVAILABLE",
         *       "message": "Service unavailable",
         *       "issues": []
         *     }
         */
        "error.SERVICE_UNAVAILABLE": {
            /**
             * @description The error message
             * @example Service unavailable
             */
            message: string;
            /**
             * @description The error code
             * @example SERVICE_UNAVAILABLE
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
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
        Usage: {
            tenant: string;
            period: string;
            messages: number;
        };
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
            /** @description priority among queues: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            priority: number;
            /** @description seconds a frame stays invisible after push: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            delayedProcessing: number;
            /** @description seconds frames are held back to batch: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            windowBuffer: number;
            /** @description frames the queue may hold: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            maxSize: number;
            /** @description seconds a frame is kept, consumed or not; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
            retentionSeconds: number;
            /** @description seconds a frame is kept once every consumer group has passed it; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
            completedRetentionSeconds: number;
            /** @description false: no retention for this queue, whatever the cell defaults say */
            retentionEnabled: boolean;
            /** @description milliseconds before a failed frame is redelivered: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            retryDelay: number;
            /** @description seconds a frame lives: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            ttl: number;
            /** @description dead-lettering (always on here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            deadLetterQueue: boolean;
            /** @description dead-letter after retryLimit (always, here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            dlqAfterMaxRetries: boolean;
            /** @description seconds a frame may wait: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
            maxWaitTimeSeconds: number;
            /** @description seconds the txn dedupe lasts (forever, here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
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
            /** @description the traceId it was pushed with; null when none */
            traceId: string | null;
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
         * Not found error (404)
         * @description The error information
         * @example {
         *       "code": "NOT_FOUND",
         *       "message": "Not found",
         *       "issues": []
         *     }
         */
        "error.NOT_FOUND": {
            /**
             * @description The error message
             * @example Not found
             */
            message: string;
            /**
             * @description The error code
             * @example NOT_FOUND
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        /**
         * Conflict error (409)
         * @description The error information
         * @example {
         *       "code": "CONFLICT",
         *       "message": "Conflict",
         *       "issues": []
         *     }
         */
        "error.CONFLICT": {
            /**
             * @description The error message
             * @example Conflict
             */
            message: string;
            /**
             * @description The error code
             * @example CONFLICT
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
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
            /** @description the operation this result belongs to */
            index: number;
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
        DeleteQueueResult: {
            deleted: boolean;
            existed: boolean;
            queue: string;
        };
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
        TenantPlan: {
            tenant: string;
            /** @description min(1 MiB, plan): the payload ceiling in bytes of the decoded payload */
            maxPayloadBytes: number;
            /** @description how far ahead a timer may be scheduled; never wider than the cell's */
            horizonSeconds: number;
            maxPendingTimers: number;
            scheduleRatePerSecond: number;
            /** @description 0 = unlimited */
            storageLimitBytes: number;
            schedulePaused: boolean;
            /** @description what this tenant sets; null = the cell default */
            overrides: {
                maxPayloadBytes: number | null;
                horizonSeconds: number | null;
                maxPendingTimers: number | null;
                scheduleRatePerSecond: number | null;
                storageLimitBytes: number | null;
                schedulePaused: boolean;
            };
        };
        /**
         * Internal server error error (500)
         * @description The error information
         * @example {
         *       "code": "INTERNAL_SERVER_ERROR",
         *       "message": "Internal server error",
         *       "issues": []
         *     }
         */
        "error.INTERNAL_SERVER_ERROR": {
            /**
             * @description The error message
             * @example Internal server error
             */
            message: string;
            /**
             * @description The error code
             * @example INTERNAL_SERVER_ERROR
             */
            code: string;
            /**
             * @description An array of issues that were responsible for the error
             * @example []
             */
            issues?: {
                message: string;
            }[];
        };
        ClusterFlags: {
            produceBlocked: boolean;
            sweeperPaused: boolean;
        };
        Error: {
            /** @constant */
            ok: false;
            /** @description what went wrong and how to fix it, naming the field */
            error: string;
            /**
             * @description stable error code; never reused
             * @enum {string}
             */
            code: "validation_failed" | "invalid_json" | "server_owned_field" | "unknown_field" | "unauthenticated" | "token_invalid" | "token_expired" | "grant_missing" | "schedule_paused" | "horizon_exceeded" | "payload_too_large_for_plan" | "storage_limit_exceeded" | "timer_dlq_not_replayable" | "batch_exceeds_rate" | "not_found" | "route_not_found" | "lease_mismatch" | "already_committed" | "body_too_large" | "unsupported_media_type" | "rate_limited" | "pending_quota_exceeded" | "not_ready" | "produce_blocked" | "database_unavailable" | "auth_unavailable" | "encryption_unavailable" | "internal";
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Retry later (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
                queue: string;
                /** @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded. */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-cancel": {
        parameters: {
            query?: {
                txn?: string;
            };
            header?: never;
            path: {
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
                queue: string;
                /** @description Catch-all: the rest of the path after the preceding segment, slashes included, written naturally (e.g. `tenant/42`). Percent-encoding is also accepted and decoded. */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-list": {
        parameters: {
            query?: {
                after?: string;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "timers-usage": {
        parameters: {
            query?: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
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
                        /** @description priority among queues: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        priority?: number;
                        /** @description seconds a frame stays invisible after push: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        delayedProcessing?: number;
                        /** @description seconds frames are held back to batch: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        windowBuffer?: number;
                        /** @description frames the queue may hold: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        maxSize?: number;
                        /** @description seconds a frame is kept, consumed or not; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
                        retentionSeconds?: number;
                        /** @description seconds a frame is kept once every consumer group has passed it; 0 = the cell default (QUEEN_DEFAULT_*RETENTION_SECONDS), at most ten years */
                        completedRetentionSeconds?: number;
                        /** @description false: no retention for this queue, whatever the cell defaults say */
                        retentionEnabled?: boolean;
                        /** @description milliseconds before a failed frame is redelivered: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        retryDelay?: number;
                        /** @description seconds a frame lives: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        ttl?: number;
                        /** @description dead-lettering (always on here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        deadLetterQueue?: boolean;
                        /** @description dead-letter after retryLimit (always, here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        dlqAfterMaxRetries?: boolean;
                        /** @description seconds a frame may wait: accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
                        maxWaitTimeSeconds?: number;
                        /** @description seconds the txn dedupe lasts (forever, here): accepted, stored and echoed; no effect on this broker (README, "Queen's client") */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-popQueue": {
        parameters: {
            query?: {
                batch?: string;
                wait?: "0" | "1" | "true" | "false";
                timeout?: string;
                consumerGroup?: string;
                autoAck?: "0" | "1" | "true" | "false";
                partitions?: string;
                subscriptionMode?: string;
                subscriptionFrom?: string;
            };
            header?: never;
            path: {
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-popPartition": {
        parameters: {
            query?: {
                batch?: string;
                wait?: "0" | "1" | "true" | "false";
                timeout?: string;
                consumerGroup?: string;
                autoAck?: "0" | "1" | "true" | "false";
                partitions?: string;
                subscriptionMode?: string;
                subscriptionFrom?: string;
            };
            header?: never;
            path: {
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    /** @description transaction id: the log deduplicates on it per queue and partition; at most 256 bytes (UTF-8) */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                /** @description queue name (created on first use); at most 256 bytes (UTF-8) */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                /** @description the leaseId of the pop */
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "log-dlq": {
        parameters: {
            query?: {
                queue?: string;
                consumerGroup?: string;
                partition?: string;
                from?: string;
                to?: string;
                limit?: string;
                offset?: string;
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
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
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credential, or a malformed, expired or wrongly signed one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused; retrying will not help (missing grant, plan limit) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not your fault: booting, draining, cluster blocked or database unavailable (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
