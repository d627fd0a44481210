// Reading pending timers: peek at one, list a queue's by key. Payloads exactly as stored.
import type { ListOrder, ListResult, PeekResult, TimerRow } from '../../contract/timers.ts';
import type { Database } from '../../db/index.ts';
import { isoSql } from '../../db/sql.ts';
import { ApiError } from '../../errors.ts';
import { claimedSql } from '../../sweeper/claimed.ts';
import type { Caller } from './deps.ts';

type Deps = { db: Database };

const VIEW_COLUMNS = `queue, timer_key, partition, ${isoSql('deliver_at')} AS deliver_at, txn, message_id::text AS message_id,
  payload_zstd, encrypted, producer_sub, attempts, last_error, coalesce(${claimedSql('timers')}, false) AS claimed,
  ${isoSql('created_at')} AS created_at, ${isoSql('updated_at')} AS updated_at`;

interface ViewRow {
  queue: string;
  timer_key: string;
  partition: string;
  deliver_at: string;
  txn: string;
  message_id: string;
  payload_zstd: boolean;
  encrypted: boolean;
  producer_sub: string;
  attempts: number;
  last_error: string | null;
  claimed: boolean;
  created_at: string;
  updated_at: string;
}

function view(row: ViewRow): TimerRow {
  return {
    queue: row.queue,
    timerKey: row.timer_key,
    partition: row.partition,
    deliverAt: row.deliver_at,
    txn: row.txn,
    messageId: row.message_id,
    payloadZstd: row.payload_zstd,
    encrypted: row.encrypted,
    producerSub: row.producer_sub,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    claimed: row.claimed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * peek — $1 tenant, $2 queue, $3 timer_key. No lock. Rows: 0 or 1. The payload as stored, in
 * base64 without the line breaks encode() puts every 76 characters.
 */
const PEEK_SQL = `
SELECT ${VIEW_COLUMNS}, translate(encode(payload, 'base64'), E'\\n', '') AS payload
  FROM timers WHERE tenant = $1 AND queue = $2 AND timer_key = $3`;

/**
 * list — $1 tenant, $2 queue, $3 exclusive cursor|null, $4 limit + 1, $5 key prefix|null, $6 the
 * least key above the prefix's (prefixEnd), null when none. No lock. Walks the primary
 * key (tenant, queue, timer_key COLLATE "C") in byte order. Rows: 0..limit + 1; the extra row
 * says truncated.
 */
const LIST_SQL = `
SELECT ${VIEW_COLUMNS} FROM timers
 WHERE tenant = $1 AND queue = $2 AND ($3::text IS NULL OR timer_key > $3::text COLLATE "C")
   AND ($5::text IS NULL OR (timer_key >= $5::text COLLATE "C" AND starts_with(timer_key, $5::text)))
   AND ($6::text IS NULL OR timer_key < $6::text COLLATE "C")
 ORDER BY timer_key COLLATE "C" LIMIT $4`;

/**
 * listByDeliverAt — $1 tenant, $2 queue, $3 cursor deliverAt|null, $4 cursor key, $5 limit + 1.
 * No lock. Walks timers_queue_deliver_at from the cursor's instant (ties by key, an incremental
 * sort of the equal instants). Rows: 0..$5, soonest first. The ORDER BY names the table's column:
 * a bare deliver_at would be the output column of that name (text), sorted whole.
 */
export const LIST_BY_DELIVER_AT_SQL = `
SELECT ${VIEW_COLUMNS} FROM timers
 WHERE tenant = $1 AND queue = $2
   AND ($3::timestamptz IS NULL OR (deliver_at >= $3::timestamptz AND (deliver_at > $3::timestamptz OR timer_key > $4::text COLLATE "C")))
 ORDER BY timers.deliver_at, timers.timer_key COLLATE "C" LIMIT $5`;

/**
 * The least string above every string that starts with `prefix`, in byte order (UTF-8 byte order
 * is code point order): the prefix with its last code point incremented, past the surrogates; a
 * last U+10FFFF is dropped and the one before incremented. Null: no such bound.
 */
export function prefixEnd(prefix: string): string | null {
  const cps = [...prefix].map((c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    const last = cps.pop()!;
    if (last < 0x10ffff) {
      cps.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
      return String.fromCodePoint(...cps);
    }
  }
  return null;
}

/** The deliverAt-order cursor: `<deliverAt> <timerKey>` (an instant holds no space). */
const deliverAtCursor = (row: TimerRow) => `${row.deliverAt} ${row.timerKey}`;

function parseDeliverAtCursor(after: string): [string, string] {
  const space = after.indexOf(' ');
  const at = after.slice(0, space);
  if (space < 0 || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(at)) {
    throw new ApiError('validation_failed', 'after: not a cursor of order=deliverAt; pass the nextAfter of the previous page as it came', {
      field: 'after',
    });
  }
  return [at, after.slice(space + 1)];
}

/** One pending timer, payload exactly as stored (never decrypted); a miss is {found: false}. */
export async function peek(deps: Deps, caller: Pick<Caller, 'tenant'>, queue: string, timerKey: string): Promise<PeekResult> {
  const r = await deps.db.pool.query<ViewRow & { payload: string }>(PEEK_SQL, [caller.tenant, queue, timerKey]);
  const row = r.rows[0];
  if (!row) return { found: false as const };
  return { found: true as const, ...view(row), payload: row.payload };
}

/**
 * One page of a queue's pending timers, without payloads: by key in byte order (optionally only
 * the keys starting with `prefix`), or by deliverAt, soonest first.
 */
export async function list(
  deps: Deps,
  caller: Pick<Caller, 'tenant'>,
  queue: string,
  after: string | undefined,
  limit: number,
  opts: { order?: ListOrder | undefined; prefix?: string | undefined } = {},
): Promise<ListResult> {
  if (opts.order === 'deliverAt') {
    const [at, key] = after === undefined ? [null, null] : parseDeliverAtCursor(after);
    const r = await deps.db.pool.query<ViewRow>(LIST_BY_DELIVER_AT_SQL, [caller.tenant, queue, at, key, limit + 1]);
    const rows = r.rows.slice(0, limit).map(view);
    return { rows, truncated: r.rows.length > limit, nextAfter: rows.length ? deliverAtCursor(rows[rows.length - 1]) : null };
  }
  const prefix = opts.prefix ?? null;
  const r = await deps.db.pool.query<ViewRow>(LIST_SQL, [
    caller.tenant,
    queue,
    after ?? null,
    limit + 1,
    prefix,
    prefix === null ? null : prefixEnd(prefix),
  ]);
  const truncated = r.rows.length > limit;
  const rows = r.rows.slice(0, limit).map(view);
  return { rows, truncated, nextAfter: rows.length ? rows[rows.length - 1].timerKey : null };
}
