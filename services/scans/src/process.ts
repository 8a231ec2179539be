import { KafkaBus } from '@cardlens/bus';
import { ConfigError, kafkaSecurity } from '@cardlens/config';
import { databaseConfigFromEnv } from '@cardlens/db';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadScansConfig } from './config';
import type { RunningService, startScansService } from './service';

/**
 * A scans process in production (main.ts: the gRPC service; worker.ts: a scan worker): config from the
 * environment, telemetry, Postgres, Kafka, the given start function, and a clean stop on SIGTERM/SIGINT.
 */
export async function runScansProcess(name: 'scans' | 'scan-worker', start: (options: Parameters<typeof startScansService>[0]) => Promise<RunningService>): Promise<void> {
  const config = loadScansConfig();
  const telemetry = startTelemetry({ serviceName: name, exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
  const logger = createLogger(name);
  if (!config.KAFKA_BROKERS?.length) throw new ConfigError(`Invalid configuration for ${name}:\n  - KAFKA_BROKERS: required when ${name} runs as its own process`);
  const bus = new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: name, topicPrefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(config), sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS, logger });
  const service = await start({
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
}
