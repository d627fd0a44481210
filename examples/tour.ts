// The 60-second tour of README.md with the SDK: schedule, peek, cancel, and pop the
// frame a timer fired. Run against `npm start`:  QUEEN_TOKEN=… npx tsx examples/tour.ts
import { createClient } from '../sdk/src/index.ts';

const qt = createClient({ baseUrl: process.env.QUEEN_URL ?? 'http://localhost:6632', token: process.env.QUEEN_TOKEN });

// Schedule: a frame in queue "reminders" in 7 days. Payloads are bytes, text or JSON values.
const s = await qt.timers.schedule({
  queue: 'reminders',
  timerKey: 'trial:acme:day7',
  delayMs: 604_800_000,
  txn: 'trial-acme-day7-v1',
  payload: { kind: 'day7' },
  partition: 'acme',
});
console.log(s.status, s.txn); // scheduled trial-acme-day7-v1

// Peek: the pending timer, payload base64 as stored.
const p = await qt.timers.peek('reminders', 'trial:acme:day7');
if (p.found) console.log(p.deliverAt, p.claimed); // 2026-12-07T…Z false

// Cancel: always DELETE /api/v1/timers/:queue/*timerKey. Switch on the closed status union.
const c = await qt.timers.cancel('reminders', 'trial:acme:day7', { txn: 'trial-acme-day7-v1' });
switch (c.status) {
  case 'cancelled': // withdrawn: it will not fire
    console.log('cancelled');
    break;
  case 'too_late': // a sweeper holds it: it will be (or was) delivered
    console.log('too late: act on the message');
    break;
  case 'absent': // not pending — maybe delivered; check the log for the txn
    console.log('absent: look for txn', c.txn, 'in the queue');
    break;
}

// Fire and pop: a timer under a key with a slash, due in 2 s; the frame carries its messageId and txn.
const t = await qt.timers.schedule({ queue: 'reminders', timerKey: 'tenant/42', delayMs: 2_000, payload: { hello: 'world' } });
const [frame] = await qt.log.pop('reminders', { wait: true, timeoutMs: 10_000 });
if (t.status === 'scheduled' && frame) {
  console.log(frame.id === t.messageId, frame.transactionId === t.txn, frame.json()); // true true { hello: 'world' }
  await qt.log.ack(frame);
}
