import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeWithInfra, FakeStripeServer } from '@cardlens/testing';
import { purchaseClient } from './purchase-helpers';
import { startStack, type Stack, type StackMode } from './stack';

// Credit purchases against Stripe's API, served by a FAKE Stripe server (tests never call the real Stripe):
// what billing sends (price from the server's config, metadata, expiry, URLs, pinned API version, idempotency
// keys), the webhook and success-URL paths, provider outages, and the shared payment token rail.

const WEBHOOK_SECRET = 'whsec_e2e_stripe_secret';

function stripeSuite(mode: StackMode) {
  let stack: Stack;
  let fake: FakeStripeServer;
  beforeAll(async () => {
    fake = await FakeStripeServer.start();
    stack = await startStack(mode, {
      STRIPE_SECRET_KEY: 'sk_test_fake_e2e',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE_URL: fake.baseUrl,
      STRIPE_TIMEOUT_MS: '1000',
      SPT_ENABLED: 'true',
      DEPLOYMENT_ENVIRONMENT: 'e2e',
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await fake?.stop();
  });

  const { newAgent, purchase, balanceOf, waitForBalance, sessionIdOf } = purchaseClient(() => stack, '192.0.2');
  const deliver = (event: Record<string, unknown>) => {
    const { payload, signature } = fake.signedWebhook(event, WEBHOOK_SECRET);
    return stack.call('POST', '/v1/webhooks/stripe', { rawBody: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } });
  };

  it('creates a Stripe Checkout Session with the server price, metadata, 24 h expiry, our URLs, the pinned API version and an idempotency key', async () => {
    const { agentId, headers } = await newAgent();
    const r = await purchase(headers, { pack: 'builder' });
    expect(r.status).toBe(200);
    expect(String(r.json.checkoutUrl)).toMatch(new RegExp(`^${fake.baseUrl}/c/pay/cs_test_`));
    expect(r.json).toMatchObject({ pack: 'builder', credits: 120, priceUsd: 19 });
    const create = fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/checkout/sessions').at(-1)!;
    const metadata = { purchase_kind: 'credit_pack', rail: 'checkout', agent_id: String(agentId), pack: 'builder', credits: '120', price_cents: '1900', environment: 'e2e' };
    expect(create.params).toMatchObject({
      mode: 'payment',
      client_reference_id: String(agentId),
      customer: expect.stringMatching(/^cus_/),
      metadata,
      payment_intent_data: { metadata },
      invoice_creation: { enabled: 'true' },
      success_url: `${stack.baseUrl}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${stack.baseUrl}/checkout/cancelled?pack=builder`,
    });
    expect((create.params.metadata as Record<string, string>).checkout_id).toMatch(/^[0-9a-f-]{36}$/);
    // The pack's catalog price (one product per pack, found by lookup key), not an inline price.
    const [item] = create.params.line_items as { price: string; quantity: string }[];
    expect(item!.quantity).toBe('1');
    expect(fake.price(item!.price)).toMatchObject({ unit_amount: 1900, currency: 'usd', lookup_key: 'cardlens_e2e_pack_builder', product: 'cardlens_e2e_pack_builder' });
    expect(fake.customer(String(create.params.customer))).toMatchObject({ metadata: { agent_id: String(agentId), environment: 'e2e' } });
    const ttl = Number(create.params.expires_at) - Math.floor(Date.now() / 1000);
    expect(ttl).toBeGreaterThan(23.9 * 3600);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);
    expect(create.headers['stripe-version']).toBe('2026-10-28.endive');
    expect(String(create.headers['idempotency-key'])).toMatch(/^checkout:/);
    // Open session: handed out again, nothing new at Stripe.
    const creates = fake.requests.filter((q) => q.path === '/v1/checkout/sessions' && q.method === 'POST').length;
    expect((await purchase(headers, { pack: 'builder' })).json.checkoutUrl).toBe(r.json.checkoutUrl);
    expect(fake.requests.filter((q) => q.path === '/v1/checkout/sessions' && q.method === 'POST').length).toBe(creates);
  });

  it('paid checkout → webhook → credits, once; the success page agrees', async () => {
    const { headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const session = sessionIdOf(offer.json.checkoutUrl);
    const event = fake.completeCheckoutSession(session, { paymentStatus: 'paid' });
    expect((await deliver(event)).status).toBe(200);
    expect(await waitForBalance(headers, 28)).toBe(28);
    expect((await deliver(event)).status).toBe(200);
    const page = await stack.call('GET', `/checkout/success?session_id=${session}`);
    expect(String(page.body)).toContain('Payment received');
    await new Promise((r) => setTimeout(r, 300));
    expect(await balanceOf(headers)).toBe(28);
  });

  it('the success URL fulfils a paid session whose webhook has not arrived; the late webhook grants nothing more', async () => {
    const { headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const session = sessionIdOf(offer.json.checkoutUrl);
    const event = fake.completeCheckoutSession(session, { paymentStatus: 'paid' });
    const page = await stack.call('GET', `/checkout/success?session_id=${session}`);
    expect(String(page.body)).toContain('Payment received');
    expect(await balanceOf(headers)).toBe(28); // granted inline, before any webhook
    expect((await deliver(event)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceOf(headers)).toBe(28);
  });

  it('an expired session is replaced by a new one (time passes at Stripe)', async () => {
    const { agentId, headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'scale' });
    const expired = fake.expireCheckoutSession(sessionIdOf(offer.json.checkoutUrl));
    expect((await deliver(expired)).status).toBe(200);
    const next = await purchase(headers, { pack: 'scale' });
    expect(next.json.checkoutUrl).not.toBe(offer.json.checkoutUrl);
    expect(agentId).toBeGreaterThan(0);
  });

  it.each([
    ['a 500', { status: 500, count: 3 }],
    ['a reset connection', { mode: 'reset' as const, count: 3 }],
    ['a timeout', { mode: 'hang' as const, count: 3 }],
  ])('Stripe failing with %s → 502 stripe_error, nothing recorded, the next request works', async (_label, failure) => {
    const { headers } = await newAgent();
    fake.failNext({ ...failure, match: /^POST \/v1\/checkout\/sessions$/ });
    const r = await purchase(headers, { pack: 'starter' });
    expect(r.status).toBe(502);
    expect(r.json.code).toBe('stripe_error');
    expect(JSON.stringify(r.json)).not.toMatch(/fake|Injected|sk_/);
    const ok = await purchase(headers, { pack: 'starter' });
    expect(ok.status).toBe(200);
    expect(await balanceOf(headers)).toBe(3);
  }, 30_000);

  describe('shared payment token rail (preview)', () => {
    it('a good token pays inline: credits now, the preview API version sent, the later webhook grants nothing more, a retry returns the same payment', async () => {
      const { agentId, headers } = await newAgent();
      const token = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'succeeded' });
      const r = await purchase(headers, { pack: 'starter', sharedPaymentToken: token });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ status: 'succeeded', pack: 'starter', credits: 25, priceUsd: 5, creditsRemaining: 28 });
      expect(String(r.json.paymentIntentId)).toMatch(/^pi_/);
      expect(r.headers.get('x-credits-remaining')).toBe('28');
      const confirm = fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payment_intents').at(-1)!;
      expect(confirm.headers['stripe-version']).toBe('2026-04-22.preview');
      expect(confirm.params).toMatchObject({ amount: '500', currency: 'usd', confirm: 'true', payment_method_data: { shared_payment_granted_token: token } });
      expect(confirm.params.metadata).toMatchObject({ agent_id: String(agentId), rail: 'shared_payment_token', environment: 'e2e' });
      expect(confirm.headers['idempotency-key']).toBe(`spt:${agentId}:starter:${token}`);
      expect(fake.requests.some((q) => q.path === `/v1/shared_payment/granted_tokens/${token}` && q.headers['stripe-version'] === '2026-04-22.preview')).toBe(true);

      const again = await purchase(headers, { pack: 'starter', sharedPaymentToken: token });
      expect(again.json).toMatchObject({ paymentIntentId: r.json.paymentIntentId, creditsRemaining: 28 });
      // Stripe's payment_intent.succeeded for the same intent: acknowledged, nothing more granted.
      const { payload, signature } = fake.signedWebhook(
        { id: 'evt_pi_succeeded_' + agentId, object: 'event', type: 'payment_intent.succeeded', created: fake.now(), data: { object: { id: r.json.paymentIntentId, object: 'payment_intent', amount: 500, currency: 'usd', status: 'succeeded', created: fake.now(), metadata: confirm.params.metadata } } },
        WEBHOOK_SECRET,
      );
      expect((await stack.call('POST', '/v1/webhooks/stripe', { rawBody: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } })).status).toBe(200);
      await new Promise((r2) => setTimeout(r2, 500));
      expect(await balanceOf(headers)).toBe(28);
    });

    it.each([
      ['needs action', { maxAmount: 10_000, outcome: 'requires_action' as const }, /requires action/],
      ['processing', { maxAmount: 10_000, outcome: 'processing' as const }, /processing/],
      ['declined', { maxAmount: 10_000, outcome: 'declined' as const }, /declined/],
      ['deactivated', { maxAmount: 10_000, outcome: 'succeeded' as const, deactivated: true }, /deactivated/],
      ['limited below the price', { maxAmount: 400, outcome: 'succeeded' as const }, /limit/],
      ['limited to EUR', { maxAmount: 10_000, currency: 'eur', outcome: 'succeeded' as const }, /EUR/],
      ['expired', { maxAmount: 10_000, outcome: 'succeeded' as const, expiresAt: Math.floor(Date.now() / 1000) - 60 }, /expired/],
    ])('a token that is %s → 402 spt_payment_incomplete, no credits', async (_label, token, detail) => {
      const { headers } = await newAgent();
      const r = await purchase(headers, { pack: 'starter', sharedPaymentToken: fake.addGrantedToken(token) });
      expect(r.status).toBe(402);
      expect(r.json.code).toBe('spt_payment_incomplete');
      expect(String(r.json.detail)).toMatch(detail);
      expect(await balanceOf(headers)).toBe(3);
    });

    it('an unknown token → 402; Stripe failing → 502 spt_stripe_error; no credits either way', async () => {
      const { headers } = await newAgent();
      expect((await purchase(headers, { pack: 'starter', sharedPaymentToken: 'spt_unknown' })).json.code).toBe('spt_payment_incomplete');
      const token = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'succeeded' });
      fake.failNext({ status: 500, count: 3, match: /^POST \/v1\/payment_intents$/ });
      const r = await purchase(headers, { pack: 'starter', sharedPaymentToken: token });
      expect(r.status).toBe(502);
      expect(r.json.code).toBe('spt_stripe_error');
      expect(await balanceOf(headers)).toBe(3);
    });
  });
}

describe('credit purchases through Stripe (fake Stripe server), embedded', () => stripeSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'credit purchases through Stripe (fake Stripe server), real Postgres, Redis and Kafka', () => stripeSuite('infra'));
