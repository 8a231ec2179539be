import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database, type OpenPrisma } from '@cardlens/db';
import { createLogger } from '@cardlens/telemetry';
import { FakeStripeServer } from '@cardlens/testing';
import { systemClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import { PaymentProviderError, WebhookVerificationError, type CreateSubscriptionCheckoutInput, type PaymentProvider } from '../src/payments/provider';
import { invoiceFromStripe } from '../src/payments/stripe-objects';
import { createStripeProvider } from '../src/payments/stripe-provider';
import { billingServiceDir } from '../src/service';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { reconcilePurchases } from '../src/use-cases/reconcile-purchases';

// The Stripe adapter against the FAKE Stripe server (stripe-node does the HTTP): lists with auto-pagination,
// retrieval, signature verification, error mapping, the reconciliation's repair through it, and the
// subscription methods (prices, subscription checkout, schedules, cancellation, portal).

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
    provider = newProvider();
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
      clock: systemClock,
      logger: createLogger('stripe-provider-test', { write: () => {} }),
      nudgeOutbox: () => {},
    };
  }, 60_000);
  function newProvider(): PaymentProvider {
    return createStripeProvider({ secretKey: 'sk_test_provider', webhookSecret: SECRET, apiBaseUrl: fake.baseUrl, timeoutMs: 2000, sptApiVersion: '2026-04-22.preview' });
  }
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

  describe('subscriptions', () => {
    const DAY = 86_400;
    let lookupSeq = 0;
    const requestsTo = (method: string, path: string | RegExp) =>
      fake.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
    const lastRequest = (method: string, path: string | RegExp) => requestsTo(method, path).at(-1)!;
    const at = (unixSeconds: unknown) => new Date(Number(unixSeconds) * 1000);

    async function planPrice(amountCents: number): Promise<string> {
      const productId = `cardlens_test_plan_${++lookupSeq}`;
      await provider.ensureProduct({ id: productId, name: 'CardLens Test plan', metadata: { plan: 'test' } });
      const price = await provider.createPrice({ productId, lookupKey: `${productId}_${amountCents}`, amountCents, currency: 'usd', interval: 'month', metadata: { plan: 'test' }, transferLookupKey: false, idempotencyKey: `price:${productId}` });
      return price.id;
    }
    function checkoutInput(priceId: string, overrides: Partial<CreateSubscriptionCheckoutInput> = {}): CreateSubscriptionCheckoutInput {
      return {
        idempotencyKey: `sub-checkout:${++lookupSeq}`,
        priceId,
        customerEmail: 'owner@example.com',
        customerId: null,
        clientReferenceId: '77',
        metadata: { purchase_kind: 'subscription', agent_id: '77', plan: 'test' },
        trialDays: null,
        expiresAt: new Date((fake.now() + 3600) * 1000),
        successUrl: 'https://api.example/checkout/subscribed',
        cancelUrl: 'https://api.example/checkout/cancelled',
        ...overrides,
      };
    }
    async function subscribe(priceId: string, trialDays: number | null = null) {
      const session = await provider.createSubscriptionCheckout(checkoutInput(priceId, { trialDays }));
      return fake.completeSubscriptionCheckout(session.id);
    }

    it('catalog: a product with our id is made once and renamed; prices by product and lookup key; archived ones are not found', async () => {
      const product = { id: 'cardlens_provider-test_plan_grading', name: 'CardLens Grading', metadata: { plan: 'grading' } };
      expect(await provider.ensureProduct(product)).toBe('created');
      expect(lastRequest('POST', '/v1/products').headers['idempotency-key']).toBe(`product:${product.id}`);
      expect(await provider.ensureProduct(product)).toBe('unchanged');
      expect(await provider.ensureProduct({ ...product, name: 'CardLens Grading Pro' })).toBe('updated');
      expect(requestsTo('POST', '/v1/products').filter((r) => r.params.id === product.id)).toHaveLength(1);
      expect(fake.product(product.id)).toMatchObject({ name: 'CardLens Grading Pro' });

      const lookupKey = 'cardlens_provider-test_grading_2500';
      const input = { productId: product.id, lookupKey, amountCents: 2500, currency: 'usd' as const, interval: 'month' as const, metadata: { plan: 'grading' }, transferLookupKey: false, idempotencyKey: `price:${lookupKey}` };
      const price = await provider.createPrice(input);
      expect(lastRequest('POST', '/v1/prices').params).toMatchObject({ product: product.id, currency: 'usd', unit_amount: '2500', recurring: { interval: 'month' }, lookup_key: lookupKey, metadata: { plan: 'grading' } });
      expect(lastRequest('POST', '/v1/prices').headers['idempotency-key']).toBe(input.idempotencyKey);
      expect(await provider.findPriceByLookupKey(lookupKey)).toEqual({ ...price, productId: product.id, unitAmount: 2500, interval: 'month', active: true });
      // The key is taken: without transfer Stripe refuses a second price for it.
      await expect(provider.createPrice({ ...input, idempotencyKey: 'other' })).rejects.toMatchObject({ kind: 'invalid' });
      await provider.deactivatePrice(price.id);
      expect(await provider.findPriceByLookupKey(lookupKey)).toBeUndefined();
    });

    it('customers: created with agent metadata, found by metadata search, email updated', async () => {
      const id = await provider.createCustomer({ idempotencyKey: 'customer:provider-test:7', name: 'CardLens agent 7', email: null, metadata: { agent_id: '7', environment: 'provider-test' } });
      expect(lastRequest('POST', '/v1/customers').headers['idempotency-key']).toBe('customer:provider-test:7');
      expect(await provider.findCustomer(7, 'provider-test')).toBe(id);
      expect(lastRequest('GET', '/v1/customers/search').params.query).toBe("metadata['agent_id']:'7' AND metadata['environment']:'provider-test'");
      expect(await provider.findCustomer(7, 'elsewhere')).toBeUndefined();
      await provider.updateCustomerEmail(id, 'owner@example.com');
      expect(fake.customer(id)).toMatchObject({ name: 'CardLens agent 7', email: 'owner@example.com', metadata: { agent_id: '7', environment: 'provider-test' } });
    });

    it('createSubscriptionCheckout: subscription mode, card always collected, metadata on session and subscription, trial only when asked', async () => {
      const priceId = await planPrice(2500);
      const trial = checkoutInput(priceId, { trialDays: 14 });
      const session = await provider.createSubscriptionCheckout(trial);
      expect(session).toMatchObject({ mode: 'subscription', status: 'open', amountTotal: 0, clientReferenceId: '77', metadata: trial.metadata, subscriptionId: null });
      const create = lastRequest('POST', '/v1/checkout/sessions');
      expect(create.headers['idempotency-key']).toBe(trial.idempotencyKey);
      expect(create.params).toMatchObject({
        mode: 'subscription',
        line_items: [{ price: priceId, quantity: '1' }],
        payment_method_collection: 'always',
        client_reference_id: '77',
        metadata: trial.metadata,
        subscription_data: { metadata: trial.metadata, trial_period_days: '14' },
        customer_email: 'owner@example.com',
        expires_at: String(Math.floor(trial.expiresAt.getTime() / 1000)),
        success_url: trial.successUrl,
        cancel_url: trial.cancelUrl,
      });
      expect(create.params).not.toHaveProperty('customer');

      // A returning subscriber: charged at once, checkout names the existing customer.
      const customerId = fake.addCustomer({ email: 'owner@example.com' });
      const paid = await provider.createSubscriptionCheckout(checkoutInput(priceId, { customerId }));
      expect(paid.amountTotal).toBe(2500);
      const second = lastRequest('POST', '/v1/checkout/sessions').params;
      expect(second).toMatchObject({ customer: customerId, subscription_data: { metadata: trial.metadata } });
      expect(second).not.toHaveProperty('customer_email');
      expect(second.subscription_data).not.toHaveProperty('trial_period_days');

      const completed = fake.completeSubscriptionCheckout(paid.id);
      expect(await provider.retrieveCheckoutSession(paid.id)).toMatchObject({ status: 'complete', paymentStatus: 'paid', subscriptionId: completed.subscription.id, customerId });
    });

    it('retrieveSubscription maps the item-level period and the trial; an unknown one is undefined', async () => {
      const priceId = await planPrice(2500);
      const { subscription, customer, invoice } = await subscribe(priceId, 7);
      const item = (subscription.items as { data: Record<string, unknown>[] }).data[0]!;
      // Basil shape: the period is only on the item.
      expect(subscription).not.toHaveProperty('current_period_end');
      const retrieved = await provider.retrieveSubscription(String(subscription.id));
      expect(retrieved).toEqual({
        id: subscription.id,
        customerId: customer.id,
        status: 'trialing',
        priceId,
        metadata: { purchase_kind: 'subscription', agent_id: '77', plan: 'test' },
        trialStart: at(subscription.trial_start),
        trialEnd: at(subscription.trial_end),
        currentPeriodStart: at(item.current_period_start),
        currentPeriodEnd: at(item.current_period_end),
        cancelAtPeriodEnd: false,
        canceledAt: null,
        endedAt: null,
        cancellationReason: null,
        scheduleId: null,
        created: at(subscription.created),
      });
      expect(retrieved!.currentPeriodEnd!.getTime() - retrieved!.currentPeriodStart!.getTime()).toBe(7 * DAY * 1000);
      // The trial's $0 invoice covers the trial, as billing's allowance periods read it.
      expect(invoiceFromStripe(invoice)).toMatchObject({ subscriptionId: subscription.id, amountPaid: 0, billingReason: 'subscription_create', priceId, periodEnd: retrieved!.trialEnd });

      expect(await provider.retrieveSubscription('sub_missing')).toBeUndefined();
    });

    it('one trial per card: the card fingerprint of a subscription (same card, same fingerprint), and ending a trial now charges at once', async () => {
      const priceId = await planPrice(2500);
      const first = await provider.createSubscriptionCheckout(checkoutInput(priceId, { trialDays: 7 }));
      const a = fake.completeSubscriptionCheckout(first.id, { card: '4242424242424242' });
      const second = await provider.createSubscriptionCheckout(checkoutInput(priceId, { trialDays: 7, customerEmail: 'other@example.com' }));
      const c = fake.completeSubscriptionCheckout(second.id, { card: '4242424242424242' });
      const third = await provider.createSubscriptionCheckout(checkoutInput(priceId, { trialDays: 7 }));
      const d = fake.completeSubscriptionCheckout(third.id, { card: '5555555555554444' });
      const fingerprint = await provider.retrieveCardFingerprint(String(a.subscription.id));
      expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(await provider.retrieveCardFingerprint(String(c.subscription.id))).toBe(fingerprint);
      expect(await provider.retrieveCardFingerprint(String(d.subscription.id))).not.toBe(fingerprint);
      expect(lastRequest('GET', `/v1/subscriptions/${String(c.subscription.id)}`).params).toMatchObject({ expand: ['default_payment_method', 'customer.invoice_settings.default_payment_method'] });

      await provider.endTrialNow({ subscriptionId: String(c.subscription.id), idempotencyKey: 'end-trial:c' });
      expect(lastRequest('POST', `/v1/subscriptions/${String(c.subscription.id)}`).params).toMatchObject({ trial_end: 'now' });
      const ended = await provider.retrieveSubscription(String(c.subscription.id));
      expect(ended).toMatchObject({ status: 'active' });
      expect(ended!.trialEnd!.getTime()).toBeLessThanOrEqual(fake.now() * 1000);
      const paid = (await collect(provider.listEvents(['invoice.paid'], since))).map((e) => invoiceFromStripe(e.object));
      expect(paid.filter((i) => i.subscriptionId === c.subscription.id).map((i) => i.amountPaid).sort()).toEqual([0, 2500]);
      // Not trialing any more: a second call changes nothing.
      const posts = requestsTo('POST', `/v1/subscriptions/${String(c.subscription.id)}`).length;
      await provider.endTrialNow({ subscriptionId: String(c.subscription.id), idempotencyKey: 'end-trial:c' });
      expect(requestsTo('POST', `/v1/subscriptions/${String(c.subscription.id)}`)).toHaveLength(posts);
    });

    it('listSubscriptions lists every status created since', async () => {
      const priceId = await planPrice(900);
      const ids = [String((await subscribe(priceId)).subscription.id), String((await subscribe(priceId, 3)).subscription.id)];
      const listed = await collect(provider.listSubscriptions(since));
      expect(listed.map((s) => s.id)).toEqual(expect.arrayContaining(ids));
      expect(lastRequest('GET', '/v1/subscriptions').params).toMatchObject({ status: 'all', created: { gte: String(Math.floor(since.getTime() / 1000)) } });
    });

    it('createPortalSession returns the portal URL for the customer', async () => {
      const customerId = fake.addCustomer();
      const url = await provider.createPortalSession({ customerId, returnUrl: 'https://api.example/checkout/subscribed' });
      expect(url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\//);
      expect(lastRequest('POST', '/v1/billing_portal/sessions').params).toEqual({ customer: customerId, return_url: 'https://api.example/checkout/subscribed' });
    });

    it('schedulePlanChange defers the new price to changeAt with a schedule, and reuses that schedule for a later change', async () => {
      const [current, bigger, smaller] = [await planPrice(2500), await planPrice(9900), await planPrice(900)];
      const { subscription } = await subscribe(current);
      const subscriptionId = String(subscription.id);
      const item = (subscription.items as { data: Record<string, unknown>[] }).data[0]!;
      const changeAt = at(item.current_period_end);

      const schedule = await provider.schedulePlanChange({ subscriptionId, currentPriceId: current, newPriceId: bigger, changeAt, idempotencyKey: 'plan-change:1' });
      expect(lastRequest('POST', '/v1/subscription_schedules').params).toEqual({ from_subscription: subscriptionId });
      const update = lastRequest('POST', `/v1/subscription_schedules/${schedule.id}`);
      expect(update.headers['idempotency-key']).toBe('plan-change:1');
      expect(update.params).toMatchObject({
        end_behavior: 'release',
        proration_behavior: 'none',
        phases: [
          { items: [{ price: current, quantity: '1' }], start_date: String(item.current_period_start), end_date: String(item.current_period_end) },
          { items: [{ price: bigger, quantity: '1' }], duration: { interval: 'month', interval_count: '1' } },
        ],
      });
      expect((update.params.phases as Record<string, unknown>[])[0]).not.toHaveProperty('trial_end');
      expect(schedule).toMatchObject({ subscriptionId, status: 'active' });
      expect(schedule.phases).toEqual([
        { priceId: current, start: at(item.current_period_start), end: changeAt },
        { priceId: bigger, start: changeAt, end: expect.any(Date) },
      ]);
      // The subscription keeps its price until changeAt, and now names the schedule.
      expect(await provider.retrieveSubscription(subscriptionId)).toMatchObject({ priceId: current, scheduleId: schedule.id });

      const creates = requestsTo('POST', '/v1/subscription_schedules').length;
      const replaced = await provider.schedulePlanChange({ subscriptionId, currentPriceId: current, newPriceId: smaller, changeAt, idempotencyKey: 'plan-change:2' });
      expect(requestsTo('POST', '/v1/subscription_schedules').length).toBe(creates);
      expect(replaced.id).toBe(schedule.id);
      expect(replaced.phases.map((p) => p.priceId)).toEqual([current, smaller]);
    });

    it('schedulePlanChange during a trial keeps the trial in phase 1', async () => {
      const [current, next] = [await planPrice(2500), await planPrice(9900)];
      const { subscription } = await subscribe(current, 7);
      const changeAt = at(subscription.trial_end);
      const schedule = await provider.schedulePlanChange({ subscriptionId: String(subscription.id), currentPriceId: current, newPriceId: next, changeAt, idempotencyKey: 'plan-change:trial' });
      expect((lastRequest('POST', `/v1/subscription_schedules/${schedule.id}`).params.phases as Record<string, unknown>[])[0]).toMatchObject({ trial_end: String(subscription.trial_end) });
      expect(schedule.phases[0]).toMatchObject({ priceId: current, end: changeAt });
      expect(await provider.retrieveSubscription(String(subscription.id))).toMatchObject({ status: 'trialing', trialEnd: changeAt });
    });

    it('cancelAtPeriodEnd releases an active schedule (dropping the pending change) and sets cancel_at_period_end', async () => {
      const [current, next] = [await planPrice(2500), await planPrice(9900)];
      const { subscription } = await subscribe(current);
      const subscriptionId = String(subscription.id);
      const item = (subscription.items as { data: Record<string, unknown>[] }).data[0]!;
      const schedule = await provider.schedulePlanChange({ subscriptionId, currentPriceId: current, newPriceId: next, changeAt: at(item.current_period_end), idempotencyKey: 'plan-change:cancel' });

      const cancelled = await provider.cancelAtPeriodEnd({ subscriptionId, idempotencyKey: `cancel:${subscriptionId}` });
      expect(requestsTo('POST', `/v1/subscription_schedules/${schedule.id}/release`)).toHaveLength(1);
      expect(fake.subscriptionSchedule(schedule.id)).toMatchObject({ status: 'released', released_subscription: subscriptionId });
      expect(lastRequest('POST', `/v1/subscriptions/${subscriptionId}`)).toMatchObject({ params: { cancel_at_period_end: 'true' }, headers: { 'idempotency-key': `cancel:${subscriptionId}` } });
      expect(cancelled).toMatchObject({ id: subscriptionId, status: 'active', priceId: current, cancelAtPeriodEnd: true, scheduleId: null, cancellationReason: 'cancellation_requested' });
      expect(cancelled.canceledAt).toBeInstanceOf(Date);

      // Without a schedule there is nothing to release.
      const plain = String((await subscribe(current)).subscription.id);
      const releases = requestsTo('POST', /\/release$/).length;
      expect(await provider.cancelAtPeriodEnd({ subscriptionId: plain, idempotencyKey: `cancel:${plain}` })).toMatchObject({ cancelAtPeriodEnd: true });
      expect(requestsTo('POST', /\/release$/).length).toBe(releases);
    });

    it('maps a Stripe outage on the subscription calls to `unavailable`', async () => {
      const priceId = await planPrice(2500);
      fake.failNext({ status: 503, count: 3, match: /^POST \/v1\/checkout\/sessions$/ });
      await expect(provider.createSubscriptionCheckout(checkoutInput(priceId))).rejects.toMatchObject({ name: 'PaymentProviderError', kind: 'unavailable' });
      const { subscription } = await subscribe(priceId);
      fake.failNext({ status: 500, count: 3, match: /^GET \/v1\/subscriptions\// });
      await expect(provider.retrieveSubscription(String(subscription.id))).rejects.toMatchObject({ kind: 'unavailable' });
    });
  });
});

function sessionIdOf(checkoutUrl: string): string {
  return checkoutUrl.split('/').at(-1)!;
}
