import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import { FakeStripeServer } from '../src/index';

// The fake is driven through the real stripe-node client, so what passes here is what stripe-node itself
// accepts: its encoding, JSON parsing, error classes, auto-pagination and idempotency headers.

const PREVIEW_VERSION = '2026-04-22.preview';
const DAY = 86_400;

let fake: FakeStripeServer;
let stripe: Stripe;

function client(options: { timeout?: number } = {}): Stripe {
  return new Stripe('sk_test_fake', { ...fake.clientOptions(), apiVersion: Stripe.API_VERSION, maxNetworkRetries: 0, telemetry: false, ...options });
}

function sessionParams(overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}): Stripe.Checkout.SessionCreateParams {
  return {
    mode: 'payment',
    line_items: [{ quantity: 2, price_data: { currency: 'usd', unit_amount: 500, product_data: { name: 'Starter pack' } } }],
    client_reference_id: '42',
    metadata: { agent_id: '42', pack: 'starter' },
    payment_intent_data: { metadata: { agent_id: '42', rail: 'checkout' } },
    expires_at: fake.now() + DAY,
    success_url: 'http://127.0.0.1/ok?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://127.0.0.1/cancelled',
    customer_email: 'owner@example.com',
    ...overrides,
  };
}

/** What a Stripe API error looks like once stripe-node has turned it into an exception. */
async function stripeError(promise: Promise<unknown>): Promise<InstanceType<typeof Stripe.errors.StripeError>> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Stripe.errors.StripeError)) throw new Error(`expected a StripeError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  fake = await FakeStripeServer.start();
  stripe = client();
});
afterAll(async () => {
  await fake?.stop();
});
beforeEach(() => fake.reset());

describe('checkout sessions', () => {
  it('creates a session with Stripe shapes, replays it for the same idempotency key and refuses the key with other params', async () => {
    const params = sessionParams();
    const session = await stripe.checkout.sessions.create(params, { idempotencyKey: 'checkout:42:1' });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: 1000,
      currency: 'usd',
      client_reference_id: '42',
      metadata: { agent_id: '42', pack: 'starter' },
      expires_at: params.expires_at,
      cancel_url: 'http://127.0.0.1/cancelled',
      payment_intent: null,
      customer: null,
      livemode: false,
    });
    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]{24}$/);
    expect(session.url).toBe(`${fake.baseUrl}/c/pay/${session.id}`);
    expect(Math.abs(session.created - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(2);

    // The form body arrived in bracket notation and was decoded into nested params.
    const create = fake.requests.at(-1)!;
    expect(create).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(create.params).toMatchObject({
      line_items: [{ quantity: '2', price_data: { currency: 'usd', unit_amount: '500', product_data: { name: 'Starter pack' } } }],
      metadata: { agent_id: '42' },
      payment_intent_data: { metadata: { rail: 'checkout' } },
      customer_email: 'owner@example.com',
    });
    expect(create.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(create.headers['idempotency-key']).toBe('checkout:42:1');

    const replay = await stripe.checkout.sessions.create(params, { idempotencyKey: 'checkout:42:1' });
    expect(replay.id).toBe(session.id);
    expect((await stripe.checkout.sessions.list({ limit: 100 })).data).toHaveLength(1);

    const clash = await stripeError(stripe.checkout.sessions.create({ ...params, client_reference_id: '43' }, { idempotencyKey: 'checkout:42:1' }));
    expect(clash).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(clash).toMatchObject({ type: 'StripeIdempotencyError', rawType: 'idempotency_error', statusCode: 400 });

    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({ id: session.id, status: 'open' });
    const missing = await stripeError(stripe.checkout.sessions.retrieve('cs_test_nope'));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it.each([
    ['28 minutes', 28 * 60, false],
    ['29 minutes (clock tolerance)', 29 * 60, true],
    ['30 minutes', 30 * 60, true],
    ['exactly 24 hours', DAY, true],
    ['24 hours and 30 s (clock tolerance)', DAY + 30, true],
    ['25 hours', DAY + 3600, false],
    ['in the past', -60, false],
  ])('expires_at %s from now (%i s): accepted %p', async (_label, offset, accepted) => {
    const result = stripe.checkout.sessions.create(sessionParams({ expires_at: fake.now() + offset }));
    if (accepted) {
      await expect(result).resolves.toMatchObject({ status: 'open' });
    } else {
      const error = await stripeError(result);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(error.message).toMatch(/expires_at/);
      expect((await stripe.checkout.sessions.list()).data).toEqual([]);
    }
  });

  it('lists newest first with created/status filters and auto-paginates past the first page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await stripe.checkout.sessions.create(sessionParams())).id);

    const firstPage = await stripe.checkout.sessions.list();
    expect(firstPage).toMatchObject({ object: 'list', url: '/v1/checkout/sessions', has_more: true });
    expect(firstPage.data.map((s) => s.id)).toEqual(ids.slice().reverse().slice(0, 10));

    // One cutoff for the call and the assertion: the clock may tick a second between them.
    const since = fake.now() - 60;
    const seen: string[] = [];
    for await (const session of stripe.checkout.sessions.list({ created: { gte: since }, limit: 7 })) seen.push(session.id);
    expect(seen).toEqual(ids.slice().reverse());
    const listCalls = fake.requests.filter((r) => r.method === 'GET' && r.path === '/v1/checkout/sessions');
    expect(listCalls.at(-1)!.params).toMatchObject({ created: { gte: String(since) }, limit: '7', starting_after: expect.any(String) });

    expect((await stripe.checkout.sessions.list({ created: { lte: fake.now() - 60 } })).data).toEqual([]);
    await stripe.checkout.sessions.expire(ids[3]!);
    expect((await stripe.checkout.sessions.list({ status: 'expired' })).data.map((s) => s.id)).toEqual([ids[3]]);

    expect(await stripeError(stripe.checkout.sessions.list({ limit: 101 }))).toMatchObject({ statusCode: 400, param: 'limit' });
    expect(await stripeError(stripe.checkout.sessions.list({ starting_after: 'cs_test_gone' }))).toMatchObject({ statusCode: 400 });
  });

  it('the payer completes checkout: the session, its payment intent and the events list agree', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const completed = fake.completeCheckoutSession(id, { paymentStatus: 'paid' });
    expect(completed).toMatchObject({ object: 'event', type: 'checkout.session.completed', livemode: false, pending_webhooks: 1, request: { id: null } });
    expect(completed.data).toMatchObject({ object: { id, status: 'complete', payment_status: 'paid' } });

    const session = await stripe.checkout.sessions.retrieve(id);
    expect(session).toMatchObject({ status: 'complete', payment_status: 'paid' });
    const intent = await stripe.paymentIntents.retrieve(String(session.payment_intent));
    // The intent carries payment_intent_data's metadata, not the session's.
    expect(intent).toMatchObject({ object: 'payment_intent', status: 'succeeded', amount: 1000, currency: 'usd', metadata: { agent_id: '42', rail: 'checkout' }, latest_charge: null });

    const events = await stripe.events.list({ types: ['checkout.session.completed', 'checkout.session.expired'], created: { gte: fake.now() - 60 } });
    expect(events.data.map((e) => e.id)).toEqual([completed.id]);
    expect(await stripe.events.retrieve(String(completed.id))).toMatchObject({ id: completed.id, api_version: Stripe.API_VERSION });
    expect((await stripe.events.list({ type: 'payment_intent.*' })).data).toEqual([]);
  });

  it('delayed payment methods: completed unpaid, then async succeeded or failed', async () => {
    const a = await stripe.checkout.sessions.create(sessionParams());
    const b = await stripe.checkout.sessions.create(sessionParams());
    fake.completeCheckoutSession(a.id, { paymentStatus: 'unpaid' });
    fake.completeCheckoutSession(b.id, { paymentStatus: 'unpaid' });
    const pending = await stripe.checkout.sessions.retrieve(a.id);
    expect(pending).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    expect((await stripe.paymentIntents.retrieve(String(pending.payment_intent))).status).toBe('processing');

    expect(fake.asyncPaymentSucceeded(a.id)).toMatchObject({ type: 'checkout.session.async_payment_succeeded', data: { object: { payment_status: 'paid' } } });
    expect(fake.asyncPaymentFailed(b.id)).toMatchObject({ type: 'checkout.session.async_payment_failed', data: { object: { payment_status: 'unpaid' } } });
    expect((await stripe.events.list({ type: 'checkout.session.*' })).data.map((e) => e.type)).toEqual([
      'checkout.session.async_payment_failed',
      'checkout.session.async_payment_succeeded',
      'checkout.session.completed',
      'checkout.session.completed',
    ]);
  });

  it('expires through the API once (a second expire is refused), and through the fake control', async () => {
    const a = await stripe.checkout.sessions.create(sessionParams());
    expect(await stripe.checkout.sessions.expire(a.id)).toMatchObject({ id: a.id, status: 'expired' });
    const again = await stripeError(stripe.checkout.sessions.expire(a.id));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);

    const b = await stripe.checkout.sessions.create(sessionParams());
    expect(fake.expireCheckoutSession(b.id)).toMatchObject({ type: 'checkout.session.expired', data: { object: { id: b.id, status: 'expired' } } });
    expect((await stripe.events.list({ type: 'checkout.session.expired' })).data.map((e) => (e.data.object as { id: string }).id)).toEqual([b.id, a.id]);
  });

  it('time passing at Stripe: a session past expires_at reads as expired and emits its event once', async () => {
    fake.clock.freeze();
    const { id } = await stripe.checkout.sessions.create(sessionParams({ expires_at: fake.now() + 3600 }));
    fake.clock.advance(3599);
    expect((await stripe.checkout.sessions.retrieve(id)).status).toBe('open');
    fake.clock.advance(1);
    expect((await stripe.checkout.sessions.retrieve(id)).status).toBe('expired');
    expect((await stripe.checkout.sessions.list()).data[0]!.status).toBe('expired');
    const expired = await stripe.events.list({ type: 'checkout.session.expired' });
    expect(expired.data).toHaveLength(1);
    expect(expired.data[0]!.created).toBe(fake.clock.now());
  });
});

describe('shared payment tokens and payment intents (preview API, through rawRequest)', () => {
  const retrieveToken = (id: string) => stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${id}`, undefined, { apiVersion: PREVIEW_VERSION });
  const pay = (token: string, amount = 500, idempotencyKey?: string) =>
    stripe.rawRequest(
      'POST',
      '/v1/payment_intents',
      { amount, currency: 'usd', confirm: true, payment_method_data: { type: 'shared_payment_granted_token', shared_payment_granted_token: token }, metadata: { agent_id: '42' } },
      { apiVersion: PREVIEW_VERSION, ...(idempotencyKey ? { idempotencyKey } : {}) },
    );

  it('retrieves a registered token with the preview version recorded; an unknown one is resource_missing', async () => {
    const expiresAt = fake.now() + 600;
    const id = fake.addGrantedToken({ maxAmount: 2_000, expiresAt, outcome: 'succeeded' });
    expect(id).toMatch(/^spt_/);
    expect(await retrieveToken(id)).toMatchObject({
      id,
      object: 'shared_payment.granted_token',
      deactivated_at: null,
      usage_limits: { currency: 'usd', max_amount: 2_000, expires_at: expiresAt },
    });
    expect(fake.requests.at(-1)!.headers['stripe-version']).toBe(PREVIEW_VERSION);
    expect(await stripeError(retrieveToken('spt_unknown'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await retrieveToken(fake.addGrantedToken({ maxAmount: 1, deactivated: true, outcome: 'succeeded' }))).deactivated_at).toEqual(expect.any(Number));
  });

  it.each([
    ['succeeded', 'succeeded'],
    ['requires_action', 'requires_action'],
    ['processing', 'processing'],
    ['canceled', 'canceled'],
  ] as const)('a token whose outcome is %s gives an intent in that status', async (outcome, status) => {
    const intent = await pay(fake.addGrantedToken({ maxAmount: 10_000, outcome }));
    expect(intent).toMatchObject({ object: 'payment_intent', status, amount: 500, currency: 'usd', metadata: { agent_id: '42' }, livemode: false });
    expect(intent.id).toMatch(/^pi_/);
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ id: intent.id, status });
    const succeededEvents = (await stripe.events.list({ type: 'payment_intent.succeeded' })).data;
    expect(succeededEvents.map((e) => (e.data.object as { id: string }).id)).toEqual(outcome === 'succeeded' ? [intent.id] : []);
  });

  it('a declined token raises StripeCardError and stores no intent; a replay with the same key declines again', async () => {
    const token = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'declined' });
    const declined = await stripeError(pay(token, 500, 'spt:42:starter'));
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
    expect(await stripeError(pay(token, 500, 'spt:42:starter'))).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((await stripe.paymentIntents.list()).data).toEqual([]);
  });

  it.each([
    ['unknown', () => 'spt_unknown', 500],
    ['deactivated', () => fake.addGrantedToken({ maxAmount: 10_000, deactivated: true, outcome: 'succeeded' }), 500],
    ['expired', () => fake.addGrantedToken({ maxAmount: 10_000, expiresAt: fake.now() - 1, outcome: 'succeeded' }), 500],
    ['limited below the amount', () => fake.addGrantedToken({ maxAmount: 400, outcome: 'succeeded' }), 500],
    ['limited to another currency', () => fake.addGrantedToken({ maxAmount: 10_000, currency: 'eur', outcome: 'succeeded' }), 500],
  ])('a token that is %s → StripeInvalidRequestError', async (_label, token, amount) => {
    const error = await stripeError(pay(token(), amount));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.statusCode).toBe(400);
  });

  it('a retried confirm with the same idempotency key returns the same intent', async () => {
    const token = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'succeeded' });
    const first = await pay(token, 500, 'spt:42:retry');
    expect((await pay(token, 500, 'spt:42:retry')).id).toBe(first.id);
    expect((await stripe.paymentIntents.list({ created: { gte: fake.now() - 60 } })).data.map((i) => i.id)).toEqual([first.id]);
  });

  it('a list over rawRequest takes its query in the path (stripe-node refuses params on a raw GET)', async () => {
    const token = fake.addGrantedToken({ maxAmount: 10_000, outcome: 'processing' });
    for (let i = 0; i < 3; i++) await pay(token);
    const since = fake.now() - 60;
    const page = await stripe.rawRequest('GET', `/v1/payment_intents?limit=2&created[gte]=${since}`, undefined, { apiVersion: PREVIEW_VERSION });
    expect(page).toMatchObject({ object: 'list', has_more: true, url: '/v1/payment_intents' });
    expect(fake.requests.at(-1)!.params).toMatchObject({ limit: '2', created: { gte: String(since) } });
    await expect(stripe.rawRequest('GET', '/v1/payment_intents', { limit: 2 })).rejects.toThrow(/only supports params on POST/);
  });
});

describe('failure injection', () => {
  it('a 500 raises StripeAPIError for the matching request only, then the injection is used up', async () => {
    fake.failNext({ status: 500, match: /^POST \/v1\/checkout\/sessions$/ });
    await stripe.events.list(); // does not match
    const error = await stripeError(stripe.checkout.sessions.create(sessionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error).toMatchObject({ statusCode: 500, rawType: 'api_error' });
    await expect(stripe.checkout.sessions.create(sessionParams())).resolves.toMatchObject({ status: 'open' });
  });

  it('count: the next N requests fail with the given status', async () => {
    fake.failNext({ count: 2, status: 503 });
    for (let i = 0; i < 2; i++) expect(await stripeError(stripe.events.list())).toMatchObject({ statusCode: 503 });
    await expect(stripe.events.list()).resolves.toMatchObject({ object: 'list' });
  });

  it("a failed request's idempotency key can be used again, as at Stripe (no result was saved)", async () => {
    fake.failNext({ status: 502 });
    await stripeError(stripe.checkout.sessions.create(sessionParams(), { idempotencyKey: 'k-after-502' }));
    await expect(stripe.checkout.sessions.create(sessionParams(), { idempotencyKey: 'k-after-502' })).resolves.toMatchObject({ status: 'open' });
  });

  it("'reset' destroys the connection: stripe-node retries one reset even with maxNetworkRetries 0, so two give StripeConnectionError", async () => {
    // stripe-node 23 retries ECONNRESET/EPIPE once regardless of maxNetworkRetries, under the idempotency key it
    // puts on every POST, so one reset is invisible to the caller.
    fake.failNext({ mode: 'reset' });
    await expect(stripe.checkout.sessions.create(sessionParams())).resolves.toMatchObject({ status: 'open' });
    const [reset, retried] = fake.requests.filter((r) => r.method === 'POST');
    expect(retried!.headers['idempotency-key']).toBe(reset!.headers['idempotency-key']);
    expect(String(reset!.headers['idempotency-key'])).toMatch(/^stripe-node-retry-/);

    fake.failNext({ mode: 'reset', count: 2 });
    const error = await stripeError(stripe.checkout.sessions.create(sessionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    await expect(stripe.events.list()).resolves.toMatchObject({ object: 'list' });
  });

  it("'hang' never answers: the client's timeout gives StripeConnectionError", async () => {
    fake.failNext({ mode: 'hang' });
    const started = Date.now();
    const error = await stripeError(client({ timeout: 500 }).checkout.sessions.create(sessionParams()));
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(error.message).toMatch(/timeout/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('HTTP surface', () => {
  it('answers 401 without a secret key, and an unknown route with 404 invalid_request_error', async () => {
    const noKey = await fetch(`${fake.baseUrl}/v1/checkout/sessions`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    const pk = await fetch(`${fake.baseUrl}/v1/checkout/sessions`, { headers: { Authorization: 'Bearer pk_test_x' } });
    expect(pk.status).toBe(401);
    expect(await stripeError(new Stripe('rk_test_nope', { ...fake.clientOptions(), maxNetworkRetries: 0 }).events.list())).toBeInstanceOf(
      Stripe.errors.StripeAuthenticationError,
    );

    const unknown = await fetch(`${fake.baseUrl}/v1/charges`, { headers: { Authorization: 'Bearer sk_test_fake' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL (GET: /v1/charges).' } });
    // A method a route does not serve is unknown too (Stripe has no POST retrieve).
    expect(await stripeError(stripe.rawRequest('DELETE', '/v1/events/evt_x'))).toMatchObject({ statusCode: 404 });
  });
});

describe('webhooks', () => {
  it('signs an event so that stripe.webhooks.constructEvent accepts it, and only with the right secret', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams());
    const event = fake.completeCheckoutSession(id, { paymentStatus: 'paid' });
    const { payload, signature } = fake.signedWebhook(event, 'whsec_test_secret');
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const verified = stripe.webhooks.constructEvent(payload, signature, 'whsec_test_secret');
    expect(verified).toMatchObject({ id: event.id, type: 'checkout.session.completed', data: { object: { id, payment_status: 'paid' } } });
    // The static works without an API key, as billing's verifier uses it.
    expect(Stripe.webhooks.constructEvent(payload, signature, 'whsec_test_secret').id).toBe(event.id);
    expect(() => stripe.webhooks.constructEvent(payload, signature, 'whsec_other')).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(payload.replace('"paid"', '"unpaid"'), signature, 'whsec_test_secret')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });
});

describe('controls', () => {
  it('reset() clears sessions, events, tokens, the request log, injections and the clock', async () => {
    const { id } = await stripe.checkout.sessions.create(sessionParams(), { idempotencyKey: 'before-reset' });
    fake.completeCheckoutSession(id, { paymentStatus: 'paid' });
    fake.addGrantedToken({ id: 'spt_fixed', maxAmount: 1, outcome: 'succeeded' });
    fake.failNext({ count: 5 });
    fake.clock.advance(DAY);
    fake.clock.freeze();
    fake.reset();

    expect(fake.requests).toEqual([]);
    expect(Math.abs(fake.clock.now() - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(1);
    expect((await stripe.events.list()).data).toEqual([]);
    expect(await stripeError(stripe.checkout.sessions.retrieve(id))).toMatchObject({ statusCode: 404 });
    expect(await stripeError(retrieve('spt_fixed'))).toMatchObject({ statusCode: 404 });
    // The idempotency key is free again: a new session, not the old one.
    expect((await stripe.checkout.sessions.create(sessionParams(), { idempotencyKey: 'before-reset' })).id).not.toBe(id);
  });

  const retrieve = (id: string) => stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${id}`);
});
