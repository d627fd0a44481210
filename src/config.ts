// Every environment variable the broker reads, parsed once by zod. A bad value stops the start
// with a message naming the variable and what it accepts. The README's configuration table
// mirrors this file.
import { z } from 'zod';
import { tenantName } from './contract/common.ts';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const configSchema = z
  .object({
    PORT: int(6632, 0).refine((p) => p <= 65535, 'must be a port number 0..65535'),
    /**
     * The address the HTTP server binds. Unset: 127.0.0.1 for the embedded dev broker (no
     * DATABASE_URL), which prints an operator token at start and should not be reachable from the
     * network by accident; 0.0.0.0 with DATABASE_URL, the production shape behind a load balancer
     * or in a container. HOST=0.0.0.0 opens the dev broker to the network on purpose.
     */
    HOST: z.string().optional(),
    /** Unset: embedded PGlite in QUEEN_DATA_DIR. Set: a PostgreSQL >= 14 server. */
    DATABASE_URL: z.string().url().optional(),
    /**
     * With DATABASE_URL pointing at a transaction-pooling PgBouncer: the server itself, for what
     * needs a session (migrations, LISTEN, the sweeper, maintenance). Unset: DATABASE_URL.
     */
    QUEEN_DIRECT_DATABASE_URL: z.string().url().optional(),
    QUEEN_DATA_DIR: z.string().default('.queen-data'),
    /** How long a starting broker retries a database it cannot reach before it gives up. */
    QUEEN_DB_STARTUP_TIMEOUT_MS: int(30_000, 0),
    /** Pool size per broker for the request path (the sweeper has its own small pool). */
    QUEEN_DB_POOL_SIZE: int(10, 1),
    /** The tenant whose credentials may use the admin grant; every other tenant's admin grant is refused. */
    QUEEN_OPERATOR_TENANT: tenantName.default('operator'),
    QUEEN_JWT_SECRET: z.string().min(32, 'must be at least 32 characters (HS256 key)').optional(),
    QUEEN_JWT_JWKS_URL: z.string().url().optional(),
    QUEEN_JWT_PUBLIC_KEY: z.string().optional(),
    QUEEN_ENCRYPTION_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit AES key)')
      .optional(),
    QUEEN_SWEEPER_MIN_SLEEP_MS: int(1, 0),
    QUEEN_SWEEPER_MAX_SLEEP_MS: int(1000, 1),
    QUEEN_SWEEPER_LEASE_MS: int(30_000, 100),
    QUEEN_SWEEPER_MAX_ATTEMPTS: int(5, 1),
    QUEEN_SWEEPER_BATCH_SIZE: int(1000, 1),
    QUEEN_SWEEPER_ENABLED: bool(true),
    /** The cell's horizon; a tenant's plan may only narrow it. 90 days. */
    QUEEN_DEFAULT_HORIZON_SECONDS: int(90 * 24 * 3600, 1),
    QUEEN_DEFAULT_MAX_PAYLOAD_BYTES: int(1024 * 1024, 1),
    QUEEN_DEFAULT_MAX_PENDING_TIMERS: int(1_000_000, 0),
    QUEEN_DEFAULT_SCHEDULE_RATE_PER_SECOND: int(100_000, 1),
    /** 0 = no storage limit by default. */
    QUEEN_DEFAULT_STORAGE_LIMIT_BYTES: int(0, 0),
    /** Request body limit; the largest legal batch is 256 ops of 1 MiB payloads, base64. */
    QUEEN_BODY_LIMIT_BYTES: int(8 * 1024 * 1024, 1024),
    /** Retention defaults for queues that do not set their own (0 = keep); see src/services/log/retention.ts. */
    QUEEN_DEFAULT_RETENTION_SECONDS: int(0, 0),
    QUEEN_DEFAULT_COMPLETED_RETENTION_SECONDS: int(0, 0),
    /** How often a broker runs a retention pass, and how many frames it deletes per partition and pass. */
    QUEEN_RETENTION_INTERVAL_MS: int(1_000, 10),
    QUEEN_RETENTION_BATCH_SIZE: int(1_000, 1),
    /** How often waiting long-polls' groups are probed for work no event announced (an expired lease). */
    QUEEN_LONGPOLL_PROBE_MS: int(1_000, 10),
    /** Embedded, or a server with autovacuum off: how often a broker vacuums and analyses the tables itself. */
    QUEEN_MAINTENANCE_MS: int(30_000, 1_000),
    /** The per-queue gauges of /metrics: how often they are sampled, and how many queues each reports. */
    QUEEN_METRICS_QUEUE_INTERVAL_MS: int(15_000, 100),
    QUEEN_METRICS_QUEUES: int(50, 1),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .refine((c) => [c.QUEEN_JWT_SECRET, c.QUEEN_JWT_PUBLIC_KEY, c.QUEEN_JWT_JWKS_URL].filter(Boolean).length <= 1, {
    message: 'set only one of QUEEN_JWT_SECRET, QUEEN_JWT_PUBLIC_KEY and QUEEN_JWT_JWKS_URL: tokens are verified with exactly one key',
    path: ['QUEEN_JWT_SECRET'],
  })
  .refine((c) => !c.QUEEN_DIRECT_DATABASE_URL || c.DATABASE_URL, {
    message: 'QUEEN_DIRECT_DATABASE_URL needs DATABASE_URL (the embedded database has no pooler to bypass)',
    path: ['QUEEN_DIRECT_DATABASE_URL'],
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
