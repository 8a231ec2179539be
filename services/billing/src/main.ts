import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, startTelemetry } from '@cardlens/telemetry';
import { loadBillingConfig } from './config';
import { startBillingService } from './service';

// The billing process in production: config from the environment, Postgres, one gRPC server.
const config = loadBillingConfig();
const telemetry = startTelemetry({ serviceName: 'billing', exporter: config.OTEL_EXPORTER });
const logger = createLogger('billing');
const service = await startBillingService({
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
