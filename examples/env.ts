// Shared by the examples: where the broker is and which token to use.
//   npm start                      # prints a dev token
//   export QUEEN_TOKEN=<that token>
//   npx tsx examples/saga-compensation.ts
import { createClient, type QueenTimersClient } from '../sdk/src/index.ts';

export interface ExampleOptions {
  baseUrl: string;
  token: string;
  /** Where the example narrates what it does; default console.log. */
  log?: (line: string) => void;
}

export function optionsFromEnv(): ExampleOptions {
  const token = process.env.QUEEN_TOKEN;
  if (!token) {
    console.error('Set QUEEN_TOKEN to a token with the produce, consume and read grants: `npm start` prints one,');
    console.error('or mint one with `npx queen-timers token --tenant dev --sub examples --grant produce --grant consume --grant read`.');
    process.exit(2);
  }
  return { baseUrl: process.env.QUEEN_URL ?? 'http://localhost:6632', token };
}

export function clientFor(o: ExampleOptions): QueenTimersClient {
  return createClient({ baseUrl: o.baseUrl, token: o.token });
}

/** A short id that keeps one run's keys apart from the last run's on a long-lived broker. */
export const runId = () => Math.random().toString(36).slice(2, 8);
