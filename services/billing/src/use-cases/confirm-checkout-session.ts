import { AppError } from '@cardlens/errors';
import { interpretCheckoutSession, type PurchaseEvent } from '../domain/purchase-events';
import { PaymentProviderError } from '../payments/provider';
import { fulfilCreditPurchase } from './fulfil-credit-purchase';
import type { PurchaseDeps } from './purchase-deps';
import { recordPaymentEvent } from './record-payment-event';

export type CheckoutState = 'open' | 'processing' | 'paid' | 'expired' | 'failed';

export interface CheckoutSessionView {
  checkoutSessionId: string;
  state: CheckoutState;
  pack: string;
  credits: number;
  priceCents: number;
}

/**
 * The owner landed on the success URL. Stripe's advice: the webhook may be late and the redirect may never
 * come, so both lead to the same fulfilment. Asks the provider for the session and, when it is paid, records
 * a `return:<session>` event (its confirmation tells accounts) and fulfils inline, so the page the owner sees
 * already counts the credits. Repeat visits change nothing.
 */
export async function confirmCheckoutSession(deps: PurchaseDeps, checkoutSessionId: string): Promise<CheckoutSessionView> {
  const row = await deps.prisma.checkoutSession.findUnique({ where: { providerSessionId: checkoutSessionId } });
  if (!row) throw new AppError('checkout_not_found', 'No checkout session with this id.');
  if (row.state !== 'paid') {
    let session;
    try {
      session = await deps.provider.retrieveCheckoutSession(checkoutSessionId);
    } catch (error) {
      if (error instanceof PaymentProviderError) throw new AppError('stripe_error', 'The payment provider could not be reached; the credits are granted as soon as it confirms the payment.', { cause: error });
      throw error;
    }
    if (!session) throw new AppError('checkout_not_found', 'No checkout session with this id.');
    const type = session.status === 'expired' ? 'checkout.session.expired' : 'checkout.session.completed';
    const meaning: PurchaseEvent =
      session.status === 'open' ? { kind: 'ignored', reason: 'still open' } : interpretCheckoutSession(type, session, deps.clock.now(), deps.environment);
    if (meaning.kind !== 'ignored') {
      const recorded = await deps.prisma.$transaction(async (tx) => {
        const inserted = await recordPaymentEvent(tx, { id: `return:${session.id}:${meaning.kind}`, type, occurredAt: deps.clock.now(), source: 'return' }, meaning);
        if (meaning.kind === 'paid') await fulfilCreditPurchase(tx, meaning.purchase);
        return inserted;
      });
      if (recorded && meaning.kind === 'paid') deps.nudgeOutbox();
    }
  }
  const current = await deps.prisma.checkoutSession.findUniqueOrThrow({ where: { providerSessionId: checkoutSessionId } });
  return {
    checkoutSessionId,
    state: current.state === 'creating' ? 'open' : (current.state as CheckoutState),
    pack: current.pack,
    credits: current.credits,
    priceCents: current.priceCents,
  };
}
