import { KafkaBus } from '@cardlens/bus';
import { ConfigError, kafkaSecurity } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadValuationConfig } from './config';
import { startValuationService } from './service';

// The valuation process in production: config from the environment, Postgres, Kafka (sales feed), one gRPC server.
const config = loadValuationConfig();
const telemetry = startTelemetry({ serviceName: 'valuation', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('valuation');
if (!config.KAFKA_BROKERS?.length) throw new ConfigError('Invalid configuration for valuation:\n  - KAFKA_BROKERS: required when valuation runs as its own process');
const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'valuation', topicPrefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(config), logger });
const service = await startValuationService({
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
