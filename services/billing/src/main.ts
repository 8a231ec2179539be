import { KafkaBus } from '@cardlens/bus';
import { ConfigError, kafkaSecurity } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadBillingConfig } from './config';
import { startBillingService } from './service';

// The billing process in production: config from the environment, Postgres, Kafka, one gRPC server.
const config = loadBillingConfig();
const telemetry = startTelemetry({ serviceName: 'billing', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('billing');
if (!config.KAFKA_BROKERS?.length) throw new ConfigError('Invalid configuration for billing:\n  - KAFKA_BROKERS: required when billing runs as its own process');
const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'billing', topicPrefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(config), logger });
const service = await startBillingService({
  config,
  database: databaseConfigFromEnv(process.cwd(), process.env, config.DATABASE_POOL_SIZE),
  bus,
  logger,
});
await bus.start();

exitOnSignals(logger, async () => {
  await service.stop();
  await bus.stop();
}, telemetry);
