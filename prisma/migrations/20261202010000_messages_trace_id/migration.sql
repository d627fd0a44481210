-- The trace id a producer pushed a frame with (Queen's client sends one when it is given a UUID),
-- handed back on pop. Null for frames pushed without one and for every timer's frame.
ALTER TABLE messages ADD COLUMN trace_id uuid;
