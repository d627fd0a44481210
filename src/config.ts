// Every environment variable the broker reads, parsed once by zod. A bad value stops the start
// with a message naming the variable and what it accepts. Each variable's `.describe()` text is
// what docs/operations.md shows in its configuration table (`npm run docs` renders it).
import { z } from 'zod';
import { tenantName } from './contract/common.ts';
import { parseDatabaseUrl } from './db/primary.ts';

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);

/**
 * The longest QUEEN_SWEEPER_MAX_SLEEP_MS: every sweeper passes at least this often, which lets a
 * broker leave the other brokers unwoken for timers due well after it (notify.ts).
 */
export const MAX_SLEEP_CEILING_MS = 60_000;
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/**
 * A PostgreSQL URL: one host, or several in libpq's form (postgresql://u@h1:5432,h2:5432/db) of
 * which every connection uses the primary, or a Unix-domain socket's directory (src/db/primary.ts).
 * Refused here when the pools could not take it, so a bad URL stops the broker before it starts.
 */
const databaseUrl = z.string().superRefine((v, ctx) => {
  try {
    parseDatabaseUrl(v);
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      message: `a PostgreSQL URL (postgresql://user@host:port/db, or several host:port separated by commas): ${(err as Error).message}`,
    });
  }
});

/** The variables themselves, each with its description (the docs' configuration table is rendered from these). */
export const configFields = z.object({
  PORT: int(6632, 0)
    .refine((p) => p <= 65535, 'must be a port number 0..65535')
    .describe('HTTP port; `0` picks a free one.'),
  // Unset, the embedded dev broker (which prints an operator token at start) binds 127.0.0.1 so that
  // it is not reachable from the network by accident; with DATABASE_URL, 0.0.0.0: the production
  // shape behind a load balancer or in a container. Resolved by the transform at the end of this schema.
  HOST: z
    .string()
    .optional()
    .describe(
      'the address to listen on; unset: 127.0.0.1 without DATABASE_URL (the dev broker), 0.0.0.0 with it. HOST=0.0.0.0 opens the dev broker to the network.',
    ),
  DATABASE_URL: databaseUrl
    .optional()
    .describe(
      'a PostgreSQL ≥ 14 server (or a PgBouncer in front of it); several hosts in the libpq form `postgresql://u@h1:5432,h2:5432/db`: every connection goes to the one that is the primary (docs/operations.md, "Failover"); a Unix-domain socket as libpq names it, its directory percent-encoded as the host (`postgresql://u@%2Fvar%2Frun%2Fpostgresql/db`) or `postgresql://u@/db?host=/var/run/postgresql`; unset: embedded PGlite in QUEEN_DATA_DIR (a single broker).',
    ),
  QUEEN_DIRECT_DATABASE_URL: databaseUrl
    .optional()
    .describe(
      'with DATABASE_URL on a transaction-pooling PgBouncer: the server itself (or its hosts, as DATABASE_URL), for what needs a database session (migrations, LISTEN, the sweeper, maintenance); unset: DATABASE_URL.',
    ),
  QUEEN_DATA_DIR: z
    .string()
    .default('.queen-data')
    .describe('embedded mode: the folder holding the database files and the dev JWT secret.'),
  QUEEN_EMBEDDED_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9][0-9]*(kB|MB|GB)$/, 'a size such as 16MB (kB, MB or GB)')
    .default('16MB')
    .describe(
      "embedded mode: PostgreSQL's shared_buffers for the embedded database (kB, MB or GB); it stays resident in the broker's memory, so more only helps a large data set.",
    ),
  QUEEN_DISTRIBUTED: z
    .enum(['auto', 'citus', 'none'])
    .default('auto')
    .describe(
      'Citus: `auto` distributes the tables after the migrations when the database is a Citus coordinator (the citus extension is installed in it): every tenant-keyed table by tenant, colocated, and the cell-wide ones as reference tables; `citus` requires the extension (the start fails without it); `none` never distributes. On PostgreSQL without the extension, `auto` changes nothing.',
    ),
  QUEEN_DB_STARTUP_TIMEOUT_MS: int(30_000, 0).describe(
    'how long a starting broker retries a database it cannot reach (backoff 250 ms → 5 s) before it exits 1, in milliseconds.',
  ),
  QUEEN_DB_POOL_SIZE: int(10, 1).describe(
    'connections per broker for the request path (the sweeper has its own small pool; embedded: at most 4).',
  ),
  QUEEN_OPERATOR_TENANT: tenantName
    .default('operator')
    .describe("the tenant whose credentials may use the admin grant; every other tenant's admin grant is refused."),
  QUEEN_TENANTLESS_TOKEN_TENANT: tenantName
    .optional()
    .describe(
      "unset (the default): a token without a tenant claim is refused. Set: such a token is this tenant's, and one without grants takes them from Queen's role claim (read-only, read-write, admin) — for a single-tenant cell moving from Queen. Risk: every token the key signs without a tenant reaches this tenant's data.",
    ),
  QUEEN_JWT_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters (HS256 key)')
    .optional()
    .describe(
      'HS256 key, at least 32 characters; required with DATABASE_URL unless QUEEN_JWT_PUBLIC_KEY or QUEEN_JWT_JWKS_URL is set (only one of the three).',
    ),
  QUEEN_JWT_JWKS_URL: z.string().url().optional().describe('a JWKS endpoint that verifies tokens.'),
  QUEEN_JWT_PUBLIC_KEY: z
    .string()
    .optional()
    .describe('PEM public key that verifies tokens: RSA (RS256, PS256), EC P-256 (ES256) or Ed25519 (EdDSA).'),
  QUEEN_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit AES key)')
    .optional()
    .describe('64 hex characters: the AES-256-GCM key of queues that encrypt at rest.'),
  QUEEN_SWEEPER_MIN_SLEEP_MS: int(1, 0).describe('shortest sleep between sweeper passes, in milliseconds.'),
  QUEEN_SWEEPER_MAX_SLEEP_MS: int(1000, 1, MAX_SLEEP_CEILING_MS).describe(
    `longest sleep between sweeper passes, in milliseconds, at most ${MAX_SLEEP_CEILING_MS}: a lost wake-up costs at most this much lag.`,
  ),
  QUEEN_SWEEPER_LEASE_MS: int(30_000, 100).describe(
    "how long a sweeper's claim on a timer holds, in milliseconds: the longest a cancel answers too_late after a broker dies.",
  ),
  QUEEN_SWEEPER_MAX_ATTEMPTS: int(5, 1).describe("failed fires (permanent failures only) before a timer goes to its queue's DLQ."),
  QUEEN_SWEEPER_BATCH_SIZE: int(1000, 1).describe('timers claimed and fired per transaction.'),
  QUEEN_SWEEPER_HANDOFF_MS: int(100, 0).describe(
    'hand-off window, in milliseconds: the sweeper claims timers due within this much of now and fires each from memory at its instant (a cancel or reschedule inside the window answers too_late); 0 claims only due timers.',
  ),
  QUEEN_SWEEPER_FIRE_THREAD: bool(true).describe(
    "the hand-off window's fires leave from a thread of the sweeper's own, with two connections of its own, at their instants, however busy the broker's main thread (real PostgreSQL, not Citus); false fires them from the main thread.",
  ),
  QUEEN_SWEEPER_ENABLED: bool(true).describe('false runs an API-only broker (no sweeper).'),
  QUEEN_DEFAULT_HORIZON_SECONDS: int(90 * 24 * 3600, 1).describe(
    "the cell's horizon in seconds (default 90 days); a tenant's plan may only narrow it.",
  ),
  QUEEN_DEFAULT_MAX_PAYLOAD_BYTES: int(4 * 1024 * 1024, 1)
    .refine((n) => n <= 8 * 1024 * 1024, 'must be at most 8388608 (the cell maximum, 8 MiB)')
    .describe("the default plan's max payload in bytes, at most 8 MiB: a pushed message's ceiling; a timer's is min(1 MiB, this)."),
  QUEEN_DEFAULT_MAX_PENDING_TIMERS: int(1_000_000, 0).describe("the default plan's pending-timer quota per tenant."),
  QUEEN_DEFAULT_SCHEDULE_RATE_PER_SECOND: int(100_000, 1).describe("the default plan's schedule ops per second per tenant."),
  QUEEN_DEFAULT_MAX_SCHEDULES: int(1_000, 0).describe(
    "the default plan's limit on schedules per tenant (replacing a schedule's key is not a new one).",
  ),
  QUEEN_DEFAULT_MIN_SCHEDULE_INTERVAL_SECONDS: int(1, 1).describe(
    "the default plan's shortest gap between two occurrences of one schedule, in seconds; a cron firing more often is refused at PUT.",
  ),
  QUEEN_DEFAULT_STORAGE_LIMIT_BYTES: int(0, 0).describe("the default plan's storage limit per tenant in bytes; 0: no limit."),
  QUEEN_BODY_LIMIT_BYTES: int(8 * 1024 * 1024, 1024).describe(
    'largest request body in bytes (larger: 413) on every route but push; the largest legal timer batch is 256 ops of 1 MiB payloads, base64.',
  ),
  QUEEN_PUSH_BODY_LIMIT_BYTES: int(16 * 1024 * 1024, 1024).describe(
    'largest body of POST /api/v1/push in bytes (larger: 413): room for a payload at the cell maximum of 8 MiB, escaped, beside others.',
  ),
  QUEEN_HEADERS_TIMEOUT_MS: int(10_000, 100).describe(
    "a request's headers must arrive within this many milliseconds of its first byte, or it is answered 408 request_timeout and the connection closed.",
  ),
  QUEEN_BODY_TIMEOUT_MS: int(30_000, 100).describe(
    "the whole request, body included, must arrive within this many milliseconds; a long-poll's wait is not counted (its request has no body).",
  ),
  QUEEN_MAX_UNAUTHENTICATED_SOCKETS: int(1_000, 1).describe(
    'connections per broker on which no request has carried a valid credential yet; one more closes the oldest (per broker, not per IP, so a load balancer in front does not defeat it).',
  ),
  QUEEN_DEFAULT_RETENTION_SECONDS: int(0, 0).describe(
    'retention of queues that set none, in seconds: frames older than this are deleted; 0: keep.',
  ),
  QUEEN_DEFAULT_COMPLETED_RETENTION_SECONDS: int(0, 0).describe(
    'the same for frames every consumer group has passed, in seconds; 0: keep.',
  ),
  QUEEN_RETENTION_INTERVAL_MS: int(1_000, 10).describe('how often each broker runs a retention pass, in milliseconds.'),
  QUEEN_RETENTION_BATCH_SIZE: int(1_000, 1).describe(
    'frames one retention transaction deletes at most (a pass runs up to 20 per partition).',
  ),
  QUEEN_LONGPOLL_PROBE_MS: int(1_000, 10).describe(
    "how often waiting long-polls' groups are probed for frames no event announced (an expired lease), in milliseconds.",
  ),
  QUEEN_MAINTENANCE_MS: int(30_000, 1_000).describe(
    'where autovacuum does not run (embedded PGlite, or a server with autovacuum off): how often a broker runs VACUUM (ANALYZE) on its tables itself, in milliseconds.',
  ),
  QUEEN_METRICS_QUEUE_INTERVAL_MS: int(15_000, 100).describe(
    'how often each broker samples the per-queue gauges of /metrics, in milliseconds.',
  ),
  QUEEN_METRICS_QUEUES: int(50, 1).describe('series per per-queue gauge of /metrics: the largest queues only.'),
  QUEEN_METRICS_AUTH: z
    .enum(['none', 'token', 'operator'])
    .default('none')
    .describe(
      'who may read /metrics: none (anyone reaching the port; keeps scrapers working), token (Bearer QUEEN_METRICS_TOKEN) or operator (an operator admin JWT).',
    ),
  QUEEN_METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('the bearer secret of QUEEN_METRICS_AUTH=token, at least 16 characters.'),
  QUEEN_METRICS_TENANT_LABELS: bool(true).describe(
    'false: no series of /metrics names a tenant or a queue (the per-queue gauges are not sampled).',
  ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level; logs are JSON on stdout, authorization redacted.'),
});

export const configSchema = configFields
  .refine((c) => [c.QUEEN_JWT_SECRET, c.QUEEN_JWT_PUBLIC_KEY, c.QUEEN_JWT_JWKS_URL].filter(Boolean).length <= 1, {
    message: 'set only one of QUEEN_JWT_SECRET, QUEEN_JWT_PUBLIC_KEY and QUEEN_JWT_JWKS_URL: tokens are verified with exactly one key',
    path: ['QUEEN_JWT_SECRET'],
  })
  .refine((c) => !c.QUEEN_DIRECT_DATABASE_URL || c.DATABASE_URL, {
    message: 'QUEEN_DIRECT_DATABASE_URL needs DATABASE_URL (the embedded database has no pooler to bypass)',
    path: ['QUEEN_DIRECT_DATABASE_URL'],
  })
  .refine((c) => c.QUEEN_HEADERS_TIMEOUT_MS <= c.QUEEN_BODY_TIMEOUT_MS, {
    message: 'QUEEN_HEADERS_TIMEOUT_MS must not exceed QUEEN_BODY_TIMEOUT_MS (the headers are part of the request)',
    path: ['QUEEN_HEADERS_TIMEOUT_MS'],
  })
  .refine((c) => c.QUEEN_METRICS_AUTH !== 'token' || c.QUEEN_METRICS_TOKEN, {
    message: 'QUEEN_METRICS_AUTH=token needs QUEEN_METRICS_TOKEN (the bearer secret scrapers send)',
    path: ['QUEEN_METRICS_TOKEN'],
  })
  .refine((c) => c.QUEEN_SWEEPER_MIN_SLEEP_MS <= c.QUEEN_SWEEPER_MAX_SLEEP_MS, {
    message: 'QUEEN_SWEEPER_MIN_SLEEP_MS must not exceed QUEEN_SWEEPER_MAX_SLEEP_MS',
    path: ['QUEEN_SWEEPER_MIN_SLEEP_MS'],
  })
  .transform((c) => ({ ...c, HOST: c.HOST ?? (c.DATABASE_URL ? '0.0.0.0' : '127.0.0.1') }));

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const r = configSchema.safeParse(cleaned);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.') || '(config)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return r.data;
}
