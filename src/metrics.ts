// Prometheus metrics, one registry per app (tests build several apps in one process).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'queen_http_requests_total',
      help: 'HTTP requests by route and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    scheduleVerdicts: new Counter({
      name: 'queen_timers_schedule_verdicts_total',
      help: 'Per-op verdicts of the timer routes (scheduled, rescheduled, cancelled, too_late, absent)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    fireLag: new Histogram({
      name: 'queen_timers_fire_lag_seconds',
      help: 'Commit time of the fire minus deliverAt, on PostgreSQL clock',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    fired: new Counter({ name: 'queen_timers_fired_total', help: 'Timers fired into the log', registers: [registry] }),
    fireFailures: new Counter({
      name: 'queen_timers_fire_failures_total',
      help: 'Failed fires by class (transient, permanent)',
      labelNames: ['class'] as const,
      registers: [registry],
    }),
    deadLettered: new Counter({
      name: 'queen_timers_dead_lettered_total',
      help: 'Timers moved to their queue DLQ after exhausting their attempts',
      registers: [registry],
    }),
    pending: new Gauge({
      name: 'queen_timers_pending',
      help: "Pending timers in the cell, sampled by the sweeper every 5 s: exact up to 100000, above that PostgreSQL's row estimate (pg_class.reltuples)",
      registers: [registry],
    }),
    sweepDuration: new Histogram({
      name: 'queen_timers_sweeper_cycle_seconds',
      help: 'Duration of one sweeper pass (claim + fire)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    retained: new Counter({
      name: 'queen_log_retention_deleted_total',
      help: "Rows the log's retention deleted: frames, and the dead letters pruned with them or by age",
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    retentionLag: new Gauge({
      name: 'queen_log_retention_lag_seconds',
      help: 'How far behind retention is: seconds since the least recently pruned partition of a queue with retention was last visited',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
