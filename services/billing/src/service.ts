import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OutboxRelay, type Bus } from '@cardlens/bus';
import { events } from '@cardlens/contracts';
import { migrate, openPrisma, serviceLayout, type Database, type DatabaseConfig } from '@cardlens/db';
import { startGrpcServer } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import { systemClock } from './clock';
import type { BillingConfig } from './config';
import { PrismaClient } from './db';
import { subscribePaymentConfirmations } from './events/payment-confirmations';
import { billingGrpcService } from './grpc/billing-grpc';
import { sandboxCheckoutGrpcService } from './grpc/sandbox-grpc';
import type { SandboxProvider } from './payments/sandbox-provider';
import { selectPaymentProvider } from './payments/select-provider';
import { checkPriceAnnouncements } from './use-cases/check-price-announcements';
import type { PurchaseDeps } from './use-cases/purchase-deps';
import { BILLING_BUS_TABLES } from './domain/bus-tables';

export const billingServiceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The purchase use cases' dependencies from the config (payment provider included), for the service and the
 * reconcile CLI alike. `nudgeOutbox` publishes freshly written confirmations now (a no-op without a relay).
 */
export function purchaseDepsFromConfig(
  config: BillingConfig,
  prisma: PrismaClient,
  logger: Logger,
  nudgeOutbox: () => void,
): { purchases: PurchaseDeps; sandbox?: SandboxProvider } {
  const publicBaseUrl = (config.PUBLIC_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const { provider, sandbox } = selectPaymentProvider(config, publicBaseUrl, prisma, logger);
  const purchases: PurchaseDeps = {
    // The sandbox keeps its own (advanceable) clock; with Stripe, real time.
    clock: sandbox ? sandbox.clock : systemClock,
    logger,
    prisma,
    pricing: config.PRICING_JSON,
    provider,
    environment: config.DEPLOYMENT_ENVIRONMENT,
    publicBaseUrl,
    checkoutTtlMs: config.CHECKOUT_SESSION_TTL_MINUTES * 60_000,
    sharedPaymentTokensEnabled: config.SPT_ENABLED,
    nudgeOutbox,
  };
  return sandbox ? { purchases, sandbox } : { purchases };
}

export interface RunningService {
  grpcPort: number;
  /** `stripe` or `sandbox`. */
  paymentProvider: string;
  stop(): Promise<void>;
}

/**
 * Wires the billing service: database (migrated), price configuration, payment provider (Stripe, or the local
 * sandbox without a key), the outbox relay and the payment-confirmation consumer on the bus, the gRPC server.
 */
export async function startBillingService(options: {
  config: BillingConfig;
  database: DatabaseConfig | Database;
  /** Subscriptions are registered here; the caller starts the bus once every service has subscribed. */
  bus: Bus;
  logger: Logger;
}): Promise<RunningService> {
  const { config, database, bus, logger } = options;
  if (config.MIGRATE_ON_START) {
    const result = await migrate({ ...serviceLayout(billingServiceDir), database, logger });
    logger.info({ applied: result.applied }, 'billing migrations applied');
  }
  const { prisma, close } = await openPrisma(PrismaClient, database);

  await bus.ensureTopics([events.paymentConfirmationReceived.topic, events.balanceChanged.topic, events.subscriptionChanged.topic]);
  const relay = new OutboxRelay({ prisma, table: BILLING_BUS_TABLES.outbox, bus, logger: logger.child({ component: 'billing-outbox' }) });
  relay.start();
  const { purchases, sandbox } = purchaseDepsFromConfig(config, prisma, logger, () => relay.nudge());
  await sandbox?.start();
  await checkPriceAnnouncements({ prisma, pricing: config.PRICING_JSON, clock: purchases.clock });
  const confirmations = await subscribePaymentConfirmations(
    bus,
    prisma,
    { pricing: config.PRICING_JSON, clock: purchases.clock },
    logger.child({ component: 'payment-confirmations' }),
  );
  const server = await startGrpcServer({
    host: config.BILLING_GRPC_HOST,
    port: config.BILLING_GRPC_PORT,
    services: [
      billingGrpcService({
        prisma,
        pricing: config.PRICING_JSON,
        dailyPoolCredits: config.TRIAL_POOL_DAILY_CREDITS,
        // Stripe, or the sandbox's own checkout: subscription checkout works either way.
        checkoutAvailable: true,
        clock: purchases.clock,
        purchases,
      }),
      sandboxCheckoutGrpcService(sandbox),
    ],
    logger,
  });
  logger.info({ paymentProvider: purchases.provider.name, sharedPaymentTokens: config.SPT_ENABLED }, 'billing ready');
  return {
    grpcPort: server.port,
    paymentProvider: purchases.provider.name,
    stop: async () => {
      await server.shutdown();
      sandbox?.stop();
      await confirmations.stop();
      await relay.stop();
      await close();
    },
  };
}
