import { billingEventsV1, dateFromTimestamp } from '@cardlens/contracts';
import type { Logger } from '@cardlens/telemetry';
import type { Clock } from '../clock';
import type { Prisma } from '../db';
import type { Pricing } from '../domain/pricing';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { isNewerSnapshot, snapshotRank } from '../domain/subscription-events';
import type { ProviderSubscription } from '../payments/provider';

type Confirmation = billingEventsV1.PaymentConfirmationReceived;
const dateOf = (t: Confirmation['occurredAt']): Date | null => (t ? dateFromTimestamp(t) : null);

export interface ApplyDeps {
  pricing: Pricing;
  clock: Clock;
  logger: Logger;
}

/**
 * Applies one subscription confirmation (from Kafka, inside the consumer's dedupe transaction). Every effect is
 * idempotent and independent of arrival order:
 * - checkout completed: the checkout is complete, the trial claim started, and the subscription known (a
 *   placeholder that any provider snapshot overrides, so the trial starts even if that snapshot is late);
 * - snapshot: kept only if at least as new (provider event time, then lifecycle rank) as the one kept;
 * - invoice paid with an amount: one allowance period per invoice (unique), access from the moment it is
 *   processed by our clock; a $0 invoice (the trial's) grants nothing;
 * - invoice payment failed: logged; access already stops by our clock at the trial or period end.
 * Each one is announced (SubscriptionChanged) in the same transaction, even one that turns out to change nothing.
 */
export async function applySubscriptionConfirmation(tx: Prisma.TransactionClient, deps: ApplyDeps, c: Confirmation): Promise<void> {
  const occurredAt = dateOf(c.occurredAt) ?? deps.clock.now();
  await announceSubscriptionChange(tx, c.agentId);
  switch (c.providerEventType) {
    case 'checkout.session.completed': {
      const checkout = c.checkoutId ? await tx.subscriptionCheckout.findUnique({ where: { id: c.checkoutId } }) : null;
      if (checkout) await tx.subscriptionCheckout.update({ where: { id: checkout.id }, data: { state: 'complete', openSlot: null, subscriptionId: c.subscriptionId } });
      const trialEnd = dateOf(c.trialEndsAt);
      if (trialEnd) {
        // The trial is used from now on, whichever checkout claimed it (one per account).
        await tx.trialUse.upsert({
          where: { agentId: c.agentId },
          create: { agentId: c.agentId, checkoutId: checkout?.id ?? null, subscriptionId: c.subscriptionId, startedAt: occurredAt },
          update: { subscriptionId: c.subscriptionId, startedAt: occurredAt },
        });
      }
      await tx.subscription.createMany({
        data: [
          {
            id: c.subscriptionId,
            agentId: c.agentId,
            customerId: c.customerId || null,
            plan: c.plan || null,
            providerStatus: trialEnd ? 'trialing' : 'incomplete',
            trialStart: dateOf(c.trialStart),
            trialEnd,
            providerCreatedAt: occurredAt,
            // Older than any real snapshot: the provider's own state always replaces this placeholder.
            stateVersion: new Date(0),
            stateRank: -1,
          },
        ],
        skipDuplicates: true,
      });
      deps.logger.info({ agentId: c.agentId, subscriptionId: c.subscriptionId, plan: c.plan, trial: Boolean(trialEnd) }, 'subscription checkout completed');
      return;
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      await applySnapshot(tx, c.agentId, snapshotOf(c), occurredAt, c.plan || null);
      return;
    case 'invoice.paid':
      await recordPaidPeriod(tx, deps, c);
      return;
    case 'invoice.payment_failed':
      deps.logger.warn({ agentId: c.agentId, subscriptionId: c.subscriptionId, invoiceId: c.invoiceId, attempt: c.invoiceAttemptCount }, 'subscription payment failed; grading access stops at the trial or period end until a payment succeeds');
      return;
    default:
      deps.logger.warn({ providerEventType: c.providerEventType }, 'subscription confirmation of an unknown event type ignored');
  }
}

function snapshotOf(c: Confirmation): ProviderSubscription {
  return {
    id: c.subscriptionId,
    customerId: c.customerId || null,
    status: (c.providerStatus || 'incomplete') as ProviderSubscription['status'],
    priceId: c.priceId || null,
    metadata: {},
    trialStart: dateOf(c.trialStart),
    trialEnd: dateOf(c.trialEndsAt),
    currentPeriodStart: dateOf(c.periodStart),
    currentPeriodEnd: dateOf(c.periodEnd),
    cancelAtPeriodEnd: c.cancelAtPeriodEnd,
    canceledAt: dateOf(c.canceledAt),
    endedAt: dateOf(c.endedAt),
    cancellationReason: c.cancellationReason || null,
    scheduleId: c.scheduleId || null,
    created: dateOf(c.subscriptionCreatedAt) ?? new Date(0),
  };
}

/**
 * Keeps the provider's state of a subscription if it is at least as new as the kept one (event time, then
 * lifecycle rank). A pending plan change is dropped once the subscription has no schedule any more, or once
 * the new plan is the current one.
 */
export async function applySnapshot(tx: Prisma.TransactionClient, agentId: number, s: ProviderSubscription, version: Date, plan: string | null): Promise<boolean> {
  await tx.$queryRaw`SELECT "id" FROM "billing"."subscriptions" WHERE "id" = ${s.id} FOR UPDATE`;
  const kept = await tx.subscription.findUnique({ where: { id: s.id } });
  const rank = snapshotRank(s);
  if (!isNewerSnapshot({ version, rank }, kept ? { version: kept.stateVersion, rank: kept.stateRank } : null)) return false;
  let pendingPlan = kept?.pendingPlan ?? null;
  let pendingPlanEffectiveAt = kept?.pendingPlanEffectiveAt ?? null;
  const changeDone = pendingPlan !== null && plan === pendingPlan && (!pendingPlanEffectiveAt || (s.currentPeriodStart !== null && s.currentPeriodStart >= pendingPlanEffectiveAt));
  if (!s.scheduleId || s.cancelAtPeriodEnd || changeDone) {
    pendingPlan = null;
    pendingPlanEffectiveAt = null;
  }
  const fields = {
    agentId,
    customerId: s.customerId ?? kept?.customerId ?? null,
    plan: plan ?? kept?.plan ?? null,
    priceId: s.priceId,
    providerStatus: s.status,
    trialStart: s.trialStart,
    trialEnd: s.trialEnd,
    currentPeriodStart: s.currentPeriodStart,
    currentPeriodEnd: s.currentPeriodEnd,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    canceledAt: s.canceledAt,
    endedAt: s.endedAt,
    cancellationReason: s.cancellationReason,
    scheduleId: s.scheduleId,
    pendingPlan,
    pendingPlanEffectiveAt,
    providerCreatedAt: s.created.getTime() > 0 ? s.created : (kept?.providerCreatedAt ?? version),
    stateVersion: version,
    stateRank: rank,
  };
  await tx.subscription.upsert({ where: { id: s.id }, create: { id: s.id, ...fields }, update: fields });
  if (s.trialStart) {
    // A trial the provider reports counts as the account's one trial, however it began.
    await tx.trialUse.upsert({
      where: { agentId },
      create: { agentId, subscriptionId: s.id, startedAt: s.trialStart },
      update: { subscriptionId: s.id, startedAt: s.trialStart },
    });
  }
  return true;
}

async function recordPaidPeriod(tx: Prisma.TransactionClient, deps: ApplyDeps, c: Confirmation): Promise<void> {
  const periodStart = dateOf(c.periodStart);
  const periodEnd = dateOf(c.periodEnd);
  if (c.amountCents <= 0) {
    deps.logger.info({ agentId: c.agentId, invoiceId: c.invoiceId }, 'zero-amount subscription invoice (the trial): no allowance period');
    return;
  }
  const plan = deps.pricing.plans.find((p) => p.key === c.plan);
  if (!plan || !periodStart || !periodEnd || !c.subscriptionId) {
    // Retrying cannot fix it; the reconciliation report shows paid invoices without a period.
    deps.logger.error({ agentId: c.agentId, invoiceId: c.invoiceId, plan: c.plan }, 'paid subscription invoice without a known plan or period; no allowance granted');
    return;
  }
  const { count } = await tx.allowancePeriod.createMany({
    data: [
      {
        agentId: c.agentId,
        subscriptionId: c.subscriptionId,
        invoiceId: c.invoiceId,
        plan: plan.key,
        granted: plan.gradesPerMonth,
        periodStart,
        periodEnd,
        amountCents: c.amountCents,
        paidAt: deps.clock.now(),
      },
    ],
    skipDuplicates: true,
  });
  if (count === 1) {
    // A subscription payment makes the account a paying one (tier `paid`), as a credit purchase does.
    await tx.creditAccount.upsert({ where: { agentId: c.agentId }, create: { agentId: c.agentId, hasPurchased: true }, update: { hasPurchased: true } });
    deps.logger.info({ agentId: c.agentId, subscriptionId: c.subscriptionId, plan: plan.key, grades: plan.gradesPerMonth, periodEnd: periodEnd.toISOString() }, 'subscription period paid: allowance granted');
  }
}
