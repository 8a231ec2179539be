import { isoOrNull } from '@cardlens/contracts';
import { PurchaseRequest } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { usd } from '../routes/pricing';
import type { AppContext, Caller } from './context';

/** POST /v1/credits/purchase's body, the contract's; MCP buy_credits takes the pack only (a checkout link, never payment details). */
export const purchaseInput = PurchaseRequest;

export type PurchaseView =
  | { kind: 'checkout'; checkoutUrl: string; pack: string; credits: number; priceUsd: number; expiresAt: string | null }
  | { kind: 'paid'; status: string; pack: string; credits: number; priceUsd: number; creditsRemaining: number; paymentIntentId: string };

/**
 * A credit pack purchase: a hosted checkout link for the owner (the same open link while it stands), or, with a
 * shared payment token, the payment itself. A missing pack is invalid_pack with the valid keys (billing's).
 */
export async function startCreditPurchase(ctx: AppContext, caller: Caller, raw: unknown): Promise<PurchaseView> {
  const { pack, sharedPaymentToken } = parseRequest(purchaseInput, raw, { label: 'The request body', rootDetail: 'The request body must be a JSON object.' });
  const result = await ctx.downstream.createCreditPurchase({
    agentId: caller.agentId,
    pack,
    ...(sharedPaymentToken ? { sharedPaymentToken } : {}),
  });
  if (result.$case === 'tokenPayment') {
    const paid = result.value;
    return { kind: 'paid', status: paid.status, pack: paid.pack, credits: paid.credits, priceUsd: usd(paid.priceCents), creditsRemaining: paid.creditsRemaining, paymentIntentId: paid.paymentIntentId };
  }
  const offer = result.value;
  return { kind: 'checkout', checkoutUrl: offer.checkoutUrl, pack: offer.pack, credits: offer.credits, priceUsd: usd(offer.priceCents), expiresAt: isoOrNull(offer.expiresAt) };
}
