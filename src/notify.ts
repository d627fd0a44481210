// Wake-ups. A NOTIFY is only ever a latency hint: long-polls re-check the log and the sweeper's
// periodic pass stays the source of truth, so a lost notification costs latency, never a message.
//
// In-process listeners are always woken. Against a real PostgreSQL, one dedicated connection per
// broker LISTENs on NOTIFY_CHANNEL so that other brokers' schedules and pushes wake this one.
// Embedded mode is single-broker and skips LISTEN (PGlite multiplexes one backend).
//
// Notifications sent while the LISTEN connection was down (a restart, a failover to a standby
// promoted in the old primary's place) are lost: every reconnect after the first connect wakes
// every local waiter and the sweeper (onReconnect), which look at the database themselves.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { MAX_SLEEP_CEILING_MS } from './config.ts';
import { createClient } from './db/primary.ts';

export const NOTIFY_CHANNEL = 'queen_timers';

export interface TimerDue {
  /** Milliseconds since the epoch on PostgreSQL's clock, of the earliest new deliverAt. */
  deliverAtMs: number;
}

/** Frames were appended (or became deliverable again) in a queue. */
export interface MessagesPushed {
  tenant: string;
  queue: string;
  /** The partitions concerned; undefined: any of the queue's. */
  partitions?: string[];
  /** Only this consumer group can take them (a released lease); undefined: every group. */
  group?: string;
}

type Pushed = { t: string; q: string; p?: string[]; g?: string };
/** 'M': several queues' frames in one notification (a fire's batch spans many queues and tenants). */
type Wire = ({ k: 't'; d: number } | ({ k: 'm' } & Pushed) | { k: 'M'; l: Pushed[] }) & { b?: string };

/**
 * How far ahead a new timer is announced to the other brokers. Every sweeper passes at least every
 * QUEEN_SWEEPER_MAX_SLEEP_MS (at most MAX_SLEEP_CEILING_MS), and each pass reads the next deliverAt
 * from the table, so a timer due later is seen by every sweeper's next pass in time without one.
 * Each NOTIFY is a round trip and a transaction of its own on the server: announcing timers due
 * an hour out cost 256-op schedule batches about a tenth of their throughput (docs/benchmarks.md).
 * Twice the ceiling leaves room for a pass's own length and the brokers' clocks.
 */
export const ANNOUNCE_WITHIN_MS = 2 * MAX_SLEEP_CEILING_MS;

/** NOTIFY payloads are limited to 8000 bytes; past this a message names no partitions (any). */
const MAX_PAYLOAD_CHARS = 7_000;

/** Reconnect pause after the LISTEN connection drops: 100 ms doubling to 10 s, jittered (see reconnectDelayMs). */
export const RECONNECT_BASE_MS = 100;
export const RECONNECT_CAP_MS = 10_000;

/**
 * The pause before reconnect attempt `attempt` (0-based): "equal jitter", half fixed and half
 * random, so brokers that lost PostgreSQL together do not reconnect in lockstep.
 */
export function reconnectDelayMs(attempt: number, random = Math.random): number {
  const full = Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 20));
  return full / 2 + random() * (full / 2);
}

export class Notifier {
  private readonly emitter = new EventEmitter();
  private listener: pg.Client | undefined;
  private stopped = false;
  /** Tags this broker's own notifications, which it has already delivered in-process. */
  private readonly brokerId = randomUUID();

  constructor(
    private readonly pool: pg.Pool,
    private readonly crossBroker: boolean,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.emitter.setMaxListeners(0);
  }

  /** Starts LISTEN on a dedicated connection, reconnecting with jittered backoff when it drops. */
  async start(connectionString: string): Promise<void> {
    if (!this.crossBroker) return;
    let failures = 0;
    let connectedBefore = false;
    const retry = () => {
      if (this.stopped) return;
      setTimeout(() => void connect(), reconnectDelayMs(failures++)).unref();
    };
    const connect = async () => {
      if (this.stopped) return;
      // To the primary when the URL lists several hosts; keepalive notices a vanished server.
      const client = createClient(connectionString, { application_name: 'queen-timers-listen' });
      client.on('error', (err) => this.onError(err));
      client.on('notification', (n) => {
        if (n.channel !== NOTIFY_CHANNEL || !n.payload) return;
        try {
          const w = JSON.parse(n.payload) as Wire;
          if (w.b !== this.brokerId) this.deliver(w);
        } catch {
          // not ours
        }
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      } catch (err) {
        this.onError(err as Error);
        await client.end().catch(() => {});
        return retry();
      }
      // Anything published while we were disconnected is picked up by the periodic checks.
      failures = 0;
      this.listener = client;
      client.on('end', () => {
        this.listener = undefined;
        retry();
      });
      if (connectedBefore) this.emitter.emit('reconnect');
      connectedBefore = true;
    };
    await connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => {});
  }

  /** True once the broker started draining (see drain()). */
  draining = false;

  /** The broker is shutting down: wakes every waiter so long-polls answer now. */
  drain(): void {
    this.draining = true;
    this.emitter.emit('drain');
  }

  onDrain(fn: () => void): () => void {
    this.emitter.on('drain', fn);
    return () => this.emitter.off('drain', fn);
  }

  /**
   * A timer due at `deliverAtMs` was written at `nowMs` (both PostgreSQL's clock): this broker's
   * sweeper hears of it, and the other brokers' too when it is due within ANNOUNCE_WITHIN_MS.
   */
  timerScheduled(deliverAtMs: number, nowMs: number): void {
    const w: Wire = { k: 't', d: deliverAtMs };
    if (deliverAtMs - nowMs <= ANNOUNCE_WITHIN_MS) this.publish(w);
    else this.deliver(w);
  }

  messagesPushed(tenant: string, queue: string, partitions?: string[], group?: string): void {
    this.publish({
      k: 'm',
      t: tenant,
      q: queue,
      ...(partitions ? { p: [...new Set(partitions)] } : {}),
      ...(group !== undefined ? { g: group } : {}),
    });
  }

  /**
   * Frames appended in several queues at once (a fire): one notification per 7,000 characters of
   * them rather than one per queue, since each NOTIFY is a transaction of its own on the server.
   */
  messagesPushedMany(pushed: { tenant: string; queue: string; partitions: string[] }[]): void {
    const list: Pushed[] = pushed.map((x) => ({ t: x.tenant, q: x.queue, p: [...new Set(x.partitions)] }));
    for (const w of list) this.deliver({ k: 'm', ...w });
    if (!this.crossBroker || list.length === 0) return;
    let chunk: Pushed[] = [];
    let chars = 0;
    const send = () => {
      if (chunk.length > 0) this.notify({ k: 'M', l: chunk, b: this.brokerId });
      chunk = [];
      chars = 0;
    };
    for (const w of list) {
      let size = JSON.stringify(w).length + 1;
      // One queue's partitions too many to name: any of its partitions.
      if (size > MAX_PAYLOAD_CHARS / 2) {
        delete w.p;
        size = JSON.stringify(w).length + 1;
      }
      if (chars + size > MAX_PAYLOAD_CHARS) send();
      chunk.push(w);
      chars += size;
    }
    send();
  }

  /** The LISTEN connection is back after a loss: whatever was notified meanwhile was missed. */
  onReconnect(fn: () => void): () => void {
    this.emitter.on('reconnect', fn);
    return () => this.emitter.off('reconnect', fn);
  }

  onTimer(fn: (e: TimerDue) => void): () => void {
    this.emitter.on('timer', fn);
    return () => this.emitter.off('timer', fn);
  }

  onMessages(fn: (e: MessagesPushed) => void): () => void {
    this.emitter.on('messages', fn);
    return () => this.emitter.off('messages', fn);
  }

  private publish(w: Wire): void {
    this.deliver(w);
    if (!this.crossBroker) return;
    const tagged: Wire = { ...w, b: this.brokerId };
    // Past the payload limit a message names no partitions (any of the queue's).
    if (tagged.k === 'm' && JSON.stringify(tagged).length > MAX_PAYLOAD_CHARS) delete tagged.p;
    this.notify(tagged);
  }

  private notify(w: Wire): void {
    this.pool.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, JSON.stringify(w)]).catch(this.onError);
  }

  private deliver(w: Wire): void {
    if (w.k === 't') this.emitter.emit('timer', { deliverAtMs: w.d } satisfies TimerDue);
    else if (w.k === 'M') for (const x of w.l) this.deliver({ k: 'm', ...x });
    else this.emitter.emit('messages', { tenant: w.t, queue: w.q, partitions: w.p, group: w.g } satisfies MessagesPushed);
  }
}
