-- Recurring schedules (src/services/schedules/): a cron expression in an IANA time zone whose
-- occurrences the sweepers materialize, one at a time, as ordinary timers in the schedule's queue.
--
-- definition: new at every PUT; an occurrence's txn derives from it and the occurrence's instant,
--   so a replace gives every later occurrence a new txn and two brokers materializing the same
--   occurrence make the same one. revision counts the PUTs (1 at creation).
-- next_at: the next occurrence not materialized yet (null: the expression has no more);
--   last_at: the last one materialized; skipped: occurrences missed by an outage, a sweeper pause
--   or a tenant's pause (only the latest missed one fires).
-- materialize_at: when the next occurrence is materialized — greatest(next_at − lookahead,
--   last_at), so a schedule has at most one materialized occurrence still in the future. The
--   sweepers claim due rows on its index with FOR UPDATE SKIP LOCKED.
-- payload: as stored (compressed and/or encrypted when its queue encrypts), copied into each
--   occurrence's timer.
CREATE TABLE schedules (
  tenant         text COLLATE "C" NOT NULL,
  queue          text COLLATE "C" NOT NULL,
  schedule_key   text COLLATE "C" NOT NULL,
  cron           text NOT NULL,
  timezone       text NOT NULL,
  partition      text COLLATE "C" NOT NULL DEFAULT 'Default',
  payload        bytea NOT NULL,
  payload_zstd   boolean NOT NULL DEFAULT false,
  encrypted      boolean NOT NULL DEFAULT false,
  producer_sub   text NOT NULL,
  definition     uuid NOT NULL,
  revision       integer NOT NULL DEFAULT 1 CHECK (revision > 0),
  next_at        timestamptz(6),
  last_at        timestamptz(6),
  materialize_at timestamptz(6),
  skipped        bigint NOT NULL DEFAULT 0 CHECK (skipped >= 0),
  created_at     timestamptz(6) NOT NULL DEFAULT now(),
  updated_at     timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, queue, schedule_key)
);
CREATE INDEX schedules_materialize_at ON schedules (materialize_at);
