import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBlobStore, S3BlobStore, type BlobStore } from '@cardlens/blob-store';
import { busTables, OutboxRelay, type Bus, type Subscription } from '@cardlens/bus';
import { events } from '@cardlens/contracts';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { startGrpcServer } from '@cardlens/grpc-kit';
import { scrapedGauge, type Logger } from '@cardlens/telemetry';
import type { ScansConfig } from './config';
import { PrismaClient } from './db';
import { EngineTurns } from './domain/engine-turns';
import { createDownstream } from './downstream';
import { subscribeScanJobs } from './events/scan-jobs';
import { scansGrpcService } from './grpc/scans-grpc';
import { removeExpiredScanBlobs } from './use-cases/remove-expired-blobs';
import { requeueInterruptedScans } from './use-cases/requeue-interrupted';
import { settleStaleScans } from './use-cases/settle-scans';
import { sweepQueuedScans } from './use-cases/sweep-queued-scans';

export const scansServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningService {
  grpcPort: number;
  stop(): Promise<void>;
}

interface StartOptions {
  config: ScansConfig;
  database: DatabaseConfig | Database;
  /** Subscriptions are registered here; the caller starts the bus once every service has subscribed. */
  bus: Bus;
  logger: Logger;
}

async function openScans(options: StartOptions) {
  const { config, database, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(scansServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'scans migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);
  const blobs = createBlobStore(config);
  const downstream = createDownstream({
    billingAddress: config.BILLING_GRPC_ADDRESS,
    inferenceAddress: config.INFERENCE_GRPC_ADDRESS,
    valuationAddress: config.VALUATION_GRPC_ADDRESS,
    deadlineMs: config.GRPC_DEADLINE_MS,
    inferenceDeadlineMs: config.INFERENCE_DEADLINE_MS,
    valuationDeadlineMs: config.VALUATION_DEADLINE_MS,
  });
  const closeAll = async () => {
    downstream.close();
    if (blobs instanceof S3BlobStore) blobs.destroy();
    await close();
  };
  return { prisma, blobs, downstream, closeAll };
}

async function startWorker(options: StartOptions, parts: { prisma: PrismaClient; blobs: BlobStore; downstream: ReturnType<typeof createDownstream> }): Promise<Subscription> {
  const turns = new EngineTurns(options.config.SCAN_ANALYSES_IN_FLIGHT);
  const unregister = scrapedGauge('cardlens_scan_worker_jobs', "Scan jobs this worker holds: analysing on the engine, or waiting for a turn.", ['state'], (set) => {
    set({ state: 'analysing' }, turns.stats.running);
    set({ state: 'waiting' }, turns.stats.waiting);
  });
  const subscription = await subscribeScanJobs(
    options.bus,
    { ...parts, logger: options.logger.child({ role: 'scan-worker' }), reportLinkTtlDays: options.config.REPORT_LINK_TTL_DAYS, turns },
    { attempts: options.config.SCAN_JOB_ATTEMPTS, jobsPerPartition: options.config.SCAN_JOBS_PER_PARTITION },
  );
  return {
    stop: async () => {
      await subscription.stop();
      unregister();
    },
  };
}

/**
 * Wires the scans service: database (migrated), blob store, gRPC clients of billing, inference and valuation,
 * the outbox relay of scan jobs, the settlement of abandoned scans, the gRPC server and, when
 * SCAN_WORKER_ENABLED, a scan worker in the same process (the embedded mode; the chart runs workers apart).
 */
export async function startScansService(options: StartOptions): Promise<RunningService> {
  const { config, bus, logger } = options;
  const { prisma, blobs, downstream, closeAll } = await openScans(options);
  await bus.ensureTopics([events.scanJobRequested.topic]);
  const worker = config.SCAN_WORKER_ENABLED ? await startWorker(options, { prisma, blobs, downstream }) : undefined;
  if (config.REQUEUE_INTERRUPTED_SCANS) {
    const requeued = await requeueInterruptedScans(prisma);
    if (requeued > 0) logger.info({ requeued }, 'interrupted scans queued again');
  }
  const relay = new OutboxRelay({ prisma, table: busTables('scans').outbox, bus, logger: logger.child({ component: 'scans-outbox' }) });
  relay.start();
  const unregisterQueueGauges = scanQueueGauges(prisma);

  const settleDeps = { prisma, blobs, billing: downstream.billing, logger };
  let settling: Promise<unknown> = Promise.resolve();
  const settleTimer = setInterval(() => {
    settling = (async () => {
      await settleStaleScans(settleDeps, { staleAfterMs: config.STALE_PENDING_SECONDS * 1000 });
      await sweepQueuedScans(settleDeps, { queuedTooLongMs: config.SCAN_QUEUED_TIMEOUT_SECONDS * 1000, maxRequeues: config.SCAN_QUEUE_REQUEUES });
      if (config.SCAN_BLOB_RETENTION_DAYS > 0) await removeExpiredScanBlobs(settleDeps, { retentionDays: config.SCAN_BLOB_RETENTION_DAYS });
    })().catch((err: unknown) => logger.warn({ err }, 'scan settlement round failed'));
  }, config.SCAN_SETTLE_INTERVAL_MS);
  settleTimer.unref();

  const server = await startGrpcServer({
    host: config.SCANS_GRPC_HOST,
    port: config.SCANS_GRPC_PORT,
    services: [
      scansGrpcService({
        prisma,
        blobs,
        bus,
        billing: downstream.billing,
        logger,
        settings: {
          enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
          idempotencyWaitMs: config.IDEMPOTENCY_WAIT_MS,
          idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
        },
        reportLinkTtlDays: config.REPORT_LINK_TTL_DAYS,
      }),
    ],
    logger,
  });
  return {
    grpcPort: server.port,
    stop: async () => {
      unregisterQueueGauges();
      clearInterval(settleTimer);
      await server.shutdown();
      await relay.stop();
      await worker?.stop();
      await settling;
      await closeAll();
    },
  };
}

/**
 * The scan queue for Prometheus, read from the database at scrape time: scans waiting or running, and the age of
 * the oldest waiting one (the queue's lag; the sweep requeues, then fails, scans that wait too long).
 */
function scanQueueGauges(prisma: PrismaClient): () => void {
  const count = scrapedGauge('cardlens_scans_unfinished', 'Scans queued or processing, by status.', ['status'], async (set) => {
    const rows = await prisma.scan.groupBy({ by: ['status'], where: { status: { in: ['queued', 'processing'] } }, _count: { _all: true } });
    for (const status of ['queued', 'processing']) set({ status }, rows.find((r) => r.status === status)?._count._all ?? 0);
  });
  const age = scrapedGauge('cardlens_scans_oldest_queued_age_seconds', 'How long the oldest queued scan has waited (0 when none).', [], async (set) => {
    const oldest = await prisma.scan.findFirst({ where: { status: 'queued' }, orderBy: { updatedAt: 'asc' }, select: { updatedAt: true } });
    set({}, oldest ? (Date.now() - oldest.updatedAt.getTime()) / 1000 : 0);
  });
  return () => {
    count();
    age();
  };
}

/** A scan worker on its own (services/scans/src/worker.ts): the consumer, and a gRPC health endpoint for probes. */
export async function startScanWorker(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  const { prisma, blobs, downstream, closeAll } = await openScans({ ...options, config: { ...config, MIGRATE_ON_START: false } });
  const worker = await startWorker(options, { prisma, blobs, downstream });
  const health = await startGrpcServer({ host: config.SCAN_WORKER_HEALTH_HOST, port: config.SCAN_WORKER_HEALTH_PORT, services: [], logger });
  return {
    grpcPort: health.port,
    stop: async () => {
      await health.shutdown();
      await worker.stop();
      await closeAll();
    },
  };
}
