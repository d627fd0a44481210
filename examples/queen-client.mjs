// Queen's own JavaScript client consuming the frames timers fire, unchanged: schedule a timer with
// curl or the SDK (README, "The 60-second tour"), then run, against `npm start`:
//   npm install queen-mq        # Queen's client; its package asks for Node 22 or later
//   QUEEN_TOKEN=… node examples/queen-client.mjs
// Not run by this repository's CI: queen-mq is not on the npm registry our machines reach.
// test/queen-wire.test.ts replays the requests this makes, header for header.
import { Queen } from 'queen-mq';

const queen = new Queen({ url: process.env.QUEEN_URL ?? 'http://localhost:6632', bearerToken: process.env.QUEEN_TOKEN });

// Creating is optional (a fire creates the queue); the client sends its full option set.
await queen.queue('reminders').create();

// A named consumer group, long-polling. Each frame a timer fired carries the timer's txn as its
// transactionId, its messageId as id and its payload as data; returning acks it as completed,
// throwing acks it as failed (redelivered up to the queue's retryLimit, then dead-lettered).
await queen
  .queue('reminders')
  .group('mailer')
  .consume(async (msg) => {
    console.log(`fired ${msg.createdAt}: txn ${msg.transactionId}`, msg.data);
  });
