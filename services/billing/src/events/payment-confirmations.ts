import { billingEventsV1, dateFromTimestamp, events } from '@cardlens/contracts';
import { idempotentConsumer, type Bus, type MessageHandler, type Subscription } from '@cardlens/bus';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import { applySubscriptionConfirmation, type ApplyDeps } from '../use-cases/apply-subscription-event';
import { fulfilCreditPurchase } from '../use-cases/fulfil-credit-purchase';
import { BILLING_BUS_TABLES } from '../domain/bus-tables';

export const BILLING_CONSUMER_GROUP = 'billing';
/** Agents granted at once per partition; with 3 partitions about the database pool (DATABASE_POOL_SIZE 10). */
const CONFIRMATION_KEY_CONCURRENCY = 4;

/**
 * Thin transport: billing's own payment confirmations (credit purchases → the ledger; subscription events →
 * subscription state and allowance periods) (written by the webhook path to the outbox, relayed
 * through Kafka) → the fulfilment, inside the dedupe transaction. A redelivery after a crash between the
 * commit and the offset commit finds its message id recorded; a second confirmation of the same payment
 * finds the ledger key taken. Either way the credits are granted once.
 */
export function subscribePaymentConfirmations(bus: Bus, prisma: PrismaClient, deps: Omit<ApplyDeps, 'logger'>, logger: Logger): Promise<Subscription> {
  return bus.subscribe({
    topic: events.paymentConfirmationReceived.topic,
    groupId: BILLING_CONSUMER_GROUP,
    // Confirmations of different agents are independent short transactions: a webhook burst is granted a few
    // agents at a time per partition (each agent's in order) instead of one database round trip after another.
    keyConcurrency: CONFIRMATION_KEY_CONCURRENCY,
    handler: paymentConfirmationHandler(prisma, { ...deps, logger }),
  });
}

/** The consumer's handler (exported so tests can crash it between the database commit and the acknowledgement). */
export function paymentConfirmationHandler(prisma: PrismaClient, deps: ApplyDeps): MessageHandler {
  const { logger } = deps;
  return idempotentConsumer(prisma, BILLING_BUS_TABLES.processedMessages, BILLING_CONSUMER_GROUP, async (message, tx) => {
      const confirmation = events.paymentConfirmationReceived.decode(message.value);
      if (confirmation.kind === billingEventsV1.PaymentKind.SUBSCRIPTION) {
        await applySubscriptionConfirmation(tx, deps, confirmation);
        return;
      }
      if (confirmation.kind !== billingEventsV1.PaymentKind.CREDIT_PACK) return;
      if (!confirmation.checkoutSessionId && !confirmation.paymentIntentId) {
        // Retrying cannot fix it: acknowledge and leave it to the logs (and the reconciliation).
        logger.error({ providerEventId: confirmation.providerEventId }, 'payment confirmation names no checkout session or payment intent; not fulfilled');
        return;
      }
      const fulfilment = await fulfilCreditPurchase(tx, {
        agentId: confirmation.agentId,
        pack: confirmation.pack,
        credits: confirmation.credits,
        amountCents: confirmation.amountCents,
        currency: confirmation.currency,
        checkoutSessionId: confirmation.checkoutSessionId || null,
        paymentIntentId: confirmation.paymentIntentId || null,
        occurredAt: confirmation.occurredAt ? dateFromTimestamp(confirmation.occurredAt) : new Date(),
      });
      logger.info(
        { agentId: fulfilment.agentId, credits: fulfilment.credits, granted: fulfilment.granted, providerEventId: confirmation.providerEventId },
        fulfilment.granted ? 'credit purchase granted' : 'credit purchase already granted',
      );
  });
}
