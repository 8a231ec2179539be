import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { startGrpcServer } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import type { GradingConfig } from './config';
import { PrismaClient } from './db';
import { createDownstream } from './downstream';
import { gradingGrpcService } from './grpc/grading-grpc';
import { GradeLeases } from './grade-leases';
import { PhotoSpool } from './photo-spool';
import { settleGrades } from './use-cases/settle-grades';

export const gradingServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningGrading {
  grpcPort: number;
  /** The temporary photo area (tests check it is empty). */
  tempDir: string;
  stop(): Promise<void>;
}

/** How often the temporary photo area is swept. */
const SWEEP_INTERVAL_MS = 60_000;
/** A processing grade is abandoned this long after its budget (billing's deadline and a margin beyond it). */
const ABANDONED_AFTER_BUDGET_MS = 30_000;

/**
 * Wires the grading service: database (migrated), the one-grade-in-flight leases (in that database),
 * the temporary photo area and its sweeper, gRPC clients of billing and inference, the settler, the gRPC server.
 */
export async function startGradingService(options: { config: GradingConfig; database: DatabaseConfig | Database; logger: Logger }): Promise<RunningGrading> {
  const { config, database, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(gradingServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'grading migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);
  const leases = new GradeLeases(prisma);

  const spool = new PhotoSpool(config.GRADING_TEMP_DIR, config.GRADING_TEMP_MAX_AGE_SECONDS * 1000, logger.child({ component: 'photo-spool' }));
  await spool.open(SWEEP_INTERVAL_MS);
  const downstream = createDownstream({ billingAddress: config.BILLING_GRPC_ADDRESS, inferenceAddress: config.INFERENCE_GRPC_ADDRESS, deadlineMs: config.GRPC_DEADLINE_MS });

  const settleDeps = { prisma, billing: downstream.billing, logger };
  const staleAfterMs = config.GRADE_BUDGET_MS + ABANDONED_AFTER_BUDGET_MS;
  let settling: Promise<unknown> = settleGrades(settleDeps, { staleAfterMs }).catch((err: unknown) => logger.warn({ err }, 'grade settlement round failed'));
  const settleTimer = setInterval(() => {
    settling = settleGrades(settleDeps, { staleAfterMs }).catch((err: unknown) => logger.warn({ err }, 'grade settlement round failed'));
  }, config.GRADE_SETTLE_INTERVAL_MS);
  settleTimer.unref();

  const server = await startGrpcServer({
    host: config.GRADING_GRPC_HOST,
    port: config.GRADING_GRPC_PORT,
    services: [
      gradingGrpcService({ prisma, billing: downstream.billing, analyze: downstream.analyze, leases, spool, logger, settings: { budgetMs: config.GRADE_BUDGET_MS, reportLinkTtlDays: config.REPORT_LINK_TTL_DAYS } }),
    ],
    logger,
  });
  return {
    grpcPort: server.port,
    tempDir: spool.root,
    stop: async () => {
      clearInterval(settleTimer);
      // In-flight grades finish (and settle) before the server reports shut down.
      await server.shutdown();
      await settling;
      spool.close();
      downstream.close();
      await close();
    },
  };
}
