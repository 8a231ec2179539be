import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadGradingConfig } from './config';
import { startGradingService } from './service';

// The grading process (POST /v1/grades behind the gateway): config from the environment, telemetry, Postgres,
// Redis for the in-flight lock, and a clean stop on SIGTERM/SIGINT (grades in flight finish and settle first).
const config = loadGradingConfig();
const telemetry = startTelemetry({ serviceName: 'grading', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('grading');
const service = await startGradingService({ config, database: databaseConfigFromEnv(process.cwd(), process.env, config.DATABASE_POOL_SIZE), logger });
exitOnSignals(logger, () => service.stop(), telemetry);
