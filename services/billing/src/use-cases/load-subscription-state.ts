import type { Prisma, PrismaClient, Subscription } from '../db';
import { nextDeadline, subscriptionState, type PeriodFacts, type SubscriptionState } from '../domain/subscription-access';
import type { Clock } from '../clock';

type Client = PrismaClient | Prisma.TransactionClient;

export interface LoadedSubscription {
  state: SubscriptionState;
  /** The agent's current (newest) provider subscription, if any. */
  subscription: Subscription | null;
  now: Date;
  /** When `state` next changes by the clock alone (nextDeadline); null: not by the clock. */
  changesAt: Date | null;
  /** Why the account's trial was refused after it started (trial_uses.refusal), if it was. */
  trialRefusal: string | null;
}

/** An agent's newest subscription: the current one (a returning subscriber's old ones stay for the record). */
export function currentSubscriptionOf(client: Client, agentId: number): Promise<Subscription | null> {
  return client.subscription.findFirst({ where: { agentId }, orderBy: [{ providerCreatedAt: 'desc' }, { createdAt: 'desc' }] });
}

/** Reads what the access rules need (subscription, its recent periods, an open checkout) and derives the state. */
export async function loadSubscriptionState(client: Client, clock: Clock, agentId: number): Promise<LoadedSubscription> {
  const now = clock.now();
  const [subscription, checkout, trial] = await Promise.all([
    currentSubscriptionOf(client, agentId),
    client.subscriptionCheckout.findFirst({ where: { agentId, state: { in: ['creating', 'open'] }, expiresAt: { gt: now } }, select: { expiresAt: true } }),
    client.trialUse.findUnique({ where: { agentId }, select: { refusal: true } }),
  ]);
  const periods: PeriodFacts[] = subscription
    ? await client.allowancePeriod.findMany({ where: { subscriptionId: subscription.id, periodEnd: { gt: now } }, orderBy: { periodStart: 'desc' }, take: 4 })
    : [];
  return {
    state: subscriptionState({ now, subscription, periods, checkoutOpen: checkout !== null, trialRefused: Boolean(trial?.refusal) }),
    subscription,
    now,
    changesAt: nextDeadline({ now, subscription, periods, checkoutExpiresAt: checkout?.expiresAt ?? null }),
    trialRefusal: trial?.refusal ?? null,
  };
}
