import { randomUUID } from 'node:crypto';
import { AppError } from '@cardlens/errors';
import { findPlan, planPriceAt, type PlanConfig } from '../domain/pricing';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { subscriptionMetadata } from '../domain/subscription-events';
import { trialRefusal, type TrialRefusal } from '../domain/trial-owner';
import { agentCustomer } from './agent-customer';
import { changePlan } from './change-plan';
import { claimTrial } from './claim-trial';
import { createPortalSession } from './create-portal-session';
import { currentSubscriptionOf, loadSubscriptionState } from './load-subscription-state';
import { planPriceId } from './plan-prices';
import { billingUnavailable, requirePlan, retireCheckout } from './subscription-rules';
import type { PurchaseDeps } from './purchase-deps';
import { createdLongAgo } from './stale-creation';

export type SubscriptionCheckoutResult =
  /** trialRefusal: why an account that never had a trial gets none (its owner already had one); else null. */
  | { kind: 'checkout'; checkoutUrl: string; plan: string; expiresAt: Date; trialDays: number; trialRefusal: TrialRefusal | null }
  | { kind: 'portal'; portalUrl: string }
  | { kind: 'scheduled'; plan: string; currentPlan: string; effectiveAt: Date };

const REUSE_MARGIN_MS = 60_000;
const WAIT_FOR_TWIN_MS = 10_000;

/**
 * POST /v1/subscriptions/checkout. Link creation only: nothing starts and nothing is charged until the owner
 * completes the hosted checkout. Without a renewable subscription: a `subscription`-mode checkout, with the
 * trial (payment method required) only for an account that never had a trial or subscription and whose owner
 * (normalised email) never had one on another account (claim-trial.ts; refused: trialRefusal says why, and the
 * plan is charged at once, as for a returning subscriber). With one on another plan: the change is scheduled for the next renewal (as change-plan). Past due: the billing portal.
 * One unfinished checkout per account (the `open_slot` unique key); repeating the request for the same plan
 * returns the same session.
 */
export async function createSubscriptionCheckout(deps: PurchaseDeps, request: { agentId: number; plan: string; contactEmail: string }): Promise<SubscriptionCheckoutResult> {
  const plan = requirePlan(deps.pricing, request.plan);
  if (!request.contactEmail) {
    throw new AppError('contact_email_required', 'A contact email must be on the account before a subscription checkout (register with contactEmail).');
  }
  const { state } = await loadSubscriptionState(deps.prisma, deps.clock, request.agentId);
  if (state.renewable) {
    if (state.status === 'past_due') return { kind: 'portal', portalUrl: await createPortalSession(deps, request.agentId) };
    if (state.plan === plan.key) throw new AppError('subscription_exists', `The account already has a ${state.status} subscription on ${plan.key}.`);
    return { kind: 'scheduled', ...(await changePlan(deps, { agentId: request.agentId, plan: plan.key })) };
  }

  const slot = String(request.agentId);
  const waitUntil = performance.now() + WAIT_FOR_TWIN_MS;
  for (;;) {
    const holder = await deps.prisma.subscriptionCheckout.findUnique({ where: { openSlot: slot } });
    if (holder) {
      const now = deps.clock.now();
      const fresh = holder.expiresAt.getTime() - now.getTime() > REUSE_MARGIN_MS;
      // The offer follows the list: a checkout at a price the plan no longer has is replaced.
      const holderPlan = findPlan(deps.pricing, holder.plan);
      const current = holderPlan !== undefined && holder.priceCents === planPriceAt(holderPlan, now);
      if (holder.state === 'open' && holder.url && fresh && current) {
        if (holder.plan !== plan.key) throw new AppError('checkout_pending', `An unfinished checkout for ${holder.plan} exists until ${holder.expiresAt.toISOString()}; complete it or let it expire.`);
        return { kind: 'checkout', checkoutUrl: holder.url, plan: holder.plan, expiresAt: holder.expiresAt, trialDays: holder.trialDays, trialRefusal: trialRefusal(holder.trialRefusal) };
      }
      if (holder.state === 'open' || (await createdLongAgo(deps.prisma, 'subscription_checkouts', holder.id))) {
        // Expired, about to, offering an old price, or left by a crash mid-creation: end it at the provider so
        // its page cannot be paid, then retire it and release the trial it claimed.
        if (holder.providerSessionId) await deps.provider.expireCheckoutSession(holder.providerSessionId).catch(billingUnavailable);
        await deps.prisma.$transaction((tx) => retireCheckout(tx, holder));
        continue;
      }
      if (holder.plan !== plan.key) throw new AppError('checkout_pending', `A checkout for ${holder.plan} is being created.`);
      if (performance.now() > waitUntil) throw new AppError('billing_unavailable', 'The payment provider is slow to create the checkout; retry shortly.');
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const created = await claimSlotAndCreate(deps, request.agentId, plan, slot, request.contactEmail);
    if (created) return created;
  }
}

async function claimSlotAndCreate(deps: PurchaseDeps, agentId: number, plan: PlanConfig, slot: string, email: string): Promise<SubscriptionCheckoutResult | undefined> {
  const id = randomUUID();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.checkoutTtlMs);
  const priceCents = planPriceAt(plan, now);
  try {
    await deps.prisma.$transaction(async (tx) => {
      await tx.subscriptionCheckout.create({
        data: { id, agentId, plan: plan.key, priceCents, trialDays: 0, provider: deps.provider.name, state: 'creating', openSlot: slot, expiresAt },
      });
      await announceSubscriptionChange(tx, agentId);
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') return undefined;
    throw error;
  }

  try {
    const previous = await currentSubscriptionOf(deps.prisma, agentId);
    const claim = previous ? { granted: false, refusal: null } : await claimTrial(deps, agentId, id, email);
    const trialDays = claim.granted ? deps.pricing.trialDays : 0;
    const priceId = await planPriceId(deps, plan, priceCents);
    // The agent's one customer (a returning subscriber's, from before customers were kept, is taken over).
    const customer = await agentCustomer(deps, agentId, { email, adopt: previous?.customerId });
    const session = await deps.provider.createSubscriptionCheckout({
      idempotencyKey: `subscription-checkout:${id}`,
      priceId,
      customerEmail: email,
      customerId: customer.customerId,
      clientReferenceId: String(agentId),
      metadata: subscriptionMetadata({ agent_id: String(agentId), plan: plan.key, price_cents: String(priceCents), trial_days: String(trialDays), environment: deps.environment, checkout_id: id }),
      trialDays: trialDays > 0 ? trialDays : null,
      expiresAt,
      successUrl: `${deps.publicBaseUrl}/checkout/subscribed?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${deps.publicBaseUrl}/checkout/cancelled?plan=${encodeURIComponent(plan.key)}`,
    });
    const opened = await deps.prisma.$transaction(async (tx) => {
      const { count } = await tx.subscriptionCheckout.updateMany({
        where: { id, state: 'creating' },
        data: { state: 'open', trialDays, trialRefusal: claim.refusal, providerSessionId: session.id, url: session.url, expiresAt: session.expiresAt },
      });
      if (count === 1) await announceSubscriptionChange(tx, agentId);
      return count === 1;
    });
    if (!opened) {
      // Taken over as crashed while the provider was slow: this session is nobody's offer; it must not be payable.
      await deps.provider.expireCheckoutSession(session.id).catch((error: unknown) => deps.logger.warn({ err: error, checkoutSessionId: session.id }, 'orphaned subscription checkout not expired'));
      return undefined;
    }
    return { kind: 'checkout', checkoutUrl: session.url ?? '', plan: plan.key, expiresAt: session.expiresAt, trialDays, trialRefusal: trialRefusal(claim.refusal) };
  } catch (error) {
    await deps.prisma.$transaction(async (tx) => {
      await tx.subscriptionCheckout.deleteMany({ where: { id, state: 'creating' } });
      await tx.trialUse.deleteMany({ where: { checkoutId: id, startedAt: null } });
      await announceSubscriptionChange(tx, agentId);
    });
    return billingUnavailable(error);
  }
}
