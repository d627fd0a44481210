-- The W3C traceparent (docs/tracing.md) of the request that created the row, carried on: a
-- schedule's onto each occurrence's timer, a timer's onto its frame when it fires, a frame's out
-- on pop. Null when the request had none (or a malformed one, which is ignored).
ALTER TABLE messages ADD COLUMN traceparent text;
ALTER TABLE timers ADD COLUMN traceparent text;
ALTER TABLE schedules ADD COLUMN traceparent text;
