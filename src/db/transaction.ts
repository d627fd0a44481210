// The one transaction runner. Every request path and the sweeper run their transactions here, on
// a pg client from the pool, with raw SQL. Prisma's interactive transactions are not used: their
// fixed timeout surfaced as a 500 on a slow pop or a large ack batch, and they cost the schedule
// path a share of its throughput (docs/benchmarks.md).
//
// What it guarantees:
//  - BEGIN … COMMIT on one connection, ROLLBACK on any error; a connection that broke mid-way is
//    discarded, never returned to the pool.
//  - A transaction PostgreSQL aborted as a deadlock victim or a serialization failure is replayed
//    whole (nothing of the failed attempt was committed), with jittered exponential backoff.
//  - A transient database failure that outlives its replays (lost connection, server shutting
//    down, out of connections) becomes 503 database_unavailable with Retry-After, never a 500.
//    No statement timeout is imposed here: a slow database answers slowly, then 503 if it fails.
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { ApiError, isTransientDbError, ReplicationUnconfirmedError, sqlState, SQLSTATE } from '../errors.ts';

/** Anything that runs a parameterised query: the pool, or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Runs one statement, named when `name` is given: a named statement is parsed once per connection
 * and, after a few executions, runs on a cached plan instead of being planned again (planning the
 * sweeper's fire took a millisecond of every fire). Only on a client of the server's own
 * connections, never through a transaction pooler, which would hand the next execution a
 * connection that never saw the name.
 */
export function runStatement<R extends pg.QueryResultRow>(
  q: Queryable,
  text: string,
  values: unknown[],
  name?: string,
): Promise<pg.QueryResult<R>> {
  return name ? (q as unknown as pg.ClientBase).query<R>({ name, text, values }) : q.query<R>(text, values);
}

/** Clients of a pool that reaches the server itself, with no transaction pooler between (keepsStatements). */
const keeping = new WeakSet<object>();

/**
 * Marks every connection `pool` opens as one that may keep named statements (runStatement): the
 * request path's pool when DATABASE_URL is the server itself (src/db/index.ts). Through a
 * transaction-pooling PgBouncer (QUEEN_DIRECT_DATABASE_URL set) it is not marked, and statements
 * go out unnamed.
 */
export function keepsStatements(pool: pg.Pool): void {
  keeping.add(pool);
  pool.on('connect', (client) => keeping.add(client));
}

/** `name` when `q` is a connection (or the pool) that keeps named statements (keepsStatements), else undefined. */
export function statementName(q: Queryable, name: string): string | undefined {
  return keeping.has(q) ? name : undefined;
}

/** Attempts of a transaction that keeps being picked as a deadlock or serialization victim. */
export const REPLAY_ATTEMPTS = 8;

export interface TransactionOptions {
  /** Statements run right after BEGIN (e.g. SET LOCAL planner settings). */
  setup?: string;
  /** false: run once, no replay (the caller retries by other means, like the sweeper's token). */
  replay?: boolean;
}

/**
 * Runs fn inside one transaction on a pooled connection; see the top of this file.
 * Never await another connection of the same pool inside fn: embedded PGlite runs on a single
 * connection, so fn would wait for itself.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  if (opts.replay === false) return once(pool, fn, opts.setup);
  return replayOnConflict(() => once(pool, fn, opts.setup));
}

/**
 * Replays fn when PostgreSQL picked it as a deadlock victim or failed it for serialization, and
 * turns a transient failure that outlived the replays into 503. Also for single statements
 * outside a transaction (a cancel's DELETE can deadlock with a batch holding the same row).
 */
export async function replayOnConflict<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (isReplayable(err) && attempt < REPLAY_ATTEMPTS) {
        // Full jitter: 5, 10, 20 … ms ceilings, so colliding transactions spread out.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
        continue;
      }
      throw unavailableOr(err);
    }
  }
}

/**
 * Whether a client writes each query as soon as it is issued (pg's `pipeline`, src/db/index.ts).
 * Only such a client may be handed a query while another is in flight; on any other (the embedded
 * database's) pg queues the second behind the first and warns that it will refuse it in pg 9, so
 * there the statements are awaited one after the other.
 */
export function pipelines(client: Queryable): boolean {
  return (client as { pipeline?: unknown }).pipeline === true;
}

/**
 * Runs `issue`, which sends statements without awaiting them, so that everything it sends on a
 * pipelining connection leaves in one write (pg writes each statement on its own otherwise): on a
 * loaded machine a socket write costs more than the statement's own CPU in the broker, and a
 * 256-op schedule batch spent a seventh of its time in them (docs/benchmarks.md). Writes held by
 * the cork go out when `issue` returns, whatever it throws.
 */
export function inOneWrite<T>(client: Queryable, issue: () => T): T {
  const stream = pipelines(client) ? (client as { connection?: { stream?: Partial<Writable> } }).connection?.stream : undefined;
  if (!stream?.cork || !stream.uncork) return issue();
  stream.cork();
  try {
    return issue();
  } finally {
    stream.uncork();
  }
}

/**
 * Runs `steps` in turn on one connection, each a statement or a function that starts with one,
 * and returns their results. On a pipelining connection each is issued without awaiting the one
 * before, all in one write (inOneWrite): PostgreSQL still runs each statement after the one before
 * it has finished, so a step that reads sees what it would see awaited. The first failure in that
 * order is the one thrown: once a statement fails, PostgreSQL fails every later one of the
 * transaction with 25P02 (in failed transaction), which says nothing of the cause (a deadlock must
 * reach the replay as one). Elsewhere each step is awaited before the next is issued.
 */
export async function inTurn<T extends readonly unknown[]>(
  client: Queryable,
  steps: { readonly [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  const all = steps as readonly (() => Promise<unknown>)[];
  if (!pipelines(client)) {
    const out: unknown[] = [];
    for (const step of all) out.push(await step());
    return out as unknown as T;
  }
  const issued = inOneWrite(client, () => all.map((step) => step()));
  for (const p of issued) p.catch(() => {});
  const out: unknown[] = [];
  for (const p of issued) out.push(await p);
  return out as unknown as T;
}

/** Clients whose transaction commitWith() already committed: the runner sends no COMMIT of its own. */
const committed = new WeakSet<object>();

/**
 * Runs a transaction's last statement and its COMMIT back to back: on a pipelining connection
 * (src/db/index.ts) both go out together, one round trip fewer while the transaction holds its
 * locks. If the statement fails, PostgreSQL turns the COMMIT into a rollback and the statement's
 * error is thrown. Nothing may run on `tx` afterwards: it is no longer in the transaction.
 */
export async function commitWith<R extends pg.QueryResultRow>(
  tx: Queryable,
  text: string,
  values: unknown[],
  name?: string,
): Promise<pg.QueryResult<R>> {
  const [result] = await inTurn<[pg.QueryResult<R>, unknown]>(tx, [
    () => runStatement<R>(tx, text, values, name),
    () => tx.query('COMMIT'),
  ]);
  committed.add(tx);
  return result;
}

async function once<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>, setup?: string): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client whose connection dies (pg_terminate_backend, a restart) emits 'error'
  // besides failing its query; unheard, that event would crash the process. The query's own
  // rejection carries the failure; the client is discarded at release.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    // Not awaited: on a pipelining connection BEGIN goes out with fn's first statement, one round
    // trip fewer (docs/benchmarks.md: a one-frame push's latency), and in the same write as what
    // fn sends before its first await (inOneWrite); elsewhere it is queued as before. Its failure
    // fails that statement too; it is re-raised here before COMMIT in any case.
    const pipelining = pipelines(client);
    let pending: Promise<T> | undefined;
    const begun = inOneWrite(client, () => {
      const b = client.query(setup ? `BEGIN; ${setup}` : 'BEGIN');
      if (pipelining) pending = fn(client);
      return b;
    });
    begun.catch(() => {});
    if (!pipelining) await begun;
    const result = await (pending ?? fn(client));
    await begun;
    if (!committed.delete(client)) await client.query('COMMIT');
    return result;
  } catch (err) {
    committed.delete(client);
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

function isReplayable(err: unknown): boolean {
  const code = sqlState(err);
  return code === SQLSTATE.deadlockDetected || code === SQLSTATE.serializationFailure;
}

/** A transient failure is "not your fault, retry shortly"; anything else passes through. */
export function unavailableOr(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof ReplicationUnconfirmedError) {
    // Committed on the primary only: the same request again (same key, same txn) is answered from it if it survives.
    const message = 'the write was not confirmed by a standby and may be lost in a failover; retry the same request shortly';
    return new ApiError('database_unavailable', message, { retryAfter: 1 }, { cause: err });
  }
  if (isTransientDbError(err)) {
    return new ApiError('database_unavailable', 'the database is busy or unreachable; retry shortly', { retryAfter: 1 }, { cause: err });
  }
  return err;
}

/** One statement, as pg takes it. */
export interface StatementText {
  text: string;
  values?: unknown[];
  name?: string;
}

/** A statement's outcome as plain data (it crosses a thread): its rows, or its error's fields. */
export type StatementOutcome = { ok: true; rows: unknown[] } | { ok: false; error: Record<string, unknown> };

/**
 * A transaction written down instead of run, to be run elsewhere in one write (the sweeper's fire
 * thread, src/sweeper/fireThread.ts): it starts with BEGIN and takes every statement issued on it
 * until close(); each one's promise settles with its outcome there (settle()). It says it
 * pipelines, so commitWith issues the COMMIT without awaiting the statement.
 */
export class WrittenTransaction implements Queryable {
  readonly pipeline = true;
  private readonly queries: StatementText[] = [{ text: 'BEGIN' }];
  private readonly answers: { resolve: (r: pg.QueryResult<any>) => void; reject: (e: Error) => void }[] = [];
  private closed = false;

  query<R extends pg.QueryResultRow = any>(q: string | StatementText, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.closed) return Promise.reject(new Error('a written transaction issues all its statements before it awaits one'));
    this.queries.push(typeof q === 'string' ? { text: q, values } : { text: q.text, values: q.values, name: q.name });
    return new Promise((resolve, reject) => this.answers.push({ resolve, reject }));
  }

  close(): StatementText[] {
    this.closed = true;
    return this.queries;
  }

  /** The statements' outcomes (BEGIN's first), or the failure of the whole transaction. */
  settle(outcomes: StatementOutcome[] | undefined, failure?: Error): void {
    this.answers.forEach((a, i) => {
      const o = outcomes?.[i + 1];
      if (!o) a.reject(failure ?? new Error('fewer outcomes than statements written'));
      else if (o.ok) a.resolve({ rows: o.rows, rowCount: o.rows.length } as pg.QueryResult<any>);
      else a.reject(Object.assign(new Error(String(o.error.message)), o.error));
    });
  }
}
