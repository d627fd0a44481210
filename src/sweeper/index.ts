// The sweeper: fires due timers into the log. Built in its own issue; until then a broker
// starts none.
import type { Services } from '../trpc.ts';

export interface Sweeper {
  stop(): Promise<void>;
}

export function startSweeper(_services: Services): Sweeper | undefined {
  return undefined;
}
