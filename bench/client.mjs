// The log benchmark's HTTP load, in a process of its own so that the broker's CPU is measured
// without it (bench/log.ts spawns it). One job per run, given as JSON in argv[2]; prints one JSON
// line with the result on stdout and exits. Plain JavaScript: it runs on bare `node`.
//
//   push     { url, token, queue, total, batch, inFlight, partitions }         → { seconds }
//   drain    { url, token, queue, group?, consumers, batch, autoAck, expect, limitMs }  → { seconds, received, errors, empty, popMs, ackMs }
//              seconds: until the last expected frame arrived; popMs/ackMs: latency percentiles
//   idle     { url, token, queue, waiters, holdMs }                             → { statuses, latencies }
//              keeps `waiters` long-polls open for holdMs; a waiter that receives a frame
//              records now − frame.data.sentAt (the pusher's clock is this machine's too)
//   backlog  { url, token, queue, batch, group, limitMs }                       → { first, last, batches, errors }
//   schedule { url, token, perSecond, seconds, prefix }                         → { times }
//              single-op POST /api/v1/timers at a steady rate, each timed
//   reads    { url, token, paths }                                              → { times }
//              GETs each path in turn (each must answer 200), timing each
//   pings    { url, token, queue, count, gapMs }                                → { sent, pushMs }
//              one-frame pushes carrying { sentAt } for the idle job's waiters to time
//              pops and acks one partition to the end, timing each pop
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const job = JSON.parse(process.argv[2]);
const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' };
// node:http with keep-alive rather than fetch: the load generator shares the machine's two cores
// with the broker and PostgreSQL, and fetch spends about twice the CPU per request.
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const target = new URL(job.url);

function call(method, path, body) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        method,
        host: target.hostname,
        port: target.port,
        path,
        headers: data === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function push() {
  const { queue, total, batch, inFlight, partitions } = job;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const from = next;
        next += batch;
        const items = [];
        for (let i = from; i < Math.min(total, from + batch); i++) items.push({ queue, partition: `p${i % partitions}`, payload: { i } });
        const r = await call('POST', '/api/v1/push', { items });
        if (r.status !== 201) throw new Error(`push → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000 };
}

function percentiles(values) {
  const s = [...values].sort((a, b) => a - b);
  const at = (p) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 10) / 10;
  return s.length ? { p50: at(0.5), p99: at(0.99), max: at(1) } : {};
}

async function drain() {
  const { queue, group, consumers, batch, autoAck, expect, limitMs } = job;
  let received = 0;
  let empty = 0;
  let doneAt;
  const popMs = [];
  const ackMs = [];
  const errors = {};
  const started = performance.now();
  const deadline = Date.now() + limitMs;
  await Promise.all(
    Array.from({ length: consumers }, async () => {
      while (received < expect && Date.now() < deadline) {
        const t0 = performance.now();
        const r = await call(
          'GET',
          `/api/v1/pop/queue/${encodeURIComponent(queue)}?batch=${batch}&wait=true&timeout=1000${autoAck ? '&autoAck=true' : ''}` +
            (group ? `&consumerGroup=${encodeURIComponent(group)}` : ''),
        );
        popMs.push(performance.now() - t0);
        if (r.status === 204) {
          empty++;
          continue;
        }
        if (r.status !== 200) {
          errors[r.status] = (errors[r.status] ?? 0) + 1;
          await sleep(50);
          continue;
        }
        const frames = r.body.messages;
        received += frames.length;
        // The drain is over when the last frame arrives, not when the other consumers' long-polls
        // on the then-empty queue time out.
        if (received >= expect && doneAt === undefined) doneAt = performance.now();
        if (autoAck) continue;
        const acks = frames.map((f) => ({
          transactionId: f.transactionId,
          partitionId: f.partitionId,
          leaseId: f.leaseId,
          status: 'completed',
        }));
        const t1 = performance.now();
        const a = await call('POST', '/api/v1/ack/batch', { acknowledgments: acks });
        ackMs.push(performance.now() - t1);
        if (a.status !== 200) errors[`ack ${a.status}`] = (errors[`ack ${a.status}`] ?? 0) + 1;
        else for (const x of a.body) if (!x.success) errors[`ack ${x.code}`] = (errors[`ack ${x.code}`] ?? 0) + 1;
      }
    }),
  );
  return {
    seconds: ((doneAt ?? performance.now()) - started) / 1000,
    received,
    errors,
    empty,
    popMs: percentiles(popMs),
    ackMs: percentiles(ackMs),
  };
}

async function idle() {
  const { queue, waiters, holdMs } = job;
  const statuses = {};
  const latencies = [];
  const until = Date.now() + holdMs;
  await Promise.all(
    Array.from({ length: waiters }, async () => {
      while (Date.now() < until) {
        const left = Math.max(100, until - Date.now());
        const r = await call(
          'GET',
          `/api/v1/pop/queue/${encodeURIComponent(queue)}?wait=true&autoAck=true&timeout=${Math.min(left, 60_000)}`,
        ).catch((err) => ({ status: `error ${err.message}` }));
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 200) for (const f of r.body.messages) latencies.push(Date.now() - f.data.sentAt);
        if (typeof r.status !== 'number') await sleep(100);
      }
    }),
  );
  return { statuses, latencies };
}

async function backlog() {
  const { queue, batch, group, limitMs } = job;
  const times = [];
  const errors = {};
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const t0 = performance.now();
    const r = await call('GET', `/api/v1/pop/queue/${encodeURIComponent(queue)}?batch=${batch}&consumerGroup=${group}`);
    const ms = performance.now() - t0;
    if (r.status === 204) break;
    if (r.status !== 200) {
      errors[`pop ${r.status}`] = (errors[`pop ${r.status}`] ?? 0) + 1;
      continue;
    }
    times.push(ms);
    const acks = r.body.messages.map((f) => ({ transactionId: f.transactionId, partitionId: f.partitionId, leaseId: f.leaseId }));
    const a = await call('POST', '/api/v1/ack/batch', { acknowledgments: acks, consumerGroup: group });
    if (a.status !== 200) errors[`ack ${a.status}`] = (errors[`ack ${a.status}`] ?? 0) + 1;
    else for (const x of a.body) if (!x.success) errors[`ack ${x.code}`] = (errors[`ack ${x.code}`] ?? 0) + 1;
  }
  return { first: times[0], last: times[times.length - 1], batches: times.length, errors };
}

/** Single-op schedules at `perSecond` for `seconds`, each timed from send to answer. */
async function schedule() {
  const { perSecond, seconds, prefix } = job;
  const times = [];
  const inflight = [];
  const started = performance.now();
  for (let i = 0; i < perSecond * seconds; i++) {
    const wait = started + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    inflight.push(
      (async () => {
        const s = performance.now();
        const r = await call('POST', '/api/v1/timers', {
          operations: [{ op: 'schedule', queue: 'later', timerKey: `${prefix}${i}`, delayMs: 3_600_000, payload: 'e30=' }],
        });
        if (r.status !== 200) throw new Error(`schedule → ${r.status}`);
        times.push(performance.now() - s);
      })(),
    );
  }
  await Promise.all(inflight);
  return { times };
}

/** One frame at a time to `queue`, `gapMs` apart, each carrying the instant it was sent. */
async function pings() {
  const { queue, count, gapMs } = job;
  const pushMs = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = await call('POST', '/api/v1/push', { items: [{ queue, payload: { sentAt: Date.now() } }] });
    pushMs.push(performance.now() - t0);
    if (r.status !== 201) throw new Error(`push → ${r.status}`);
    await sleep(gapMs);
  }
  return { sent: count, pushMs: percentiles(pushMs) };
}

/**
 * The soak's steady load for `seconds`: schedules (batches of 50, delays 1–60 s) and pushes
 * (batches of 50, 8 partitions) at fixed rates over `queues`, and `consumers` queue-mode consumers
 * popping (batch 100, long-poll) and acking until a few seconds after the end.
 */
async function soak() {
  const { seconds, schedulePerSecond, pushPerSecond, consumers, queues } = job;
  const deadline = Date.now() + seconds * 1000;
  const errors = {};
  const note = (k) => (errors[k] = (errors[k] ?? 0) + 1);
  const counts = { scheduled: 0, pushed: 0, received: 0 };
  const paced = async (perSecond, fn) => {
    if (perSecond <= 0) return;
    const interval = (1000 * 50) / perSecond;
    let next = Date.now();
    while (Date.now() < deadline) {
      await fn();
      next += interval;
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
    }
  };
  let k = 0;
  const scheduler = paced(schedulePerSecond, async () => {
    const operations = Array.from({ length: 50 }, () => {
      const i = k++;
      return {
        op: 'schedule',
        queue: queues[i % queues.length],
        timerKey: `soak-${i}`,
        delayMs: 1000 + ((i * 7919) % 59000),
        payload: 'eyJzIjoxfQ==',
      };
    });
    const r = await call('POST', '/api/v1/timers', { operations });
    if (r.status !== 200) note(`schedule ${r.status}`);
    else counts.scheduled += operations.length;
  });
  let p = 0;
  const pusher = paced(pushPerSecond, async () => {
    const items = Array.from({ length: 50 }, () => {
      const i = p++;
      return { queue: queues[i % queues.length], partition: `p${i % 8}`, payload: { n: i } };
    });
    const r = await call('POST', '/api/v1/push', { items });
    if (r.status !== 201) note(`push ${r.status}`);
    else counts.pushed += items.length;
  });
  const consumer = async (c) => {
    const queue = queues[c % queues.length];
    while (Date.now() < deadline + 5000) {
      const r = await call('GET', `/api/v1/pop/queue/${queue}?batch=100&wait=true&timeout=1000`);
      if (r.status === 204) continue;
      if (r.status !== 200) {
        note(`pop ${r.status}`);
        await sleep(100);
        continue;
      }
      counts.received += r.body.messages.length;
      const acknowledgments = r.body.messages.map((f) => ({
        transactionId: f.transactionId,
        partitionId: f.partitionId,
        leaseId: f.leaseId,
      }));
      const a = await call('POST', '/api/v1/ack/batch', { acknowledgments });
      if (a.status !== 200) note(`ack ${a.status}`);
    }
  };
  await Promise.all([scheduler, pusher, ...Array.from({ length: consumers }, (_, c) => consumer(c))]);
  return { ...counts, errors };
}

async function reads() {
  const times = [];
  for (const path of job.paths) {
    const t = performance.now();
    const r = await call('GET', path);
    if (r.status !== 200) throw new Error(`GET ${path} -> ${r.status}`);
    times.push(performance.now() - t);
  }
  return { times };
}

const jobs = { push, drain, idle, backlog, schedule, pings, soak, reads };
jobs[job.kind]().then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(0);
  },
  (err) => {
    process.stdout.write(JSON.stringify({ error: err.message }) + '\n');
    process.exit(1);
  },
);
