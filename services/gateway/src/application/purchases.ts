import { AppError } from '@cardlens/errors';
import { isoOrNull } from '@cardlens/contracts';
import { z } from 'zod';
import { usd } from '../routes/pricing';
import type { AppContext, Caller } from './context';

/** POST /v1/credits/purchase's body; MCP buy_credits takes the pack only (a checkout link, never payment details). */
export const purchaseInput = z.object({
  pack: z.unknown().optional(),
  sharedPaymentToken: z.string({ error: 'sharedPaymentToken must be a string or null' }).min(1, 'sharedPaymentToken must not be empty').max(255).nullish(),
});

export type PurchaseView =
  | { kind: 'checkout'; checkoutUrl: string; pack: string; credits: number; priceUsd: number; expiresAt: string | null }
  | { kind: 'paid'; status: string; pack: string; credits: number; priceUsd: number; creditsRemaining: number; paymentIntentId: string };

/**
 * A credit pack purchase: a hosted checkout link for the owner (the same open link while it stands), or, with a
 * shared payment token, the payment itself. A missing pack is invalid_pack with the valid keys (billing's).
 */
export async function startCreditPurchase(ctx: AppContext, caller: Caller, raw: unknown): Promise<PurchaseView> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_body', 'The request body must be a JSON object.');
  const parsed = purchaseInput.safeParse(raw);
  if (!parsed.success) throw new AppError('invalid_body', parsed.error.issues.map((i) => i.message).join('; '));
  const { pack, sharedPaymentToken } = parsed.data;
  if (pack !== undefined && pack !== null && typeof pack !== 'string') throw new AppError('invalid_body', 'pack must be a string.');
  const result = await ctx.downstream.createCreditPurchase({
    agentId: caller.agentId,
    pack: typeof pack === 'string' ? pack : '',
    ...(sharedPaymentToken ? { sharedPaymentToken } : {}),
  });
  if (result.$case === 'tokenPayment') {
    const paid = result.value;
    return { kind: 'paid', status: paid.status, pack: paid.pack, credits: paid.credits, priceUsd: usd(paid.priceCents), creditsRemaining: paid.creditsRemaining, paymentIntentId: paid.paymentIntentId };
  }
  const offer = result.value;
  return { kind: 'checkout', checkoutUrl: offer.checkoutUrl, pack: offer.pack, credits: offer.credits, priceUsd: usd(offer.priceCents), expiresAt: isoOrNull(offer.expiresAt) };
}
