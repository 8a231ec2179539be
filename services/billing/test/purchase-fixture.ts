import { openMigratedPrisma } from '@cardlens/db/testing';
import { createLogger } from '@cardlens/telemetry';
import type { OpenedSuiteDatabase, SuiteDatabase } from '@cardlens/testing';
import { systemClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import type { PaymentProvider } from '../src/payments/provider';
import { billingServiceDir } from '../src/service';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';

// What billing's tests share: billing's schema, migrated, on an in-memory PGlite or a Postgres database, and the use cases' dependencies
// with test defaults (system clock, default price list, a silent logger, no outbox relay).

export interface MigratedPglite {
  prisma: PrismaClient;
  close(): Promise<void>;
}

/** Billing's schema, migrated, on either test database (see describeOnPgliteAndPostgres). */
export function openBillingDatabase(config: SuiteDatabase): Promise<OpenedSuiteDatabase<PrismaClient>> {
  return openMigratedPrisma(PrismaClient, billingServiceDir, config);
}

export async function migratedPglite(): Promise<MigratedPglite> {
  const { client, close } = await openBillingDatabase({ kind: 'pglite', dataDir: 'memory://' });
  return { prisma: client, close };
}

export function testPurchaseDeps(prisma: PrismaClient, provider: PaymentProvider, overrides: Partial<PurchaseDeps> = {}): PurchaseDeps {
  return {
    prisma,
    provider,
    clock: systemClock,
    logger: createLogger('billing-test', { write: () => {} }),
    pricing: defaultPricing,
    environment: 'unit',
    publicBaseUrl: 'http://127.0.0.1:8080',
    checkoutTtlMs: 24 * 3600_000 - 120_000,
    sharedPaymentTokensEnabled: false,
    nudgeOutbox: () => {},
    ...overrides,
  };
}
