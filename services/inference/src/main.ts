import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { loadInferenceConfig } from './config';
import { startInferenceService } from './service';

// The inference process (GPU nodes in production): config from the environment, the engine, one gRPC server.
const config = loadInferenceConfig();
const telemetry = startTelemetry({ serviceName: 'inference', exporter: config.OTEL_EXPORTER, metricsPort: config.METRICS_PORT });
const logger = createLogger('inference');
const service = await startInferenceService({
  config,
  logger,
});

exitOnSignals(logger, () => service.stop(), telemetry);
