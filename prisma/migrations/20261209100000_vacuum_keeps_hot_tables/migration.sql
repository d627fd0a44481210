-- The fire's hot tables keep their empty tail pages: a VACUUM (autovacuum's or the brokers' own,
-- src/maintenance/vacuum.ts) that finds the end of a table empty — timers right after a burst
-- fired, all of it — truncates it under an ACCESS EXCLUSIVE lock, which stalls every claim, fire,
-- schedule and append while it holds it (a trickle's lag rose to a quarter of a second right after
-- a fire bench). The pages are reused by the next timers and frames anyway.
ALTER TABLE timers SET (vacuum_truncate = false);
ALTER TABLE messages SET (vacuum_truncate = false);
ALTER TABLE partitions SET (vacuum_truncate = false);
ALTER TABLE partition_consumers SET (vacuum_truncate = false);
