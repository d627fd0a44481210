-- A lease is renewed by its id alone (POST /api/v1/lease/:leaseId/extend, as Queen's client
-- calls it): each live lease is found through this index, whatever the partition count.
CREATE INDEX partition_consumers_lease ON partition_consumers (tenant, lease_id) WHERE lease_id IS NOT NULL;
