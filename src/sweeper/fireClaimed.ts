// fireClaimed — moves claimed timers into the log in one transaction: lock the destination
// partitions for append (lockPartitionsForAppend: commit order = seq order per partition, so a
// consumer's cursor never passes a frame still being fired), then one statement that deletes and
// inserts.
//
// Parameters: $1 claim token, $2 tids of the timers to fire (tid[]), and the replacement bytes for
//   timers whose stored payload cannot enter the log as it is (zstd: the log has no zstd flag):
//   $3 tids (tid[]), $4 payloads (bytea[]), $5 encrypted flags (bool[]).
// Locks: the destination partition rows (until commit); the deleted timer rows (ours by lease);
//   the log's unique indexes for the inserted frames.
// Rows: deletes the timers of $2 that still carry $1 — a broker that lost its lease deletes 0 and
//   therefore inserts 0. Inserts one frame per deleted timer in deliverAt order (seq follows the
//   ORDER BY), unless the log already holds its txn (ON CONFLICT DO NOTHING: the second line of
//   defence, and what makes a client's retried schedule after a fire harmless).
//   A zstd timer without replacement bytes would violate messages.payload NOT NULL on purpose:
//   the statement fails rather than delivering compressed bytes as if they were the payload.
// Returns one row: deleted, inserted, and per tenant+queue the fire lags (created_at − deliver_at,
//   PostgreSQL's clock, seconds).
import { lockPartitionsForAppend } from '../services/queues.ts';
import { inTransaction } from '../services/sql.ts';
import type { ClaimedTimer } from './claimDue.ts';
import type { SweeperDb } from './db.ts';

export interface Replacement {
  tid: string;
  payload: Buffer;
  encrypted: boolean;
}

export interface FireResult {
  deleted: number;
  inserted: number;
  queues: { tenant: string; queue: string; lags: number[] }[];
}

const FIRE_CLAIMED_SQL = `
WITH o AS (
  SELECT * FROM unnest($3::tid[], $4::bytea[], $5::boolean[]) AS o(tid, payload, encrypted)
), d AS (
  DELETE FROM timers t
  WHERE t.ctid = ANY ($2::tid[]) AND t.claim_token = $1
  RETURNING t.ctid AS tid, t.tenant, t.queue, t.partition, t.timer_key, t.deliver_at, t.txn, t.message_id,
    t.payload, t.payload_zstd, t.encrypted, t.producer_sub
), ins AS (
  INSERT INTO messages (tenant, id, queue, partition, transaction_id, payload, encrypted, producer_sub, timer_key, deliver_at)
  SELECT d.tenant, d.message_id, d.queue, d.partition, d.txn,
    CASE WHEN o.tid IS NOT NULL THEN o.payload WHEN d.payload_zstd THEN NULL ELSE d.payload END,
    coalesce(o.encrypted, d.encrypted), d.producer_sub, d.timer_key, d.deliver_at
  FROM d LEFT JOIN o ON o.tid = d.tid
  ORDER BY d.deliver_at, d.timer_key
  ON CONFLICT DO NOTHING
  RETURNING tenant, queue, extract(epoch FROM created_at - deliver_at)::float8 AS lag
)
SELECT (SELECT count(*) FROM d)::int AS deleted,
  (SELECT count(*) FROM ins)::int AS inserted,
  (SELECT coalesce(json_agg(g), '[]'::json)
     FROM (SELECT tenant, queue, array_agg(lag) AS lags FROM ins GROUP BY tenant, queue) g) AS queues`;

export async function fireClaimed(db: SweeperDb, token: string, rows: ClaimedTimer[], replacements: Map<string, Replacement>): Promise<FireResult> {
  const repl = rows.map((r) => replacements.get(r.tid)).filter((x): x is Replacement => x !== undefined);
  return inTransaction(db.pool, async (client) => {
    await lockPartitionsForAppend(client, rows);
    const r = await client.query(FIRE_CLAIMED_SQL, [
    token,
    rows.map((x) => x.tid),
    repl.map((x) => x.tid),
    repl.map((x) => x.payload),
      repl.map((x) => x.encrypted),
    ]);
    return r.rows[0] as FireResult;
  });
}
