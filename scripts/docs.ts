// Renders every generated block of README.md and docs/*.md (`npm run docs`): the text between
// `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` is replaced by what NAME produces.
//
//   config          the configuration table, from the zod schema's descriptions (src/config.ts)
//   errors          the error codes with their HTTP status (src/errors.ts)
//   routes          the routes with their summary and statuses (openapi.json)
//   file:PATH       the file PATH, fenced
//   run:STEP        a command of the tour and what it printed, run against a broker
//   output:PATH     what the example PATH printed, run against the same broker
//
// The commands run against a broker started here (embedded PGlite in memory, with its sweeper),
// in the order of STEPS, so each output is what that command printed. test/docs.test.ts renders
// the same blocks against a test broker and fails when a file differs from its rendering.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { configFields } from '../src/config.ts';
import { ERRORS } from '../src/errors.ts';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The address every command shows: `npm start`'s. */
export const SHOWN_URL = 'http://localhost:6632';

/** The files that may hold generated blocks. */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

// ── configuration ────────────────────────────────────────────────────────────────────────────

function configShape(): Record<string, z.ZodType> {
  return configFields.shape;
}

function defaultOf(schema: z.ZodType): unknown {
  const r = schema.safeParse(undefined);
  return r.success ? r.data : undefined;
}

/** A variable's default as a user writes it (`true`, `6632`), or "unset". */
function describeDefault(schema: z.ZodType): string {
  const d = defaultOf(schema);
  return d === undefined ? 'unset' : `\`${String(d)}\``;
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderConfigTable(): string {
  const rows = Object.entries(configShape()).map(([name, schema]) => {
    const text = schema.description;
    if (!text) throw new Error(`src/config.ts: ${name} has no .describe() text`);
    return `| \`${name}\` | ${describeDefault(schema)} | ${cell(text)} |`;
  });
  return ['| variable | default | what it does |', '| --- | --- | --- |', ...rows].join('\n');
}

export const configVariables = (): string[] => Object.keys(configShape());

// ── errors ───────────────────────────────────────────────────────────────────────────────────

const STATUS_MEANING: Record<number, string> = {
  400: 'malformed input: the message names the field',
  401: 'no credential, or a malformed, expired or wrongly signed one',
  403: 'refused; retrying will not help',
  404: 'not found',
  409: 'conflicts with the live state (a lease, a committed frame)',
  413: 'request body too large',
  415: 'the body is not JSON',
  429: 'retry later, after `Retry-After`',
  500: 'a bug; the message carries no internals',
  503: 'not your fault: retry after `Retry-After`',
};

export function renderErrorTable(): string {
  const rows = Object.entries(ERRORS).map(([code, status]) => `| \`${code}\` | ${status} | ${STATUS_MEANING[status] ?? ''} |`);
  return ['| code | HTTP | what the status says |', '| --- | --- | --- |', ...rows].join('\n');
}

// ── routes ───────────────────────────────────────────────────────────────────────────────────

interface OpenApiOperation {
  summary?: string;
  responses?: Record<string, unknown>;
}

export function renderRouteTable(): string {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, OpenApiOperation>> };
  const rows: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const statuses = Object.keys(op.responses ?? {}).join(', ');
      rows.push(`| \`${method.toUpperCase()} ${path}\` | ${cell(op.summary ?? '')} | ${statuses} |`);
    }
  }
  return ['| route | what | statuses |', '| --- | --- | --- |', ...rows].join('\n');
}

// ── the tour: commands run against a broker ──────────────────────────────────────────────────

const curl = (args: string) => `curl -sS ${args} -H "Authorization: Bearer $TOKEN"`;
const post = (method: string, path: string, body: string) =>
  `curl -sS -X ${method} ${SHOWN_URL}${path} \\\n  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  -d '${body}'`;

/** The tour's commands, in the order they run (later ones depend on earlier ones' effects). */
export const STEPS: Array<[name: string, command: string]> = [
  [
    'schedule',
    post(
      'POST',
      '/api/v1/timers',
      '{"operations":[{"op":"schedule","queue":"reminders","timerKey":"trial:acme:day7","delayMs":604800000,"txn":"trial-acme-day7-v1","payload":"eyJraW5kIjoiZGF5NyJ9","partition":"acme"}]}',
    ),
  ],
  ['peek', curl(`${SHOWN_URL}/api/v1/timers/reminders/trial:acme:day7`)],
  ['list', curl(`'${SHOWN_URL}/api/v1/timers/reminders?limit=10'`)],
  ['cancel', curl(`-X DELETE '${SHOWN_URL}/api/v1/timers/reminders/trial:acme:day7?txn=trial-acme-day7-v1'`)],
  ['cancel-again', curl(`-X DELETE '${SHOWN_URL}/api/v1/timers/reminders/trial:acme:day7?txn=trial-acme-day7-v1'`)],
  [
    'schedule-short',
    post(
      'POST',
      '/api/v1/timers',
      '{"operations":[{"op":"schedule","queue":"reminders","timerKey":"tenant/42","delayMs":2000,"txn":"tenant-42-v1","payload":"eyJoZWxsbyI6IndvcmxkIn0="}]}',
    ),
  ],
  ['pop', curl(`'${SHOWN_URL}/api/v1/pop/queue/reminders?wait=true&timeout=10000&autoAck=true'`)],
  ['cancel-delivered', curl(`-X DELETE '${SHOWN_URL}/api/v1/timers/reminders/tenant/42?txn=tenant-42-v1'`)],
  [
    'schedule-put',
    post(
      'PUT',
      '/api/v1/schedules/reminders/acme/daily-digest',
      '{"cron":"0 9 * * *","timezone":"Europe/Rome","payload":"eyJraW5kIjoiZGFpbHktZGlnZXN0In0=","partition":"acme"}',
    ),
  ],
  ['schedule-delete', curl(`-X DELETE ${SHOWN_URL}/api/v1/schedules/reminders/acme/daily-digest`)],
];

/** The examples whose output a doc shows (`output:PATH`), run after the steps. */
export const EXAMPLES = ['examples/tour.ts'];
/** The files a doc shows whole (`file:PATH`). */
export const FILES = ['examples/tour.ts', 'examples/queen-client.mjs'];

export interface Broker {
  url: string;
  /** A token of tenant "dev", subject "dev", with produce, consume and read: what `npm start` prints. */
  token: string;
}

/** Runs every step and example against `broker`; answers block name → rendered text. */
export async function renderLive(broker: Broker): Promise<Map<string, string>> {
  const blocks = new Map<string, string>();
  const env = { ...process.env, TOKEN: broker.token, QUEEN_TOKEN: broker.token, QUEEN_URL: broker.url };
  for (const [name, command] of STEPS) {
    const { stdout } = await run('bash', ['-c', command.replaceAll(SHOWN_URL, broker.url)], { cwd: ROOT, env });
    const out = stdout.trim();
    if (!out) throw new Error(`${name}: no output`);
    // Anything but JSON means the command failed; JSON is shown pretty-printed.
    const json = JSON.stringify(JSON.parse(out), null, 2);
    blocks.set(`run:${name}`, `\`\`\`sh\n${command}\n\`\`\`\n\n\`\`\`json\n${json}\n\`\`\``);
  }
  for (const path of EXAMPLES) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path], { cwd: ROOT, env });
    blocks.set(`output:${path}`, `\`\`\`text\n${stdout.trimEnd()}\n\`\`\``);
  }
  return blocks;
}

/** Blocks that need no broker. */
export function renderStatic(): Map<string, string> {
  const blocks = new Map<string, string>([
    ['config', renderConfigTable()],
    ['errors', renderErrorTable()],
    ['routes', renderRouteTable()],
  ]);
  for (const path of FILES) {
    const lang = path.endsWith('.ts') ? 'ts' : 'js';
    blocks.set(`file:${path}`, `\`\`\`${lang}\n${readFileSync(join(ROOT, path), 'utf8').trimEnd()}\n\`\`\``);
  }
  return blocks;
}

export const BLOCK = /<!-- generated:(\S+) -->\n([\s\S]*?)\n?<!-- \/generated:\1 -->/g;

/** Each generated block of `text`: its name and current content. */
export function blocksIn(text: string): Array<{ name: string; content: string }> {
  return [...text.matchAll(BLOCK)].map((m) => ({ name: m[1]!, content: m[2]! }));
}

/** A rendering with its ids and instants masked: what differs from run to run of the same commands. */
export const mask = (s: string) =>
  s
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g, '<instant>');

/**
 * `text` with each block replaced by its rendering; a block with no rendering is an error. A block
 * whose rendering differs only in ids and instants is kept as it is, so a rerun changes nothing.
 */
export function fill(text: string, blocks: Map<string, string>, file = ''): string {
  return text.replace(BLOCK, (whole, name: string, current: string) => {
    const content = blocks.get(name);
    if (content === undefined) throw new Error(`${file}: no rendering for generated block "${name}"`);
    if (mask(current) === mask(content)) return whole;
    return `<!-- generated:${name} -->\n${content}\n<!-- /generated:${name} -->`;
  });
}

async function main() {
  const { createBroker } = await import('../src/broker.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { mintToken } = await import('../src/auth.ts');
  const secret = 'docs-render-secret-0123456789abcdef0123456789';
  const config = loadConfig({ QUEEN_JWT_SECRET: secret, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const broker = await createBroker(config, { dataDir: 'memory://', listen: true, logger: false });
  const url = await broker.start();
  try {
    await broker.services.tenants.ensure('dev');
    const token = await mintToken(secret, { tenant: 'dev', sub: 'dev', grants: ['produce', 'consume', 'read'], expiresIn: '30d' });
    const blocks = new Map([...renderStatic(), ...(await renderLive({ url, token }))]);
    for (const file of docFiles()) {
      const path = join(ROOT, file);
      const before = readFileSync(path, 'utf8');
      const after = fill(before, blocks, file);
      if (after !== before) {
        writeFileSync(path, after);
        console.log(`rendered ${file}`);
      }
    }
  } finally {
    await broker.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
