import { AppError } from '@cardlens/errors';
import { purchaseMetadata, type PaidPurchase } from '../domain/purchase-events';
import { PaymentProviderError, type GrantedToken, type ProviderPaymentIntent } from '../payments/provider';
import { findPack } from './create-credit-purchase';
import { fulfilCreditPurchase } from './fulfil-credit-purchase';
import { getBalance } from './get-balance';
import type { PurchaseDeps } from './purchase-deps';
import { recordPaymentEvent } from './record-payment-event';

export interface TokenPurchase {
  status: 'succeeded';
  pack: string;
  credits: number;
  priceCents: number;
  creditsRemaining: number;
  paymentIntentId: string;
}

/**
 * POST /v1/credits/purchase with `sharedPaymentToken` (preview rail, off unless SPT_ENABLED). Reads the granted
 * token and checks its limits before charging; confirms a PaymentIntent for the pack's price with it, under an
 * idempotency key of agent, pack and token, so a retried request returns the original payment instead of
 * charging twice; grants inline under the intent's ledger key (a later `payment_intent.succeeded` webhook for
 * it grants nothing more). No credits on any failure.
 */
export async function purchaseWithToken(deps: PurchaseDeps, request: { agentId: number; pack: string; token: string }): Promise<TokenPurchase> {
  if (!deps.sharedPaymentTokensEnabled) {
    throw new AppError('spt_not_enabled', 'The shared payment token rail is not enabled on this server. Omit sharedPaymentToken to get a hosted checkout URL.');
  }
  const pack = findPack(deps, request.pack);

  const token = await provider(() => deps.provider.retrieveGrantedToken(request.token), 'could not be read');
  const refusal = tokenRefusal(token, pack.priceCents);
  if (refusal) throw new AppError('spt_payment_incomplete', `The shared payment token cannot pay for this pack: ${refusal}. No credits were granted.`);

  const intent = await provider(
    () =>
      deps.provider.confirmTokenPayment({
        tokenId: token.id,
        amountCents: pack.priceCents,
        currency: 'usd',
        metadata: purchaseMetadata({
          rail: 'shared_payment_token',
          agent_id: String(request.agentId),
          pack: pack.key,
          credits: String(pack.credits),
          price_cents: String(pack.priceCents),
          environment: deps.environment,
        }),
        idempotencyKey: `spt:${request.agentId}:${pack.key}:${token.id}`,
      }),
    'was not accepted',
  );
  if (intent.status !== 'succeeded') {
    const later = intent.status === 'processing' ? ' If the payment completes later, the credits are granted then.' : '';
    throw new AppError('spt_payment_incomplete', `The payment is ${intent.status.replace(/_/g, ' ')}; no credits were granted.${later}`, {
      extras: { paymentStatus: intent.status },
    });
  }

  const purchase = paidPurchase(request.agentId, pack.key, Number(intent.metadata.credits ?? pack.credits), intent);
  const recorded = await deps.prisma.$transaction(async (tx) => {
    await fulfilCreditPurchase(tx, purchase);
    // The confirmation tells accounts (tier `paid`); billing's own consumer finds the ledger key taken.
    return recordPaymentEvent(tx, { id: `token:${intent.id}`, type: 'payment_intent.succeeded', occurredAt: purchase.occurredAt, source: 'token' }, { kind: 'paid', purchase });
  });
  if (recorded) deps.nudgeOutbox();
  const balance = await getBalance(deps, request.agentId);
  return { status: 'succeeded', pack: pack.key, credits: purchase.credits, priceCents: intent.amount, creditsRemaining: balance.credits, paymentIntentId: intent.id };
}

function tokenRefusal(token: GrantedToken, priceCents: number): string | undefined {
  if (token.deactivated) return 'it has been deactivated';
  if (token.currency.toLowerCase() !== 'usd') return `it is limited to ${token.currency.toUpperCase() || 'another currency'}, and packs are sold in USD`;
  if (token.maxAmountCents < priceCents) return `its limit (${token.maxAmountCents} cents) is below the price (${priceCents} cents)`;
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return 'it has expired';
  return undefined;
}

function paidPurchase(agentId: number, pack: string, credits: number, intent: ProviderPaymentIntent): PaidPurchase {
  return { agentId, pack, credits, amountCents: intent.amount, currency: intent.currency.toUpperCase(), checkoutSessionId: null, paymentIntentId: intent.id, occurredAt: intent.created };
}

/** Provider calls of the token rail: a refusal is the payer's (402), an outage is ours to report (502). */
async function provider<T>(call: () => Promise<T>, what: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    if (error.kind === 'unavailable') {
      throw new AppError('spt_stripe_error', 'The payment provider failed; nothing was charged by us and no credits were granted. Retry later.', { cause: error });
    }
    const reason = error.kind === 'declined' ? 'the payment was declined' : error.kind === 'not_found' ? 'the token was not found' : `the token ${what}`;
    throw new AppError('spt_payment_incomplete', `The shared payment token could not be charged: ${reason}. No credits were granted.`, { cause: error });
  }
}
