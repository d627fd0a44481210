-- A queue's pending timers by deliverAt (the dashboard: due in the next minute / hour / day,
-- overdue, the forecast, the list in deliverAt order). The sweeper's timers_deliver_at_idx orders
-- every tenant's timers together: a small queue's window read through it walks the other queues'
-- rows too. Counting one queue's window here is a range scan of that queue alone, capped by LIMIT.
CREATE INDEX timers_queue_deliver_at ON timers (tenant, queue, deliver_at);
