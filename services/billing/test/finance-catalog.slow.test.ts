import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeStripeServer } from '@cardlens/testing';
import { defaultPricing, type Pricing } from '../src/domain/pricing';
import { createStripeProvider } from '../src/payments/stripe-provider';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import { createSubscriptionCheckout } from '../src/use-cases/create-subscription-checkout';
import { financeReport, financeReportCsv, flaggedRows } from '../src/use-cases/finance-report';
import { fulfilCreditPurchase } from '../src/use-cases/fulfil-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { syncCatalog } from '../src/use-cases/sync-catalog';
import { migratedPglite, testPurchaseDeps, type MigratedPglite } from './purchase-fixture';

// Finance's view of the Stripe account, against the FAKE Stripe server: the catalog sync (products and prices
// by lookup key, idempotent, following a price change), credit checkouts on the catalog's price under the
// agent's one customer (receipts), and the CSV reconciliation report.

type Params = Record<string, unknown>;

describe('finance-clean Stripe account (fake Stripe server)', () => {
  let fake: FakeStripeServer;
  let open: MigratedPglite;
  let environment = 0;

  beforeAll(async () => {
    fake = await FakeStripeServer.start();
    open = await migratedPglite();
  }, 60_000);
  afterAll(async () => {
    await open?.close();
    await fake?.stop();
  });
  beforeEach(() => {
    fake.reset();
    environment++;
  });

  /** A fresh process (empty caches) in this test's environment. */
  function depsFor(pricing: Pricing = defaultPricing): PurchaseDeps {
    const provider = createStripeProvider({ secretKey: 'sk_test_finance', webhookSecret: 'whsec_finance_test', apiBaseUrl: fake.baseUrl, timeoutMs: 2000, sptApiVersion: '2026-04-22.preview' });
    return testPurchaseDeps(open.prisma, provider, { pricing, environment: `fin${environment}`, publicBaseUrl: 'https://api.example' });
  }
  const posts = (path: RegExp) => fake.requests.filter((r) => r.method === 'POST' && path.test(r.path));
  const sessionCreates = () => posts(/^\/v1\/checkout\/sessions$/).map((r) => r.params);
  const sessionIdOf = (url: string) => url.split('/').at(-1)!;
  const activePrice = async (deps: PurchaseDeps, lookupKey: string) => (await deps.provider.findPriceByLookupKey(lookupKey))!;

  it('the sync creates one product per pack and plan and a price per lookup key; a second run changes nothing', async () => {
    const deps = depsFor();
    const env = deps.environment;
    const changes = await syncCatalog(deps);
    expect(changes.filter((c) => c.action === 'product_created').map((c) => c.id).sort()).toEqual(
      [`cardlens_${env}_pack_builder`, `cardlens_${env}_pack_scale`, `cardlens_${env}_pack_starter`, `cardlens_${env}_plan_grading_10000`, `cardlens_${env}_plan_grading_5000`],
    );
    expect(changes.filter((c) => c.action === 'price_created').map((c) => c.lookupKey).sort()).toEqual(
      [`cardlens_${env}_grading_10000_44900`, `cardlens_${env}_grading_5000_25000`, `cardlens_${env}_pack_builder`, `cardlens_${env}_pack_scale`, `cardlens_${env}_pack_starter`],
    );
    const starter = await activePrice(deps, `cardlens_${env}_pack_starter`);
    expect(starter).toMatchObject({ productId: `cardlens_${env}_pack_starter`, unitAmount: 500, currency: 'usd', interval: null, active: true });
    expect(fake.product(starter.productId)).toMatchObject({ name: 'CardLens Starter credit pack (25 credits)', metadata: { kind: 'credit_pack', pack: 'starter', environment: env, credits: '25' } });
    const plan = await activePrice(deps, `cardlens_${env}_grading_5000_25000`);
    expect(plan).toMatchObject({ productId: `cardlens_${env}_plan_grading_5000`, unitAmount: 25000, interval: 'month' });
    // Plan prices are remembered, so invoices name their plan.
    expect(await open.prisma.planPrice.findUnique({ where: { priceId: plan.id } })).toMatchObject({ plan: 'grading_5000', priceCents: 25000 });

    const writes = posts(/^\/v1\/(products|prices)/).length;
    expect(writes).toBe(10);
    expect(await syncCatalog(depsFor())).toEqual([]);
    expect(posts(/^\/v1\/(products|prices)/)).toHaveLength(writes);
  });

  it('a changed pack price: the new price takes over the lookup key, the old one is archived; a rename renames the product', async () => {
    await syncCatalog(depsFor());
    const deps = depsFor();
    const key = `cardlens_${deps.environment}_pack_starter`;
    const before = await activePrice(deps, key);
    const changed: Pricing = { ...defaultPricing, packs: defaultPricing.packs.map((p) => (p.key === 'starter' ? { ...p, priceCents: 600, displayName: 'Starter+' } : p)) };

    const changes = await syncCatalog(depsFor(changed));
    expect(changes).toEqual([
      { action: 'product_updated', id: key },
      expect.objectContaining({ action: 'price_replaced', lookupKey: key, amountCents: 600, replaced: before.id }),
    ]);
    const create = posts(/^\/v1\/prices$/).at(-1)!;
    expect(create.params).toMatchObject({ product: key, unit_amount: '600', currency: 'usd', lookup_key: key, transfer_lookup_key: 'true' });
    expect(create.params).not.toHaveProperty('product_data');
    const after = await activePrice(deps, key);
    expect(after).toMatchObject({ unitAmount: 600, productId: key });
    expect(fake.price(before.id)).toMatchObject({ active: false, lookup_key: null });
    expect(fake.product(key)).toMatchObject({ name: 'CardLens Starter+ credit pack (25 credits)' });

    const writes = posts(/^\/v1\/(products|prices)/).length;
    expect(await syncCatalog(depsFor(changed))).toEqual([]);
    expect(posts(/^\/v1\/(products|prices)/)).toHaveLength(writes);
    // A checkout sells the new price.
    await createCreditPurchase(depsFor(changed), { agentId: 9001, pack: 'starter' });
    expect(sessionCreates().at(-1)).toMatchObject({ line_items: [{ price: after.id, quantity: '1' }] });
  });

  it('credit checkouts use the synced price and the agent\'s one customer; receipts go to the contact email once known', async () => {
    const deps = depsFor();
    await syncCatalog(deps);
    const starter = await activePrice(deps, `cardlens_${deps.environment}_pack_starter`);
    const builder = await activePrice(deps, `cardlens_${deps.environment}_pack_builder`);
    const pricesBefore = posts(/^\/v1\/(products|prices)/).length;

    const first = await createCreditPurchase(deps, { agentId: 101, pack: 'starter' });
    // Another process (empty caches) finds the agent's customer in billing's table.
    const second = await createCreditPurchase(depsFor(), { agentId: 101, pack: 'builder' });
    expect(posts(/^\/v1\/customers$/)).toHaveLength(1);
    const customerId = (await open.prisma.billingCustomer.findUnique({ where: { provider_agentId: { provider: 'stripe', agentId: 101 } } }))!.customerId;
    expect(fake.customer(customerId)).toMatchObject({ name: 'CardLens agent 101', email: null, metadata: { agent_id: '101', environment: deps.environment } });

    const [a, b] = sessionCreates();
    expect(a).toMatchObject({ mode: 'payment', line_items: [{ price: starter.id, quantity: '1' }], customer: customerId, invoice_creation: { enabled: 'true' } });
    expect(b).toMatchObject({ mode: 'payment', line_items: [{ price: builder.id, quantity: '1' }], customer: customerId });
    expect(JSON.stringify(a)).not.toContain('price_data');
    // No email yet: Stripe's own customer emails only (none here), so no receipt_email.
    expect((a!.payment_intent_data as Params).receipt_email).toBeUndefined();
    // Checkouts made no products or prices of their own.
    expect(posts(/^\/v1\/(products|prices)/)).toHaveLength(pricesBefore);
    expect(fake.session(sessionIdOf(first.checkoutUrl))).toMatchObject({ amount_total: 500, customer: customerId });
    expect(fake.session(sessionIdOf(second.checkoutUrl))).toMatchObject({ amount_total: 1900, customer: customerId });

    // The owner's contact email (the subscription checkout carries it) lands on the same customer...
    await createSubscriptionCheckout(deps, { agentId: 101, plan: 'grading_5000', contactEmail: 'owner@example.com' });
    expect(sessionCreates().at(-1)).toMatchObject({ mode: 'subscription', customer: customerId });
    expect(sessionCreates().at(-1)).not.toHaveProperty('customer_email');
    expect(fake.customer(customerId)).toMatchObject({ email: 'owner@example.com' });
    // ...and the next pack purchase asks Stripe to email its receipt there.
    const third = await createCreditPurchase(depsFor(), { agentId: 101, pack: 'scale' });
    expect(sessionCreates().at(-1)).toMatchObject({ customer: customerId, payment_intent_data: { receipt_email: 'owner@example.com' } });
    fake.completeCheckoutSession(sessionIdOf(third.checkoutUrl), { paymentStatus: 'paid' });
    const intent = fake.paymentIntent(String(fake.session(sessionIdOf(third.checkoutUrl))!.payment_intent))!;
    expect(intent).toMatchObject({ customer: customerId, receipt_email: 'owner@example.com', metadata: { agent_id: '101', pack: 'scale' } });
    expect(posts(/^\/v1\/customers$/)).toHaveLength(1);
  });

  it('a forgotten sync never breaks a purchase: the checkout makes its pack\'s product and price once', async () => {
    await createCreditPurchase(depsFor(), { agentId: 201, pack: 'starter' });
    await createCreditPurchase(depsFor(), { agentId: 202, pack: 'starter' });
    expect(posts(/^\/v1\/products$/)).toHaveLength(1);
    expect(posts(/^\/v1\/prices$/)).toHaveLength(1);
    const [a, b] = sessionCreates();
    expect((a!.line_items as Params[])[0]!.price).toBe((b!.line_items as Params[])[0]!.price);
    expect(a!.customer).not.toBe(b!.customer);
    // The sync then finds the pack done and makes the rest.
    const changes = await syncCatalog(depsFor());
    expect(changes.some((c) => c.lookupKey?.endsWith('_pack_starter'))).toBe(false);
  });

  it('the CSV report lists a paid, granted purchase with its refund, and flags paid-not-granted and granted-not-paid', async () => {
    const deps = depsFor();
    const since = new Date(Date.now() - 60_000);
    const sessionOf = async (agentId: number, pack: string) => sessionIdOf((await createCreditPurchase(deps, { agentId, pack })).checkoutUrl);
    const grant = (sessionId: string, agentId: number, credits: number) =>
      open.prisma.$transaction((tx) =>
        fulfilCreditPurchase(tx, { agentId, pack: 'starter', credits, amountCents: 500, currency: 'USD', checkoutSessionId: sessionId, paymentIntentId: null, occurredAt: new Date() }),
      );

    const good = await sessionOf(301, 'starter');
    fake.completeCheckoutSession(good, { paymentStatus: 'paid' });
    await grant(good, 301, 25);
    const intent = String(fake.session(good)!.payment_intent);
    const refund = fake.refundPayment(intent);
    const missed = await sessionOf(302, 'builder');
    fake.completeCheckoutSession(missed, { paymentStatus: 'paid' });
    const unpaid = await sessionOf(303, 'starter');
    await grant(unpaid, 303, 25);

    const rows = await financeReport(deps, { since });
    const customer = (agentId: number) => fake.session(agentId === 301 ? good : agentId === 302 ? missed : unpaid)!.customer;
    expect(rows.map((r) => [r.type, r.status, r.checkoutSessionId ?? r.paymentIntentId])).toEqual(
      expect.arrayContaining([
        ['payment', 'ok', good],
        ['credits_granted', 'ok', good],
        ['refund', 'refunded', good],
        ['payment', 'paid_not_granted', missed],
        ['credits_granted', 'granted_not_paid', unpaid],
      ]),
    );
    expect(rows).toHaveLength(5);
    expect(rows.find((r) => r.type === 'payment' && r.checkoutSessionId === good)).toMatchObject({ agentId: 301, customerId: customer(301), pack: 'starter', credits: 25, amountCents: 500, currency: 'USD', paymentIntentId: intent });
    expect(rows.find((r) => r.type === 'refund')).toMatchObject({ refundId: refund.id, amountCents: -500, paymentIntentId: intent, customerId: customer(301) });
    expect(flaggedRows(rows).map((r) => r.status).sort()).toEqual(['granted_not_paid', 'paid_not_granted']);

    const csv = financeReportCsv(rows);
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    expect(header).toBe('date,type,status,agent_id,customer,pack,credits,amount,currency,checkout_session,payment_intent,refund,ledger_entry,note');
    expect(lines).toHaveLength(5);
    const paidLine = lines.find((l) => l.includes(',payment,ok,'))!.split(',');
    expect(paidLine.slice(1, 11)).toEqual(['payment', 'ok', '301', String(customer(301)), 'starter', '25', '5.00', 'USD', good, intent]);
    expect(lines.find((l) => l.includes(',refund,refunded,'))).toContain(',-5.00,USD,');
    expect(lines.find((l) => l.includes('paid_not_granted'))).toContain(',19.00,USD,');
  });
});
