import { createLogger, startTelemetry } from '@cardlens/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

// The gateway process in production: config from the environment, gRPC clients to the services, HTTP server.
const config = loadGatewayConfig();
const telemetry = startTelemetry({ serviceName: 'gateway', exporter: config.OTEL_EXPORTER });
const logger = createLogger('gateway');
const service = await startGateway({
  config,
  logger,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    void service.stop().then(() => telemetry()).then(() => process.exit(0));
  });
}
