// Renders the tour section of README.md (between its tour:start and tour:end markers) from
// docs/tour/template.md by RUNNING every command it shows
// against a broker started with `npm start` on a fresh embedded data folder, so each curl in the
// document is one that ran verbatim, and each output is what it printed.
//
//   QUEEN_DATA_DIR=/tmp/qt-tour npm start          # in another terminal; copy the dev token
//   TOKEN=<dev token> npx tsx docs/tour/render.ts
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** The commands, in the order they run; the names are the template's @@CMD/@@OUT markers. */
const COMMANDS: Array<[name: string, command: string]> = [
  [
    'schedule',
    `curl -sS -X POST http://localhost:6632/api/v1/timers \\
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -d '{"operations":[{"op":"schedule","queue":"reminders","timerKey":"trial:acme:day7","delayMs":604800000,"txn":"trial-acme-day7-v1","payload":"eyJraW5kIjoiZGF5NyJ9","partition":"acme"}]}'`,
  ],
  ['peek', `curl -sS http://localhost:6632/api/v1/timers/reminders/trial:acme:day7 -H "Authorization: Bearer $TOKEN"`],
  ['list', `curl -sS 'http://localhost:6632/api/v1/timers/reminders?limit=10' -H "Authorization: Bearer $TOKEN"`],
  [
    'cancel',
    `curl -sS -X DELETE 'http://localhost:6632/api/v1/timers/reminders/trial:acme:day7?txn=trial-acme-day7-v1' -H "Authorization: Bearer $TOKEN"`,
  ],
  [
    'cancel-again',
    `curl -sS -X DELETE 'http://localhost:6632/api/v1/timers/reminders/trial:acme:day7?txn=trial-acme-day7-v1' -H "Authorization: Bearer $TOKEN"`,
  ],
  [
    'schedule-short',
    `curl -sS -X POST http://localhost:6632/api/v1/timers \\
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  -d '{"operations":[{"op":"schedule","queue":"reminders","timerKey":"tenant/42","delayMs":2000,"txn":"tenant-42-v1","payload":"eyJoZWxsbyI6IndvcmxkIn0="}]}'`,
  ],
  [
    'pop',
    `curl -sS 'http://localhost:6632/api/v1/pop/queue/reminders?wait=true&timeout=10000&autoAck=true' -H "Authorization: Bearer $TOKEN"`,
  ],
  [
    'cancel-delivered',
    `curl -sS -X DELETE 'http://localhost:6632/api/v1/timers/reminders/tenant/42?txn=tenant-42-v1' -H "Authorization: Bearer $TOKEN"`,
  ],
  ['sdk-tour', `QUEEN_TOKEN=$TOKEN npx tsx examples/tour.ts`],
];

if (!process.env.TOKEN) {
  console.error('set TOKEN to the dev token `npm start` printed');
  process.exit(2);
}

const cwd = here('../../');
const outputs = new Map<string, string>();
for (const [name, command] of COMMANDS) {
  const out = execFileSync('bash', ['-c', command], { cwd, encoding: 'utf8' }).trim();
  if (!out) throw new Error(`${name}: no output`);
  // A curl that printed anything but JSON failed; its JSON is shown pretty-printed.
  outputs.set(name, command.startsWith('curl') ? JSON.stringify(JSON.parse(out), null, 2) : out);
  console.log(`$ ${command}\n${out}\n`);
}

const commands = new Map(COMMANDS);
const doc = readFileSync(here('template.md'), 'utf8')
  .replace(/^@@CMD (\S+)$/gm, (_, name: string) => commands.get(name) ?? `MISSING ${name}`)
  .replace(/^@@OUT (\S+)$/gm, (_, name: string) => outputs.get(name) ?? `MISSING ${name}`)
  .replace(/^@@FILE (\S+)$/gm, (_, path: string) => readFileSync(new URL(path, new URL('../', import.meta.url)), 'utf8').trimEnd());
if (doc.includes('MISSING')) throw new Error('template names a command that is not defined');
const readme = here('../../README.md');
const section = doc.slice(doc.indexOf('## '));
const current = readFileSync(readme, 'utf8');
const updated = current.replace(
  /(<!-- tour:start[^\n]*-->\n)[\s\S]*?(<!-- tour:end -->)/,
  (_, open: string, close: string) => `${open}${section.trimEnd()}\n${close}`,
);
if (updated === current && !current.includes(section.trimEnd())) throw new Error('README.md has no tour:start / tour:end markers');
writeFileSync(readme, updated);
console.log('updated the tour in README.md');
