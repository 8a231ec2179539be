import { AppError } from '@cardlens/errors';
import { findPlan, type PlanConfig, type Pricing } from '../domain/pricing';
import type { Prisma } from '../db';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { PaymentProviderError } from '../payments/provider';

// What the subscription use cases (checkout, portal, change-plan, cancel) answer alike.

export function requirePlan(pricing: Pricing, key: string): PlanConfig {
  const plan = findPlan(pricing, key);
  if (!plan) {
    const valid = pricing.plans.map((p) => p.key).join(', ');
    throw new AppError('invalid_plan', `${key ? `Unknown plan "${key}"` : 'The plan is missing'}. Valid plans: ${valid}.`);
  }
  return plan;
}

/** A provider failure on a subscription endpoint: 503 billing_unavailable, nothing started or charged. */
export function billingUnavailable(error: unknown): never {
  if (error instanceof PaymentProviderError) {
    throw new AppError('billing_unavailable', 'The payment provider is unavailable; nothing was started or charged. Retry later.', { cause: error });
  }
  throw error;
}

/**
 * Ends an unfinished subscription checkout of ours (expired, about to, or left by a crash) and releases the
 * trial it claimed if the trial never started. Used when a new checkout replaces it and on the provider's
 * checkout.session.expired.
 */
export async function retireCheckout(tx: Prisma.TransactionClient, checkout: { id: string; agentId: number }): Promise<void> {
  const checkoutId = checkout.id;
  const { count } = await tx.subscriptionCheckout.updateMany({ where: { id: checkoutId, state: { in: ['creating', 'open'] } }, data: { state: 'expired', openSlot: null } });
  if (count > 0) await announceSubscriptionChange(tx, checkout.agentId);
  await tx.trialUse.deleteMany({ where: { checkoutId, startedAt: null } });
}
