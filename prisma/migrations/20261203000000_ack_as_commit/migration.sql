-- Acks commit a position (Queen's ack-as-commit, src/services/log/settle.ts): every frame after a
-- group's cursor is pending, and message_deliveries keeps only failure counts and dlq verdicts.
-- Before, a batch settled with a failed frame could leave later frames completed or dead-lettered
-- past the cursor, skipped by pops through their verdicts. Here each cursor moves past its leading
-- run of such frames once; frames settled further on (after a failed one) are handed out once
-- more (at-least-once, as after any redelivery). Completed verdicts are no longer read: they go.
UPDATE partition_consumers c
   SET cursor_seq = coalesce(
         (SELECT min(m.seq) - 1 FROM messages m
           WHERE m.tenant = c.tenant AND m.queue = c.queue AND m.partition = c.partition
             AND m.seq > c.cursor_seq
             AND NOT EXISTS (SELECT 1 FROM message_deliveries d
                              WHERE d.tenant = c.tenant AND d.consumer_group = c.consumer_group
                                AND d.message_seq = m.seq AND d.status IN ('completed', 'dlq'))),
         c.last_seq)
 WHERE c.delivered_seq > c.cursor_seq;

DELETE FROM message_deliveries WHERE status = 'completed';
