// Queen's own JavaScript client consuming the frames timers fire. Queen's client is not on the npm
// registry: install it from Queen's repository (docs/queen.md says how), schedule a timer to queue
// `reminders` (README, "The 60-second tour"), then run, against `npm start`:
//   QUEEN_TOKEN=… node examples/queen-client.mjs
// QUEEN_COUNT=N stops after N frames (default: run until interrupted).
// test/queen-client.test.ts runs this file with the real client when one is given to it.
import { Queen } from 'queen-mq';

const queen = new Queen({ url: process.env.QUEEN_URL ?? 'http://localhost:6632', bearerToken: process.env.QUEEN_TOKEN });

// Creating is optional (a fire creates the queue); the client sends its full option set.
await queen.queue('reminders').create();

// A named consumer group, long-polling. `.each()` hands the handler one frame at a time (without
// it, Queen's client hands it the whole popped batch as an array). Each frame a timer fired carries
// the timer's txn as its transactionId, its messageId as id and its payload as data; returning
// acks it as completed, throwing acks it as failed (redelivered up to the queue's retryLimit, then
// dead-lettered).
const consumer = queen.queue('reminders').group('mailer').each();
if (process.env.QUEEN_COUNT) consumer.limit(Number(process.env.QUEEN_COUNT));
await consumer.consume(async (msg) => {
  console.log(`fired ${msg.createdAt}: id ${msg.id} txn ${msg.transactionId} data ${JSON.stringify(msg.data)}`);
});
await queen.close();
