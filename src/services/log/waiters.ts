// Waiting consumers (long-poll pops), in memory. A waiter holds no transaction and no connection;
// it sleeps until frames it could take may have arrived, its time is up, its caller hangs up, or
// the broker drains.
//
// Who is woken: frames appended to a partition (in this broker or, through NOTIFY, another one)
// wake one waiter per consumer group that may take them — a waiter for that queue whose partition
// filter admits the partition. One is enough: the partition goes to one consumer of a group at a
// time (its lease). An autoAck pop that left frames in its partition passes the word to the next
// waiter of its group (poke). What arrives without an event — a lease that expired because its
// consumer died — is found by a probe every probeMs: one statement for all the (queue, group)
// pairs that have sleeping waiters, waking as many waiters as a pair has partitions ready (≤ 16).
import type { Database } from '../../db/index.ts';
import { INDEX_PLANS, setLocal } from '../../db/plannerSettings.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { MessagesPushed, Notifier } from '../../notify.ts';

/** How often sleeping waiters' groups are probed, by default (QUEEN_LONGPOLL_PROBE_MS). */
export const POP_RECHECK_MS = 1_000;

export interface WaitKey {
  tenant: string;
  queue: string;
  group: string;
  /** A waiter on one partition; undefined: any partition of the queue. */
  partition?: string;
}

/** Partitions counted per (queue, group) by the probe at most: the waiters it wakes at most. */
const PROBE_CAP = 16;

/**
 * probeGroups — how many partitions with work and no live lease each (queue, group) pair has, up
 * to $4. $1 tenants, $2 queues, $3 groups (parallel), $4 cap. Locks: none. Rows: the ready pairs.
 * One bounded walk of partition_consumers_ready per pair, as a scalar subquery.
 */
export const PROBE_GROUPS_SQL = `
SELECT tenant, queue, consumer_group, ready FROM (
  SELECT k.t AS tenant, k.q AS queue, k.g AS consumer_group,
         (SELECT count(*) FROM (SELECT 1 FROM partition_consumers c
                                 WHERE c.tenant = k.t AND c.queue = k.q AND c.consumer_group = k.g
                                   AND c.last_seq > c.cursor_seq
                                   AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= now())
                                 LIMIT $4) r)::int AS ready
    FROM unnest($1::text[], $2::text[], $3::text[]) AS k(t, q, g)) p
 WHERE ready > 0`;

export class Waiter {
  /** Set when woken while awake (popping): the next sleep returns at once. */
  signalled = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    readonly key: WaitKey,
    private readonly registry: Waiters,
  ) {}

  get sleeping(): boolean {
    return this.wakeUp !== undefined;
  }

  wake(): void {
    this.signalled = true;
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  /** Sleeps until woken, the time is up, or the caller hangs up. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.signalled || signal.aborted || this.registry.draining) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.wakeUp = done;
    });
  }

  disarm(): void {
    this.registry.remove(this);
  }
}

export class Waiters {
  /** Waiters by tenant and queue, oldest first (a Set keeps insertion order). */
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  draining = false;

  constructor(
    private readonly db: Database,
    notifier: Notifier,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly probeMs = POP_RECHECK_MS,
  ) {
    notifier.onMessages((e) => this.framesArrived(e));
    notifier.onDrain(() => this.drain());
    // Notifications were lost while LISTEN was down: every waiter looks again.
    notifier.onReconnect(() => this.wakeAll());
  }

  /** Wakes every waiter: each looks at the log again and sleeps anew if there is nothing. */
  wakeAll(): void {
    for (const set of this.byQueue.values()) for (const w of set) w.wake();
  }

  /** Registers a waiter before its first look, so nothing that arrives meanwhile is missed. */
  arm(key: WaitKey): Waiter {
    const waiter = new Waiter(key, this);
    const k = queueKey(key.tenant, key.queue);
    let set = this.byQueue.get(k);
    if (!set) this.byQueue.set(k, (set = new Set()));
    set.add(waiter);
    this.probeTimer ??= setInterval(() => void this.probe(), this.probeMs).unref();
    return waiter;
  }

  remove(waiter: Waiter): void {
    const k = queueKey(waiter.key.tenant, waiter.key.queue);
    const set = this.byQueue.get(k);
    set?.delete(waiter);
    if (set?.size === 0) this.byQueue.delete(k);
    if (this.byQueue.size === 0 && this.probeTimer) {
      clearInterval(this.probeTimer);
      this.probeTimer = undefined;
    }
  }

  /** Waiters registered now (for tests and metrics). */
  get count(): number {
    let n = 0;
    for (const set of this.byQueue.values()) n += set.size;
    return n;
  }

  /** Frames arrived: per partition, one waiter of each group that may take them. */
  framesArrived(e: MessagesPushed): void {
    const set = this.byQueue.get(queueKey(e.tenant, e.queue));
    if (!set) return;
    for (const partition of e.partitions ?? [undefined]) {
      const wokenGroups = new Set<string>();
      for (const w of this.byPreference(set)) {
        if (wokenGroups.has(w.key.group) || w.signalled) continue;
        if (e.group !== undefined && w.key.group !== e.group) continue;
        if (partition !== undefined && w.key.partition !== undefined && w.key.partition !== partition) continue;
        wokenGroups.add(w.key.group);
        w.wake();
      }
    }
  }

  /** Wakes up to n more waiters of the group (frames are there for them). */
  poke(tenant: string, queue: string, group: string, n = 1): void {
    const set = this.byQueue.get(queueKey(tenant, queue));
    if (!set) return;
    for (const w of this.byPreference(set)) {
      if (n <= 0) return;
      if (w.key.group !== group || w.signalled) continue;
      w.wake();
      n--;
    }
  }

  /** Sleeping waiters first (an awake one will look anyway), each in arrival order. */
  private *byPreference(set: Set<Waiter>): Iterable<Waiter> {
    for (const w of set) if (w.sleeping) yield w;
    for (const w of set) if (!w.sleeping) yield w;
  }

  /** One statement for every (queue, group) with sleeping waiters; wakes one waiter per ready pair. */
  private async probe(): Promise<void> {
    if (this.probing || this.draining) return;
    const keys = new Map<string, WaitKey>();
    for (const set of this.byQueue.values()) {
      for (const w of set) if (w.sleeping) keys.set(`${queueKey(w.key.tenant, w.key.queue)}\u0000${w.key.group}`, w.key);
    }
    if (keys.size === 0) return;
    this.probing = true;
    try {
      const list = [...keys.values()];
      const ready = await inTransaction(
        this.db.pool,
        (tx) =>
          tx.query<{ tenant: string; queue: string; consumer_group: string; ready: number }>(PROBE_GROUPS_SQL, [
            list.map((k) => k.tenant),
            list.map((k) => k.queue),
            list.map((k) => k.group),
            PROBE_CAP,
          ]),
        { setup: setLocal(INDEX_PLANS) },
      );
      for (const r of ready.rows) this.poke(r.tenant, r.queue, r.consumer_group, r.ready);
    } catch (err) {
      // The database is away: the waiters time out (204) or find out on their next look.
      this.onError(err);
    } finally {
      this.probing = false;
    }
  }

  /** The broker is shutting down: every waiter answers now, and new ones do not sleep. */
  drain(): void {
    this.draining = true;
    for (const set of this.byQueue.values()) for (const w of set) w.wake();
  }

  stop(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }
}

const queueKey = (tenant: string, queue: string) => `${tenant}\u0000${queue}`;
