export { activeTrace, createLogger, REDACT_PATHS, type Logger } from './logger';
export { startTelemetry, type ShutdownTelemetry, type TelemetryExporter, type TelemetryOptions } from './sdk';
export { exitOnSignals } from './shutdown';
