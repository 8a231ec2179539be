import { createDatabase, migrate, openPrisma, serviceLayout } from '@cardlens/db';
import { createLogger } from '@cardlens/telemetry';
import { systemClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import type { PaymentProvider } from '../src/payments/provider';
import { billingServiceDir } from '../src/service';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';

// What the purchase-side tests share: billing's schema on an in-memory PGlite, and the use cases' dependencies
// with test defaults (system clock, default price list, a silent logger, no outbox relay).

export interface MigratedPglite {
  prisma: PrismaClient;
  close(): Promise<void>;
}

export async function migratedPglite(): Promise<MigratedPglite> {
  const database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
  await migrate({ ...serviceLayout(billingServiceDir), database });
  const open = await openPrisma(PrismaClient, database);
  return {
    prisma: open.prisma,
    close: async () => {
      await open.close();
      await database.close();
    },
  };
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
