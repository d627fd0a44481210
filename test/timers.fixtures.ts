// Shared arrangements for the timer tests (test/timers*.test.ts): op builders, SQL probes of the
// timers table and the meter, and claiming a row the way a sweeper would.
import { api, type TestBroker } from './helpers/broker.ts';

export const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

export const sched = (queue: string, timerKey: string, o: { delayMs?: number; payload?: string; txn?: string; partition?: string; op?: 'schedule' | 'reschedule' } = {}) => ({
  op: o.op ?? ('schedule' as const),
  queue,
  timerKey,
  delayMs: o.delayMs ?? 60_000,
  payload: o.payload ?? b64(`{"key":${JSON.stringify(timerKey)}}`),
  ...(o.txn !== undefined ? { txn: o.txn } : {}),
  ...(o.partition !== undefined ? { partition: o.partition } : {}),
});

export const cancel = (queue: string, timerKey: string, txn?: string) => ({ op: 'cancel' as const, queue, timerKey, ...(txn !== undefined ? { txn } : {}) });

export async function batch(tb: TestBroker, operations: unknown[], o: { token?: string | null; tenant?: string } = {}) {
  const token = o.token !== undefined ? o.token : o.tenant ? await tb.token({ tenant: o.tenant }) : undefined;
  return api(tb, 'POST', '/api/v1/timers', { body: { operations }, token });
}

/** The path of a timer route with the key written naturally (no percent-encoding). */
export const keyPath = (queue: string, timerKey: string) => `/api/v1/timers/${queue}/${timerKey}`;

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
