// The log routes (Queen-compatible core): configure, push, pop, ack, DLQ. Implemented in the
// foundation issue's log work.
import { router } from '../trpc.ts';

export const logRouter = router({});
