import { billingEventsV1, dateFromTimestamp, events } from '@cardlens/contracts';
import { busTables, idempotentConsumer, type Bus, type Subscription } from '@cardlens/bus';
import type { PrismaClient } from '../db';
import { recordPurchase } from '../use-cases/record-purchase';

export const ACCOUNTS_CONSUMER_GROUP = 'accounts';

/** Thin transport for billing's payment confirmations: decode, call the use case inside the dedupe transaction. */
export function subscribePaymentConfirmations(bus: Bus, prisma: PrismaClient): Promise<Subscription> {
  return bus.subscribe({
    topic: events.paymentConfirmationReceived.topic,
    groupId: ACCOUNTS_CONSUMER_GROUP,
    handler: idempotentConsumer(prisma, busTables('accounts').processedMessages, ACCOUNTS_CONSUMER_GROUP, async (message, tx) => {
      const confirmation = events.paymentConfirmationReceived.decode(message.value);
      // A credit purchase, or a subscription payment with an amount (not the trial's $0 start), makes the tier `paid`.
      const paidSubscription = confirmation.kind === billingEventsV1.PaymentKind.SUBSCRIPTION && confirmation.providerEventType === 'invoice.paid' && confirmation.amountCents > 0;
      if (confirmation.kind !== billingEventsV1.PaymentKind.CREDIT_PACK && !paidSubscription) return;
      await recordPurchase(tx, {
        agentId: confirmation.agentId,
        occurredAt: confirmation.occurredAt ? dateFromTimestamp(confirmation.occurredAt) : new Date(),
      });
    }),
  });
}
