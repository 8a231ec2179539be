import type { Prisma } from '../db';
import { appendEntry } from '../domain/ledger';
import { purchaseLedgerKey, type PaidPurchase } from '../domain/purchase-events';

export interface Fulfilment {
  /** False when this purchase had already been granted (a duplicate confirmation). */
  granted: boolean;
  /** The purchase's ledger entry (the original one on a duplicate). */
  entryId: bigint;
  agentId: number;
  credits: number;
  balanceAfter: number;
}

/**
 * THE fulfilment of a credit purchase, in the caller's transaction: one `purchase` ledger entry per checkout
 * session (token rail: per payment intent) and the session marked paid. Every path that learns of a payment
 * calls it (the confirmation consumer, the success URL, the token rail), in any order and any number of
 * times: the ledger's unique key makes all but the first a no-op.
 */
export async function fulfilCreditPurchase(tx: Prisma.TransactionClient, purchase: PaidPurchase): Promise<Fulfilment> {
  let { agentId, credits } = purchase;
  if (purchase.checkoutSessionId) {
    // Our own record of what was sold wins over the provider's copy of the metadata.
    const session = await tx.checkoutSession.findUnique({ where: { providerSessionId: purchase.checkoutSessionId } });
    if (session) ({ agentId, credits } = session);
  }
  const entry = await appendEntry(tx, {
    agentId,
    kind: 'purchase',
    amount: credits,
    causeType: purchase.checkoutSessionId ? 'checkout_session' : 'payment_intent',
    causeId: (purchase.checkoutSessionId ?? purchase.paymentIntentId)!,
    idempotencyKey: purchaseLedgerKey(purchase),
  });
  if (purchase.checkoutSessionId) {
    await tx.checkoutSession.updateMany({
      where: { providerSessionId: purchase.checkoutSessionId, state: { not: 'paid' } },
      data: { state: 'paid', paidAt: purchase.occurredAt, paymentIntentId: purchase.paymentIntentId, openSlot: null },
    });
  }
  return { granted: !entry.replayed, entryId: entry.entryId, agentId, credits: entry.amount, balanceAfter: entry.balanceAfter };
}
