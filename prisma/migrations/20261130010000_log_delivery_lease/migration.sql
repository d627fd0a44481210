-- The lease under which a frame's latest verdict was recorded. A leased batch is settled when
-- every frame in it is completed or dead-lettered, or was failed under THIS lease: a frame failed
-- under an earlier lease and redelivered in this batch still owes a verdict. Without the column
-- the two "failed" rows are indistinguishable (comparing timestamps would trust the clock to never
-- step back). NULL for verdicts recorded by autoAck pops, which hold no lease.
ALTER TABLE message_deliveries ADD COLUMN lease_id uuid;
