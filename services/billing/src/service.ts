import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { startGrpcServer } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import type { BillingConfig } from './config';
import { PrismaClient } from './db';
import { billingGrpcService } from './grpc/billing-grpc';

export const billingServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningService {
  grpcPort: number;
  stop(): Promise<void>;
}

/** Wires the billing service: database (migrated), price configuration, gRPC server. */
export async function startBillingService(options: {
  config: BillingConfig;
  database: DatabaseConfig | Database;
  logger: Logger;
}): Promise<RunningService> {
  const { config, database, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(billingServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'billing migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);
  const server = await startGrpcServer({
    host: config.BILLING_GRPC_HOST,
    port: config.BILLING_GRPC_PORT,
    services: [
      billingGrpcService({
        prisma,
        pricing: config.PRICING_JSON,
        dailyPoolCredits: config.TRIAL_POOL_DAILY_CREDITS,
        checkoutAvailable: Boolean(config.STRIPE_SECRET_KEY),
      }),
    ],
    logger,
  });
  return {
    grpcPort: server.port,
    stop: async () => {
      await server.shutdown();
      await close();
    },
  };
}
