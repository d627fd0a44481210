// What the CLI's usage text and its argument checks need before any command runs: command names,
// grants, the tail group and the usage error. Kept free of other imports so that `queen-timers --help`
// and a usage mistake load nothing else (test/cli-start.test.ts holds it so); the modules that do
// the work (./ops.ts with the SDK, ../auth.ts with jose) are imported by the command that needs them.

export class UsageError extends Error {}

/** The REST commands of ./ops.ts, which types its command table by this list. */
export const OP_COMMANDS = ['timers', 'tail', 'dlq', 'group', 'plan', 'cluster', 'stats'] as const;
export type OpCommand = (typeof OP_COMMANDS)[number];

/** The consumer group `tail` reads with unless --group says otherwise (see docs/cli.md). */
export const TAIL_GROUP = '__observer:queen-timers-tail';

export { GRANTS, type Grant } from '../grants.ts';
