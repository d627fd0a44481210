// Arranging and probing timers for the timer and sweeper tests: ops sent through the API, SQL
// probes of the timers table and the meter, and rows put in SQL (claimed the way a sweeper would,
// or inserted in bulk). Rows are made due by deliver_at computed from PostgreSQL's now(), never
// from the Node clock.
import pg from 'pg';
import { vi } from 'vitest';
import type { Queryable } from '../../src/db/transaction.ts';
import { api, type TestBroker } from './broker.ts';
import { b64 } from './log.ts';

// The wire formats are defined once, with the log helpers; re-exported for the timer tests.
export { b64, UUID } from './log.ts';

// ---------------------------------------------------------------------------------------------
// Through the API.

export const sched = (
  queue: string,
  timerKey: string,
  o: { delayMs?: number; payload?: string; txn?: string; partition?: string; op?: 'schedule' | 'reschedule' } = {},
) => ({
  op: o.op ?? ('schedule' as const),
  queue,
  timerKey,
  delayMs: o.delayMs ?? 60_000,
  payload: o.payload ?? b64(`{"key":${JSON.stringify(timerKey)}}`),
  ...(o.txn !== undefined ? { txn: o.txn } : {}),
  ...(o.partition !== undefined ? { partition: o.partition } : {}),
});

export const cancel = (queue: string, timerKey: string, txn?: string) => ({
  op: 'cancel' as const,
  queue,
  timerKey,
  ...(txn !== undefined ? { txn } : {}),
});

export async function batch(tb: TestBroker, operations: unknown[], o: { token?: string | null; tenant?: string } = {}) {
  const token = o.token !== undefined ? o.token : o.tenant ? await tb.token({ tenant: o.tenant }) : undefined;
  return api(tb, 'POST', '/api/v1/timers', { body: { operations }, token });
}

/** The path of a timer route with the key written naturally (no percent-encoding). */
export const keyPath = (queue: string, timerKey: string) => `/api/v1/timers/${queue}/${timerKey}`;

/** A plain HTTP request against a listening broker (no inject normalisation). */
export async function http(tb: TestBroker, method: string, path: string, o: { body?: unknown; token?: string } = {}) {
  const token = o.token ?? (await tb.token());
  const res = await fetch(tb.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

// ---------------------------------------------------------------------------------------------
// In SQL, row by row: probes of the timers table and the meter, and leases as a sweeper takes them.

export interface TimerRow {
  tenant: string;
  queue: string;
  timer_key: string;
  partition: string;
  deliver_at: Date;
  txn: string;
  message_id: string;
  payload: Buffer;
  payload_zstd: boolean;
  encrypted: boolean;
  producer_sub: string;
  attempts: number;
  last_error: string | null;
  claim_token: string | null;
  claim_expires_at: Date | null;
}

export async function row(tb: TestBroker, queue: string, timerKey: string, tenant = 'acme'): Promise<TimerRow | undefined> {
  const r = await tb.sql.query('SELECT * FROM timers WHERE tenant = $1 AND queue = $2 AND timer_key = $3', [tenant, queue, timerKey]);
  return r.rows[0];
}

export async function countRows(tb: TestBroker, tenant = 'acme'): Promise<number> {
  const r = await tb.sql.query('SELECT count(*)::int AS n FROM timers WHERE tenant = $1', [tenant]);
  return r.rows[0].n;
}

/** A digest of a tenant's timers, to assert that a refused batch changed nothing. */
export async function snapshot(tb: TestBroker, tenant = 'acme'): Promise<string> {
  const r = await tb.sql.query(
    `SELECT queue, timer_key, txn, message_id, deliver_at, md5(payload) AS p FROM timers WHERE tenant = $1 ORDER BY queue, timer_key`,
    [tenant],
  );
  return JSON.stringify(r.rows);
}

export async function metered(tb: TestBroker, tenant = 'acme'): Promise<number> {
  const r = await tb.sql.query('SELECT coalesce(sum(messages), 0)::int AS n FROM usage_meter WHERE tenant = $1', [tenant]);
  return r.rows[0].n;
}

/** Puts a row in a sweeper's hands: a live lease. */
export async function claimRow(tb: TestBroker, queue: string, timerKey: string, tenant = 'acme'): Promise<void> {
  const r = await tb.sql.query(
    `UPDATE timers SET claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 minute'
      WHERE tenant = $1 AND queue = $2 AND timer_key = $3`,
    [tenant, queue, timerKey],
  );
  if (r.rowCount !== 1) throw new Error(`no row ${tenant}/${queue}/${timerKey} to claim`);
}

/** A lease that has expired: a broker died holding it, or a fire failed and the row backs off. */
export async function expireClaim(tb: TestBroker, queue: string, timerKey: string, tenant = 'acme'): Promise<void> {
  await tb.sql.query(
    `UPDATE timers SET claim_token = gen_random_uuid(), claim_expires_at = now() - interval '1 second', attempts = 3, last_error = 'boom'
      WHERE tenant = $1 AND queue = $2 AND timer_key = $3`,
    [tenant, queue, timerKey],
  );
}

// ---------------------------------------------------------------------------------------------
// In SQL, in bulk: the sweeper tests' rows, and deterministic failures of the log.

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
export async function insertTimers(
  sql: Queryable,
  o: TimerRows = {},
): Promise<{ timerKey: string; txn: string; messageId: string; deliverAtMs: number }[]> {
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

/**
 * The fire thread's connections, as pg_stat_activity shows them (fireThreadWorker.ts names them):
 * each backend's pid, its last statement, and when it started (ms since the epoch).
 */
export async function fireThreadBackends(sql: Queryable): Promise<{ pid: number; query: string; started: number }[]> {
  const { rows } = await sql.query(
    `SELECT pid, query, (extract(epoch FROM backend_start) * 1000)::float8 AS started FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'queen-timers-fire-thread'`,
  );
  return rows;
}

/**
 * The prepared names starting with `prefix` (by default the fire statements, `qt_fire…`) sent from
 * this thread until `restore`, in order, on any connection: the sweeper's and the broker's, not the
 * fire thread's (its worker loads pg again).
 */
export function recordFireStatements(prefix = 'qt_fire'): { sent: string[]; restore: () => void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const name = (args[0] as { name?: string } | undefined)?.name;
    if (name?.startsWith(prefix)) sent.push(name);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  return { sent, restore: () => spy.mockRestore() };
}
