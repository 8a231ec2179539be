import { randomUUID } from 'node:crypto';
import { AppError } from '@cardlens/errors';
import type { PackConfig } from '../domain/pricing';
import { purchaseMetadata } from '../domain/purchase-events';
import { PaymentProviderError } from '../payments/provider';
import type { PurchaseDeps } from './purchase-deps';

export interface CheckoutOffer {
  checkoutUrl: string;
  pack: string;
  credits: number;
  priceCents: number;
  expiresAt: Date;
  /** True when an open session of the same agent and pack was handed out again. */
  reused: boolean;
}

/** A session this close to its expiry is not handed out again: the owner would meet an expired page. */
const REUSE_MARGIN_MS = 60_000;
/** A `creating` row older than this was left by a crash mid-creation and may be taken over. */
const STALE_CREATING_MS = 60_000;
/** How long a request waits for a concurrent twin that is creating the same agent's session for the same pack. */
const WAIT_FOR_TWIN_MS = 10_000;

export function findPack(deps: Pick<PurchaseDeps, 'pricing'>, key: string): PackConfig {
  const pack = deps.pricing.packs.find((p) => p.key === key);
  if (!pack) {
    const valid = deps.pricing.packs.map((p) => p.key).join(', ');
    throw new AppError('invalid_pack', `${key ? `Unknown pack "${key}"` : 'The pack is missing'}. Valid packs: ${valid}.`);
  }
  return pack;
}

/**
 * POST /v1/credits/purchase, checkout rail: a hosted checkout session for the pack at the server's price.
 * The agent's open, unexpired session for the same pack is returned again rather than a second one made
 * (the `open_slot` unique key serialises concurrent requests); an expired one is replaced. The row is written
 * (`creating`) before the provider is called and the provider gets its id as idempotency key, so a crash or a
 * retry never creates two sessions; a provider failure removes the row (stripe_error, nothing recorded as paid).
 */
export async function createCreditPurchase(deps: PurchaseDeps, request: { agentId: number; pack: string }): Promise<CheckoutOffer> {
  const pack = findPack(deps, request.pack);
  const slot = `${request.agentId}:${pack.key}`;
  const deadline = Date.now() + WAIT_FOR_TWIN_MS;

  for (;;) {
    const holder = await deps.prisma.checkoutSession.findUnique({ where: { openSlot: slot } });
    if (holder) {
      const now = deps.clock.now().getTime();
      if (holder.state === 'open' && holder.url && holder.expiresAt.getTime() - now > REUSE_MARGIN_MS) {
        return { checkoutUrl: holder.url, pack: holder.pack, credits: holder.credits, priceCents: holder.priceCents, expiresAt: holder.expiresAt, reused: true };
      }
      if (holder.state === 'open') {
        // Expired (or about to): free the slot. Should the owner still pay it, the confirmation fulfils it anyway.
        await deps.prisma.checkoutSession.updateMany({ where: { id: holder.id, state: 'open' }, data: { state: 'expired', openSlot: null } });
        continue;
      }
      if (now - holder.createdAt.getTime() > STALE_CREATING_MS) {
        await deps.prisma.checkoutSession.deleteMany({ where: { id: holder.id, state: 'creating' } });
        continue;
      }
      if (now > deadline) throw new AppError('stripe_error', 'The payment provider is slow to create the checkout session; retry shortly.');
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const created = await claimSlotAndCreate(deps, request.agentId, pack, slot);
    if (created) return created;
    // Lost the slot to a concurrent request: go round and return (or wait for) its session.
  }
}

async function claimSlotAndCreate(deps: PurchaseDeps, agentId: number, pack: PackConfig, slot: string): Promise<CheckoutOffer | undefined> {
  const id = randomUUID();
  const expiresAt = new Date(deps.clock.now().getTime() + deps.checkoutTtlMs);
  try {
    await deps.prisma.checkoutSession.create({
      data: {
        id,
        agentId,
        pack: pack.key,
        credits: pack.credits,
        priceCents: pack.priceCents,
        currency: 'USD',
        provider: deps.provider.name,
        state: 'creating',
        openSlot: slot,
        expiresAt,
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') return undefined;
    throw error;
  }

  let session;
  try {
    session = await deps.provider.createCheckoutSession({
      idempotencyKey: `checkout:${id}`,
      amountCents: pack.priceCents,
      currency: 'usd',
      productName: `CardLens ${pack.displayName} credit pack (${pack.credits} credits)`,
      clientReferenceId: String(agentId),
      metadata: purchaseMetadata({
        rail: 'checkout',
        agent_id: String(agentId),
        pack: pack.key,
        credits: String(pack.credits),
        price_cents: String(pack.priceCents),
        environment: deps.environment,
        checkout_id: id,
      }),
      expiresAt,
      successUrl: `${deps.publicBaseUrl}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${deps.publicBaseUrl}/checkout/cancelled?pack=${encodeURIComponent(pack.key)}`,
    });
  } catch (error) {
    await deps.prisma.checkoutSession.deleteMany({ where: { id, state: 'creating' } });
    if (error instanceof PaymentProviderError) {
      throw new AppError('stripe_error', 'The payment provider could not create a checkout session. Nothing was charged; retry later.', { cause: error });
    }
    throw error;
  }

  const url = session.url ?? '';
  await deps.prisma.checkoutSession.update({
    where: { id },
    data: { providerSessionId: session.id, url, state: 'open', expiresAt: session.expiresAt },
  });
  return { checkoutUrl: url, pack: pack.key, credits: pack.credits, priceCents: pack.priceCents, expiresAt: session.expiresAt, reused: false };
}
