import { availableParallelism } from 'node:os';
import { env, loadConfig, z } from '@cardlens/config';

export const inferenceConfigSchema = z.object({
  INFERENCE_GRPC_HOST: z.string().default('127.0.0.1'),
  INFERENCE_GRPC_PORT: env.port(50056),
  /**
   * Analyses running at once, each in an engine process of its own. The engine keeps a core busy per analysis, so
   * the default is one per core this process may use (os.availableParallelism(): a container's CPU limit or a
   * taskset shows there); on a GPU node, one per GPU.
   */
  INFERENCE_CONCURRENCY: env.positiveInt(availableParallelism()),
  /**
   * Engine processes started with the service and always kept (at most INFERENCE_CONCURRENCY). The rest start
   * when an analysis would wait, and stop after INFERENCE_IDLE_PROCESS_SECONDS without work: an idle service
   * holds one engine's memory (about 0.3 GB), a busy one uses every core.
   */
  INFERENCE_WARM_PROCESSES: env.positiveInt(1),
  INFERENCE_IDLE_PROCESS_SECONDS: env.positiveInt(60),
  /** Analyses allowed to wait; beyond this callers get grader_busy (RESOURCE_EXHAUSTED) at once. */
  INFERENCE_MAX_QUEUED: env.int(8).pipe(z.number().int().min(0)),
  /**
   * Wall-clock budget of one analysis (a normal one takes about a second). Past it the analysis's engine process
   * is killed and the caller gets image_too_complex (422, never retried); keep it below the callers' deadlines.
   */
  INFERENCE_ANALYSIS_BUDGET_MS: env.positiveInt(20000),
  /**
   * How long a photo the engine gave up on (past its full budget) is remembered by content and answered
   * image_too_complex at once, without the engine (0: not remembered).
   */
  INFERENCE_TOO_COMPLEX_MEMORY_SECONDS: z.coerce.number().int().min(0).default(3600),
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
