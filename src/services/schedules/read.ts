// Reading schedules: one with its payload as stored and its next occurrences, or a queue's by key.
import { SHOWN_OCCURRENCES, type GetScheduleResult, type ScheduleList } from '../../contract/schedules.ts';
import type { Database } from '../../db/index.ts';
import type { Caller } from '../timers/deps.ts';
import { shownOccurrences } from './occurrences.ts';
import { VIEW_COLUMNS, view, type ViewRow } from './rows.ts';

type Deps = { db: Database };

/**
 * getSchedule — $1 tenant, $2 queue, $3 schedule_key. No lock. Rows: 0 or 1, with PostgreSQL's
 * now() (the next occurrences are counted from it) and the payload as stored, in base64 without
 * encode()'s line breaks.
 */
const GET_SQL = `
SELECT ${VIEW_COLUMNS}, translate(encode(s.payload, 'base64'), E'\\n', '') AS payload,
       (extract(epoch FROM now()) * 1000)::float8 AS now_ms
  FROM schedules s WHERE s.tenant = $1 AND s.queue = $2 AND s.schedule_key = $3`;

/**
 * listSchedules — $1 tenant, $2 queue, $3 exclusive cursor|null, $4 limit + 1. No lock. Walks
 * the primary key in byte order. Rows: 0..limit + 1; the extra row says truncated.
 */
const LIST_SQL = `
SELECT ${VIEW_COLUMNS} FROM schedules s
 WHERE s.tenant = $1 AND s.queue = $2 AND ($3::text IS NULL OR s.schedule_key > $3::text COLLATE "C")
 ORDER BY s.schedule_key COLLATE "C" LIMIT $4`;

export async function getSchedule(
  deps: Deps,
  caller: Pick<Caller, 'tenant'>,
  queue: string,
  scheduleKey: string,
  shown = SHOWN_OCCURRENCES,
): Promise<GetScheduleResult> {
  const r = await deps.db.pool.query<ViewRow & { payload: string; now_ms: number }>(GET_SQL, [caller.tenant, queue, scheduleKey]);
  const row = r.rows[0];
  if (!row) return { found: false as const };
  return {
    found: true as const,
    ...view(row),
    payload: row.payload,
    nextOccurrences: shownOccurrences({ cron: row.cron, timezone: row.timezone }, Number(row.now_ms), shown),
  };
}

export async function listSchedules(
  deps: Deps,
  caller: Pick<Caller, 'tenant'>,
  queue: string,
  after: string | undefined,
  limit: number,
): Promise<ScheduleList> {
  const r = await deps.db.pool.query<ViewRow>(LIST_SQL, [caller.tenant, queue, after ?? null, limit + 1]);
  const truncated = r.rows.length > limit;
  const rows = r.rows.slice(0, limit).map(view);
  return { rows, truncated, nextAfter: rows.length ? rows[rows.length - 1].scheduleKey : null };
}
