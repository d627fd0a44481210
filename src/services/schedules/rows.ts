// What the schedule services and the sweeper's materializer share: how a schedule row reads on the
// wire, how an occurrence's timer is named and keyed in the log, and which timers are a schedule's.
import type { ScheduleRow } from '../../contract/schedules.ts';
import { isoSql } from '../../db/sql.ts';

/**
 * How far ahead of its instant an occurrence becomes a timer. The sweepers' loop wakes for it (see
 * src/sweeper/materializeDue.ts), so this only has to cover a late pass: 30 s. A schedule never has
 * more than one materialized occurrence still in the future (materialize_at ≥ last_at), so an
 * every-second schedule holds one timer ahead, not thirty.
 */
export const MATERIALIZE_LOOKAHEAD_MS = 30_000;

/**
 * An occurrence's txn: from the schedule's definition (new at every PUT) and the instant, so two
 * brokers materializing one occurrence make one frame (the log deduplicates on the txn), and a
 * replaced schedule's occurrences never share a txn with the old definition's.
 */
export const occurrenceTxn = (definition: string, atMs: number) => `schedule:${definition}@${new Date(atMs).toISOString().slice(0, 19)}Z`;

/**
 * The timers of a schedule among `timers t`, its tenant, queue and key given as SQL expressions:
 * keys `<scheduleKey>@<YYYY-MM-DDTHH:MM:SSZ>`, found as a range of the primary key ('@' < 'A' in
 * byte order) and then matched exactly, so schedule `a` never reaches the timers of schedule `a@b`.
 */
export const scheduleTimers = (tenant: string, queue: string, key: string) => `t.tenant = ${tenant} AND t.queue = ${queue}
   AND t.timer_key >= (${key} || '@') COLLATE "C" AND t.timer_key < (${key} || 'A') COLLATE "C"
   AND substr(t.timer_key, length(${key}) + 2) ~ '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$'`;

/** The same with $1 tenant, $2 queue, $3 schedule key; TIMER_AT is the occurrence instant a key names. */
export const SCHEDULE_TIMERS = scheduleTimers('$1::text', '$2::text', '$3::text');
export const TIMER_AT = isoSql('substr(t.timer_key, length($3::text) + 2)::timestamptz');

/** A row's columns as the view needs them (schedules s). */
export const VIEW_COLUMNS = `s.queue, s.schedule_key, s.cron, s.timezone, s.partition, s.payload_zstd, s.encrypted, s.producer_sub,
  s.revision, ${isoSql('s.next_at')} AS next_at, ${isoSql('s.last_at')} AS last_at, s.skipped::float8 AS skipped,
  ${isoSql('s.created_at')} AS created_at, ${isoSql('s.updated_at')} AS updated_at`;

export interface ViewRow {
  queue: string;
  schedule_key: string;
  cron: string;
  timezone: string;
  partition: string;
  payload_zstd: boolean;
  encrypted: boolean;
  producer_sub: string;
  revision: number;
  next_at: string | null;
  last_at: string | null;
  skipped: number;
  created_at: string;
  updated_at: string;
}

export function view(row: ViewRow): ScheduleRow {
  return {
    queue: row.queue,
    scheduleKey: row.schedule_key,
    cron: row.cron,
    timezone: row.timezone,
    partition: row.partition,
    payloadZstd: row.payload_zstd,
    encrypted: row.encrypted,
    producerSub: row.producer_sub,
    revision: Number(row.revision),
    nextAt: row.next_at,
    lastAt: row.last_at,
    skipped: Number(row.skipped),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A materialized occurrence as PUT and DELETE report it. */
export interface TimerOfSchedule {
  timerKey: string;
  at: string;
  txn: string;
}

export const timerOfSchedule = (r: { timer_key: string; at: string; txn: string }): TimerOfSchedule => ({
  timerKey: r.timer_key,
  at: r.at,
  txn: r.txn,
});
