-- Initial schema. Append-only: never edit this file once applied; add a new migration instead.
-- Text keys that are paged or compared use COLLATE "C" (byte order, identical on every machine).

CREATE TABLE tenants (
  tenant                   text COLLATE "C" PRIMARY KEY,
  max_payload_bytes        integer CHECK (max_payload_bytes > 0),
  horizon_seconds          integer CHECK (horizon_seconds > 0),
  max_pending_timers       integer CHECK (max_pending_timers >= 0),
  schedule_rate_per_second integer CHECK (schedule_rate_per_second > 0),
  storage_limit_bytes      bigint CHECK (storage_limit_bytes >= 0),
  schedule_paused          boolean NOT NULL DEFAULT false,
  created_at               timestamptz(6) NOT NULL DEFAULT now(),
  updated_at               timestamptz(6) NOT NULL DEFAULT now()
);

CREATE TABLE cluster_flags (
  id              integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  produce_blocked boolean NOT NULL DEFAULT false,
  sweeper_paused  boolean NOT NULL DEFAULT false,
  updated_at      timestamptz(6) NOT NULL DEFAULT now()
);
INSERT INTO cluster_flags (id) VALUES (1);

CREATE TABLE queues (
  tenant             text COLLATE "C" NOT NULL,
  name               text COLLATE "C" NOT NULL,
  encryption_enabled boolean NOT NULL DEFAULT false,
  lease_time_seconds integer NOT NULL DEFAULT 300 CHECK (lease_time_seconds > 0),
  retry_limit        integer NOT NULL DEFAULT 3 CHECK (retry_limit >= 0),
  created_at         timestamptz(6) NOT NULL DEFAULT now(),
  updated_at         timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, name)
);

CREATE TABLE partitions (
  tenant     text COLLATE "C" NOT NULL,
  queue      text COLLATE "C" NOT NULL,
  name       text COLLATE "C" NOT NULL,
  id         uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, queue, name),
  UNIQUE (tenant, id)
);

CREATE TABLE messages (
  tenant         text COLLATE "C" NOT NULL,
  seq            bigserial NOT NULL,
  id             uuid NOT NULL,
  queue          text COLLATE "C" NOT NULL,
  partition      text COLLATE "C" NOT NULL,
  transaction_id text COLLATE "C" NOT NULL,
  payload        bytea NOT NULL,
  encrypted      boolean NOT NULL DEFAULT false,
  producer_sub   text NOT NULL,
  created_at     timestamptz(6) NOT NULL DEFAULT clock_timestamp(),
  timer_key      text COLLATE "C",
  deliver_at     timestamptz(6),
  PRIMARY KEY (tenant, seq),
  UNIQUE (tenant, queue, partition, transaction_id),
  UNIQUE (tenant, id)
);
-- Pop reads a partition's frames after a cursor in seq order.
CREATE INDEX messages_partition_seq ON messages (tenant, queue, partition, seq);

CREATE TABLE partition_consumers (
  tenant           text COLLATE "C" NOT NULL,
  queue            text COLLATE "C" NOT NULL,
  partition        text COLLATE "C" NOT NULL,
  consumer_group   text COLLATE "C" NOT NULL,
  cursor_seq       bigint NOT NULL DEFAULT 0,
  lease_id         uuid,
  lease_expires_at timestamptz(6),
  batch_end_seq    bigint,
  updated_at       timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, queue, partition, consumer_group)
);

CREATE TABLE message_deliveries (
  tenant         text COLLATE "C" NOT NULL,
  consumer_group text COLLATE "C" NOT NULL,
  message_seq    bigint NOT NULL,
  status         text NOT NULL CHECK (status IN ('completed', 'failed', 'dlq')),
  retry_count    integer NOT NULL DEFAULT 0,
  updated_at     timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, consumer_group, message_seq)
);

CREATE TABLE dead_letters (
  id             uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant         text COLLATE "C" NOT NULL,
  queue          text COLLATE "C" NOT NULL,
  partition      text COLLATE "C" NOT NULL,
  consumer_group text COLLATE "C" NOT NULL,
  message_id     uuid NOT NULL,
  transaction_id text COLLATE "C" NOT NULL,
  payload        bytea NOT NULL,
  encrypted      boolean NOT NULL DEFAULT false,
  payload_zstd   boolean NOT NULL DEFAULT false,
  producer_sub   text NOT NULL,
  error_message  text,
  retry_count    integer NOT NULL DEFAULT 0,
  from_timer     boolean NOT NULL DEFAULT false,
  timer_key      text COLLATE "C",
  created_at     timestamptz(6) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant, id)
);
CREATE INDEX dead_letters_queue ON dead_letters (tenant, queue, created_at);

CREATE TABLE timers (
  tenant           text COLLATE "C" NOT NULL,
  queue            text COLLATE "C" NOT NULL,
  timer_key        text COLLATE "C" NOT NULL,
  partition        text COLLATE "C" NOT NULL DEFAULT 'Default',
  deliver_at       timestamptz(6) NOT NULL,
  txn              text COLLATE "C" NOT NULL,
  message_id       uuid NOT NULL,
  payload          bytea NOT NULL,
  payload_zstd     boolean NOT NULL DEFAULT false,
  encrypted        boolean NOT NULL DEFAULT false,
  producer_sub     text NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  claim_token      uuid,
  claim_expires_at timestamptz(6),
  created_at       timestamptz(6) NOT NULL DEFAULT now(),
  updated_at       timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, queue, timer_key)
);
-- The sweeper's claim walks this index in deliver_at order across the whole cell.
CREATE INDEX timers_deliver_at_idx ON timers (deliver_at);

CREATE TABLE usage_meter (
  tenant   text COLLATE "C" NOT NULL,
  period   text COLLATE "C" NOT NULL CHECK (period ~ '^[0-9]{4}-[0-9]{2}$'),
  messages bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, period)
);

CREATE TABLE schedule_rate_windows (
  tenant       text COLLATE "C" PRIMARY KEY,
  window_start timestamptz(6) NOT NULL,
  ops          integer NOT NULL DEFAULT 0
);
