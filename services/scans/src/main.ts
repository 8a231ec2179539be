import { KafkaBus } from '@cardlens/bus';
import { ConfigError } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadScansConfig } from './config';
import { startScansService } from './service';

// The scans process in production: config from the environment, Postgres, Kafka, the gRPC server, the outbox
// relay and (unless SCAN_WORKER_ENABLED=false, as the chart sets it) a scan worker.
const config = loadScansConfig();
const telemetry = startTelemetry({ serviceName: 'scans', exporter: config.OTEL_EXPORTER });
const logger = createLogger('scans');
if (!config.KAFKA_BROKERS?.length) throw new ConfigError('Invalid configuration for scans:\n  - KAFKA_BROKERS: required when scans runs as its own process');
const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'scans', topicPrefix: config.KAFKA_TOPIC_PREFIX, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS, logger });
const service = await startScansService({
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
