import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database, type OpenPrisma } from '@cardlens/db';
import { FakeStripeServer } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import { PaymentProviderError, WebhookVerificationError, type PaymentProvider } from '../src/payments/provider';
import { createStripeProvider } from '../src/payments/stripe-provider';
import { billingServiceDir } from '../src/service';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { reconcilePurchases } from '../src/use-cases/reconcile-purchases';

// The Stripe adapter against the FAKE Stripe server (stripe-node does the HTTP): lists with auto-pagination,
// retrieval, signature verification, error mapping, and the reconciliation's repair through it.

const SECRET = 'whsec_stripe_provider_test';
const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('Stripe payment provider (fake Stripe server)', () => {
  let fake: FakeStripeServer;
  let provider: PaymentProvider;
  let database: Database;
  let open: OpenPrisma<PrismaClient>;
  let deps: PurchaseDeps;
  const since = new Date(Date.now() - 60_000);

  beforeAll(async () => {
    fake = await FakeStripeServer.start();
    provider = createStripeProvider({ secretKey: 'sk_test_provider', webhookSecret: SECRET, apiBaseUrl: fake.baseUrl, timeoutMs: 2000, sptApiVersion: '2026-04-22.preview' });
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(billingServiceDir), database });
    open = await openPrisma(PrismaClient, database);
    deps = {
      prisma: open.prisma,
      pricing: defaultPricing,
      provider,
      environment: 'provider-test',
      publicBaseUrl: 'https://api.example',
      checkoutTtlMs: 24 * 3600_000 - 120_000,
      sharedPaymentTokensEnabled: true,
      nudgeOutbox: () => {},
    };
  }, 60_000);
  afterAll(async () => {
    await open?.close();
    await database?.close();
    await fake?.stop();
  });

  it('lists sessions, payment intents and events across pages; retrieves; unknown is undefined', async () => {
    const ids: string[] = [];
    for (let agentId = 1; agentId <= 105; agentId++) ids.push(sessionIdOf((await createCreditPurchase(deps, { agentId, pack: 'starter' })).checkoutUrl));
    fake.completeCheckoutSession(ids[0]!, { paymentStatus: 'paid' });
    fake.completeCheckoutSession(ids[1]!, { paymentStatus: 'unpaid' });
    const sessions = await collect(provider.listCheckoutSessions(since));
    expect(sessions).toHaveLength(105);
    expect(sessions.find((s) => s.id === ids[0])).toMatchObject({ status: 'complete', paymentStatus: 'paid', amountTotal: 500, currency: 'usd' });
    expect(sessions.find((s) => s.id === ids[0])!.metadata).toMatchObject({ purchase_kind: 'credit_pack', agent_id: '1', environment: 'provider-test' });
    expect(await collect(provider.listPaymentIntents(since))).toHaveLength(2);
    const completed = await collect(provider.listEvents(['checkout.session.completed'], since));
    expect(completed.map((e) => e.object.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect((await provider.retrieveCheckoutSession(ids[2]!))?.status).toBe('open');
    expect(await provider.retrieveCheckoutSession('cs_test_missing')).toBeUndefined();
  });

  it('verifies signatures over the exact bytes', () => {
    const { payload, signature } = fake.signedWebhook({ id: 'evt_1', object: 'event', type: 'checkout.session.expired', created: 1, data: { object: { id: 'cs_1' } } }, SECRET);
    expect(provider.verifyWebhook(Buffer.from(payload), signature)).toMatchObject({ id: 'evt_1', type: 'checkout.session.expired' });
    expect(() => provider.verifyWebhook(Buffer.from(payload.replace('cs_1', 'cs_2')), signature)).toThrow(WebhookVerificationError);
    expect(() => provider.verifyWebhook(Buffer.from(payload), 't=1,v1=00')).toThrow(WebhookVerificationError);
  });

  it('maps outages to `unavailable` and refusals to `declined` / `invalid`', async () => {
    fake.failNext({ status: 503, count: 3, match: /^GET \/v1\/checkout\/sessions$/ });
    await expect(collect(provider.listCheckoutSessions(since))).rejects.toMatchObject({ kind: 'unavailable' });
    const declined = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'declined' });
    await expect(provider.confirmTokenPayment({ tokenId: declined, amountCents: 500, currency: 'usd', metadata: {}, idempotencyKey: 'k1' })).rejects.toMatchObject({ kind: 'declined' });
    await expect(provider.confirmTokenPayment({ tokenId: 'spt_nope', amountCents: 500, currency: 'usd', metadata: {}, idempotencyKey: 'k2' })).rejects.toBeInstanceOf(PaymentProviderError);
    await expect(provider.retrieveGrantedToken('spt_nope')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('reconciliation through Stripe: a payment whose webhook never came is found and repaired from the events list', async () => {
    const offer = await createCreditPurchase(deps, { agentId: 500, pack: 'builder' });
    const sessionId = sessionIdOf(offer.checkoutUrl);
    fake.completeCheckoutSession(sessionId, { paymentStatus: 'paid' });
    const before = await reconcilePurchases(deps, { since, repair: false });
    expect(before.mismatches.filter((m) => m.id === sessionId).map((m) => m.kind)).toEqual(['paid_not_granted']);
    const repaired = await reconcilePurchases(deps, { since, repair: true });
    expect(repaired.repaired).toContain(sessionId);
    expect(await open.prisma.paymentEvent.count({ where: { checkoutSessionId: sessionId, source: 'repair', confirmsPayment: true } })).toBe(1);
    expect(await open.prisma.outboxMessage.count()).toBeGreaterThanOrEqual(1);
  });
});

function sessionIdOf(checkoutUrl: string): string {
  return checkoutUrl.split('/').at(-1)!;
}
