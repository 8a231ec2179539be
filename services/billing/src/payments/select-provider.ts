import { randomBytes } from 'node:crypto';
import type { Logger } from '@cardlens/telemetry';
import type { BillingConfig } from '../config';
import type { PrismaClient } from '../db';
import type { PaymentProvider } from './provider';
import { createSandboxProvider, type SandboxProvider } from './sandbox-provider';
import { createStripeProvider } from './stripe-provider';

export interface SelectedProvider {
  provider: PaymentProvider;
  /** Present only when the sandbox runs (no Stripe key): the gateway's sandbox checkout page talks to it. */
  sandbox?: SandboxProvider;
  webhookSecret: string;
}

/** Stripe when a key is configured, otherwise the local sandbox (config validation keeps it out of production). */
export function selectPaymentProvider(config: BillingConfig, publicBaseUrl: string, prisma: PrismaClient, logger: Logger): SelectedProvider {
  if (config.STRIPE_SECRET_KEY) {
    const webhookSecret = config.STRIPE_WEBHOOK_SECRET!;
    return {
      provider: createStripeProvider({
        secretKey: config.STRIPE_SECRET_KEY,
        webhookSecret,
        timeoutMs: config.STRIPE_TIMEOUT_MS,
        sptApiVersion: config.STRIPE_SPT_API_VERSION,
        ...(config.STRIPE_API_BASE_URL ? { apiBaseUrl: config.STRIPE_API_BASE_URL } : {}),
      }),
      webhookSecret,
    };
  }
  // The sandbox signs and verifies its own events; a secret made up per process is enough unless a test or
  // bench needs to sign events itself (it then sets STRIPE_WEBHOOK_SECRET).
  const webhookSecret = config.STRIPE_WEBHOOK_SECRET ?? `whsec_sandbox_${randomBytes(24).toString('hex')}`;
  const sandbox = createSandboxProvider({
    prisma,
    webhookSecret,
    webhookUrl: `${publicBaseUrl}/v1/webhooks/stripe`,
    publicBaseUrl,
    logger: logger.child({ component: 'sandbox-payments' }),
  });
  logger.warn('no STRIPE_SECRET_KEY: purchases use the local sandbox payment provider; no money moves');
  return { provider: sandbox, sandbox, webhookSecret };
}
