import type { PaidPurchase, PurchaseEvent } from '../domain/purchase-events';
import { isOurPurchase, isPaidCheckoutSession } from '../domain/purchase-events';
import type { PurchaseDeps } from './purchase-deps';

/**
 * Only payments billing itself set up grant credits (issue 49): a signed event is not enough, since whoever
 * holds the webhook secret could sign one for a session we never created and name any credits in its metadata.
 * A confirmed payment is ours when its checkout session is one we recorded, or, failing that (a crash between
 * the provider's creation and our record of it; the token rail, which keeps no row before paying), when the
 * provider confirms on retrieval that the object exists, is paid, and carries our metadata. Anything else is
 * stored unapplied and flagged for reconciliation. Provider failures propagate: the webhook then fails and is
 * redelivered, with nothing recorded.
 */
export async function verifyOwnPayment(deps: PurchaseDeps, purchase: PaidPurchase): Promise<PurchaseEvent> {
  const unverified = (reason: string): PurchaseEvent => ({ kind: 'unverified', purchase, reason });
  if (purchase.checkoutSessionId) {
    const sessionId = purchase.checkoutSessionId;
    if (await deps.prisma.checkoutSession.findUnique({ where: { providerSessionId: sessionId }, select: { id: true } })) return { kind: 'paid', purchase };
    const session = await deps.provider.retrieveCheckoutSession(sessionId);
    if (!session) return unverified('no such checkout session at the payment provider');
    if (!isPaidCheckoutSession(session)) return unverified('the payment provider does not report this checkout session as paid');
    const checkoutId = session.metadata.checkout_id ?? '';
    const row = /^[0-9a-f-]{36}$/i.test(checkoutId) ? await deps.prisma.checkoutSession.findUnique({ where: { id: checkoutId } }) : null;
    if (!row || row.providerSessionId !== null || String(row.agentId) !== session.metadata.agent_id) {
      return unverified('checkout session not created by billing');
    }
    // Ours, created just before a crash: link the row so the fulfilment grants what it sold.
    await deps.prisma.checkoutSession.updateMany({ where: { id: row.id, providerSessionId: null }, data: { providerSessionId: session.id, url: session.url } });
    return { kind: 'paid', purchase };
  }
  if (purchase.paymentIntentId) {
    const intent = await deps.provider.retrievePaymentIntent(purchase.paymentIntentId);
    if (!intent) return unverified('no such payment intent at the payment provider');
    if (intent.status !== 'succeeded') return unverified(`the payment provider reports this payment intent as ${intent.status}`);
    if (!isOurPurchase(intent.metadata, deps.environment) || intent.metadata.agent_id !== String(purchase.agentId) || intent.amount !== purchase.amountCents) {
      return unverified('payment intent not created by billing for this purchase');
    }
    return { kind: 'paid', purchase };
  }
  return unverified('neither a checkout session nor a payment intent');
}

/**
 * The subscription side of the same rule: a completed subscription checkout starts a trial or a paid plan only
 * when it is one billing created (its row, or the provider's session naming our row for the same agent). Returns
 * the reason when it is not.
 */
export async function foreignSubscriptionCheckout(deps: PurchaseDeps, completed: { checkoutSessionId: string; checkoutId: string; agentId: number }): Promise<string | undefined> {
  if (await deps.prisma.subscriptionCheckout.findUnique({ where: { providerSessionId: completed.checkoutSessionId }, select: { id: true } })) return undefined;
  const session = await deps.provider.retrieveCheckoutSession(completed.checkoutSessionId);
  if (!session || session.mode !== 'subscription' || session.status !== 'complete') return 'no such completed subscription checkout at the payment provider';
  const checkoutId = session.metadata.checkout_id ?? '';
  const row = /^[0-9a-f-]{36}$/i.test(checkoutId) ? await deps.prisma.subscriptionCheckout.findUnique({ where: { id: checkoutId } }) : null;
  if (!row || row.agentId !== completed.agentId || String(row.agentId) !== session.metadata.agent_id) return 'subscription checkout not created by billing';
  return undefined;
}
