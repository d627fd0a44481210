-- Fire-lag history (src/maintenance/fireHistory.ts): per tenant, queue and minute (PostgreSQL's
-- clock), how many timers fired and a histogram of their lags (commit minus deliverAt) in the
-- bucket bounds of queen_timers_fire_lag_seconds, last bucket unbounded. Each broker adds its
-- own counts (one upsert per queue and minute every few seconds, never on the fire path); the
-- dashboard reads p50/p99 per minute from the summed buckets. Kept a day (the duty deletes older
-- minutes by fire_lag_minutes_minute).
CREATE TABLE fire_lag_minutes (
  tenant  text COLLATE "C" NOT NULL,
  queue   text COLLATE "C" NOT NULL,
  minute  timestamptz NOT NULL,
  fired   bigint NOT NULL DEFAULT 0,
  buckets bigint[] NOT NULL,
  PRIMARY KEY (tenant, queue, minute)
);
CREATE INDEX fire_lag_minutes_minute ON fire_lag_minutes (minute);
-- The chart of all the tenant's queues reads a range of minutes of one tenant.
CREATE INDEX fire_lag_minutes_tenant_minute ON fire_lag_minutes (tenant, minute);
