import { billingEventsV1, events, timestampFromDate } from '@cardlens/contracts';
import { enqueueOutbox } from '@cardlens/bus';
import type { Prisma } from '../db';
import type { PaidPurchase, PurchaseEvent } from '../domain/purchase-events';
import { BILLING_BUS_TABLES } from '../domain/bus-tables';

export type PaymentEventSource = 'webhook' | 'return' | 'token' | 'repair';

/**
 * Stores a payment event once by its id and applies what it means, in the caller's transaction:
 * a payment writes a PaymentConfirmationReceived to billing's outbox (billing grants the credits from it,
 * accounts marks the agent paid); processing/failed/expired move our session record; an unverified payment is
 * kept with its flag and nothing else (see verify-own-payment.ts). Returns false when the
 * event id was already recorded: nothing is applied twice.
 */
export async function recordPaymentEvent(
  tx: Prisma.TransactionClient,
  event: { id: string; type: string; occurredAt: Date; source: PaymentEventSource },
  meaning: PurchaseEvent,
): Promise<boolean> {
  const purchase = 'purchase' in meaning ? meaning.purchase : undefined;
  const sessionId = 'checkoutSessionId' in meaning ? meaning.checkoutSessionId : (purchase?.checkoutSessionId ?? null);
  const inserted = await insertPaymentEvent(tx, {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    source: event.source,
    checkoutSessionId: sessionId,
    paymentIntentId: purchase?.paymentIntentId ?? null,
    confirmsPayment: meaning.kind === 'paid',
    flaggedReason: meaning.kind === 'unverified' ? meaning.reason : null,
    summary: summaryOf(meaning),
  });
  if (!inserted) return false;

  switch (meaning.kind) {
    case 'paid':
      await enqueueOutbox(tx, BILLING_BUS_TABLES.outbox, {
        topic: events.paymentConfirmationReceived.topic,
        key: String(meaning.purchase.agentId),
        value: events.paymentConfirmationReceived.encode(confirmationOf(event, meaning.purchase)),
      });
      break;
    case 'processing':
      await tx.checkoutSession.updateMany({ where: { providerSessionId: meaning.checkoutSessionId, state: { in: ['creating', 'open'] } }, data: { state: 'processing', openSlot: null } });
      break;
    case 'failed':
      await tx.checkoutSession.updateMany({ where: { providerSessionId: meaning.checkoutSessionId, state: { in: ['creating', 'open', 'processing'] } }, data: { state: 'failed', openSlot: null } });
      break;
    case 'expired':
      await tx.checkoutSession.updateMany({ where: { providerSessionId: meaning.checkoutSessionId, state: { in: ['creating', 'open'] } }, data: { state: 'expired', openSlot: null } });
      break;
    case 'unverified':
    case 'ignored':
      break;
  }
  return true;
}

/** Stores a provider event once by its id (both sides: purchases and subscriptions). False: already recorded. */
export async function insertPaymentEvent(tx: Prisma.TransactionClient, row: Prisma.PaymentEventCreateManyInput): Promise<boolean> {
  const { count } = await tx.paymentEvent.createMany({ data: [row], skipDuplicates: true });
  return count === 1;
}

function confirmationOf(event: { id: string; type: string }, purchase: PaidPurchase): billingEventsV1.PaymentConfirmationReceived {
  return billingEventsV1.PaymentConfirmationReceived.fromPartial({
    providerEventId: event.id,
    providerEventType: event.type,
    kind: billingEventsV1.PaymentKind.CREDIT_PACK,
    agentId: purchase.agentId,
    pack: purchase.pack,
    credits: purchase.credits,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    occurredAt: timestampFromDate(purchase.occurredAt),
    checkoutSessionId: purchase.checkoutSessionId ?? '',
    paymentIntentId: purchase.paymentIntentId ?? '',
  });
}

/** The audit summary kept with the event: ids, amounts, the outcome. Never card or customer details. */
function summaryOf(meaning: PurchaseEvent): Prisma.InputJsonValue {
  if (meaning.kind === 'paid' || meaning.kind === 'unverified') {
    const p = meaning.purchase;
    return { outcome: meaning.kind, agentId: p.agentId, pack: p.pack, credits: p.credits, amountCents: p.amountCents, currency: p.currency };
  }
  return meaning.kind === 'ignored' ? { outcome: 'ignored', reason: meaning.reason } : { outcome: meaning.kind };
}
