import { AppError } from '@cardlens/errors';
import { findPlan, type PlanConfig, type Pricing } from '../domain/pricing';
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
