import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, startTelemetry } from '@cardlens/telemetry';
import { loadAccountsConfig } from './config';
import { startAccountsService } from './service';

// The accounts process in production: config from the environment, Postgres, one gRPC server.
const config = loadAccountsConfig();
const telemetry = startTelemetry({ serviceName: 'accounts', exporter: config.OTEL_EXPORTER });
const logger = createLogger('accounts');
const service = await startAccountsService({
  config,
  database: databaseConfigFromEnv(process.cwd(), process.env, config.DATABASE_POOL_SIZE),
  logger,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    void service.stop().then(() => telemetry()).then(() => process.exit(0));
  });
}
