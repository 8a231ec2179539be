export { activeTrace, createLogger, REDACT_PATHS, type Logger } from './logger';
export { startTelemetry, type ShutdownTelemetry, type TelemetryExporter, type TelemetryOptions } from './sdk';
export { exitOnSignals } from './shutdown';
export { counter, gauge, histogram, LATENCY_BUCKETS, metricsRegistry, prometheus, scrapedGauge, startMetricsServer, type MetricsServer } from './metrics';
