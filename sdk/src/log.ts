// The log routes (Queen-compatible core) a timer delivers into: push, pop, ack, and a consume loop.
import type { CallOptions, Http } from './http.ts';
import { mintId } from './http.ts';
import { segmentPath } from './paths.ts';
import { decodePayload, type DecodedPayload, type JsonValue } from './payload.ts';
import type {
  AckResult,
  ConfigureResult,
  DeleteConsumerGroupForQueueResult,
  DeleteConsumerGroupResult,
  Frame,
  PushResult,
  QueueOptions,
  SeekConsumerGroupResult,
} from './types.ts';

export interface PushItem {
  queue: string;
  partition?: string | undefined;
  /** Any JSON value (the log's push carries JSON; timers carry bytes). */
  payload: JsonValue;
  /** Dedupe key per (queue, partition); the SDK mints a UUID when omitted, so retries are safe. */
  transactionId?: string | undefined;
}

export interface PopOptions extends CallOptions {
  partition?: string | undefined;
  /** Frames per pop (default 1). */
  batch?: number | undefined;
  /** Long-poll: wait up to `timeoutMs` for a frame instead of answering empty at once. */
  wait?: boolean | undefined;
  timeoutMs?: number | undefined;
  /** Default `__QUEUE_MODE__` (competing consumers). */
  consumerGroup?: string | undefined;
  autoAck?: boolean | undefined;
  /**
   * Where a named group new to the queue starts (read on its first pop only): `all` (the default)
   * at the beginning of each partition, `new` after its newest frame.
   */
  subscriptionMode?: 'all' | 'new' | undefined;
}

export type AckStatus = 'completed' | 'failed' | 'dlq';

/**
 * What a consume handler may return: nothing (acked `completed`), an ack status, or a status with
 * the reason kept on the dead letter. Throwing acks `failed` with the error's message.
 */
export type HandlerVerdict = void | undefined | AckStatus | { status: AckStatus; error?: string | undefined };

/** A frame with its payload decoded: `bytes`, `text()`, `json()`. */
export interface Message extends Frame, DecodedPayload {}

export interface ConsumeOptions extends Omit<PopOptions, 'wait' | 'autoAck'> {
  /** Stops the loop: the pending long-poll is aborted and consume() resolves. */
  signal?: AbortSignal | undefined;
  /** Called when a handler throws (after the frame is acked `failed`) or a pop/ack fails. */
  onError?: ((err: unknown, message?: Message) => void) | undefined;
}

/**
 * Where `seekConsumerGroup` puts a group's cursors on a queue: after the newest frame (`end`),
 * before the oldest (`beginning`), or so that it next reads the first frame created after an
 * instant (a Date or an ISO 8601 string).
 */
export type SeekTarget = 'end' | 'beginning' | { timestamp: Date | string };

/** Queue options to change: any of QueueOptions; one omitted or undefined keeps its value. */
export type QueueOptionsInput = { [K in keyof QueueOptions]?: QueueOptions[K] | undefined };

export function decodeFrame(frame: Frame): Message {
  const decoded = decodePayload(frame.payload);
  return Object.assign(Object.create(null) as object, frame, { bytes: decoded.bytes, text: decoded.text, json: decoded.json }) as Message;
}

const QUEUE_MODE = '__QUEUE_MODE__';

export class Log {
  constructor(private readonly http: Http) {}

  /** Pushes one message; answers its result (`queued` or `duplicate`). */
  async push(item: PushItem, opts?: CallOptions): Promise<PushResult> {
    const [result] = await this.pushMany([item], opts);
    return result!;
  }

  /** Pushes several messages in one call; one result per item, in order. */
  async pushMany(items: PushItem[], opts: CallOptions = {}): Promise<PushResult[]> {
    const body = { items: items.map((i) => ({ ...i, transactionId: i.transactionId ?? mintId() })) };
    const res = await this.http.request<PushResult[]>({
      method: 'POST',
      path: '/api/v1/push',
      body,
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data;
  }

  /** Pops up to `batch` frames (an empty array when there is none). */
  async pop(queue: string, opts: PopOptions = {}): Promise<Message[]> {
    const path = `/api/v1/pop/queue/${segmentPath(queue)}${opts.partition !== undefined ? `/partition/${segmentPath(opts.partition)}` : ''}`;
    const res = await this.http.request<{ messages: Frame[] } | undefined>({
      method: 'GET',
      path,
      query: {
        batch: opts.batch,
        wait: opts.wait,
        timeout: opts.timeoutMs,
        consumerGroup: opts.consumerGroup,
        autoAck: opts.autoAck,
        subscriptionMode: opts.subscriptionMode,
      },
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    if (res.status === 204 || !res.data) return [];
    return res.data.messages.map(decodeFrame);
  }

  /**
   * Acknowledges one popped frame: `completed` (commits it and the frames before it),
   * `failed` (redelivered up to the queue's retryLimit, then dead-lettered) or `dlq`. A 409
   * `lease_mismatch` means the lease expired and the frame will be redelivered; a 409
   * `already_committed`, that a failure came after the frame was committed.
   */
  async ack(
    message: Pick<Frame, 'transactionId' | 'partitionId' | 'leaseId' | 'consumerGroup'>,
    status: AckStatus = 'completed',
    opts: CallOptions & { error?: string | undefined } = {},
  ): Promise<AckResult> {
    const body: Record<string, unknown> = { transactionId: message.transactionId, partitionId: message.partitionId, status };
    if (message.consumerGroup && message.consumerGroup !== QUEUE_MODE) body.consumerGroup = message.consumerGroup;
    if (message.leaseId) body.leaseId = message.leaseId;
    if (opts.error !== undefined) body.error = opts.error;
    const res = await this.http.request<AckResult[]>({
      method: 'POST',
      path: '/api/v1/ack',
      body,
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data[0];
  }

  /**
   * Deletes a consumer group: on `queue`, or (omitted) on every queue of your tenant where it is
   * registered. Its cursors, leases and failure counts go (its dead letters stay); its next pop
   * registers it again as a new group. Answers the cursors removed (0: it was not registered).
   */
  async deleteConsumerGroup(
    group: string,
    opts: CallOptions & { queue?: string | undefined } = {},
  ): Promise<DeleteConsumerGroupResult | DeleteConsumerGroupForQueueResult> {
    const base = `/api/v1/consumer-groups/${segmentPath(group)}`;
    const path = opts.queue === undefined ? base : `${base}/queues/${segmentPath(opts.queue)}`;
    const res = await this.http.request<DeleteConsumerGroupResult>({ method: 'DELETE', path, signal: opts.signal });
    return res.data;
  }

  /**
   * Moves a consumer group's cursors on a queue (every partition) to its end, its beginning, or
   * an instant; releases its leases, so frames in flight come again from the new position.
   */
  async seekConsumerGroup(group: string, queue: string, to: SeekTarget, opts: CallOptions = {}): Promise<SeekConsumerGroupResult> {
    const body =
      to === 'end'
        ? { toEnd: true }
        : to === 'beginning'
          ? { toBeginning: true }
          : { timestamp: typeof to.timestamp === 'string' ? to.timestamp : to.timestamp.toISOString() };
    const res = await this.http.request<SeekConsumerGroupResult>({
      method: 'POST',
      path: `/api/v1/consumer-groups/${segmentPath(group)}/queues/${segmentPath(queue)}/seek`,
      body,
      signal: opts.signal,
    });
    return res.data;
  }

  /** Creates a queue or changes its options (omitted ones keep their value); answers the effective options. */
  async configure(queue: string, options: QueueOptionsInput = {}, opts: CallOptions = {}): Promise<ConfigureResult> {
    const res = await this.http.request<ConfigureResult>({
      method: 'POST',
      path: '/api/v1/configure',
      // JSON leaves undefined fields out: the broker sees only the options given.
      body: { queue, options },
      signal: opts.signal,
      traceparent: opts.traceparent,
    });
    return res.data;
  }

  /**
   * Long-polls `queue` and hands each frame to `handler`, then acks it: `completed` when the
   * handler returns nothing, the status it returns (e.g. `'dlq'`), or `failed` when it throws (the
   * log redelivers it up to the queue's retryLimit, then dead-letters it). Any verdict but
   * `completed` releases the batch's lease and the frames after it come back from the log, so
   * the rest of that batch is left unhandled (as Queen's client does). Runs until `signal`
   * aborts and resolves then; frames already popped are still handled and acked. A pop or ack
   * that fails is reported to onError; the loop pauses a second and goes on.
   */
  async consume(
    queue: string,
    handler: (message: Message) => HandlerVerdict | Promise<HandlerVerdict>,
    opts: ConsumeOptions = {},
  ): Promise<void> {
    const { signal, onError, ...pop } = opts;
    while (!signal?.aborted) {
      let messages: Message[];
      try {
        messages = await this.pop(queue, { ...pop, wait: true, timeoutMs: pop.timeoutMs ?? 10_000, signal });
      } catch (err) {
        if (signal?.aborted) return;
        onError?.(err);
        await new Promise((r) => setTimeout(r, 1_000));
        continue;
      }
      for (const message of messages) {
        let status: AckStatus = 'completed';
        let error: string | undefined;
        try {
          const verdict = await handler(message);
          if (typeof verdict === 'string') status = verdict;
          else if (verdict) ({ status, error } = verdict);
        } catch (err) {
          status = 'failed';
          error = err instanceof Error ? err.message : String(err);
          onError?.(err, message);
        }
        try {
          // The ack continues the frame's trace (the producer's), not the context consume() runs in.
          await this.ack(message, status, { error, traceparent: message.traceparent ?? undefined });
        } catch (err) {
          // The lease expires and the frame comes back; nothing is lost.
          onError?.(err, message);
        }
        // A failure (or a dead letter) stopped the cursor here: the frames after it are redelivered.
        if (status !== 'completed') break;
      }
    }
  }
}
