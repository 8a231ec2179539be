import { AppError } from '@cardlens/errors';
import { billingUnavailable } from './subscription-rules';
import { loadSubscriptionState } from './load-subscription-state';
import type { PurchaseDeps } from './purchase-deps';

/** POST /v1/subscriptions/portal: a short-lived billing-portal link (payment method, cancel at period end). */
export async function createPortalSession(deps: PurchaseDeps, agentId: number): Promise<string> {
  const { state, subscription } = await loadSubscriptionState(deps.prisma, deps.clock, agentId);
  if (!state.renewable || !subscription?.customerId) {
    if (state.status === 'checkout_pending') throw new AppError('checkout_pending', 'The subscription checkout has not been completed yet.');
    throw new AppError('subscription_not_found', 'The account has no trialing, active or past-due subscription to manage.');
  }
  try {
    return await deps.provider.createPortalSession({ customerId: subscription.customerId, returnUrl: `${deps.publicBaseUrl}/checkout/subscribed` });
  } catch (error) {
    return billingUnavailable(error);
  }
}
