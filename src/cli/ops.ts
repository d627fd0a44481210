// The CLI's commands over the REST API, through the SDK (sdk/src): timers, tail, dlq, group, plan,
// cluster, stats. Each prints a human table, or with --json the API's own JSON (one document;
// `tail --json` one frame per line), so scripts read what the SDK returns.
import { parseArgs } from 'node:util';
import { createClient, QueenTimersError, type QueenTimersClient } from '../../sdk/src/index.ts';
import { table } from './table.ts';
import { OP_COMMANDS, TAIL_GROUP, UsageError, type OpCommand } from './words.ts';

export { OP_COMMANDS, TAIL_GROUP, UsageError };

interface Globals {
  url: string;
  token: string | undefined;
  json: boolean;
}

const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
} as const;

type Print = (line: string) => void;

/** Runs one REST command; returns the exit code. */
export async function runOp(command: string, argv: string[], env: NodeJS.ProcessEnv, print: Print): Promise<number> {
  const spec = (COMMANDS as Record<string, Spec | undefined>)[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  const [sub, ...rest] = spec.subcommands ? argv : ['', ...argv];
  const run = spec.subcommands ? spec.subcommands[sub ?? ''] : spec.run;
  if (!run) throw new UsageError(`${command}: unknown subcommand "${sub ?? ''}" (one of ${Object.keys(spec.subcommands!).join(', ')})`);
  const { values, positionals } = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...spec.options }, allowPositionals: true });
  const g: Globals = {
    url: (values.url as string | undefined) ?? env.QUEEN_URL ?? 'http://localhost:6632',
    token: (values.token as string | undefined) ?? env.QUEEN_TOKEN,
    json: Boolean(values.json),
  };
  const qt = createClient({ baseUrl: g.url, token: g.token, retry: { maxAttempts: 2 } });
  try {
    return await run({ qt, g, values, positionals, print });
  } catch (err) {
    if (!(err instanceof QueenTimersError)) throw err;
    const where = err.status === 0 ? ` (is a broker running at ${g.url}? set --url or QUEEN_URL)` : '';
    const auth = err.status === 401 && !g.token ? ' (no token: set --token or QUEEN_TOKEN)' : '';
    console.error(`queen-timers: ${err.status || 'no answer'} ${err.code}: ${err.message}${where}${auth}`);
    return 1;
  }
}

interface Ctx {
  qt: QueenTimersClient;
  g: Globals;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  print: Print;
}
type Run = (c: Ctx) => Promise<number>;
interface Spec {
  options?: Record<string, { type: 'string' | 'boolean' }>;
  run?: Run;
  subcommands?: Record<string, Run>;
}

/** The positionals a command takes, by name, or a usage error naming what is missing. */
function args(c: Ctx, names: string[]): string[] {
  if (c.positionals.length !== names.length) throw new UsageError(`expected ${names.map((n) => `<${n}>`).join(' ')}`);
  return c.positionals;
}

/** An integer option, or a usage error naming it. */
function int(c: Ctx, name: string): number | undefined {
  const v = c.values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
  return Number(v);
}

/** A boolean option written true/false, or a usage error naming it. */
function flag(c: Ctx, name: string): boolean | undefined {
  const v = c.values[name];
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw new UsageError(`--${name} must be true or false, got "${v}"`);
  return v === 'true';
}

/** A plan limit: a whole number, or "default" (back to the cell default). */
function limit(c: Ctx, name: string): number | null | undefined {
  return c.values[name] === 'default' ? null : int(c, name);
}

const out = (c: Ctx, data: unknown, human: () => void) => {
  if (c.g.json) c.print(JSON.stringify(data, null, 2));
  else human();
  return 0;
};

const timers: Record<string, Run> = {
  async list(c) {
    const [queue] = args(c, ['queue']);
    const page = await c.qt.timers.list(queue, { after: c.values.after as string | undefined, limit: int(c, 'limit') });
    return out(c, page, () => {
      c.print(
        table(
          ['key', 'deliver at', 'partition', 'txn', 'attempts', 'claimed'],
          page.rows.map((r) => [r.timerKey, r.deliverAt, r.partition, r.txn, r.attempts, r.claimed]),
        ),
      );
      if (page.truncated) c.print(`more: --after ${JSON.stringify(page.nextAfter)}`);
    });
  },
  async peek(c) {
    const [queue, key] = args(c, ['queue', 'timerKey']);
    const r = await c.qt.timers.peek(queue, key);
    return out(c, r, () => {
      if (!r.found) return c.print(`no pending timer ${queue}/${key} (maybe delivered: look for its txn in the log)`);
      const { found: _, ...fields } = r;
      c.print(table(['field', 'value'], Object.entries(fields)));
    });
  },
  async cancel(c) {
    const [queue, key] = args(c, ['queue', 'timerKey']);
    const r = await c.qt.timers.cancel(queue, key);
    const meaning = {
      cancelled: 'it was pending and will not fire',
      too_late: 'a sweeper holds it: it will be (or was) delivered',
      absent: 'not pending: never scheduled, or already delivered',
    }[r.status];
    return out(c, r, () => c.print(`${r.status}: ${meaning}`));
  },
};

async function tail(c: Ctx): Promise<number> {
  const [queue] = args(c, ['queue']);
  const count = int(c, 'count');
  // Every tail is a new observer of its own (a group named for this call), so that it starts where
  // `tail -f` does: at the frames that arrive from now on; --from-beginning replays the queue first.
  // A group given with --group starts so only on its first pop; later it resumes at its cursors.
  const group =
    (c.values.group as string | undefined) ?? `${TAIL_GROUP}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const fromBeginning = Boolean(c.values['from-beginning']);
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  if (!c.g.json)
    c.print(`tailing ${queue} ${fromBeginning ? 'from the beginning' : 'from new frames'} as consumer group "${group}" (Ctrl-C stops)`);
  for (let seen = 0; count === undefined || seen < count;) {
    let frames;
    try {
      frames = await c.qt.log.pop(queue, {
        consumerGroup: group,
        partition: c.values.partition as string | undefined,
        autoAck: true,
        subscriptionMode: fromBeginning ? 'all' : 'new',
        wait: true,
        timeoutMs: 10_000,
        batch: count === undefined ? 100 : Math.min(100, count - seen),
        signal: stop.signal,
      });
    } catch (err) {
      if (stop.signal.aborted) return 0;
      throw err;
    }
    for (const f of frames) {
      seen++;
      const body = f.text();
      c.print(c.g.json ? JSON.stringify({ ...f, bytes: undefined }) : `${f.createdAt}  ${f.partition}  ${f.transactionId}  ${body}`);
    }
  }
  return 0;
}

const dlq: Record<string, Run> = {
  async list(c) {
    args(c, []);
    const page = await c.qt.deadLetters.list({
      queue: c.values.queue as string | undefined,
      consumerGroup: c.values.group as string | undefined,
      limit: int(c, 'limit'),
      offset: int(c, 'offset'),
    });
    return out(c, page, () => {
      c.print(
        table(
          ['id', 'queue', 'group', 'txn', 'retries', 'dead-lettered at', 'error'],
          page.messages.map((d) => [d.id, d.queue, d.consumerGroup, d.transactionId, d.retryCount, d.createdAt, d.errorMessage ?? '']),
        ),
      );
      c.print(`${page.messages.length} of ${page.total}`);
    });
  },
  async replay(c) {
    const [id] = args(c, ['id']);
    const r = await c.qt.deadLetters.replay(id);
    return out(c, r, () => c.print(`replayed into ${r.queue}/${r.partition} as transactionId ${r.transactionId}`));
  },
};

const group: Record<string, Run> = {
  async seek(c) {
    const [name, queue] = args(c, ['group', 'queue']);
    const to = c.values.to;
    if (typeof to !== 'string') throw new UsageError('group seek: --to end, --to beginning or --to <ISO 8601 instant> is required');
    if (to !== 'end' && to !== 'beginning' && Number.isNaN(Date.parse(to))) {
      throw new UsageError(`--to must be end, beginning or an ISO 8601 instant, got "${to}"`);
    }
    const r = await c.qt.log.seekConsumerGroup(name, queue, to === 'end' || to === 'beginning' ? to : { timestamp: to });
    return out(c, r, () => c.print(`${r.consumerGroup} on ${r.queueName}: ${r.partitionsUpdated} partitions moved to ${to}`));
  },
  async delete(c) {
    const [name] = args(c, ['group']);
    const queue = c.values.queue as string | undefined;
    const r = await c.qt.log.deleteConsumerGroup(name, { queue });
    return out(c, r, () => c.print(`${r.consumerGroup}${queue ? ` on ${queue}` : ''}: ${r.deletedPartitions} cursors deleted`));
  },
};

const PLAN_OPTIONS = {
  'max-payload-bytes': 'maxPayloadBytes',
  'horizon-seconds': 'horizonSeconds',
  'max-pending-timers': 'maxPendingTimers',
  'schedule-rate': 'scheduleRatePerSecond',
  'storage-limit-bytes': 'storageLimitBytes',
  'max-schedules': 'maxSchedules',
  'min-schedule-interval-seconds': 'minScheduleIntervalSeconds',
} as const;

const showPlan = (c: Ctx, plan: Awaited<ReturnType<QueenTimersClient['admin']['plan']>>) =>
  out(c, plan, () =>
    c.print(
      table(
        ['limit', 'in force', 'set for this tenant'],
        [...Object.values(PLAN_OPTIONS), 'schedulePaused' as const].map((k) => [k, plan[k], plan.overrides[k] ?? '(cell default)']),
      ),
    ),
  );

const plan: Record<string, Run> = {
  async get(c) {
    const [tenant] = args(c, ['tenant']);
    return showPlan(c, await c.qt.admin.plan(tenant));
  },
  async set(c) {
    const [tenant] = args(c, ['tenant']);
    const change = Object.fromEntries(Object.entries(PLAN_OPTIONS).map(([opt, field]) => [field, limit(c, opt)]));
    return showPlan(c, await c.qt.admin.setPlan(tenant, { ...change, schedulePaused: flag(c, 'paused') }));
  },
};

const cluster: Record<string, Run> = {
  async get(c) {
    args(c, []);
    const flags = await c.qt.admin.cluster();
    return out(c, flags, () => c.print(table(['flag', 'value'], Object.entries(flags))));
  },
  async set(c) {
    args(c, []);
    const flags = await c.qt.admin.setCluster({ produceBlocked: flag(c, 'produce-blocked'), sweeperPaused: flag(c, 'sweeper-paused') });
    return out(c, flags, () => c.print(table(['flag', 'value'], Object.entries(flags))));
  },
};

/** Prometheus text → samples: name, labels, value. */
function samples(text: string) {
  const rows: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    rows.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return rows;
}

async function stats(c: Ctx): Promise<number> {
  args(c, []);
  const usage = await c.qt.usage();
  const res = await fetch(`${c.g.url.replace(/\/+$/, '')}/metrics`);
  const metrics = samples(await res.text());
  const one = (name: string) => metrics.find((s) => s.name === name)?.value ?? 0;
  const byQueue = new Map<string, Record<string, number>>();
  for (const s of metrics) {
    const column = {
      queen_queue_timers_pending: 'pending',
      queen_queue_timers_overdue_age_seconds: 'overdue s',
      queen_queue_dead_letters: 'dead letters',
    }[s.name];
    if (!column || s.labels.tenant !== usage.tenant) continue;
    const row = byQueue.get(s.labels.queue) ?? {};
    row[column] = s.value;
    byQueue.set(s.labels.queue, row);
  }
  const cell = {
    pendingTimers: one('queen_timers_pending'),
    firedTimers: one('queen_timers_fired_total'),
    deadLetteredTimers: one('queen_timers_dead_lettered_total'),
  };
  const queues = [...byQueue].map(([queue, v]) => ({
    queue,
    pending: v.pending ?? 0,
    overdueSeconds: v['overdue s'] ?? 0,
    deadLetters: v['dead letters'] ?? 0,
  }));
  return out(c, { usage, cell, queues }, () => {
    c.print(`tenant ${usage.tenant}: ${usage.messages} messages billed in ${usage.period}`);
    c.print(
      `cell: ${cell.pendingTimers} pending timers; this broker fired ${cell.firedTimers} and dead-lettered ${cell.deadLetteredTimers} since it started`,
    );
    c.print(
      table(
        ['queue', 'pending', 'overdue s', 'dead letters'],
        queues.map((q) => [q.queue, q.pending, q.overdueSeconds.toFixed(1), q.deadLetters]),
      ),
    );
  });
}

const COMMANDS: Record<OpCommand, Spec> = {
  timers: { options: { after: { type: 'string' }, limit: { type: 'string' } }, subcommands: timers },
  tail: {
    options: { partition: { type: 'string' }, group: { type: 'string' }, count: { type: 'string' }, 'from-beginning': { type: 'boolean' } },
    run: tail,
  },
  dlq: {
    options: { queue: { type: 'string' }, group: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' } },
    subcommands: dlq,
  },
  group: { options: { to: { type: 'string' }, queue: { type: 'string' } }, subcommands: group },
  plan: {
    options: { ...Object.fromEntries(Object.keys(PLAN_OPTIONS).map((k) => [k, { type: 'string' as const }])), paused: { type: 'string' } },
    subcommands: plan,
  },
  cluster: { options: { 'produce-blocked': { type: 'string' }, 'sweeper-paused': { type: 'string' } }, subcommands: cluster },
  stats: { run: stats },
};
