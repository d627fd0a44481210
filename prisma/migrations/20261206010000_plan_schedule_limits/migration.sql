-- A tenant's plan bounds its schedules (src/services/schedules/put.ts), weighed at PUT:
-- max_schedules: how many schedules the tenant may hold (null: the cell's QUEEN_DEFAULT_MAX_SCHEDULES);
-- min_schedule_interval_seconds: the shortest gap allowed between two occurrences of one schedule
--   (null: QUEEN_DEFAULT_MIN_SCHEDULE_INTERVAL_SECONDS). Each occurrence is still metered as one message.
ALTER TABLE tenants ADD COLUMN max_schedules integer;
ALTER TABLE tenants ADD COLUMN min_schedule_interval_seconds integer;
