import type { Logger } from '@cardlens/telemetry';
import type { Clock } from '../clock';
import type { PrismaClient } from '../db';
import type { Pricing } from '../domain/pricing';
import type { PaymentProvider } from '../payments/provider';

/** What the purchase and subscription use cases share; wired once in service.ts. */
export interface PurchaseDeps {
  prisma: PrismaClient;
  pricing: Pricing;
  provider: PaymentProvider;
  /** DEPLOYMENT_ENVIRONMENT, written into every provider object's metadata. */
  environment: string;
  /** The gateway's public base URL: success and cancel pages live under it. */
  publicBaseUrl: string;
  /** Lifetime of a hosted checkout session. */
  checkoutTtlMs: number;
  sharedPaymentTokensEnabled: boolean;
  /** Billing's clock (the sandbox's in the sandbox): checkout lifetimes, trial deadlines, periods. */
  clock: Clock;
  logger: Logger;
  /** Publishes freshly written outbox rows now rather than at the relay's next poll. */
  nudgeOutbox(): void;
}
