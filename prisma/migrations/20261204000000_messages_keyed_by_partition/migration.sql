-- The log is keyed by partition: (tenant, queue, partition, seq) becomes the primary key, and the
-- key on (tenant, seq) goes, with it the index on the same columns that pop already read.
-- Why: retention deletes each partition's oldest frames, and queues keep frames for different
-- times (or forever). In an index on (tenant, seq) every page holds frames of every partition, so
-- one queue without retention kept every page of it alive: under the soak (bench/soak.ts) it grew
-- 4 MB a minute for ever while the live frames stayed flat. Keyed by partition, a pruned
-- partition's pages empty and are recycled. Every append also maintains one index fewer.
-- seq stays unique (one sequence), and every lookup of a frame names its partition.
ALTER TABLE messages DROP CONSTRAINT messages_pkey;
DROP INDEX messages_partition_seq;
ALTER TABLE messages ADD CONSTRAINT messages_pkey PRIMARY KEY (tenant, queue, partition, seq);
