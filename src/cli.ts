// The `queen-timers` CLI, for operators and developers.
//  - `token`: prints an HS256 token signed with QUEEN_JWT_SECRET or, without it, with the embedded
//    broker's secret in QUEEN_DATA_DIR (default .queen-data, relative to the current folder).
//    Tokens expire in 30 days unless --expires says otherwise.
//  - timers, tail, dlq, group, plan, cluster, stats: the REST API through the SDK (./cli/ops.ts).
// Exit codes: 0 done, 1 the broker refused or could not be reached, 2 a usage or setup mistake.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
// Only ./cli/words.ts is imported up front: `--help` and usage mistakes print without loading the
// SDK, jose or zod; each command imports what it runs (test/cli-start.test.ts).
import { GRANTS, OP_COMMANDS, TAIL_GROUP, UsageError, type Grant } from './cli/words.ts';

const USAGE = `usage: queen-timers <command> [options]

  token --tenant <tenant> --sub <subject> --grant <${GRANTS.join('|')}> [--grant ...] [--expires 30d|12h|never]
      Prints a signed token. It expires after --expires (default 30d; "never" for none).
      The secret is QUEEN_JWT_SECRET, or the embedded broker's QUEEN_DATA_DIR/jwt-secret
      (QUEEN_DATA_DIR defaults to .queen-data in the current folder).
      The admin grant counts only on tokens of the operator tenant (QUEEN_OPERATOR_TENANT, default "operator").

  Over the REST API (--url or QUEEN_URL, default http://localhost:6632; --token or QUEEN_TOKEN;
  --json prints the API's JSON instead of a table):
  timers list <queue> [--after <key>] [--limit <n>]   a queue's pending timers, by key
  timers peek <queue> <timerKey>                      one pending timer
  timers cancel <queue> <timerKey>                    cancel it (cancelled, too_late or absent)
  tail <queue> [--partition <p>] [--group <g>] [--count <n>] [--from-beginning]
      frames as they arrive from now on (--from-beginning: the queue's frames first), read and
      acknowledged by a new observer group "${TAIL_GROUP}:<id>" (it never holds completed
      retention) or by --group; --count stops after n frames
  dlq list [--queue <q>] [--group <g>] [--limit <n>] [--offset <n>]   dead letters, oldest first
  dlq replay <id>                                     push a dead letter again as a new frame
  group seek <group> <queue> --to end|beginning|<ISO 8601 instant>
      move a consumer group's cursors on a queue (it next reads the first frame after the instant)
  group delete <group> [--queue <q>]                  delete a consumer group (on one queue, or all);
                                                      its next pop reads the queue as a new group
  plan get <tenant>                                   a tenant's plan (operator token)
  plan set <tenant> [--max-payload-bytes n] [--horizon-seconds n] [--max-pending-timers n]
           [--schedule-rate n] [--storage-limit-bytes n] [--paused true|false]
           [--max-schedules n] [--min-schedule-interval-seconds n]
      each limit a number, or "default" for the cell default (operator token)
  cluster get | cluster set [--produce-blocked true|false] [--sweeper-paused true|false]
  stats                                               usage, the cell's pending timers, and per queue
                                                      pending, overdue age, dead letters (/metrics)`;

const DEFAULT_EXPIRES = '30d';
/** What jose's setExpirationTime takes: a number and a unit. */
const PERIOD =
  /^\d+\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i;

/** A setup problem, not a mistake in the command: said without the usage. */
class SetupError extends Error {}

/** The signing secret; never created here (a token signed with a new secret would be refused). */
async function secretOf(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.QUEEN_JWT_SECRET) return env.QUEEN_JWT_SECRET;
  const file = resolve(env.QUEEN_DATA_DIR || '.queen-data', 'jwt-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    throw new SetupError(
      `no signing secret: QUEEN_JWT_SECRET is unset and ${file} does not exist. Run this in the folder the embedded broker ` +
        'runs in (or set QUEEN_DATA_DIR to its data folder), or set QUEEN_JWT_SECRET to the broker’s secret.',
    );
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if ((OP_COMMANDS as readonly string[]).includes(command)) {
    const { runOp } = await import('./cli/ops.ts');
    return runOp(command, rest, env, (line) => console.log(line));
  }
  if (command !== 'token') throw new UsageError(`unknown command "${command}"`);
  const { values } = parseArgs({
    args: rest,
    options: {
      tenant: { type: 'string' },
      sub: { type: 'string' },
      grant: { type: 'string', multiple: true },
      expires: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const grants = values.grant ?? [];
  const bad = grants.filter((g) => !(GRANTS as readonly string[]).includes(g));
  if (bad.length) throw new UsageError(`unknown grant(s): ${bad.join(', ')}`);
  if (!values.tenant || !values.sub || grants.length === 0) throw new UsageError('--tenant, --sub and at least one --grant are required');
  const expires = values.expires ?? DEFAULT_EXPIRES;
  if (expires !== 'never' && !PERIOD.test(expires)) {
    throw new UsageError(`--expires "${expires}" is not a period: write a number and a unit (90m, 12h, 30d, 1y) or never`);
  }
  const operator = env.QUEEN_OPERATOR_TENANT || 'operator';
  if (grants.includes('admin') && values.tenant !== operator) {
    console.error(`note: the admin grant counts only on tokens of tenant "${operator}"; this token's admin grant will be refused`);
  }
  const { mintToken } = await import('./auth.ts');
  const token = await mintToken(await secretOf(env), {
    tenant: values.tenant,
    sub: values.sub,
    grants: grants as Grant[],
    expiresIn: expires === 'never' ? undefined : expires,
  });
  console.log(token);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2), process.env);
} catch (err) {
  // A usage mistake or parseArgs' own refusal (an unknown option): one line and the usage, no stack.
  const usage = err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
  if (!usage && !(err instanceof SetupError)) throw err;
  console.error(`queen-timers: ${(err as Error).message}${usage ? `\n\n${USAGE}` : ''}`);
  process.exitCode = 2;
}
