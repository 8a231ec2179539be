import { InProcessBus, type Bus } from '@cardlens/bus';
import type { Database } from '@cardlens/db';
import type { Logger } from '@cardlens/telemetry';
import { loadAccountsConfig } from '../../accounts/src/config';
import { startAccountsService } from '../../accounts/src/service';
import { loadBillingConfig } from '../../billing/src/config';
import { startBillingService } from '../../billing/src/service';
import { loadGatewayConfig } from '../../gateway/src/config';
import { listenGateway, startGateway } from '../../gateway/src/service';
import { loadGradingConfig } from '../../grading/src/config';
import { startGradingService } from '../../grading/src/service';
import { loadScansConfig } from '../../scans/src/config';
import { startScansService } from '../../scans/src/service';
import { Worker } from 'node:worker_threads';
import { loadValuationConfig } from '../../valuation/src/config';
import { startValuationService } from '../../valuation/src/service';

export interface Embedded {
  baseUrl: string;
  bus: Bus;
  ports: { gateway: number; accounts: number; billing: number; inference: number; valuation: number; scans: number; grading: number };
  /** The grading service's temporary photo area (emptied as each grade's analysis ends). */
  gradingTempDir: string;
  stop(): Promise<void>;
}

/**
 * Starts every service in this process on one shared database (PGlite by default; Postgres in tests on
 * real infrastructure). gRPC servers bind loopback port 0 (free
 * ports) unless the environment names ports; each service gets the others' addresses exactly as in a
 * cluster, so requests take the production code path (gateway → gRPC → service).
 */
export async function startEmbedded(options: {
  database: Database;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Real Redis for rate limits (the end-to-end tests on real infrastructure); absent = in-memory. */
  redisUrl?: string;
  /** The message bus; absent = the in-process bus. Started here, once every service has subscribed. */
  bus?: Bus;
  /** Where grading reaches inference; absent = the inference thread. Fault-injection tests put a proxy here. */
  gradingInferenceAddress?: string;
}): Promise<Embedded> {
  const { database, env, logger } = options;
  const bus = options.bus ?? new InProcessBus({ logger: logger.child({ component: 'bus' }) });
  const loopback = '127.0.0.1';
  // The gateway's port is bound first (requests wait until its app is attached at the end), so billing knows
  // the public base URL its checkout links and the sandbox provider's webhook deliveries point to.
  const gatewayEnv = { ...env, GATEWAY_PORT: env.GATEWAY_PORT ?? env.PORT ?? '8080' };
  const listener = await listenGateway(loadGatewayConfig(gatewayEnv));
  // The vision engine first, on its own thread: its models and OCR workers warm up before anything depends on it.
  const inference = await startInferenceThread({ INFERENCE_GRPC_PORT: '0', ...env, INFERENCE_GRPC_HOST: loopback }, logger.level);
  const billing = await startBillingService({
    config: loadBillingConfig({ BILLING_GRPC_PORT: '0', PUBLIC_BASE_URL: listener.baseUrl, ...env, BILLING_GRPC_HOST: loopback }),
    database,
    bus,
    logger: logger.child({ component: 'billing' }),
  });
  const accounts = await startAccountsService({
    config: loadAccountsConfig({
      ACCOUNTS_GRPC_PORT: '0',
      ...env,
      ACCOUNTS_GRPC_HOST: loopback,
      BILLING_GRPC_ADDRESS: `${loopback}:${billing.grpcPort}`,
    }),
    database,
    bus,
    logger: logger.child({ component: 'accounts' }),
  });
  // The catalog loads on first start (about 10 s into PGlite) and the documented sample sales are generated
  // when there are none, so identification and valuation answer out of the box; both are labelled sample data.
  const valuation = await startValuationService({
    config: loadValuationConfig({
      VALUATION_GRPC_PORT: '0',
      CATALOG_AUTOLOAD: 'true',
      PRICES_AUTOLOAD: 'true',
      SAMPLE_SALES: 'true',
      ...env,
      VALUATION_GRPC_HOST: loopback,
    }),
    database,
    bus,
    logger: logger.child({ component: 'valuation' }),
  });
  // Scans and, in this process, its worker: images and results under .data/blobs unless BLOB_DIR says otherwise.
  const scans = await startScansService({
    config: loadScansConfig({
      SCANS_GRPC_PORT: '0',
      // The worker keeps the engine's processes busy, no more (the rest wait in its first-come turns).
      SCAN_ANALYSES_IN_FLIGHT: String(inference.concurrency),
      ...env,
      SCANS_GRPC_HOST: loopback,
      BILLING_GRPC_ADDRESS: `${loopback}:${billing.grpcPort}`,
      INFERENCE_GRPC_ADDRESS: `${loopback}:${inference.grpcPort}`,
      VALUATION_GRPC_ADDRESS: `${loopback}:${valuation.grpcPort}`,
    }),
    database,
    bus,
    logger: logger.child({ component: 'scans' }),
  });
  // Commercial grading (POST /v1/grades): its one-grade-in-flight leases live in the shared database.
  const grading = await startGradingService({
    config: loadGradingConfig({
      GRADING_GRPC_PORT: '0',
      ...env,
      GRADING_GRPC_HOST: loopback,
      BILLING_GRPC_ADDRESS: `${loopback}:${billing.grpcPort}`,
      INFERENCE_GRPC_ADDRESS: options.gradingInferenceAddress ?? `${loopback}:${inference.grpcPort}`,
    }),
    database,
    logger: logger.child({ component: 'grading' }),
  });
  await bus.start();
  const gateway = await startGateway({
    listener,
    config: loadGatewayConfig({
      ...gatewayEnv,
      ACCOUNTS_GRPC_ADDRESS: `${loopback}:${accounts.grpcPort}`,
      BILLING_GRPC_ADDRESS: `${loopback}:${billing.grpcPort}`,
      SCANS_GRPC_ADDRESS: `${loopback}:${scans.grpcPort}`,
      GRADING_GRPC_ADDRESS: `${loopback}:${grading.grpcPort}`,
      // Embedded default: limits live in this process's memory unless a Redis is handed in.
      REDIS_URL: options.redisUrl,
    }),
    logger: logger.child({ component: 'gateway' }),
    bus,
  });
  return {
    baseUrl: gateway.baseUrl,
    bus,
    ports: { gateway: gateway.port, accounts: accounts.grpcPort, billing: billing.grpcPort, inference: inference.grpcPort, valuation: valuation.grpcPort, scans: scans.grpcPort, grading: grading.grpcPort },
    gradingTempDir: grading.tempDir,
    stop: async () => {
      await gateway.stop();
      await grading.stop();
      await scans.stop();
      await accounts.stop();
      await valuation.stop();
      await billing.stop();
      await inference.stop();
      await bus.stop();
    },
  };
}

/** Defined (true) by the compiled build (tools/build-start.mjs), where this module is part of dist/all-in-one.mjs. */
declare const CARDLENS_COMPILED: boolean | undefined;
// From source, a small .mjs entry registers tsx's loader on the thread first; compiled, the thread's bundle
// beside this one (this module's URL there is its repository path).
const INFERENCE_THREAD_ENTRY = new URL(
  typeof CARDLENS_COMPILED !== 'undefined' && CARDLENS_COMPILED ? '../../../dist/inference-thread.mjs' : './inference-thread.mjs',
  import.meta.url,
);

/**
 * Starts src/inference-thread.ts on a worker thread (through tsx's loader, also under jest) and
 * resolves once its gRPC server is up.
 */
async function startInferenceThread(env: NodeJS.ProcessEnv, logLevel: string): Promise<{ grpcPort: number; concurrency: number; stop(): Promise<void> }> {
  const worker = new Worker(INFERENCE_THREAD_ENTRY, { workerData: { env, logLevel } });
  const { grpcPort, concurrency } = await new Promise<{ grpcPort: number; concurrency: number }>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(new Error(`inference thread exited with code ${code} before it was ready`)));
    worker.once('message', resolve);
  });
  worker.removeAllListeners('error').removeAllListeners('exit');
  return {
    grpcPort,
    concurrency,
    stop: async () => {
      const stopped = new Promise<void>((resolve) => worker.once('message', () => resolve()));
      worker.postMessage('stop');
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      await worker.terminate();
    },
  };
}
