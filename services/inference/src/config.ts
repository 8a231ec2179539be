import { env, loadConfig, z } from '@cardlens/config';

export const inferenceConfigSchema = z.object({
  INFERENCE_GRPC_HOST: z.string().default('127.0.0.1'),
  INFERENCE_GRPC_PORT: env.port(50056),
  /** Analyses running at once. The engine keeps a core busy per analysis; 1 per core (or per GPU) is right. */
  INFERENCE_CONCURRENCY: env.positiveInt(1),
  /** Analyses allowed to wait; beyond this callers get grader_busy (RESOURCE_EXHAUSTED) at once. */
  INFERENCE_MAX_QUEUED: env.int(8).pipe(z.number().int().min(0)),
  /**
   * Wall-clock budget of one analysis (a normal one takes about a second). Past it the analysis's engine process
   * is killed and the caller gets image_too_complex (422, never retried); keep it below the callers' deadlines.
   */
  INFERENCE_ANALYSIS_BUDGET_MS: env.positiveInt(20000),
  /** Heap limit of an engine process (MB): an image that needs more fails the same way. */
  INFERENCE_ENGINE_MAX_HEAP_MB: env.positiveInt(2048),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
});

export type InferenceConfig = z.infer<typeof inferenceConfigSchema>;

export function loadInferenceConfig(source: NodeJS.ProcessEnv = process.env): InferenceConfig {
  return loadConfig(inferenceConfigSchema, source, 'inference');
}
