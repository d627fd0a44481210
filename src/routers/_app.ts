// The whole API as one tRPC router. Each sub-router owns its schemas; the REST paths come from
// each procedure's meta.openapi, projected by src/http/rest.ts and documented in openapi.json.
import { createCallerFactory, router } from '../trpc.ts';
import { adminRouter } from './admin.ts';
import { logRouter } from './log.ts';
import { timersRouter } from './timers.ts';

export const appRouter = router({
  timers: timersRouter,
  log: logRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
