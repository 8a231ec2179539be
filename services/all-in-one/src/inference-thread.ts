// The inference service on a worker thread of the embedded process. The vision engine's decoding and model
// passes are CPU-bound and would stall every other service sharing the main event loop (polls, uploads,
// database work); on its own thread it keeps its own loop and a core of its own, and is still reached only
// through its loopback gRPC port, as in a cluster.
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, startTelemetry } from '@cardlens/telemetry';
import { loadInferenceConfig } from '../../inference/src/config';
import { startInferenceService } from '../../inference/src/service';

const { env, logLevel } = workerData as { env: NodeJS.ProcessEnv; logLevel: string };
process.env.LOG_LEVEL = logLevel;
const logger = createLogger('inference').child({ component: 'inference' });
const config = loadInferenceConfig(env);
// This thread's own tracer provider (the process's does not reach worker threads): the inference spans
// continue the callers' traces through the gRPC metadata and are exported like the rest.
const shutdownTelemetry = startTelemetry({ serviceName: 'inference', exporter: config.OTEL_EXPORTER, instrument: false });
const service = await startInferenceService({ config, logger });
parentPort!.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  service.stop().then(() => shutdownTelemetry()).then(
    () => parentPort!.postMessage({ stopped: true }),
    (err: unknown) => parentPort!.postMessage({ stopped: true, error: String(err) }),
  );
});
parentPort!.postMessage({ grpcPort: service.grpcPort, concurrency: service.concurrency });
