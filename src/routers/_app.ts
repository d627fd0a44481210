// The whole API as one tRPC router, as the tRPC starter exports it. Each procedure serves the route
// of src/contract/ under the same path (`timers.batch` serves CONTRACT_ROUTES['timers.batch']).
import { createCallerFactory, router } from '../trpc.ts';
import { adminRouter } from './admin.ts';
import { dashboardRouter } from './dashboard.ts';
import { logRouter } from './log.ts';
import { schedulesRouter } from './schedules.ts';
import { timersRouter } from './timers.ts';

export const appRouter = router({
  timers: timersRouter,
  schedules: schedulesRouter,
  log: logRouter,
  admin: adminRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
