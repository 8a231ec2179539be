import { randomUUID } from 'node:crypto';
import { AppError } from '@cardlens/errors';
import { planPriceAt, type PlanConfig } from '../domain/pricing';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { subscriptionMetadata } from '../domain/subscription-events';
import { changePlan } from './change-plan';
import { createPortalSession } from './create-portal-session';
import { currentSubscriptionOf, loadSubscriptionState } from './load-subscription-state';
import { planPriceId } from './plan-prices';
import { billingUnavailable, requirePlan, retireCheckout } from './subscription-rules';
import type { PurchaseDeps } from './purchase-deps';

export type SubscriptionCheckoutResult =
  | { kind: 'checkout'; checkoutUrl: string; plan: string; expiresAt: Date; trialDays: number }
  | { kind: 'portal'; portalUrl: string }
  | { kind: 'scheduled'; plan: string; currentPlan: string; effectiveAt: Date };

const REUSE_MARGIN_MS = 60_000;
const STALE_CREATING_MS = 60_000;
const WAIT_FOR_TWIN_MS = 10_000;

/**
 * POST /v1/subscriptions/checkout. Link creation only: nothing starts and nothing is charged until the owner
 * completes the hosted checkout. Without a renewable subscription: a `subscription`-mode checkout, with the
 * trial (payment method required) only for an account that never had a trial or subscription. With one on
 * another plan: the change is scheduled for the next renewal (as change-plan). Past due: the billing portal.
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
  const deadline = Date.now() + WAIT_FOR_TWIN_MS;
  for (;;) {
    const holder = await deps.prisma.subscriptionCheckout.findUnique({ where: { openSlot: slot } });
    if (holder) {
      const now = deps.clock.now().getTime();
      const fresh = holder.expiresAt.getTime() - now > REUSE_MARGIN_MS;
      if (holder.state === 'open' && holder.url && fresh) {
        if (holder.plan !== plan.key) throw new AppError('checkout_pending', `An unfinished checkout for ${holder.plan} exists until ${holder.expiresAt.toISOString()}; complete it or let it expire.`);
        return { kind: 'checkout', checkoutUrl: holder.url, plan: holder.plan, expiresAt: holder.expiresAt, trialDays: holder.trialDays };
      }
      if (holder.state === 'open' || now - holder.createdAt.getTime() > STALE_CREATING_MS) {
        // Expired, about to, or left by a crash mid-creation: retire it and release the trial it claimed.
        await deps.prisma.$transaction((tx) => retireCheckout(tx, holder));
        continue;
      }
      if (holder.plan !== plan.key) throw new AppError('checkout_pending', `A checkout for ${holder.plan} is being created.`);
      if (Date.now() > deadline) throw new AppError('billing_unavailable', 'The payment provider is slow to create the checkout; retry shortly.');
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
    const trialDays = previous ? 0 : (await claimTrial(deps, agentId, id)) ? deps.pricing.trialDays : 0;
    const priceId = await planPriceId(deps, plan, priceCents);
    const session = await deps.provider.createSubscriptionCheckout({
      idempotencyKey: `subscription-checkout:${id}`,
      priceId,
      customerEmail: email,
      customerId: previous?.customerId ?? null,
      clientReferenceId: String(agentId),
      metadata: subscriptionMetadata({ agent_id: String(agentId), plan: plan.key, price_cents: String(priceCents), trial_days: String(trialDays), environment: deps.environment, checkout_id: id }),
      trialDays: trialDays > 0 ? trialDays : null,
      expiresAt,
      successUrl: `${deps.publicBaseUrl}/checkout/subscribed?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${deps.publicBaseUrl}/checkout/cancelled?plan=${encodeURIComponent(plan.key)}`,
    });
    await deps.prisma.$transaction(async (tx) => {
      await tx.subscriptionCheckout.update({
        where: { id },
        data: { state: 'open', trialDays, providerSessionId: session.id, url: session.url, expiresAt: session.expiresAt },
      });
      await announceSubscriptionChange(tx, agentId);
    });
    return { kind: 'checkout', checkoutUrl: session.url ?? '', plan: plan.key, expiresAt: session.expiresAt, trialDays };
  } catch (error) {
    await deps.prisma.$transaction(async (tx) => {
      await tx.subscriptionCheckout.deleteMany({ where: { id, state: 'creating' } });
      await tx.trialUse.deleteMany({ where: { checkoutId: id, startedAt: null } });
      await announceSubscriptionChange(tx, agentId);
    });
    return billingUnavailable(error);
  }
}

/**
 * One trial per account, under trial_uses' primary key: claimed by this checkout when the account never had
 * one, or taken over from an earlier checkout that ended without starting it. False: no trial.
 */
async function claimTrial(deps: PurchaseDeps, agentId: number, checkoutId: string): Promise<boolean> {
  const claim = await deps.prisma.trialUse.findUnique({ where: { agentId } });
  if (!claim) {
    const { count } = await deps.prisma.trialUse.createMany({ data: [{ agentId, checkoutId }], skipDuplicates: true });
    return count === 1;
  }
  if (claim.startedAt) return false;
  const holder = claim.checkoutId ? await deps.prisma.subscriptionCheckout.findUnique({ where: { id: claim.checkoutId } }) : null;
  if (holder && holder.state !== 'expired' && holder.expiresAt > deps.clock.now()) return false;
  const { count } = await deps.prisma.trialUse.updateMany({ where: { agentId, checkoutId: claim.checkoutId, startedAt: null }, data: { checkoutId, claimedAt: deps.clock.now() } });
  return count === 1;
}
