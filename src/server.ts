// The process: env → config → broker → signals. `npm start` runs this. A start that cannot succeed
// as configured (a bad key, the data folder in use, the port taken, the database unreachable after
// QUEEN_DB_STARTUP_TIMEOUT_MS of retries) prints one line and exits 1; only a bug prints a stack.
import { mintToken } from './auth.ts';
import { createBroker, DatabaseUnreachableError, embeddedSecret, type Broker } from './broker.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { FolderInUseError } from './db/folderLock.ts';

/** The operator's reading of a failed start, or undefined for a bug (printed whole). */
function startFailure(err: unknown, config: Config): string | undefined {
  if (err instanceof ConfigError || err instanceof FolderInUseError || err instanceof DatabaseUnreachableError) return err.message;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') return `port ${config.PORT} on ${config.HOST} is already in use: stop the other process or set PORT`;
  if (code === 'EACCES') return `not allowed to listen on port ${config.PORT} on ${config.HOST}: set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `HOST ${config.HOST} is not an address of this machine: set HOST`;
  return undefined;
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const embedded = !config.DATABASE_URL;
  const hasKey = config.QUEEN_JWT_SECRET || config.QUEEN_JWT_PUBLIC_KEY || config.QUEEN_JWT_JWKS_URL;
  if (!hasKey) {
    if (!embedded) {
      console.error(
        'Invalid configuration:\n  QUEEN_JWT_SECRET: required with DATABASE_URL (or set QUEEN_JWT_PUBLIC_KEY / QUEEN_JWT_JWKS_URL)',
      );
      process.exit(2);
    }
    config = { ...config, QUEEN_JWT_SECRET: await embeddedSecret(config.QUEEN_DATA_DIR) };
  }

  let broker: Broker | undefined;
  let address: string;
  try {
    broker = await createBroker(config, { logger: { level: config.LOG_LEVEL, redact: ['req.headers.authorization'] } });
    address = await broker.start();
  } catch (err) {
    const line = startFailure(err, config);
    await broker?.close().catch(() => {});
    if (line === undefined) throw err;
    console.error(`queen-timers: ${line}`);
    process.exit(1);
  }
  const log = broker.app.log;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await broker.close().catch((err) => log.error({ err }, 'error while stopping'));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const base = `http://localhost:${new URL(address).port}`;
  if (embedded && config.QUEEN_JWT_SECRET) {
    await broker.services.tenants.ensure('dev');
    const secret = config.QUEEN_JWT_SECRET;
    const dev = await mintToken(secret, { tenant: 'dev', sub: 'dev', grants: ['produce', 'consume', 'read'], expiresIn: '30d' });
    const operator = config.QUEEN_OPERATOR_TENANT;
    const ops = await mintToken(secret, { tenant: operator, sub: 'operator', grants: ['admin'], expiresIn: '30d' });
    console.log(
      [
        '',
        `queen-timers is running on an embedded database (${config.QUEEN_DATA_DIR}).`,
        `  Swagger UI:  ${base}/docs   (Authorize with the token below)`,
        `  Dashboard:   ${base}/ui     (sign in with the token below)`,
        `  Dev token (tenant "dev": produce, consume, read; 30 days):`,
        `  ${dev}`,
        `  Operator token (tenant "${operator}": admin, for /api/v1/admin; 30 days):`,
        `  ${ops}`,
        '',
      ].join('\n'),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
