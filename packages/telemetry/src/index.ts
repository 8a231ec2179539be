export { activeTrace, createLogger, redactRecord, type Logger } from './logger';
export { startTelemetry, type ShutdownTelemetry, type TelemetryExporter, type TelemetryOptions } from './sdk';
export { exitOnSignals } from './shutdown';
export { inServerSpan, inSpan } from './spans';
export { counter, gauge, histogram, LATENCY_BUCKETS, metricsRegistry, prometheus, scrapedGauge, startMetricsServer, type MetricsServer } from './metrics';
