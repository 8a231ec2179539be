import { KafkaBus } from '@cardlens/bus';
import { kafkaSecurity } from '@cardlens/config';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

// The gateway process in production: config from the environment, gRPC clients to the services, Kafka for
// billing's balance announcements (without KAFKA_BROKERS every read asks billing for the balance), HTTP server.
const config = loadGatewayConfig();
const telemetry = startTelemetry({ serviceName: 'gateway', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('gateway');
const bus = config.KAFKA_BROKERS?.length
  ? new KafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'gateway', topicPrefix: config.KAFKA_TOPIC_PREFIX, security: kafkaSecurity(config), logger })
  : undefined;
if (!bus) logger.warn('KAFKA_BROKERS is not set: balances are read from billing on every request');
const service = await startGateway({ config, logger, bus });
await bus?.start();

exitOnSignals(logger, async () => {
  await service.stop();
  await bus?.stop();
}, telemetry);
