import type { PrismaClient } from '../db';
import { getBalance } from './get-balance';

export type SubscriptionStatus = 'none' | 'checkout_pending' | 'trialing' | 'active' | 'past_due' | 'cancelled' | 'expired';

export interface SubscriptionView {
  prepaidCredits: number;
  hasPurchased: boolean;
  plan: string | null;
  status: SubscriptionStatus;
  unlimitedGrading: boolean;
  trialEndsAt: Date | null;
  gradesRemaining: number | null;
  monthlyAllowance: number | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  pendingPlan: string | null;
  pendingPlanEffectiveAt: Date | null;
}

/**
 * The subscription side of an agent's balances. Subscriptions (checkout, trial, renewals) are not built yet,
 * so every agent reports status "none" here — read from the real prepaid balance, not made up.
 */
export async function getSubscription(deps: { prisma: PrismaClient }, agentId: number): Promise<SubscriptionView> {
  const balance = await getBalance(deps, agentId);
  return {
    prepaidCredits: balance.credits,
    hasPurchased: balance.hasPurchased,
    plan: null,
    status: 'none',
    unlimitedGrading: false,
    trialEndsAt: null,
    // null would mean unlimited (trial); without a subscription there are no grades.
    gradesRemaining: 0,
    monthlyAllowance: null,
    currentPeriodStart: null,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    pendingPlan: null,
    pendingPlanEffectiveAt: null,
  };
}
