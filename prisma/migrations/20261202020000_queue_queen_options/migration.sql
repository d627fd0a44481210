-- What Queen's client configures beyond the options this broker acts on: the queue's id (Queen
-- answers one), its namespace and task, and every other Queen option, stored as given and
-- echoed back so that a client reading its configuration sees what it set (README, "Queen's
-- client": which options act).
ALTER TABLE queues ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE queues ADD COLUMN namespace text;
ALTER TABLE queues ADD COLUMN task text;
ALTER TABLE queues ADD COLUMN queen_options jsonb NOT NULL DEFAULT '{}'::jsonb;
CREATE UNIQUE INDEX queues_id ON queues (id);
