-- A statement that finds a refusal in its own result (the schedule rate window overflowing) raises
-- it with this, so that the statement can go out with its COMMIT in one round trip: PostgreSQL turns
-- the COMMIT of a failed transaction into a rollback. SQLSTATE QT429: the broker maps it back to
-- the refusal named by the message.
CREATE OR REPLACE FUNCTION queen_timers_refuse(reason text) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%', reason USING ERRCODE = 'QT429';
END
$$;
