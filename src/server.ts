// The process: env → config → broker → signals. `npm start` runs this.
import { mintToken } from './auth.ts';
import { createBroker, embeddedSecret } from './broker.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';

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

  const broker = await createBroker(config, {
    logger: { level: config.LOG_LEVEL, redact: ['req.headers.authorization'] },
  });
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

  const address = await broker.start();
  const base = `http://localhost:${new URL(address).port}`;
  if (embedded && config.QUEEN_JWT_SECRET) {
    await broker.services.tenants.ensure('dev');
    const token = await mintToken(config.QUEEN_JWT_SECRET, { tenant: 'dev', sub: 'dev', grants: ['produce', 'consume', 'read', 'admin'] });
    console.log(
      [
        '',
        `queen-timers is running on an embedded database (${config.QUEEN_DATA_DIR}).`,
        `  Swagger UI:  ${base}/docs   (Authorize with the token below)`,
        `  Dev token (tenant "dev", all grants):`,
        `  ${token}`,
        '',
      ].join('\n'),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
