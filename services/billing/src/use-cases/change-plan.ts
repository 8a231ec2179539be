import { AppError } from '@cardlens/errors';
import { planPriceAt } from '../domain/pricing';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { billingUnavailable, requirePlan } from './subscription-rules';
import { loadSubscriptionState } from './load-subscription-state';
import { planPriceId } from './plan-prices';
import type { PurchaseDeps } from './purchase-deps';

export interface ScheduledChange {
  plan: string;
  currentPlan: string;
  effectiveAt: Date;
}

/**
 * POST /v1/subscriptions/change-plan: the new plan starts at the next renewal (the trial end during the trial)
 * through a provider subscription schedule; the current allowance is unchanged. Repeating the pending plan
 * returns the same schedule; another plan replaces it.
 */
export async function changePlan(deps: PurchaseDeps, request: { agentId: number; plan: string }): Promise<ScheduledChange> {
  const plan = requirePlan(deps.pricing, request.plan);
  const { state, subscription, now } = await loadSubscriptionState(deps.prisma, deps.clock, request.agentId);
  if (!state.renewable || !subscription) {
    if (state.status === 'checkout_pending') throw new AppError('checkout_pending', 'The subscription checkout has not been completed yet.');
    throw new AppError('subscription_not_found', 'The account has no trialing or active subscription whose plan could change.');
  }
  const currentPlan = state.plan ?? subscription.plan ?? '';
  if (state.status === 'past_due') throw new AppError('plan_change_conflict', 'The subscription is past due: fix the payment method (POST /v1/subscriptions/portal) before changing plans.');
  if (state.cancelAtPeriodEnd) throw new AppError('plan_change_conflict', 'The subscription is set to cancel at period end; a plan change cannot be scheduled.');
  if (currentPlan === plan.key) throw new AppError('plan_change_conflict', `The subscription is already on ${plan.key}.`);
  if (state.pendingPlan === plan.key && state.pendingPlanEffectiveAt) return { plan: plan.key, currentPlan, effectiveAt: state.pendingPlanEffectiveAt };

  const changeAt = state.accessEndsAt ?? subscription.currentPeriodEnd;
  if (!changeAt) throw new AppError('plan_change_conflict', 'The subscription has no current period to change at.');
  const current = requirePlan(deps.pricing, currentPlan);
  try {
    const currentPriceId = subscription.priceId ?? (await planPriceId(deps, current, planPriceAt(current, now)));
    const newPriceId = await planPriceId(deps, plan, planPriceAt(plan, changeAt));
    const schedule = await deps.provider.schedulePlanChange({
      subscriptionId: subscription.id,
      currentPriceId,
      newPriceId,
      changeAt,
      idempotencyKey: `plan-change:${subscription.id}:${plan.key}:${changeAt.getTime()}`,
    });
    // Stamped with our time so an older provider snapshot arriving late does not undo it.
    await deps.prisma.$transaction(async (tx) => {
      await tx.subscription.update({
        where: { id: subscription.id },
        data: { pendingPlan: plan.key, pendingPlanEffectiveAt: changeAt, scheduleId: schedule.id, stateVersion: maxDate(subscription.stateVersion, now) },
      });
      await announceSubscriptionChange(tx, request.agentId);
    });
  } catch (error) {
    return billingUnavailable(error);
  }
  return { plan: plan.key, currentPlan, effectiveAt: changeAt };
}

const maxDate = (a: Date, b: Date): Date => (a > b ? a : b);
