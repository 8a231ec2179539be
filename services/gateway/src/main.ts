import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

// The gateway process in production: config from the environment, gRPC clients to the services, HTTP server.
const config = loadGatewayConfig();
const telemetry = startTelemetry({ serviceName: 'gateway', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('gateway');
const service = await startGateway({
  config,
  logger,
});

exitOnSignals(logger, () => service.stop(), telemetry);
