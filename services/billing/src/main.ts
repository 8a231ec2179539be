import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
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

exitOnSignals(logger, () => service.stop(), telemetry);
