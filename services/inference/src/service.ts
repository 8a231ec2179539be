import { startGrpcServer } from '@cardlens/grpc-kit';
import { scrapedGauge, type Logger } from '@cardlens/telemetry';
import { AnalysisQueue } from './analysis-queue';
import { EngineProcesses } from './engine-processes';
import type { InferenceConfig } from './config';
import { inferenceGrpcService } from './grpc/inference-grpc';
import { TooComplexPhotos } from './too-complex-photos';

export interface RunningService {
  grpcPort: number;
  /** Analyses it runs at once (INFERENCE_CONCURRENCY): what a caller may keep in flight. */
  concurrency: number;
  stop(): Promise<void>;
}

/**
 * Wires the inference service: the engine in up to INFERENCE_CONCURRENCY child processes (INFERENCE_WARM_PROCESSES
 * of them kept started), each analysis under a hard
 * time and memory budget (model runtime chosen and warmed up before the server reports SERVING), the bounded
 * analysis queue, the gRPC server.
 */
export async function startInferenceService(options: { config: InferenceConfig; logger: Logger }): Promise<RunningService> {
  const { config, logger } = options;
  const engine = await EngineProcesses.start({
    size: config.INFERENCE_CONCURRENCY,
    warm: config.INFERENCE_WARM_PROCESSES,
    idleMs: config.INFERENCE_IDLE_PROCESS_SECONDS * 1000,
    budgetMs: config.INFERENCE_ANALYSIS_BUDGET_MS,
    maxHeapMb: config.INFERENCE_ENGINE_MAX_HEAP_MB,
    logger,
  });
  const queue = new AnalysisQueue({ concurrency: config.INFERENCE_CONCURRENCY, maxQueued: config.INFERENCE_MAX_QUEUED });
  const unregisterDepth = scrapedGauge('cardlens_inference_analyses', 'Engine analyses running and waiting for a slot.', ['state'], (set) => {
    set({ state: 'running' }, queue.stats.running);
    set({ state: 'queued' }, queue.stats.queued);
  });
  const server = await startGrpcServer({
    host: config.INFERENCE_GRPC_HOST,
    port: config.INFERENCE_GRPC_PORT,
    services: [inferenceGrpcService({ engine, queue, tooComplex: new TooComplexPhotos(config.INFERENCE_TOO_COMPLEX_MEMORY_SECONDS * 1000), budgetMs: config.INFERENCE_ANALYSIS_BUDGET_MS })],
    logger,
  });
  return {
    grpcPort: server.port,
    concurrency: config.INFERENCE_CONCURRENCY,
    stop: async () => {
      unregisterDepth();
      await server.shutdown();
      await engine.close();
    },
  };
}
