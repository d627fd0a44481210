// Consume what fires: schedule three timers, then consume their frames with the SDK's worker loop
// (`log.consume`) — once in queue mode (competing workers share the frames) and once as a named
// consumer group (a group reads every frame on its own cursor) — ack, retry a failure, stop, and
// correlate each frame with the timer that made it by its txn and messageId.
//
// Run against `npm start`:  QUEEN_TOKEN=… npx tsx examples/consume.ts
import { fileURLToPath } from 'node:url';
import { clientFor, optionsFromEnv, runId, type ExampleOptions } from './env.ts';

export interface ConsumeOutcome {
  /** txns handled in queue mode, in the order their frames were completed. */
  queueMode: string[];
  /** How many times each txn was delivered in queue mode (the failed one twice). */
  deliveries: Record<string, number>;
  /** txns the `audit` group read. */
  group: string[];
  /** Every frame's id was the messageId its schedule answered. */
  correlated: boolean;
}

export async function run(o: ExampleOptions): Promise<ConsumeOutcome> {
  const log = o.log ?? console.log;
  const qt = clientFor(o);
  const queue = `orders-${runId()}`;

  // Schedule: one timer per order, due in a second. Keep what each answered: the frame it fires
  // will carry the same txn (as transactionId) and messageId (as id).
  const expected = new Map<string, string>(); // txn → messageId
  for (const n of [1, 2, 3]) {
    const r = await qt.timers.schedule({
      queue,
      timerKey: `order/${n}/reminder`,
      delayMs: 1_000,
      txn: `order-${n}-reminder`,
      payload: { order: n },
    });
    if (r.status !== 'scheduled') throw new Error(`order ${n}: ${r.status}`);
    expected.set(r.txn, r.messageId);
    log(`scheduled ${r.timerKey}: txn ${r.txn}, messageId ${r.messageId}`);
  }

  let correlated = true;
  const deliveries: Record<string, number> = {};
  const queueMode: string[] = [];

  // Queue mode (no consumerGroup): workers on this queue compete, each frame goes to one of them.
  // The handler's return acks `completed`; a throw acks `failed`: the frame comes back (up to the
  // queue's retryLimit, 3 by default, then the DLQ) and the frames after it wait for it.
  const stopWorker = new AbortController();
  await qt.log.consume(
    queue,
    (m) => {
      const order = (m.json() as { order: number }).order;
      deliveries[m.transactionId] = (deliveries[m.transactionId] ?? 0) + 1;
      if (expected.get(m.transactionId) !== m.id) correlated = false;
      if (order === 2 && deliveries[m.transactionId] === 1) {
        log(`order ${order}: failing the first delivery (txn ${m.transactionId}) — it will come back`);
        throw new Error('mail server busy');
      }
      log(`order ${order}: sent (txn ${m.transactionId}, delivery ${deliveries[m.transactionId]})`);
      queueMode.push(m.transactionId);
      // Stop: the loop resolves once the frame in hand is acked.
      if (queueMode.length === expected.size) stopWorker.abort();
    },
    { signal: stopWorker.signal, timeoutMs: 5_000, onError: (err) => log(`  (acked failed: ${(err as Error).message})`) },
  );

  // A consumer group reads every frame of the queue on a cursor of its own, whatever queue mode
  // or other groups did: an audit trail here. A new group starts at the beginning of the queue.
  const group: string[] = [];
  const stopAudit = new AbortController();
  await qt.log.consume(
    queue,
    (m) => {
      group.push(m.transactionId);
      log(`audit: saw txn ${m.transactionId} (messageId ${m.id === expected.get(m.transactionId) ? 'matches' : 'differs'})`);
      if (group.length === expected.size) stopAudit.abort();
    },
    { consumerGroup: 'audit', batch: 10, signal: stopAudit.signal, timeoutMs: 5_000 },
  );

  log(`queue mode handled ${queueMode.length} frames, the audit group read ${group.length}`);
  return { queueMode, deliveries, group, correlated };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(optionsFromEnv());
}
