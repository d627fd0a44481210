-- A frame's id is a random v4 UUID minted by the broker (push, or the timer it was scheduled as),
-- and nothing looks a frame up by it: frames are found by (partition, seq) or by (partition, txn).
-- The unique index on (tenant, id) was the one random-key index every append maintained on top of
-- the txn's: dropping it raised push from 18.3k to 21k msg/s (docs/measurements.md). The log's
-- dedupe is unchanged: ON CONFLICT in the append arbitrates on (tenant, queue, partition,
-- transaction_id) alone.
ALTER TABLE messages DROP CONSTRAINT messages_tenant_id_key;
