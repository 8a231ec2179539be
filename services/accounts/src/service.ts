import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bus } from '@cardlens/bus';
import { billingV1, commonV1 } from '@cardlens/contracts';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { callUnary, createClient, startGrpcServer } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import type { AccountsConfig } from './config';
import { PrismaClient } from './db';
import { subscribePaymentConfirmations } from './events/payment-confirmations';
import { accountsGrpcService } from './grpc/accounts-grpc';
import type { GrantTrialCredits } from './use-cases/register-agent';

export const accountsServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningService {
  grpcPort: number;
  stop(): Promise<void>;
}

/** Wires the accounts service: database (migrated), billing client, payment-confirmation consumer, gRPC server. */
export async function startAccountsService(options: {
  config: AccountsConfig;
  database: DatabaseConfig | Database;
  /** Subscriptions are registered here; the caller starts the bus once every service has subscribed. */
  bus: Bus;
  logger: Logger;
}): Promise<RunningService> {
  const { config, database, bus, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(accountsServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'accounts migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);
  const billing = createClient(billingV1.BillingServiceClient, config.BILLING_GRPC_ADDRESS);

  const grantTrialCredits: GrantTrialCredits = async ({ agentId, tier, commercialOnly }) => {
    const response = await callUnary(
      billing,
      'grantTrialCredits',
      { agentId, tier: tier === 'registered' ? commonV1.Tier.REGISTERED : commonV1.Tier.ANONYMOUS, commercialOnly },
      { deadlineMs: config.GRPC_DEADLINE_MS },
    );
    return { creditsGranted: response.creditsGranted, poolExhausted: response.poolExhausted };
  };

  const paymentConfirmations = await subscribePaymentConfirmations(bus, prisma);

  const server = await startGrpcServer({
    host: config.ACCOUNTS_GRPC_HOST,
    port: config.ACCOUNTS_GRPC_PORT,
    services: [accountsGrpcService({ prisma, grantTrialCredits })],
    logger,
  });
  return {
    grpcPort: server.port,
    stop: async () => {
      await server.shutdown();
      await paymentConfirmations.stop();
      billing.close();
      await close();
    },
  };
}
