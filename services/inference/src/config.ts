import { env, loadConfig, z } from '@cardlens/config';

export const inferenceConfigSchema = z.object({
  INFERENCE_GRPC_HOST: z.string().default('127.0.0.1'),
  INFERENCE_GRPC_PORT: env.port(50056),
  /** Analyses running at once. The engine keeps a core busy per analysis; 1 per core (or per GPU) is right. */
  INFERENCE_CONCURRENCY: env.positiveInt(1),
  /** Analyses allowed to wait; beyond this callers get grader_busy (RESOURCE_EXHAUSTED) at once. */
  INFERENCE_MAX_QUEUED: env.int(8).pipe(z.number().int().min(0)),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
});

export type InferenceConfig = z.infer<typeof inferenceConfigSchema>;

export function loadInferenceConfig(source: NodeJS.ProcessEnv = process.env): InferenceConfig {
  return loadConfig(inferenceConfigSchema, source, 'inference');
}
