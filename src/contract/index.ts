// The whole contract: every route of the API, keyed by the tRPC procedure path that serves it.
// src/http/rest.ts routes requests by this table; test/fuzz.test.ts covers each entry.
import { adminRoutes } from './admin.ts';
import type { RouteDef } from './common.ts';
import { dashboardRoutes } from './dashboard.ts';
import { logRoutes } from './log.ts';
import { scheduleRoutes } from './schedules.ts';
import { timerRoutes } from './timers.ts';

const prefixed = (area: string, routes: Record<string, RouteDef>) =>
  Object.fromEntries(Object.entries(routes).map(([name, def]) => [`${area}.${name}`, def]));

export const CONTRACT_ROUTES: Readonly<Record<string, RouteDef>> = {
  ...prefixed('timers', timerRoutes),
  ...prefixed('schedules', scheduleRoutes),
  ...prefixed('log', logRoutes),
  ...prefixed('admin', adminRoutes),
  ...prefixed('dashboard', dashboardRoutes),
};
