import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NoopSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { enableInstrumentations, loaderHookRegistered } from './instrumentations';
import { startMetricsServer } from './metrics';

export type TelemetryExporter = 'otlp' | 'console' | 'none';

export interface TelemetryOptions {
  serviceName: string;
  /** otlp in clusters, console or none locally. */
  exporter: TelemetryExporter;
  /**
   * OTLP/HTTP base URL, e.g. http://otel-collector:4318 (`/v1/traces` is appended). Defaults to the
   * exporter's own environment handling (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT).
   */
  otlpEndpoint?: string;
  /**
   * false: no automatic instrumentation, only the tracer provider and exporter (for a worker thread, where the
   * preload's loader hook does not reach: its spans are the ones the code starts itself).
   */
  instrument?: boolean;
  /** Serve Prometheus metrics on this port (GET /metrics, metrics.ts); unset: no metrics server. */
  metricsPort?: number | undefined;
}

/**
 * Which traces are recorded: parent-based (a request joins its caller's decision, so a trace is whole or absent)
 * with a root ratio. OTEL_TRACES_SAMPLER (the standard variable) wins when set; otherwise
 * OTEL_TRACES_SAMPLER_ARG is the ratio (default 1 when spans are exported, 0 when they are not: unsampled spans
 * still carry trace ids into logs, gRPC metadata and Kafka headers, at a fraction of a recorded span's cost).
 */
export function samplerFor(exporter: TelemetryExporter, env: NodeJS.ProcessEnv = process.env): Sampler | undefined {
  if (env.OTEL_TRACES_SAMPLER) return undefined;
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = raw === undefined || raw === '' ? (exporter === 'none' ? 0 : 1) : Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not ${JSON.stringify(raw)}`);
  return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
}

/** Flushes pending spans and stops the SDK. */
export type ShutdownTelemetry = () => Promise<void>;

const KEY = Symbol.for('cardlens.telemetry.sdk');
type WithSdk = typeof globalThis & { [KEY]?: ShutdownTelemetry };

function spanProcessor(options: TelemetryOptions): SpanProcessor {
  switch (options.exporter) {
    case 'otlp': {
      const url = options.otlpEndpoint && new URL('v1/traces', options.otlpEndpoint.replace(/\/?$/, '/')).href;
      return new BatchSpanProcessor({ exporter: new OTLPTraceExporter(url ? { url } : {}) });
    }
    case 'console':
      return new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() });
    case 'none':
      // A real tracer provider that exports nothing: spans still get ids, so trace ids appear in logs and
      // travel over gRPC and the bus.
      return new NoopSpanProcessor();
  }
}

/**
 * Starts the OpenTelemetry SDK once per process: instrumentations (HTTP, gRPC, kafkajs, pino,
 * Prisma), the AsyncLocalStorage context manager, the W3C trace-context + baggage propagator and a tracer
 * provider, whatever the exporter. Later calls return the first call's shutdown function.
 *
 * Modules imported by ESM `import` are only patched when the loader hook is installed first:
 * `node --import tsx --import @cardlens/telemetry/register src/main.ts` (see register.ts).
 */
export function startTelemetry(options: TelemetryOptions): ShutdownTelemetry {
  const holder = globalThis as WithSdk;
  const started = holder[KEY];
  if (started) return started;

  const instrument = options.instrument ?? true;
  if (instrument && options.exporter !== 'none' && !loaderHookRegistered()) {
    process.emitWarning(
      'ESM imports are not instrumented: start the process with --import @cardlens/telemetry/register',
      { code: 'CARDLENS_TELEMETRY_NO_LOADER_HOOK' },
    );
  }

  const sampler = samplerFor(options.exporter);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    instrumentations: instrument ? enableInstrumentations() : [],
    spanProcessors: [spanProcessor(options)],
    ...(sampler ? { sampler } : {}),
    // Metrics and OTel logs stay off: without these the SDK would configure OTLP exporters from env.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();

  const metrics = options.metricsPort
    ? startMetricsServer({ port: options.metricsPort, service: options.serviceName }).catch((error: unknown) => {
        process.emitWarning(`metrics server did not start on port ${options.metricsPort}: ${(error as Error)?.message ?? String(error)}`, { code: 'CARDLENS_METRICS' });
        return undefined;
      })
    : undefined;

  let stopping: Promise<void> | undefined;
  // Flushing spans to an unreachable collector must not turn a clean shutdown into a crash.
  const shutdown: ShutdownTelemetry = () =>
    (stopping ??= Promise.all([
      sdk.shutdown(),
      metrics?.then((server) => server?.stop()),
    ]).then(() => undefined).catch((error: unknown) => {
      process.emitWarning(`telemetry shutdown failed: ${(error as Error)?.message ?? String(error)}`, { code: 'CARDLENS_TELEMETRY_SHUTDOWN' });
    }));
  holder[KEY] = shutdown;
  return shutdown;
}
