// fireClaimed — moves claimed timers into the log in one transaction, through the log's append
// (src/services/log/append.ts): it locks the destination partitions (commit order = seq order per
// partition, so a consumer's cursor never passes a frame still being fired), then runs one
// statement that deletes the timers and inserts their frames.
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
import { append } from '../services/log/append.ts';
import { inTransaction } from '../db/transaction.ts';
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
  queues: { tenant: string; queue: string; partitions: string[]; lags: number[] }[];
}

/** The fired timers as frames (see the header); feeds the log's one append statement. */
const FIRED_FRAMES = `
o AS (
  SELECT * FROM unnest($3::tid[], $4::bytea[], $5::boolean[]) AS o(tid, payload, encrypted)
), d AS (
  DELETE FROM timers t
  WHERE t.ctid = ANY ($2::tid[]) AND t.claim_token = $1
  RETURNING t.ctid AS tid, t.tenant, t.queue, t.partition, t.timer_key, t.deliver_at, t.txn, t.message_id,
    t.payload, t.payload_zstd, t.encrypted, t.producer_sub
), frames AS (
  SELECT row_number() OVER (ORDER BY d.deliver_at, d.timer_key) AS ord, d.tenant, d.message_id AS id, d.queue,
    d.partition, d.txn AS transaction_id,
    CASE WHEN o.tid IS NOT NULL THEN o.payload WHEN d.payload_zstd THEN NULL ELSE d.payload END AS payload,
    coalesce(o.encrypted, d.encrypted) AS encrypted, d.producer_sub, d.timer_key, d.deliver_at, NULL::uuid AS trace_id
  FROM d LEFT JOIN o ON o.tid = d.tid
)`;

const FIRE_RESULT = `
SELECT (SELECT count(*) FROM d)::int AS deleted,
  (SELECT count(*) FROM appended)::int AS inserted,
  (SELECT coalesce(json_agg(g), '[]'::json)
     FROM (SELECT tenant, queue, array_agg(DISTINCT partition) AS partitions, array_agg(lag) AS lags
             FROM appended GROUP BY tenant, queue) g) AS queues`;

export async function fireClaimed(
  db: SweeperDb,
  token: string,
  rows: ClaimedTimer[],
  replacements: Map<string, Replacement>,
): Promise<FireResult> {
  const repl = rows.map((r) => replacements.get(r.tid)).filter((x): x is Replacement => x !== undefined);
  // No replay here: the sweeper retries by its own rules, and the claim token makes that safe.
  return inTransaction(
    db.pool,
    async (tx) => {
      const [result] = await append<FireResult & Record<string, unknown>>(tx, rows, {
        ctes: FIRED_FRAMES,
        params: [token, rows.map((x) => x.tid), repl.map((x) => x.tid), repl.map((x) => x.payload), repl.map((x) => x.encrypted)],
        result: FIRE_RESULT,
      });
      return result;
    },
    { replay: false },
  );
}
