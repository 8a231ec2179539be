import { KafkaBus } from '@cardlens/bus';
import { ConfigError } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadScansConfig } from './config';
import { startScanWorker } from './service';

// A scan-worker process (the chart's scan-worker Deployment): one member of the scan-workers consumer group.
const config = loadScansConfig();
const telemetry = startTelemetry({ serviceName: 'scan-worker', exporter: config.OTEL_EXPORTER });
const logger = createLogger('scan-worker');
if (!config.KAFKA_BROKERS?.length) throw new ConfigError('Invalid configuration for scan-worker:\n  - KAFKA_BROKERS: required');
const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'scan-worker', topicPrefix: config.KAFKA_TOPIC_PREFIX, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS, logger });
const worker = await startScanWorker({
  config,
  database: databaseConfigFromEnv(process.cwd(), process.env, config.DATABASE_POOL_SIZE),
  bus,
  logger,
});
await bus.start();

exitOnSignals(logger, async () => {
  await worker.stop();
  await bus.stop();
}, telemetry);
