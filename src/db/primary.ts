// Every PostgreSQL connection the broker opens: the request pool, the direct pool, the sweeper's
// pool and the LISTEN connection are all made here, so that each one goes to the current primary.
//
// A database URL may list several hosts, in libpq's form: postgresql://u@h1:5432,h2:5432/db.
// node-postgres parses one host only (it refuses that URL), so the list is parsed here and pg is
// given one host at a time. A new connection goes to the primary: the first host that answers
// `SELECT pg_is_in_recovery()` with false. The answer is remembered for the next connections and
// forgotten as soon as a connection to that host fails to open, is lost, or meets a read-only
// server (SQLSTATE 25006, a standby or a fenced primary); such a connection is never reused, and
// the next one looks for the primary again. With one host there is nothing to choose: no probe.
//
// Two more duties of every connection:
//  - TCP keepalive, so that a server that vanished without closing its sockets (a powered-off
//    host, a partition) is noticed after KEEPALIVE_IDLE_MS of silence plus the kernel's probes,
//    not after its two-hour default;
//  - a commit whose wait for a synchronous standby was cancelled: PostgreSQL answers success with
//    a WARNING "canceling wait for synchronous replication … might not have been replicated to the
//    standby". The statement that received it fails with ReplicationUnconfirmedError instead (a
//    503 on the request path): it may be lost in a failover, so it is never acknowledged.
import pg from 'pg';
import { ReplicationUnconfirmedError, SQLSTATE } from '../errors.ts';

export interface Host {
  host: string;
  port: number;
}

/** TCP keepalive: the first probe after this much silence on a connection. */
export const KEEPALIVE_IDLE_MS = 5_000;

/** How long one host may take to answer the primary probe before it counts as down. */
export const PROBE_TIMEOUT_MS = 3_000;

export interface ParsedUrl {
  /** The hosts in the URL's order. */
  hosts: Host[];
  /** The URL with its first host only: what pg parses for everything but the host. */
  single: string;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;

/**
 * Parses a PostgreSQL URL with one or several hosts (`host[:port]` separated by commas, IPv6 in
 * brackets; a host without a port takes 5432). A Unix-domain socket is named as libpq names it: its
 * directory percent-encoded in place of a host (`postgresql://u@%2Fvar%2Frun%2Fpostgresql/db`), or,
 * with no host before the path, the `host` (and `port`) query parameters
 * (`postgresql://u@/db?host=/var/run/postgresql`). Throws an Error naming what is wrong.
 */
export function parseDatabaseUrl(url: string): ParsedUrl {
  const m = URL_PARTS.exec(url);
  if (!m) throw new Error('must be a postgresql:// (or postgres://) URL');
  const [, scheme, userinfo = '', authority, tail] = m;
  const [hostList, rest] = authority === '' ? hostsFromQuery(tail) : [authority, tail];
  const hosts = hostList.split(',').map((h): Host => {
    const hp = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(h);
    if (!hp) throw new Error(`"${h}" is not a host or host:port`);
    const port = hp[2] === undefined ? 5432 : Number(hp[2]);
    if (port < 1 || port > 65535) throw new Error(`port ${port} of "${h}" is not 1..65535`);
    const host = /^%2F/i.test(hp[1]) ? decodeURIComponent(hp[1]) : hp[1].replace(/^\[(.*)\]$/, '$1');
    return { host, port };
  });
  const first = hosts[0];
  const single = `${scheme}${userinfo}${hostInUrl(first.host)}:${first.port}${rest}`;
  try {
    new URL(single);
  } catch {
    throw new Error('is not a valid URL');
  }
  return { hosts, single };
}

/**
 * The host list of a URL with none before its path, from its query as libpq reads it: `host` (names
 * or socket directories, separated by commas) and `port` (one for all, or one for each); and the
 * rest of the URL without them.
 */
function hostsFromQuery(rest: string): [hostList: string, rest: string] {
  const [path, search = ''] = rest.split('?', 2);
  const query = new URLSearchParams(search);
  const hosts = query.get('host')?.split(',') ?? [];
  if (hosts.length === 0 || hosts.includes('')) {
    throw new Error('names no host: write host[:port] after the @, or a socket directory as ?host=/var/run/postgresql');
  }
  const ports = query.get('port')?.split(',') ?? [];
  if (ports.length > 1 && ports.length !== hosts.length) {
    throw new Error(`?port= lists ${ports.length} ports for ${hosts.length} hosts: give one, or one for each`);
  }
  query.delete('host');
  query.delete('port');
  const hostList = hosts.map((h, i) => hostInUrl(h) + (ports.length === 0 ? '' : `:${ports[ports.length === 1 ? 0 : i]}`)).join(',');
  return [hostList, query.size === 0 ? path : `${path}?${query}`];
}

/** A host as a URL writes it: an IPv6 address in brackets, a socket directory percent-encoded. */
function hostInUrl(host: string): string {
  if (host.startsWith('/')) return encodeURIComponent(host);
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Points a client not yet connected at one host. pg takes host and port from the connection
 * string, which names the first host; both places it reads them from are set.
 */
function aim(client: object, h: Host): void {
  const c = client as InternalClient;
  c.host = h.host;
  c.port = h.port;
  c.connectionParameters.host = h.host;
  c.connectionParameters.port = h.port;
}

/** A host as messages name it: as a URL writes it, but a socket directory as its path. */
const label = (h: Host) => `${h.host.startsWith('/') ? h.host : hostInUrl(h.host)}:${h.port}`;

/** No listed host answered as a primary. SQLSTATE 08001: the client could not establish a connection. */
export class NoPrimaryError extends Error {
  readonly code = '08001';
}

/**
 * Which host is the primary, shared by every connection to the same URL in this process. A probe
 * asks every host at once and takes the first primary to answer; concurrent callers share it.
 */
export class PrimaryLocator {
  private known: Host | undefined;
  /** The pg Client class whose connections ask this locator (failoverClient). */
  clientClass: typeof pg.Client | undefined;
  private probing: Promise<Host> | undefined;

  constructor(
    readonly hosts: Host[],
    private readonly base: pg.ClientConfig,
  ) {}

  get multiHost(): boolean {
    return this.hosts.length > 1;
  }

  /** The primary to connect to. Throws NoPrimaryError when none answers as one. */
  primary(): Promise<Host> {
    if (!this.multiHost) return Promise.resolve(this.hosts[0]);
    if (this.known) return Promise.resolve(this.known);
    this.probing ??= this.probe().finally(() => (this.probing = undefined));
    return this.probing;
  }

  /** A connection to `host` failed or met a read-only server: ask again next time. */
  forget(host: Host): void {
    if (this.known && this.known.host === host.host && this.known.port === host.port) this.known = undefined;
  }

  private async probe(): Promise<Host> {
    const reasons: string[] = [];
    try {
      const found = await Promise.any(
        this.hosts.map(async (h) => {
          const c = new pg.Client({ ...this.base, connectionTimeoutMillis: PROBE_TIMEOUT_MS, keepAlive: true });
          aim(c, h);
          c.on('error', () => {});
          try {
            await c.connect();
            const { rows } = await c.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
            if (rows[0].standby) throw new Error('a standby (in recovery)');
            return h;
          } catch (err) {
            reasons.push(`${label(h)}: ${(err as Error).message}`);
            throw err;
          } finally {
            await c.end().catch(() => {});
          }
        }),
      );
      this.known = found;
      return found;
    } catch {
      throw new NoPrimaryError(`no primary among ${this.hosts.map(label).join(', ')} (${reasons.join('; ')})`);
    }
  }
}

const locators = new Map<string, PrimaryLocator>();

/** The locator of a URL: one per URL in the process, so every pool learns of a failover from the first to see it. */
export function locatorFor(url: string): PrimaryLocator {
  let l = locators.get(url);
  if (!l) {
    const { hosts, single } = parseDatabaseUrl(url);
    l = new PrimaryLocator(hosts, { connectionString: single });
    locators.set(url, l);
  }
  return l;
}

/** The WARNING of a commit that returned before a synchronous standby confirmed it. */
export function isSyncReplicationCancelled(notice: { message?: string }): boolean {
  return /canceling (the )?wait for synchronous replication/i.test(notice.message ?? '');
}

type Callback = (err?: Error) => void;

/** pg's Client as this module extends it: the pg 8 internals it relies on are named here. */
interface ClientInternals {
  connectionParameters: { host: string; port: number };
  /** The query being answered now. */
  _getActiveQuery(): { callback?: (err: Error | null, res?: unknown) => void } | null;
  /** Whether it takes more queries; pg-pool discards a client that does not at release. */
  _queryable: boolean;
  /** Handles an ErrorResponse from the server. */
  _handleErrorMessage(msg: { code?: string }): void;
}
type InternalClient = pg.Client & ClientInternals;
const Base = pg.Client as unknown as new (config?: pg.ClientConfig) => InternalClient;

/**
 * A pg Client class bound to a locator: connect() first asks it for the primary. pg-pool builds
 * its connections with it (the pool's `Client` option).
 */
export function failoverClient(locator: PrimaryLocator): typeof pg.Client {
  locator.clientClass ??= makeClientClass(locator);
  return locator.clientClass;
}

function makeClientClass(locator: PrimaryLocator): typeof pg.Client {
  class FailoverClient extends Base {
    /** The host this connection went to. */
    primary: Host | undefined;

    constructor(config?: pg.ClientConfig) {
      super(config);
      this.on('notice', (n: { message?: string }) => this.noticed(n));
      // A lost connection: the next one looks for the primary again (the caller's query fails).
      this.on('error', () => this.primary && locator.forget(this.primary));
    }

    // Both of pg's forms: pg-pool passes a callback, a lone client awaits the promise.
    // @ts-expect-error pg's typings declare connect() as overloads; this one serves both.
    override connect(callback?: Callback): Promise<void> | undefined {
      const done = this.locateAndConnect();
      if (!callback) return done;
      done.then(() => callback(), callback);
      return undefined;
    }

    private async locateAndConnect(): Promise<void> {
      const target = await locator.primary();
      // pg-pool's connection timeout fired while the probe ran: it destroyed the socket, which
      // net.Socket#connect would quietly bring back to life.
      if ((this as unknown as { connection: { stream: { destroyed: boolean } } }).connection.stream.destroyed) {
        throw new Error('timeout expired while looking for the primary');
      }
      this.primary = target;
      aim(this, target);
      try {
        await super.connect();
      } catch (err) {
        locator.forget(target);
        throw err;
      }
    }

    // SQLSTATE 25006 (read-only transaction): this server is no longer the primary. It arrives as
    // an ErrorResponse to a statement, which pg hands to the query, not to an event.
    override _handleErrorMessage(msg: { code?: string }): void {
      if (msg.code === SQLSTATE.readOnlySqlTransaction) {
        if (this.primary) locator.forget(this.primary);
        this._queryable = false; // never reused: discarded at release
      }
      super._handleErrorMessage(msg);
    }

    private noticed(n: { message?: string }): void {
      if (!isSyncReplicationCancelled(n)) return;
      // Fail the statement being answered: it committed here but may not survive a failover.
      const q = this._getActiveQuery();
      if (!q?.callback) return;
      const answer = q.callback;
      const err = new ReplicationUnconfirmedError(n.message ?? 'canceling wait for synchronous replication');
      q.callback = (e) => answer(e ?? err);
    }
  }
  return FailoverClient as unknown as typeof pg.Client;
}

/** What every connection carries whatever its use. */
const COMMON: pg.ClientConfig = { keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS };

/** A pool whose every connection goes to the URL's primary (see the top of this file). */
export function createPool(url: string, config: Omit<pg.PoolConfig, 'connectionString'>): pg.Pool {
  const locator = locatorFor(url);
  return new pg.Pool({
    ...COMMON,
    ...config,
    connectionString: parseDatabaseUrl(url).single,
    Client: failoverClient(locator),
  } as pg.PoolConfig);
}

/** One connection of its own (LISTEN) to the URL's primary; connect() it as usual. */
export function createClient(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}): pg.Client {
  const Client = failoverClient(locatorFor(url));
  return new Client({ ...COMMON, ...config, connectionString: parseDatabaseUrl(url).single });
}
