import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import { describeWithInfra } from '@cardlens/testing';
import { purchaseClient } from './purchase-helpers';
import { startStack, type Stack, type StackMode } from './stack';

// Credit purchases end to end on the sandbox payment provider (no Stripe key: the `npm start` default):
// purchase → checkout page → Pay → signed webhook → billing outbox → bus → ledger → balance, and the webhook
// endpoint's verification and exactly-once fulfilment. Every response is checked against the OpenAPI document.

const WEBHOOK_SECRET = 'whsec_e2e_purchases_secret';

function purchaseSuite(mode: StackMode) {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(mode, { STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const { newAgent, purchase, balanceOf, waitForBalance, sessionIdOf } = purchaseClient(() => stack, '198.51.100');
  const postWebhook = (payload: string, signature?: string, contentType = 'application/json') =>
    stack.call('POST', '/v1/webhooks/stripe', { rawBody: payload, headers: { 'Content-Type': contentType, ...(signature ? { 'Stripe-Signature': signature } : {}) } });
  const signed = (event: object) => {
    const payload = JSON.stringify(event);
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
  };
  /** A Stripe-shaped checkout session event for one of our sessions, as Stripe would send it. */
  const sessionEvent = (type: string, sessionId: string, agentId: number, paymentStatus: 'paid' | 'unpaid', id = `evt_${Math.random().toString(36).slice(2)}`) => ({
    id,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        status: type === 'checkout.session.expired' ? 'expired' : 'complete',
        payment_status: paymentStatus,
        amount_total: 500,
        currency: 'usd',
        payment_intent: `pi_${sessionId.slice(-12)}`,
        metadata: { purchase_kind: 'credit_pack', rail: 'checkout', agent_id: String(agentId), pack: 'starter', credits: '25', price_cents: '500', environment: 'local' },
      },
    },
  });

  it('POST /v1/credits/purchase gives a sandbox checkout, returns it again while open, and a new one per pack', async () => {
    const { headers } = await newAgent();
    const first = await purchase(headers, { pack: 'starter' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ pack: 'starter', credits: 25, priceUsd: 5 });
    expect(String(first.json.checkoutUrl)).toMatch(new RegExp(`^${stack.baseUrl}/sandbox/checkout/cs_sandbox_`));
    const hours = (Date.parse(String(first.json.expiresAt)) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect(first.headers.get('x-credits-remaining')).toBe('3');

    const again = await purchase(headers, { pack: 'starter' });
    expect(again.json.checkoutUrl).toBe(first.json.checkoutUrl);
    const other = await purchase(headers, { pack: 'builder' });
    expect(other.json).toMatchObject({ pack: 'builder', credits: 120, priceUsd: 19 });
    expect(other.json.checkoutUrl).not.toBe(first.json.checkoutUrl);
  });

  it('concurrent purchases of one pack share one session', async () => {
    const { headers } = await newAgent();
    const answers = await Promise.all(Array.from({ length: 6 }, () => purchase(headers, { pack: 'scale' })));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.json.checkoutUrl)).size).toBe(1);
  });

  it('sandbox checkout: the page, Pay, the success page, and the credits once', async () => {
    const { headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const url = new URL(String(offer.json.checkoutUrl));
    const page = await stack.call('GET', url.pathname);
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('SANDBOX: no money moves');
    expect(String(page.body)).toContain('5.00 USD');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const pay = await fetch(`${stack.baseUrl}${url.pathname}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    const success = new URL(pay.headers.get('location')!);
    expect(success.pathname).toBe('/checkout/success');
    expect(success.searchParams.get('session_id')).toBe(sessionIdOf(offer.json.checkoutUrl));

    const landing = await stack.call('GET', `${success.pathname}${success.search}`);
    expect(landing.status).toBe(200);
    expect(String(landing.body)).toContain('Payment received');
    expect(await waitForBalance(headers, 28)).toBe(28);

    // Pay again, land again, and the redelivered webhook: nothing more.
    await fetch(`${stack.baseUrl}${url.pathname}/pay`, { method: 'POST', redirect: 'manual' });
    await stack.call('GET', `${success.pathname}${success.search}`);
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceOf(headers)).toBe(28);
    let tier = '';
    for (let i = 0; i < 100 && tier !== 'paid'; i++) {
      tier = String((await stack.call('GET', '/v1/agents/me', { headers })).json.tier);
      if (tier !== 'paid') await new Promise((r) => setTimeout(r, 100));
    }
    expect(tier).toBe('paid');

    // The paid session is no longer offered: the next purchase of the pack is a new checkout.
    const next = await purchase(headers, { pack: 'starter' });
    expect(next.json.checkoutUrl).not.toBe(offer.json.checkoutUrl);
    const paidPage = await stack.call('GET', url.pathname);
    expect(String(paidPage.body)).toContain('This checkout is complete');
  });

  it('cancel leaves the session open and charges nothing', async () => {
    const { headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'builder' });
    const path = new URL(String(offer.json.checkoutUrl)).pathname;
    const cancel = await fetch(`${stack.baseUrl}${path}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(cancel.status).toBe(303);
    expect(new URL(cancel.headers.get('location')!).pathname).toBe('/checkout/cancelled');
    const page = await stack.call('GET', '/checkout/cancelled?pack=builder');
    expect(String(page.body)).toContain('Nothing was charged');
    expect(await balanceOf(headers)).toBe(3);
    expect((await purchase(headers, { pack: 'builder' })).json.checkoutUrl).toBe(offer.json.checkoutUrl);
  });

  it('bad purchase requests are clear 4xx problems and create nothing', async () => {
    const { headers } = await newAgent();
    const unknown = await purchase(headers, { pack: 'mega' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.code).toBe('invalid_pack');
    expect(String(unknown.json.detail)).toContain('starter, builder, scale');
    const missing = await purchase(headers, {});
    expect(missing.json.code).toBe('invalid_pack');
    expect((await purchase(headers, { pack: 7 })).json.code).toBe('invalid_body');
    expect((await purchase(headers, [1])).json.code).toBe('invalid_body');
    const token = await purchase(headers, { pack: 'starter', sharedPaymentToken: 'spt_123' });
    expect(token.status).toBe(501);
    expect(token.json.code).toBe('spt_not_enabled');
    const anonymous = await stack.call('POST', '/v1/credits/purchase', { body: { pack: 'starter' } });
    expect(anonymous.status).toBe(401);
    expect(await balanceOf(headers)).toBe(3);
  });

  it('webhooks: unsigned, badly signed, stale or non-JSON bodies are refused and apply nothing', async () => {
    const { agentId, headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const event = sessionEvent('checkout.session.completed', sessionIdOf(offer.json.checkoutUrl), agentId, 'paid');
    const { payload, signature } = signed(event);
    expect((await postWebhook(payload)).json.code).toBe('invalid_body');
    const forged = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    const bad = await postWebhook(payload, forged);
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_body');
    const tampered = await postWebhook(payload.replace('"credits":"25"', '"credits":"2500"'), signature);
    expect(tampered.json.code).toBe('invalid_body');
    const stale = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect((await postWebhook(payload, stale)).json.code).toBe('invalid_body');
    expect((await postWebhook(payload, signature, 'text/plain')).status).toBe(415);
    await new Promise((r) => setTimeout(r, 300));
    expect(await balanceOf(headers)).toBe(3);
  });

  it('webhooks: unused event types are acknowledged and ignored', async () => {
    const { payload, signature } = signed({ id: 'evt_unused_1', object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'cus_1', object: 'customer' } } });
    const r = await postWebhook(payload, signature);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ received: true });
  });

  it('webhooks: one event posted 10 times concurrently, then redelivered, grants once', async () => {
    const { agentId, headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const { payload, signature } = signed(sessionEvent('checkout.session.completed', sessionIdOf(offer.json.checkoutUrl), agentId, 'paid'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => postWebhook(payload, signature)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await waitForBalance(headers, 28)).toBe(28);
    expect((await postWebhook(payload, signature)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceOf(headers)).toBe(28);
  });

  it('webhooks: two different events confirming one session (completed, then async succeeded) grant once', async () => {
    const { agentId, headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const session = sessionIdOf(offer.json.checkoutUrl);
    // Out of order: the async success arrives before the completion that said "unpaid".
    const succeeded = signed(sessionEvent('checkout.session.async_payment_succeeded', session, agentId, 'paid'));
    const completed = signed(sessionEvent('checkout.session.completed', session, agentId, 'unpaid'));
    expect((await postWebhook(succeeded.payload, succeeded.signature)).status).toBe(200);
    expect(await waitForBalance(headers, 28)).toBe(28);
    expect((await postWebhook(completed.payload, completed.signature)).status).toBe(200);
    const paidAgain = signed(sessionEvent('checkout.session.completed', session, agentId, 'paid'));
    expect((await postWebhook(paidAgain.payload, paidAgain.signature)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceOf(headers)).toBe(28);
    const landing = await stack.call('GET', `/checkout/success?session_id=${session}`);
    expect(String(landing.body)).toContain('Payment received');
  });

  it('webhooks: an expired session is replaced by a new one on the next purchase; a failed async payment grants nothing', async () => {
    const { agentId, headers } = await newAgent();
    const offer = await purchase(headers, { pack: 'starter' });
    const expired = signed(sessionEvent('checkout.session.expired', sessionIdOf(offer.json.checkoutUrl), agentId, 'unpaid'));
    expect((await postWebhook(expired.payload, expired.signature)).status).toBe(200);
    const next = await purchase(headers, { pack: 'starter' });
    expect(next.json.checkoutUrl).not.toBe(offer.json.checkoutUrl);

    const session = sessionIdOf(next.json.checkoutUrl);
    const unpaid = signed(sessionEvent('checkout.session.completed', session, agentId, 'unpaid'));
    const failed = signed(sessionEvent('checkout.session.async_payment_failed', session, agentId, 'unpaid'));
    await postWebhook(unpaid.payload, unpaid.signature);
    await postWebhook(failed.payload, failed.signature);
    await new Promise((r) => setTimeout(r, 500));
    expect(await balanceOf(headers)).toBe(3);
  });

  it('the success page of an unknown session is a 404 problem', async () => {
    const r = await stack.call('GET', '/checkout/success?session_id=cs_sandbox_doesnotexist');
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('checkout_not_found');
    const page = await stack.call('GET', '/sandbox/checkout/cs_sandbox_doesnotexist');
    expect(page.status).toBe(404);
  });
}

describe('credit purchases on the embedded defaults (PGlite, in-process bus, sandbox provider)', () => purchaseSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'credit purchases on real Postgres, Redis and Kafka (sandbox provider)', () => purchaseSuite('infra'));
