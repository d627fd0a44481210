// Prometheus metrics, one registry per app (tests build several apps in one process).
// docs/operations.md, "Metrics", lists them with their labels and cardinality.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PACKAGE_ROOT } from './root.ts';

/** queen_timers_fire_lag_seconds's bucket bounds; the fire-lag history (maintenance/fireHistory.ts) keeps the same. */
export const FIRE_LAG_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const PACKAGE_VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;

/** What queen_build_info says: the package version, Node's, and the database the broker runs on. */
export interface BuildInfo {
  version: string;
  database: 'embedded' | 'postgres';
}

export function createMetrics(build: BuildInfo) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const buildInfo = new Gauge({
    name: 'queen_build_info',
    help: 'Always 1; the labels say which build runs: version, Node.js version, database (embedded or postgres)',
    labelNames: ['version', 'node', 'database'] as const,
    registers: [registry],
  });
  buildInfo.set({ version: build.version, node: process.version, database: build.database }, 1);
  const queueLabels = ['tenant', 'queue'] as const;
  return {
    registry,
    httpRequests: new Counter({
      name: 'queen_http_requests_total',
      help: 'HTTP requests by method, route template (e.g. /api/v1/timers/{queue}/{timerKey}) and status code; the docs are not counted',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'queen_http_request_duration_seconds',
      help: 'HTTP request latency, from the request read to the response sent, by method, route template and status code; long-polls included (up to their timeout)',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    queuePending: new Gauge({
      name: 'queen_queue_timers_pending',
      help: 'Pending timers per queue, sampled every QUEEN_METRICS_QUEUE_INTERVAL_MS; the QUEEN_METRICS_QUEUES largest queues only; exact up to 100000 timers in the cell, above that an estimate from a block sample of at most 256 pages, scaled to the row estimate',
      labelNames: queueLabels,
      registers: [registry],
    }),
    queueOverdueAge: new Gauge({
      name: 'queen_queue_timers_overdue_age_seconds',
      help: 'Per queue, how long its oldest due timer has waited to fire (the queues with a due timer among the oldest 100000 due; the QUEEN_METRICS_QUEUES oldest only)',
      labelNames: queueLabels,
      registers: [registry],
    }),
    queueDeadLetters: new Gauge({
      name: 'queen_queue_dead_letters',
      help: "Dead letters per queue (consumers' and timers'), sampled like queen_queue_timers_pending, with the same bounds",
      labelNames: queueLabels,
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
      buckets: FIRE_LAG_BUCKETS_SECONDS,
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
    handoffWindow: new Gauge({
      name: 'queen_timers_sweeper_handoff_window_ms',
      help: 'QUEEN_SWEEPER_HANDOFF_MS: timers due within this many ms are claimed ahead and fired from memory at their instant; cancel and reschedule answer too_late inside it',
      registers: [registry],
    }),
    wheelSize: new Gauge({
      name: 'queen_timers_sweeper_wheel_timers',
      help: "Timers this broker's sweeper holds in its hand-off window, claimed and waiting for their instant",
      registers: [registry],
    }),
    sweepDuration: new Histogram({
      name: 'queen_timers_sweeper_cycle_seconds',
      help: 'Duration of one sweeper pass (claim + fire)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    schedulesMaterialized: new Counter({
      name: 'queen_schedules_materialized_total',
      help: "Schedule occurrences this broker's sweeper materialized as timers (each metered as one message)",
      registers: [registry],
    }),
    schedulesFailures: new Counter({
      name: 'queen_schedules_materialize_failures_total',
      help: "Runs of this broker's schedule materialization that failed (retried after a back-off of 1 s doubling to 30 s; timers fire meanwhile)",
      registers: [registry],
    }),
    schedulesSkipped: new Counter({
      name: 'queen_schedules_skipped_total',
      help: 'Schedule occurrences missed during an outage or a pause and skipped (only the latest missed one fires)',
      registers: [registry],
    }),
    retained: new Counter({
      name: 'queen_log_retention_deleted_total',
      help: "Rows the log's retention deleted: frames, and the dead letters pruned with them or by age",
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    maintenanceFailures: new Counter({
      name: 'queen_maintenance_failures_total',
      help: 'Failed runs of a background duty (retention, queue_gauges, pending_gauge, vacuum); each is logged and retried at its next interval',
      labelNames: ['duty'] as const,
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
