// A recurring schedule: a daily digest at 09:00 in Rome, shown with its next occurrences (in UTC
// and on Rome's wall clock), then a schedule every two seconds
// whose occurrence is popped from its queue like any timer's frame, and both deleted through the
// route nothing but the boot flag can refuse.
//
// Run against `npm start`:  QUEEN_TOKEN=… npx tsx examples/schedule.ts
import { fileURLToPath } from 'node:url';
import { clientFor, optionsFromEnv, runId, type ExampleOptions } from './env.ts';

export const QUEUE = 'reminders';

export async function run(o: ExampleOptions): Promise<{ digest: string[]; heartbeat: string | undefined; deleted: string[] }> {
  const log = o.log ?? console.log;
  const qt = clientFor(o);
  const id = runId();

  // 09:00 every day, Rome time: 08:00 UTC in winter, 07:00 UTC in summer.
  const digest = await qt.schedules.put({
    queue: QUEUE,
    scheduleKey: `acme/daily-digest-${id}`,
    cron: '0 9 * * *',
    timezone: 'Europe/Rome',
    payload: { kind: 'daily-digest' },
    partition: 'acme',
  });
  log(`${digest.status} ${digest.scheduleKey} (revision ${digest.revision}); next occurrences:`);
  for (const n of digest.nextOccurrences) log(`  ${n.at}  = ${n.local} in Rome`);
  const got = await qt.schedules.get(QUEUE, digest.scheduleKey);
  if (got.found) log(`GET: ${got.cron} ${got.timezone}, next ${got.nextAt}, skipped ${got.skipped}`);

  // Every two seconds (six fields: seconds first). Each occurrence is an ordinary timer in the
  // queue, `<scheduleKey>@<instant>`, whose frame carries the txn `schedule:<definition>@<instant>`.
  const heartbeat = await qt.schedules.put({ queue: QUEUE, scheduleKey: `heartbeat-${id}`, cron: '*/2 * * * * *', payload: { beat: id } });
  let fired: string | undefined;
  for (let polls = 0; polls < 10 && fired === undefined; polls++) {
    for (const frame of await qt.log.pop(QUEUE, { wait: true, timeoutMs: 5_000, batch: 10 })) {
      if ((frame.json() as { beat?: string }).beat === id) fired = frame.transactionId;
      await qt.log.ack(frame);
    }
  }
  log(`heartbeat fired: txn ${fired}`);

  const listed = await qt.schedules.list(QUEUE, { limit: 1000 });
  log(`the queue has ${listed.rows.length} schedule(s)`);

  // Stop both. DELETE withdraws the occurrence already materialized as a timer.
  const deleted: string[] = [];
  for (const s of [digest, heartbeat]) {
    const d = await qt.schedules.delete(QUEUE, s.scheduleKey);
    log(`${d.status} ${d.scheduleKey}; withdrawn ${d.withdrawn.map((w) => w.timerKey).join(', ') || 'none'}`);
    deleted.push(d.status);
  }
  return { digest: digest.nextOccurrences.map((n) => n.local), heartbeat: fired, deleted };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(optionsFromEnv());
}
