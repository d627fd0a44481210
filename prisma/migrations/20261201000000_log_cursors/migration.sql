-- The log reads forward from cursors. A pop used to anti-join each partition's frames against the
-- group's whole delivery history and to scan every partition of the queue for one with work; both
-- grew with history and partition count, and both depended on fresh planner statistics.
--
-- partitions.last_seq: the seq of the partition's newest frame, maintained by the log's append
-- (src/services/log/append.ts) under the partition lock.
ALTER TABLE partitions ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
UPDATE partitions p
   SET last_seq = coalesce((SELECT max(m.seq) FROM messages m
                             WHERE m.tenant = p.tenant AND m.queue = p.queue AND m.partition = p.name), 0);

-- The consumer groups of each queue. A group has a partition_consumers row for every partition of
-- its queue: created for all partitions when the group first pops, and for all groups when a
-- partition is created (src/services/queues.ts, src/services/log/groups.ts).
CREATE TABLE consumer_groups (
  tenant         text COLLATE "C" NOT NULL,
  queue          text COLLATE "C" NOT NULL,
  consumer_group text COLLATE "C" NOT NULL,
  created_at     timestamptz(6) NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, queue, consumer_group)
);
INSERT INTO consumer_groups (tenant, queue, consumer_group)
SELECT DISTINCT tenant, queue, consumer_group FROM partition_consumers;

-- last_seq mirrors partitions.last_seq on every consumer row of the partition (written by the same
-- append), so "this group has work here" is one row's predicate: last_seq > cursor_seq.
-- delivered_seq: the highest seq ever handed to the group on this partition; frames past it have
-- no verdict, so a pop looks verdicts up only below it.
ALTER TABLE partition_consumers ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE partition_consumers ADD COLUMN delivered_seq bigint NOT NULL DEFAULT 0;
UPDATE partition_consumers c
   SET last_seq = p.last_seq, delivered_seq = p.last_seq
  FROM partitions p
 WHERE p.tenant = c.tenant AND p.queue = c.queue AND p.name = c.partition;
INSERT INTO partition_consumers (tenant, queue, partition, consumer_group, last_seq)
SELECT p.tenant, p.queue, p.name, g.consumer_group, p.last_seq
  FROM partitions p JOIN consumer_groups g ON g.tenant = p.tenant AND g.queue = p.queue
ON CONFLICT DO NOTHING;

-- An ack names its frame by partition id: a unique index on the id alone lets the planner know it
-- is unique whatever the statistics say (a composite (tenant, id) key does not).
CREATE UNIQUE INDEX partitions_id ON partitions (id);

-- A group's partitions with work, least recently served first: the pop's pick walks this index
-- and skips only partitions leased to other consumers of the group.
CREATE INDEX partition_consumers_ready ON partition_consumers (tenant, queue, consumer_group, updated_at)
  WHERE last_seq > cursor_seq;
