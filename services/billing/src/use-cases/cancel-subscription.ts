import { AppError } from '@cardlens/errors';
import { applySnapshot } from './apply-subscription-event';
import { billingUnavailable } from './subscription-rules';
import { loadSubscriptionState, type LoadedSubscription } from './load-subscription-state';
import type { PurchaseDeps } from './purchase-deps';

/**
 * POST /v1/subscriptions/cancel: no further charges and no pending plan change; access continues to the trial
 * or period deadline, after which the status reads `cancelled`. Repeating it changes nothing.
 */
export async function cancelSubscription(deps: PurchaseDeps, agentId: number): Promise<{ accessEndsAt: Date; after: LoadedSubscription }> {
  const before = await loadSubscriptionState(deps.prisma, deps.clock, agentId);
  const { state, subscription } = before;
  if (!state.renewable || !subscription) throw new AppError('subscription_not_found', 'The account has no trialing, active or past-due subscription to cancel.');
  if (!subscription.cancelAtPeriodEnd) {
    try {
      const updated = await deps.provider.cancelAtPeriodEnd({ subscriptionId: subscription.id, idempotencyKey: `cancel:${subscription.id}` });
      // The provider's answer is the newest state: kept at our time, so an older event arriving late cannot undo it.
      await deps.prisma.$transaction((tx) => applySnapshot(tx, agentId, updated, deps.clock.now(), subscription.plan));
    } catch (error) {
      return billingUnavailable(error);
    }
  }
  const after = await loadSubscriptionState(deps.prisma, deps.clock, agentId);
  const accessEndsAt = state.accessEndsAt ?? subscription.currentPeriodEnd ?? subscription.trialEnd ?? after.now;
  return { accessEndsAt, after };
}
