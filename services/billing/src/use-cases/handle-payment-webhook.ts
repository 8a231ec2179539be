import { AppError } from '@cardlens/errors';
import { interpretPurchaseEvent } from '../domain/purchase-events';
import { interpretSubscriptionEvent, isSubscriptionEvent } from '../domain/subscription-events';
import { WebhookVerificationError, type ProviderEvent } from '../payments/provider';
import { checkTrialCard } from './check-trial-card';
import type { PurchaseDeps } from './purchase-deps';
import { insertPaymentEvent, recordPaymentEvent, type PaymentEventSource } from './record-payment-event';
import { recordSubscriptionEvent } from './record-subscription-event';
import { foreignSubscriptionCheckout, verifyOwnPayment } from './verify-own-payment';

export interface IngestedEvent {
  eventId: string;
  type: string;
  /** True when this event id was recorded before: acknowledged, nothing applied again. */
  duplicate: boolean;
}

/**
 * POST /v1/webhooks/stripe: verify the signature over the raw bytes before anything is parsed (invalid_body
 * otherwise, nothing applied), then ingest. Answering only after the event row and its outbox message are
 * committed means a failure here makes the provider redeliver rather than lose the event.
 */
export async function handlePaymentWebhook(deps: PurchaseDeps, payload: Buffer, signature: string): Promise<IngestedEvent> {
  if (!signature) throw new AppError('invalid_body', 'The Stripe-Signature header is missing.');
  let event: ProviderEvent;
  try {
    event = deps.provider.verifyWebhook(payload, signature);
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new AppError('invalid_body', 'The webhook signature or payload is not valid.', { cause: error });
    throw error;
  }
  return ingestPaymentEvent(deps, event, 'webhook');
}

/**
 * The one ingestion path for provider events (webhooks, and the reconciliation's repair of missed ones): credit
 * purchases on one side, grading subscriptions (subscription checkouts, subscriptions, invoices) on the other.
 */
export async function ingestPaymentEvent(deps: PurchaseDeps, event: ProviderEvent, source: PaymentEventSource): Promise<IngestedEvent> {
  if (isSubscriptionEvent(event)) {
    const meaning = interpretSubscriptionEvent(event, deps.environment);
    const completed = meaning.kind === 'checkout_completed' ? meaning : undefined;
    const foreign = completed && (await foreignSubscriptionCheckout(deps, completed));
    if (completed && foreign) {
      deps.logger.warn({ eventId: event.id, type: event.type, reason: foreign, checkoutSessionId: completed.checkoutSessionId }, 'subscription checkout not applied: not one billing created; flagged for reconciliation');
      const recorded = await insertPaymentEvent(deps.prisma, {
        id: event.id,
        type: event.type,
        occurredAt: event.created,
        source,
        checkoutSessionId: completed.checkoutSessionId,
        confirmsPayment: false,
        flaggedReason: foreign,
        summary: { outcome: 'unverified', agentId: completed.agentId },
      });
      return { eventId: event.id, type: event.type, duplicate: !recorded };
    }
    // One trial per card: provider calls first, outside the transaction (a failure here is redelivered).
    await checkTrialCard(deps, meaning);
    const recorded = await deps.prisma.$transaction((tx) => recordSubscriptionEvent(tx, { id: event.id, type: event.type, occurredAt: event.created, source }, meaning, deps.logger));
    if (recorded) deps.nudgeOutbox();
    return { eventId: event.id, type: event.type, duplicate: !recorded };
  }
  const interpreted = interpretPurchaseEvent(event, deps.environment);
  const meaning = interpreted.kind === 'paid' ? await verifyOwnPayment(deps, interpreted.purchase) : interpreted;
  if (meaning.kind === 'unverified') {
    deps.logger.warn({ eventId: event.id, type: event.type, reason: meaning.reason, checkoutSessionId: meaning.purchase.checkoutSessionId, paymentIntentId: meaning.purchase.paymentIntentId }, 'payment confirmation not applied: not a payment billing set up; flagged for reconciliation');
  }
  const recorded = await deps.prisma.$transaction((tx) => recordPaymentEvent(tx, { id: event.id, type: event.type, occurredAt: event.created, source }, meaning));
  if (recorded && meaning.kind === 'paid') deps.nudgeOutbox();
  return { eventId: event.id, type: event.type, duplicate: !recorded };
}
