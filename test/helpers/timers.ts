// Arranging timers in SQL for sweeper tests and the benchmark: rows are made due by deliver_at
// computed from PostgreSQL's now(), never from the Node clock.
import type { Queryable } from '../../src/db/transaction.ts';

export interface TimerRows {
  tenant?: string;
  queue?: string;
  partition?: string;
  count?: number;
  /** Keys are `${keyPrefix}${i}`, txns `${txnPrefix}${i}`, i from 1. */
  keyPrefix?: string;
  txnPrefix?: string;
  /** deliver_at = now() + dueInMs + (i − 1) × stepMs + random() × spreadMs. Negative: already due. */
  dueInMs?: number;
  stepMs?: number;
  spreadMs?: number;
  payload?: Buffer;
  payloadZstd?: boolean;
  encrypted?: boolean;
  producerSub?: string;
}

/** Inserts `count` timers in one statement; returns their keys, txns and deliverAts (PostgreSQL ms). */
export async function insertTimers(sql: Queryable, o: TimerRows = {}): Promise<{ timerKey: string; txn: string; messageId: string; deliverAtMs: number }[]> {
  const r = await sql.query(
    `INSERT INTO timers (tenant, queue, partition, timer_key, deliver_at, txn, message_id, payload, payload_zstd, encrypted, producer_sub)
     SELECT $1, $2, $3, $4 || i, now() + ($6 + (i - 1) * $7 + random() * $8) * interval '1 millisecond',
            $5 || i, gen_random_uuid(), $9, $10, $11, $12
     FROM generate_series(1, $13::int) AS i
     RETURNING timer_key, txn, message_id, (extract(epoch FROM deliver_at) * 1000)::float8 AS deliver_at_ms`,
    [
      o.tenant ?? 'acme',
      o.queue ?? 'q',
      o.partition ?? 'Default',
      o.keyPrefix ?? 'k',
      o.txnPrefix ?? `txn-${o.keyPrefix ?? 'k'}`,
      o.dueInMs ?? -1,
      o.stepMs ?? 0,
      o.spreadMs ?? 0,
      o.payload ?? Buffer.from('{"hello":"world"}'),
      o.payloadZstd ?? false,
      o.encrypted ?? false,
      o.producerSub ?? 'scheduler',
      o.count ?? 1,
    ],
  );
  return r.rows.map((x: any) => ({ timerKey: x.timer_key, txn: x.txn, messageId: x.message_id, deliverAtMs: x.deliver_at_ms }));
}

/** A trigger on the log that rejects frames of one queue with the given SQLSTATE (deterministic failures). */
export async function rejectQueue(sql: Queryable, queue: string, sqlstate = 'P0001'): Promise<void> {
  const fn = `reject_${queue.replace(/\W/g, '_')}`;
  await sql.query(`
    CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.queue = '${queue}' THEN
        RAISE EXCEPTION 'queue ${queue} rejects frames (test)' USING ERRCODE = '${sqlstate}';
      END IF;
      RETURN NEW;
    END $$`);
  await sql.query(`DROP TRIGGER IF EXISTS ${fn} ON messages`);
  await sql.query(`CREATE TRIGGER ${fn} BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
}

export async function acceptQueue(sql: Queryable, queue: string): Promise<void> {
  await sql.query(`DROP TRIGGER IF EXISTS reject_${queue.replace(/\W/g, '_')} ON messages`);
}
