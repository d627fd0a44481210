-- Every unique index includes tenant, the column a distributed database (Citus) spreads the
-- tables by: it refuses to distribute a table with a unique index that lacks it. A partition's
-- and a queue's id stay unique per tenant (they are random UUIDs: unique everywhere in practice).
-- An ack finds its partition by (tenant, id), on the UNIQUE (tenant, id) the partitions had from
-- the start; the queues get theirs here.
DROP INDEX partitions_id;
CREATE UNIQUE INDEX queues_tenant_id ON queues (tenant, id);
DROP INDEX queues_id;
