import { billingEventsV1, events, timestampFromDate } from '@cardlens/contracts';
import { enqueueOutbox } from '@cardlens/bus';
import type { Logger } from '@cardlens/telemetry';
import type { Prisma } from '../db';
import { DAY_MS } from '../clock';
import type { SubscriptionEvent } from '../domain/subscription-events';
import { planOfPrice } from './plan-prices';
import { insertPaymentEvent, type PaymentEventSource } from './record-payment-event';
import { retireCheckout } from './subscription-rules';
import { BILLING_BUS_TABLES } from '../domain/bus-tables';

const ts = (date: Date | null | undefined) => (date ? timestampFromDate(date) : undefined);

/**
 * Stores a subscription-side provider event once by its id and, for the ones that change access, writes a
 * PaymentConfirmationReceived (kind SUBSCRIPTION) to billing's outbox in the same transaction; billing's
 * consumer applies it from Kafka (apply-subscription-event.ts). A checkout that expired unpaid is settled here
 * (its slot and trial claim released). Returns false when the event id was already recorded.
 */
export async function recordSubscriptionEvent(
  tx: Prisma.TransactionClient,
  event: { id: string; type: string; occurredAt: Date; source: PaymentEventSource },
  meaning: SubscriptionEvent,
  logger: Logger,
): Promise<boolean> {
  const confirms = meaning.kind === 'checkout_completed' || meaning.kind === 'snapshot' || meaning.kind === 'invoice_paid' || meaning.kind === 'invoice_failed';
  const inserted = await insertPaymentEvent(tx, {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    source: event.source,
    checkoutSessionId: meaning.kind === 'checkout_completed' || meaning.kind === 'checkout_expired' ? meaning.checkoutSessionId : null,
    paymentIntentId: null,
    confirmsPayment: meaning.kind === 'invoice_paid' || meaning.kind === 'checkout_completed',
    summary: summaryOf(meaning),
  });
  if (!inserted) return false;

  if (meaning.kind === 'checkout_expired') {
    const checkout = await tx.subscriptionCheckout.findUnique({ where: { providerSessionId: meaning.checkoutSessionId } });
    if (checkout) await retireCheckout(tx, checkout);
  }
  if (meaning.kind === 'trial_will_end') {
    logger.info({ agentId: meaning.agentId, subscriptionId: meaning.subscriptionId, trialEnd: meaning.trialEnd?.toISOString() }, 'subscription trial ends in about three days');
  }
  if (confirms) {
    const confirmation = await confirmationOf(tx, event, meaning);
    await enqueueOutbox(tx, BILLING_BUS_TABLES.outbox, { topic: events.paymentConfirmationReceived.topic, key: String(confirmation.agentId), value: events.paymentConfirmationReceived.encode(confirmation) });
  }
  return true;
}

async function confirmationOf(
  tx: Prisma.TransactionClient,
  event: { id: string; type: string; occurredAt: Date },
  meaning: Extract<SubscriptionEvent, { kind: 'checkout_completed' | 'snapshot' | 'invoice_paid' | 'invoice_failed' }>,
): Promise<billingEventsV1.PaymentConfirmationReceived> {
  const base = {
    providerEventId: event.id,
    providerEventType: event.type,
    kind: billingEventsV1.PaymentKind.SUBSCRIPTION,
    agentId: meaning.agentId,
    currency: 'USD',
    occurredAt: timestampFromDate(event.occurredAt),
  };
  switch (meaning.kind) {
    case 'checkout_completed':
      return billingEventsV1.PaymentConfirmationReceived.fromPartial({
        ...base,
        plan: meaning.plan,
        amountCents: meaning.amountCents,
        checkoutSessionId: meaning.checkoutSessionId,
        checkoutId: meaning.checkoutId,
        subscriptionId: meaning.subscriptionId,
        customerId: meaning.customerId ?? '',
        // The trial runs from completion; the subscription's own event brings the provider's exact end.
        trialStart: meaning.trialDays > 0 ? timestampFromDate(event.occurredAt) : undefined,
        trialEndsAt: meaning.trialDays > 0 ? timestampFromDate(new Date(event.occurredAt.getTime() + meaning.trialDays * DAY_MS)) : undefined,
      });
    case 'snapshot': {
      const s = meaning.subscription;
      return billingEventsV1.PaymentConfirmationReceived.fromPartial({
        ...base,
        plan: (await planOfPrice(tx, s.priceId)) ?? s.metadata.plan ?? '',
        priceId: s.priceId ?? '',
        subscriptionId: s.id,
        customerId: s.customerId ?? '',
        providerStatus: s.status,
        trialStart: ts(s.trialStart),
        trialEndsAt: ts(s.trialEnd),
        periodStart: ts(s.currentPeriodStart),
        periodEnd: ts(s.currentPeriodEnd),
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        canceledAt: ts(s.canceledAt),
        endedAt: ts(s.endedAt),
        cancellationReason: s.cancellationReason ?? '',
        scheduleId: s.scheduleId ?? '',
        subscriptionCreatedAt: timestampFromDate(s.created),
      });
    }
    case 'invoice_paid':
    case 'invoice_failed': {
      const i = meaning.invoice;
      return billingEventsV1.PaymentConfirmationReceived.fromPartial({
        ...base,
        plan: (await planOfPrice(tx, i.priceId)) ?? i.metadata.plan ?? '',
        priceId: i.priceId ?? '',
        amountCents: meaning.kind === 'invoice_paid' ? i.amountPaid : 0,
        currency: i.currency.toUpperCase(),
        subscriptionId: i.subscriptionId ?? '',
        customerId: i.customerId ?? '',
        invoiceId: i.id,
        invoiceAttemptCount: i.attemptCount,
        periodStart: ts(i.periodStart),
        periodEnd: ts(i.periodEnd),
      });
    }
  }
}

/** The audit summary kept with the event: ids, amounts, statuses. Never card or customer details. */
function summaryOf(meaning: SubscriptionEvent): Prisma.InputJsonValue {
  switch (meaning.kind) {
    case 'checkout_completed':
      return { outcome: meaning.kind, agentId: meaning.agentId, plan: meaning.plan, subscriptionId: meaning.subscriptionId, trialDays: meaning.trialDays };
    case 'snapshot':
      return { outcome: meaning.kind, agentId: meaning.agentId, subscriptionId: meaning.subscription.id, status: meaning.subscription.status, cancelAtPeriodEnd: meaning.subscription.cancelAtPeriodEnd };
    case 'invoice_paid':
    case 'invoice_failed':
      return { outcome: meaning.kind, agentId: meaning.agentId, invoiceId: meaning.invoice.id, subscriptionId: meaning.invoice.subscriptionId, amountCents: meaning.invoice.amountPaid, attempt: meaning.invoice.attemptCount };
    case 'trial_will_end':
      return { outcome: meaning.kind, agentId: meaning.agentId, subscriptionId: meaning.subscriptionId };
    case 'checkout_expired':
      return { outcome: meaning.kind };
    case 'ignored':
      return { outcome: 'ignored', reason: meaning.reason };
  }
}
