import { randomUUID } from 'node:crypto';
import { AppError } from '@cardlens/errors';
import { packProductName } from '../domain/catalog';
import type { PackConfig } from '../domain/pricing';
import { purchaseMetadata } from '../domain/purchase-events';
import { PaymentProviderError } from '../payments/provider';
import { agentCustomer } from './agent-customer';
import type { PurchaseDeps } from './purchase-deps';
import { packPriceId } from './sync-catalog';
import { createdLongAgo } from './stale-creation';

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
 * (the `open_slot` unique key serialises concurrent requests) while its offer is still the list's; an expired
 * one, or one whose credits or price the list no longer has, is expired at the provider and replaced. The row
 * is written (`creating`) before the provider is called and the provider gets its id as idempotency key, so a
 * crash or a retry never creates two sessions; a provider failure removes the row (stripe_error, nothing
 * recorded as paid). Expiry is judged on billing's clock (the one the sessions' lifetimes were set by), a
 * crashed creation on the database's (the one clock every replica shares), waiting on this process's.
 */
export async function createCreditPurchase(deps: PurchaseDeps, request: { agentId: number; pack: string }): Promise<CheckoutOffer> {
  const pack = findPack(deps, request.pack);
  const slot = `${request.agentId}:${pack.key}`;
  const waitUntil = performance.now() + WAIT_FOR_TWIN_MS;

  for (;;) {
    const holder = await deps.prisma.checkoutSession.findUnique({ where: { openSlot: slot } });
    if (holder) {
      const current = holder.credits === pack.credits && holder.priceCents === pack.priceCents;
      if (holder.state === 'open' && holder.url && current && holder.expiresAt.getTime() - deps.clock.now().getTime() > REUSE_MARGIN_MS) {
        return { checkoutUrl: holder.url, pack: holder.pack, credits: holder.credits, priceCents: holder.priceCents, expiresAt: holder.expiresAt, reused: true };
      }
      if (holder.state === 'open') {
        await retireCheckoutSession(deps, holder);
        continue;
      }
      if (await createdLongAgo(deps.prisma, 'checkout_sessions', holder.id)) {
        await deps.prisma.checkoutSession.deleteMany({ where: { id: holder.id, state: 'creating' } });
        continue;
      }
      if (performance.now() > waitUntil) throw new AppError('stripe_error', 'The payment provider is slow to create the checkout session; retry shortly.');
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
    // The pack's catalog price and the agent's customer: one product per pack, one customer per agent.
    const [priceId, customer] = await Promise.all([packPriceId(deps, pack), agentCustomer(deps, agentId)]);
    session = await deps.provider.createCheckoutSession({
      idempotencyKey: `checkout:${id}`,
      priceId,
      amountCents: pack.priceCents,
      currency: 'usd',
      productName: packProductName(pack),
      customerId: customer.customerId,
      receiptEmail: customer.email,
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
  const { count } = await deps.prisma.checkoutSession.updateMany({
    where: { id, state: 'creating' },
    data: { providerSessionId: session.id, url, state: 'open', expiresAt: session.expiresAt },
  });
  if (count === 0) {
    // Taken over as crashed while the provider was slow: this session is nobody's offer, so it must not be payable.
    await deps.provider.expireCheckoutSession(session.id).catch((error: unknown) => deps.logger.warn({ err: error, checkoutSessionId: session.id }, 'orphaned checkout session not expired'));
    return undefined;
  }
  return { checkoutUrl: url, pack: pack.key, credits: pack.credits, priceCents: pack.priceCents, expiresAt: session.expiresAt, reused: false };
}

/**
 * Ends an open session that may no longer be handed out (expired, about to, or an offer the price list has
 * moved on from): expired at the provider first, so its page cannot be paid, then its slot freed. Should the
 * owner have paid it meanwhile, its confirmation still grants what it sold.
 */
async function retireCheckoutSession(deps: PurchaseDeps, holder: { id: string; providerSessionId: string | null }): Promise<void> {
  if (holder.providerSessionId) {
    try {
      await deps.provider.expireCheckoutSession(holder.providerSessionId);
    } catch (error) {
      if (error instanceof PaymentProviderError) {
        throw new AppError('stripe_error', 'The payment provider could not replace the open checkout session. Nothing was charged; retry later.', { cause: error });
      }
      throw error;
    }
  }
  await deps.prisma.checkoutSession.updateMany({ where: { id: holder.id, state: 'open' }, data: { state: 'expired', openSlot: null } });
}
