// A saga with a compensation timer — the one correct shape, because `absent` may mean "already
// delivered" (docs/api.md, "Timer statuses"):
//
//   1. start:    reserve stock, then schedule `order/<id>/compensate` to fire at the deadline.
//   2. complete: commit the saga's outcome FIRST (reserved → completed), THEN cancel the timer.
//   3. the compensation consumer READS THE SAGA'S STATE BEFORE COMPENSATING, and compensates only
//      by moving reserved → compensated.
//
// Why: a cancel that answers `absent` may mean "it fired 5 ms ago". A consumer that compensated
// blindly would unwind a reservation that was already shipped. With both sides moving the state
// by compare-and-set, exactly one of complete and compensate wins, whatever the timing.
//
// Run against `npm start`:  QUEEN_TOKEN=… npx tsx examples/saga-compensation.ts
import { fileURLToPath } from 'node:url';
import { assertNever, type Message, type QueenTimersClient } from '../sdk/src/index.ts';
import { clientFor, optionsFromEnv, runId, type ExampleOptions } from './env.ts';

export const COMPENSATIONS_QUEUE = 'saga-compensations';
/** How long a saga may stay open before its reservation is released. */
/** How long an order may stay reserved before its compensation fires. */
const SAGA_DEADLINE_MS = 1_000;
/** The deadline of the order that completes at once: long enough that no loaded machine misses it. */
const LONG_DEADLINE_MS = 5 * 60_000;

type SagaState = 'reserved' | 'completed' | 'compensated';

/**
 * The saga's own state. In production this is your database or KV store, and `transition` is a
 * conditional UPDATE (`… SET state = $to WHERE id = $id AND state = $from`); here it is a Map.
 */
export class SagaStore {
  private readonly states = new Map<string, SagaState>();
  get(orderId: string): SagaState | undefined {
    return this.states.get(orderId);
  }
  create(orderId: string): void {
    this.states.set(orderId, 'reserved');
  }
  /** Compare-and-set: true only for the caller that moved it. */
  transition(orderId: string, from: SagaState, to: SagaState): boolean {
    if (this.states.get(orderId) !== from) return false;
    this.states.set(orderId, to);
    return true;
  }
}

const compensationKey = (orderId: string) => `order/${orderId}/compensate`;
const compensationTxn = (orderId: string) => `order-${orderId}-compensate`;

export async function startOrder(qt: QueenTimersClient, store: SagaStore, orderId: string, deadlineMs = SAGA_DEADLINE_MS): Promise<void> {
  store.create(orderId); // reserve the stock
  const r = await qt.timers.schedule({
    queue: COMPENSATIONS_QUEUE,
    timerKey: compensationKey(orderId),
    delayMs: deadlineMs,
    payload: { orderId },
    // Our own txn: a retried start cannot deliver two compensations, and a later `absent` can be
    // looked up in the log by it.
    txn: compensationTxn(orderId),
  });
  if (!r.ok) throw new Error(`order ${orderId}: the compensation timer is already claimed (${r.status}); use a new order id`);
}

/** Closes the saga. Answers whether this order completed (false: it was compensated first). */
export async function completeOrder(qt: QueenTimersClient, store: SagaStore, orderId: string, log: (l: string) => void): Promise<boolean> {
  // The outcome is committed before the cancel: from here on, a compensation that fires anyway
  // reads `completed` and does nothing.
  if (!store.transition(orderId, 'reserved', 'completed')) {
    log(`order ${orderId}: too late to complete — it was already ${store.get(orderId)}`);
    return false;
  }
  const r = await qt.timers.cancel(COMPENSATIONS_QUEUE, compensationKey(orderId), { txn: compensationTxn(orderId) });
  switch (r.status) {
    case 'cancelled':
      log(`order ${orderId}: completed; compensation timer cancelled`);
      break;
    case 'too_late':
      // A sweeper holds it: it will be delivered, and the consumer will read `completed`.
      log(`order ${orderId}: completed; compensation timer too_late (claimed) — its consumer will see the order is completed`);
      break;
    case 'absent':
      // Not pending — maybe delivered; check the log for the txn. Here it was: the frame is in
      // the queue, and the consumer will read `completed`. NOT a success signal on its own.
      log(
        `order ${orderId}: completed; compensation timer absent (txn ${r.txn}: already delivered) — its consumer will see the order is completed`,
      );
      break;
    default:
      assertNever(r, 'cancel verdict');
  }
  return true;
}

/** The compensation consumer: state first, then (maybe) compensate. */
export function compensationHandler(store: SagaStore, log: (l: string) => void, onHandled: (orderId: string) => void) {
  return (message: Message) => {
    const { orderId } = message.json<{ orderId: string }>();
    const state = store.get(orderId);
    if (state === undefined) {
      log(`compensation for unknown order ${orderId} (an earlier run's): ignored`);
    } else if (store.transition(orderId, 'reserved', 'compensated')) {
      log(`order ${orderId}: deadline passed — reservation released (compensated)`);
    } else {
      log(`order ${orderId}: compensation fired but the order is ${state} — nothing to undo`);
    }
    onHandled(orderId);
  };
}

export async function run(o: ExampleOptions): Promise<Record<string, SagaState | undefined>> {
  const log = o.log ?? console.log;
  const qt = clientFor(o);
  const store = new SagaStore();
  const run = runId();
  const [fast, abandoned, late] = [`${run}-A`, `${run}-B`, `${run}-C`];

  await startOrder(qt, store, fast, LONG_DEADLINE_MS);
  for (const id of [abandoned, late]) await startOrder(qt, store, id);
  log(`started orders ${fast} (deadline ${LONG_DEADLINE_MS} ms), ${abandoned}, ${late} (deadline ${SAGA_DEADLINE_MS} ms)`);

  // A completes well within its deadline: its compensation is cancelled.
  await completeOrder(qt, store, fast, log);

  // C completes just after its timer fired: wait until the timer is no longer pending (it was
  // delivered into the compensation queue), then complete. The cancel answers `absent`.
  while ((await qt.timers.peek(COMPENSATIONS_QUEUE, compensationKey(late))).found) await new Promise((r) => setTimeout(r, 25));
  await completeOrder(qt, store, late, log);

  // The consumer handles B's and C's compensations (B was abandoned and is never completed).
  const pending = new Set([abandoned, late]);
  const stop = new AbortController();
  await qt.log.consume(
    COMPENSATIONS_QUEUE,
    compensationHandler(store, log, (id) => {
      pending.delete(id);
      if (pending.size === 0) stop.abort();
    }),
    { signal: stop.signal, timeoutMs: 2_000 },
  );

  const outcome = { A: store.get(fast), B: store.get(abandoned), C: store.get(late) };
  log(`outcome: ${JSON.stringify(outcome)}`);
  return outcome;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(optionsFromEnv());
}
