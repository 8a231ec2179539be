import { KafkaBus } from '@cardlens/bus';
import { ConfigError, kafkaSecurity } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadAccountsConfig } from './config';
import { startAccountsService } from './service';

// The accounts process in production: config from the environment, Postgres, Kafka, one gRPC server.
const config = loadAccountsConfig();
const telemetry = startTelemetry({ serviceName: 'accounts', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('accounts');
if (!config.KAFKA_BROKERS?.length) throw new ConfigError('Invalid configuration for accounts:\n  - KAFKA_BROKERS: required when accounts runs as its own process');
const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'accounts', topicPrefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(config), logger });
const service = await startAccountsService({
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
