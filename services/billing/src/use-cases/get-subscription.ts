import type { Clock } from '../clock';
import type { PrismaClient } from '../db';
import type { SubscriptionStatus } from '../domain/subscription-access';
import { trialRefusal, type TrialRefusal } from '../domain/trial-owner';
import { getBalance } from './get-balance';
import { loadSubscriptionState } from './load-subscription-state';

export type { SubscriptionStatus };

export interface SubscriptionView {
  prepaidCredits: number;
  hasPurchased: boolean;
  plan: string | null;
  status: SubscriptionStatus;
  unlimitedGrading: boolean;
  trialEndsAt: Date | null;
  /** null in the trial (unlimited); 0 without access. */
  gradesRemaining: number | null;
  gradesUsed: number | null;
  gradesReserved: number | null;
  monthlyAllowance: number | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  accessEndsAt: Date | null;
  cancelAtPeriodEnd: boolean;
  pendingPlan: string | null;
  pendingPlanEffectiveAt: Date | null;
  /** How long (ms of billing's clock) this view holds unless something is written; 0: no deadline ahead. */
  holdsForMs: number;
  /** Set when the account's trial was refused after it started (one trial per person): it gives no access. */
  trialRefusal: TrialRefusal | null;
}

/** GET /v1/subscriptions/me (and the balances of GET /v1/agents/me): prepaid credits and the grading subscription. */
export async function getSubscription(
  deps: { prisma: PrismaClient; clock: Clock; pricing: { plans: { key: string; gradesPerMonth: number }[] } },
  agentId: number,
): Promise<SubscriptionView> {
  const [balance, { state, now, changesAt, trialRefusal: refusal }] = await Promise.all([getBalance(deps, agentId), loadSubscriptionState(deps.prisma, deps.clock, agentId)]);
  const plan = state.plan ? deps.pricing.plans.find((p) => p.key === state.plan) : undefined;
  return {
    prepaidCredits: balance.credits,
    hasPurchased: balance.hasPurchased,
    plan: state.plan,
    status: state.status,
    unlimitedGrading: state.unlimitedGrading,
    trialEndsAt: state.trialEndsAt,
    gradesRemaining: state.gradesRemaining,
    gradesUsed: state.period?.used ?? null,
    gradesReserved: state.period?.reserved ?? null,
    monthlyAllowance: state.period?.granted ?? plan?.gradesPerMonth ?? null,
    currentPeriodStart: state.period?.periodStart ?? null,
    currentPeriodEnd: state.period?.periodEnd ?? null,
    accessEndsAt: state.accessEndsAt,
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    pendingPlan: state.pendingPlan,
    pendingPlanEffectiveAt: state.pendingPlanEffectiveAt,
    holdsForMs: changesAt ? Math.max(1, changesAt.getTime() - now.getTime()) : 0,
    trialRefusal: trialRefusal(refusal),
  };
}
