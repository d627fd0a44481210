// A consumer that retries failed work with its own timer instead of redelivery: on a failure it
// schedules `retry/<jobId>` into the same queue with delayMs 250 (doubling per attempt), then
// acks the frame it holds. A 250 ms backoff is exactly what delayMs exists for.
//
// Crash safety, by construction: the retry is scheduled BEFORE the ack, under a key and txn that
// are functions of (job, attempt). If the consumer dies in between, the frame is redelivered and
// scheduling again is the same upsert with the same txn — and if that timer already fired, the
// log deduplicates the txn. No duplicate work is queued either way.
//
// Run against `npm start`:  QUEEN_TOKEN=… npx tsx examples/retry-backoff.ts
import { fileURLToPath } from 'node:url';
import type { HandlerVerdict, Message, QueenTimersClient } from '../sdk/src/index.ts';
import { clientFor, optionsFromEnv, runId, type ExampleOptions } from './env.ts';

export const EMAIL_QUEUE = 'emails';
const FIRST_RETRY_DELAY_MS = 250;
const MAX_ATTEMPTS = 5;

interface EmailJob {
  jobId: string;
  to: string;
  attempt: number;
}

/** 250, 500, 1000, 2000 ms: the wait before attempt n + 1. */
const retryDelayMs = (attempt: number) => FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1);

/**
 * Handles one frame: do the work, or schedule the retry, or give up. Answers the ack verdict for
 * consume(): `completed` also when a retry timer now carries the job; `dlq` after MAX_ATTEMPTS.
 * Throwing (the retry timer could not be scheduled) acks `failed`, so the log redelivers it.
 */
export async function handle(
  qt: QueenTimersClient,
  job: EmailJob,
  send: (job: EmailJob) => Promise<void>,
  log: (l: string) => void,
): Promise<HandlerVerdict> {
  try {
    await send(job);
    log(`job ${job.jobId}: sent on attempt ${job.attempt}`);
    return 'completed';
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (job.attempt >= MAX_ATTEMPTS) {
      log(`job ${job.jobId}: attempt ${job.attempt} failed (${reason}); giving up — dead-lettered`);
      return { status: 'dlq', error: reason };
    }
    const next = job.attempt + 1;
    const delayMs = retryDelayMs(job.attempt);
    const r = await qt.timers.schedule({
      queue: EMAIL_QUEUE,
      timerKey: `retry/${job.jobId}`,
      delayMs, // 250 ms on the first failure
      payload: { ...job, attempt: next },
      txn: `${job.jobId}-attempt-${next}`,
    });
    // too_late: the previous retry timer under this key is being fired right now; acking `failed`
    // lets the log redeliver this frame and we try again.
    if (!r.ok) throw new Error(`job ${job.jobId}: retry timer ${r.status}`, { cause: err });
    log(`job ${job.jobId}: attempt ${job.attempt} failed (${reason}); retry ${next} in ${delayMs} ms (${r.status})`);
    return 'completed';
  }
}

export async function run(o: ExampleOptions): Promise<{ attempts: number[]; gapsMs: number[] }> {
  const log = o.log ?? console.log;
  const qt = clientFor(o);
  const jobId = `welcome-${runId()}`;

  // A flaky mail provider: the first two attempts time out.
  const attempts: number[] = [];
  const at: number[] = [];
  let delivered = false;
  const send = async (job: EmailJob) => {
    attempts.push(job.attempt);
    at.push(Date.now());
    if (job.attempt < 3) throw new Error('SMTP timeout');
    delivered = true;
  };

  await qt.log.push({ queue: EMAIL_QUEUE, payload: { jobId, to: 'ada@example.com', attempt: 1 }, transactionId: `${jobId}-attempt-1` });
  log(`queued job ${jobId}`);

  const stop = new AbortController();
  await qt.log.consume(
    EMAIL_QUEUE,
    async (message: Message) => {
      const job = message.json<EmailJob>();
      if (job.jobId !== jobId) return; // an earlier run's leftovers: acked and dropped
      const verdict = await handle(qt, job, send, log);
      if (delivered || job.attempt >= MAX_ATTEMPTS) stop.abort();
      return verdict;
    },
    { signal: stop.signal, timeoutMs: 2_000 },
  );

  const gapsMs = at.slice(1).map((t, i) => t - at[i]);
  log(`attempts ${attempts.join(', ')}; gaps between attempts ≈ ${gapsMs.map((g) => `${g} ms`).join(', ')} (floors: 250, 500)`);
  return { attempts, gapsMs };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run(optionsFromEnv());
}
