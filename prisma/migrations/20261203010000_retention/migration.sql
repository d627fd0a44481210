-- Retention (src/services/log/retention.ts): each partition records when a retention pass last
-- visited it, so passes visit the least recently pruned first; dead letters are found by the frame
-- they came from, to be pruned with it.
ALTER TABLE partitions ADD COLUMN retained_at timestamptz;
CREATE INDEX dead_letters_message ON dead_letters (tenant, message_id);

-- Table settings for the churn. timers: every row is inserted, maybe updated (reschedule, claim),
-- then deleted — free space on the page lets updates stay HOT; vacuum after 2 % dead rows instead
-- of 20 %, so a table of millions is not left to bloat. The consumer rows are updated on every
-- pop and ack: mostly free pages. messages: inserted in order, deleted by retention from the
-- oldest end.
ALTER TABLE timers SET (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02,
                        autovacuum_vacuum_insert_scale_factor = 0.05);
ALTER TABLE partition_consumers SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.05);
ALTER TABLE partitions SET (fillfactor = 70);
ALTER TABLE messages SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.05,
                          autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE message_deliveries SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);
