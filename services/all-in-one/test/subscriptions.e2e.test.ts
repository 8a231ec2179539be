import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import { billingSandboxV1, billingV1, dateFromTimestamp } from '@cardlens/contracts';
import { isAppError } from '@cardlens/errors';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { describeWithInfra } from '@cardlens/testing';
import { startStack, type Stack, type StackMode } from './stack';

// Grading subscriptions end to end on the sandbox payment provider (the `npm start` default), through HTTP →
// gateway → billing, the sandbox's checkout and portal pages, signed webhooks → outbox → bus → billing, and the
// sandbox's test clock (like a Stripe test clock: advancing it runs trial ends, renewals, retries and
// cancellations, stamped with the time they fell due). Access is probed with billing's ReserveGrade, the RPC the
// commercial grading endpoint calls. Every HTTP response is checked against the OpenAPI document.
//
// One stack (and so one sandbox clock) per mode: each test uses fresh agents and reads times relative to the
// clock, so a later test's advances only renew earlier tests' finished subscriptions.

const WEBHOOK_SECRET = 'whsec_e2e_subscriptions_secret';
const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
const CARD_PAYS = '4242424242424242';
const CARD_DECLINES = '4000000000000341';
/** Another card that declines (a trial per card: a second account needs its own). */
const OTHER_CARD_DECLINES = '4000000100000341';

type Me = Record<string, unknown> & { status: string; gradesRemaining: number | null; unlimitedGrading: boolean };

function subscriptionSuite(mode: StackMode) {
  let stack: Stack;
  let sandbox: billingSandboxV1.SandboxCheckoutServiceClient;
  let billing: billingV1.BillingServiceClient;
  let ip = 0;
  let gradeIds = 1;

  beforeAll(async () => {
    stack = await startStack(mode, { STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
    sandbox = createClient(billingSandboxV1.SandboxCheckoutServiceClient, `127.0.0.1:${stack.ports.billing}`);
    billing = createClient(billingV1.BillingServiceClient, `127.0.0.1:${stack.ports.billing}`);
  }, 120_000);
  afterAll(async () => {
    sandbox?.close();
    billing?.close();
    await stack?.stop();
  });

  let owners = 0;
  let cards = 0;
  /** One trial per person: each account gets its own owner (email) unless a test says otherwise. */
  const newAgent = async (contactEmail: string | null = `owner${++owners}@example.com`) => {
    const r = await stack.call('POST', '/v1/agents', { body: { name: 'grader', ...(contactEmail ? { contactEmail } : {}) }, ip: `203.0.113.${++ip}` });
    expect(r.status).toBe(201);
    return { agentId: Number(r.json.agentId), headers: { 'X-Api-Key': String(r.json.apiKey) } };
  };
  const me = async (headers: Record<string, string>): Promise<Me> => {
    const r = await stack.call('GET', '/v1/subscriptions/me', { headers });
    expect(r.status).toBe(200);
    return r.json as Me;
  };
  /**
   * Polls GET /v1/subscriptions/me until `done` holds or 15 s pass: confirmations travel webhook → outbox → bus,
   * and a change made behind the gateway (a grade reserved through billing's own API here, the sandbox clock moved)
   * reaches the gateway's copy as billing's announcement (outbox → bus).
   */
  const waitFor = async (headers: Record<string, string>, done: (s: Me) => boolean): Promise<Me> => {
    let s = await me(headers);
    for (let i = 0; i < 150 && !done(s); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      s = await me(headers);
    }
    return s;
  };
  const checkout = (headers: Record<string, string>, plan: unknown) => stack.call('POST', '/v1/subscriptions/checkout', { headers, body: { plan } });
  /** A card that pays, a different one each time (one trial per card). */
  const payingCard = () => `4242${String(++cards).padStart(12, '0')}`;
  const pay = async (checkoutUrl: unknown, card = payingCard()) => {
    const url = new URL(String(checkoutUrl));
    const page = await fetch(`${stack.baseUrl}${url.pathname}`);
    expect(page.status).toBe(200);
    const response = await fetch(`${stack.baseUrl}${url.pathname}/pay`, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
    expect(response.status).toBe(303);
    return new URL(response.headers.get('location')!);
  };
  const clockNow = async (): Promise<Date> => dateFromTimestamp((await callUnary(sandbox, 'getSandboxClock', {}, { deadlineMs: 5000 })).clock!.now!);
  const advance = (seconds: number) => callUnary(sandbox, 'advanceSandboxClock', { seconds: Math.ceil(seconds) }, { deadlineMs: 60_000 });
  /** Advances the sandbox clock to `target` (+ seconds). */
  const advanceTo = async (target: Date, plusSeconds = 0) => advance((target.getTime() - (await clockNow()).getTime()) / 1000 + plusSeconds);
  /** What the grading endpoint would get: a reservation (then committed), or the refusal's code. */
  const grade = async (agentId: number, outcome: 'commit' | 'refund' = 'commit'): Promise<string> => {
    try {
      const r = await callUnary(billing, 'reserveGrade', { agentId, gradeId: gradeIds++ }, { deadlineMs: 5000 });
      if (outcome === 'commit') await callUnary(billing, 'commitGrade', { agentId, reservationId: r.reservationId, gradeId: 0 }, { deadlineMs: 5000 });
      else await callUnary(billing, 'refundGrade', { agentId, reservationId: r.reservationId, gradeId: 0, reason: 'grader_unavailable' }, { deadlineMs: 5000 });
      return r.billingSource === 1 ? 'trial' : 'allowance';
    } catch (error) {
      if (isAppError(error)) return error.code;
      throw error;
    }
  };
  const post = (path: string, headers: Record<string, string>, body?: unknown) => stack.call('POST', path, { headers, ...(body === undefined ? {} : { body }) });

  it('link creation starts nothing; checkout starts the 7-day unlimited trial; access stops exactly at the deadline while the payment confirmation is late; the paid allowance then starts and resets at renewal without rollover', async () => {
    const { agentId, headers } = await newAgent();
    const plans = await stack.call('GET', '/v1/subscriptions/plans');
    expect((plans.json.plans as { key: string }[]).map((p) => p.key)).toEqual(['grading_5000', 'grading_10000']);

    const link = await checkout(headers, 'grading_5000');
    expect(link.status).toBe(200);
    expect(link.json).toMatchObject({ action: 'checkout', plan: 'grading_5000', trialDays: 7 });
    // Link creation only: no access, no charge, the trial has not begun.
    expect(await me(headers)).toMatchObject({ status: 'checkout_pending', unlimitedGrading: false, trialEndsAtUtc: null, gradesRemaining: 0 });
    expect(await grade(agentId)).toBe('subscription_required');
    // The same plan again: the same session; the other plan while it is open: 409.
    expect((await checkout(headers, 'grading_5000')).json.checkoutUrl).toBe(link.json.checkoutUrl);
    const other = await checkout(headers, 'grading_10000');
    expect(other.status).toBe(409);
    expect(other.json.code).toBe('checkout_pending');

    const success = await pay(link.json.checkoutUrl);
    expect(success.pathname).toBe('/checkout/subscribed');
    const trial = await waitFor(headers, (s) => s.status === 'trialing');
    const trialEnd = new Date(String(trial.trialEndsAtUtc));
    expect(trial).toMatchObject({ status: 'trialing', plan: 'grading_5000', unlimitedGrading: true, gradesRemaining: null, cancelAtPeriodEnd: false });
    expect(Math.abs(trialEnd.getTime() - (await clockNow()).getTime() - 7 * DAY * 1000)).toBeLessThan(60_000);
    expect(await grade(agentId)).toBe('trial');
    expect(await grade(agentId)).toBe('trial');
    expect((await me(headers)).gradesRemaining).toBeNull();
    // A second checkout while trialing on the same plan: 409 subscription_exists.
    expect((await checkout(headers, 'grading_5000')).json.code).toBe('subscription_exists');

    // One minute before the deadline: still unlimited.
    await advanceTo(trialEnd, -MINUTE);
    expect(await grade(agentId)).toBe('trial');
    // The deadline passes. The sandbox, like Stripe, charges about an hour after the trial ends: the payment
    // confirmation is late, and access stops exactly at the deadline regardless.
    await advanceTo(trialEnd, 1);
    const lapsed = await waitFor(headers, (s) => s.status === 'past_due');
    expect(lapsed).toMatchObject({ status: 'past_due', unlimitedGrading: false, gradesRemaining: 0 });
    expect(await grade(agentId)).toBe('subscription_required');

    // The charge succeeds: the monthly allowance starts (from the trial end; the trial was not extended).
    await advance(HOUR);
    const paid = await waitFor(headers, (s) => s.status === 'active');
    expect(paid).toMatchObject({ status: 'active', plan: 'grading_5000', unlimitedGrading: false, gradesRemaining: 5000, monthlyAllowance: 5000, gradesUsed: 0 });
    expect(new Date(String(paid.currentPeriodStartUtc)).getTime()).toBe(trialEnd.getTime());
    expect(paid.trialEndsAtUtc).toBe(trial.trialEndsAtUtc);
    expect(await grade(agentId)).toBe('allowance');
    expect(await grade(agentId)).toBe('allowance');
    expect(await grade(agentId, 'refund')).toBe('allowance');
    expect(await waitFor(headers, (s) => s.gradesUsed === 2)).toMatchObject({ gradesRemaining: 4998, gradesUsed: 2 });
    const agent = await stack.call('GET', '/v1/agents/me', { headers });
    expect(agent.json.tier).toBe('paid');
    expect((agent.json.balances as Record<string, unknown>).gradingSubscription).toMatchObject({ status: 'active', gradesRemaining: 4998 });

    // Renewal: unused grades expire; the new period starts with the full allowance.
    const periodEnd = new Date(String(paid.currentPeriodEndUtc));
    await advanceTo(periodEnd, HOUR + MINUTE);
    const renewed = await waitFor(headers, (s) => s.currentPeriodStartUtc === periodEnd.toISOString() || s.currentPeriodStartUtc === paid.currentPeriodEndUtc);
    expect(renewed).toMatchObject({ status: 'active', gradesRemaining: 5000, gradesUsed: 0, monthlyAllowance: 5000 });
  }, 120_000);

  it('a plan change takes effect at the next renewal with the current allowance unchanged; cancel keeps access to the period end, then none; a returning subscriber gets no second trial and pays at once', async () => {
    const { agentId, headers } = await newAgent();
    await pay((await checkout(headers, 'grading_5000')).json.checkoutUrl);
    const trial = await waitFor(headers, (s) => s.status === 'trialing');
    await advanceTo(new Date(String(trial.trialEndsAtUtc)), HOUR + MINUTE);
    const active = await waitFor(headers, (s) => s.status === 'active');
    expect(await grade(agentId)).toBe('allowance');

    const change = await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_10000' });
    expect(change.status).toBe(200);
    expect(change.json).toMatchObject({ action: 'scheduled', plan: 'grading_5000', pendingPlan: 'grading_10000', effectiveAtUtc: active.currentPeriodEndUtc });
    // Repeating it returns the same schedule; checkout for the other plan schedules the same change.
    expect((await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_10000' })).json.effectiveAtUtc).toBe(active.currentPeriodEndUtc);
    expect((await checkout(headers, 'grading_10000')).json).toMatchObject({ action: 'scheduled', pendingPlan: 'grading_10000' });
    expect((await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_5000' })).json.code).toBe('plan_change_conflict');
    expect((await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_20000' })).json.code).toBe('invalid_plan');
    expect(await me(headers)).toMatchObject({ plan: 'grading_5000', pendingPlan: 'grading_10000', pendingPlanEffectiveAtUtc: active.currentPeriodEndUtc, gradesRemaining: 4999, monthlyAllowance: 5000 });

    await advanceTo(new Date(String(active.currentPeriodEndUtc)), HOUR + MINUTE);
    const changed = await waitFor(headers, (s) => s.status === 'active' && s.plan === 'grading_10000' && s.pendingPlan === null);
    expect(changed).toMatchObject({ status: 'active', plan: 'grading_10000', gradesRemaining: 10000, monthlyAllowance: 10000, pendingPlan: null });

    // Cancel: no further charges; access to the period end.
    const cancel = await post('/v1/subscriptions/cancel', headers);
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ status: 'active', plan: 'grading_10000', cancelAtPeriodEnd: true, accessEndsAtUtc: changed.currentPeriodEndUtc });
    expect((await post('/v1/subscriptions/cancel', headers)).json.accessEndsAtUtc).toBe(changed.currentPeriodEndUtc);
    expect((await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_5000' })).json.code).toBe('plan_change_conflict');
    await advanceTo(new Date(String(changed.currentPeriodEndUtc)), -MINUTE);
    expect(await grade(agentId)).toBe('allowance');
    await advanceTo(new Date(String(changed.currentPeriodEndUtc)), 1);
    const ended = await waitFor(headers, (s) => s.status === 'cancelled');
    expect(ended).toMatchObject({ status: 'cancelled', gradesRemaining: 0, unlimitedGrading: false, cancelAtPeriodEnd: false });
    expect(await grade(agentId)).toBe('subscription_required');
    expect((await post('/v1/subscriptions/cancel', headers)).status).toBe(404);

    // Returning subscriber: no trial, charged at checkout, the allowance at once.
    const again = await checkout(headers, 'grading_5000');
    expect(again.json).toMatchObject({ action: 'checkout', trialDays: 0 });
    await pay(again.json.checkoutUrl);
    const back = await waitFor(headers, (s) => s.status === 'active');
    expect(back).toMatchObject({ status: 'active', plan: 'grading_5000', unlimitedGrading: false, gradesRemaining: 5000 });
    expect(await grade(agentId)).toBe('allowance');
  }, 120_000);

  it('a card that declines: past due after the trial, checkout answers with the portal, a new card in the portal restores access; never paid: expired', async () => {
    const { agentId, headers } = await newAgent();
    await pay((await checkout(headers, 'grading_5000')).json.checkoutUrl, CARD_DECLINES);
    const trial = await waitFor(headers, (s) => s.status === 'trialing');
    await advanceTo(new Date(String(trial.trialEndsAtUtc)), HOUR + MINUTE);
    expect(await waitFor(headers, (s) => s.status === 'past_due')).toMatchObject({ status: 'past_due', gradesRemaining: 0 });
    expect(await grade(agentId)).toBe('subscription_required');

    const portal = await checkout(headers, 'grading_5000');
    expect(portal.json.action).toBe('portal');
    const portalUrl = new URL(String(portal.json.portalUrl));
    const page = await fetch(`${stack.baseUrl}${portalUrl.pathname}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('0341');
    const update = await fetch(`${stack.baseUrl}${portalUrl.pathname}/card`, { method: 'POST', body: new URLSearchParams({ card: CARD_PAYS }), redirect: 'manual' });
    expect(update.status).toBe(303);
    expect(await waitFor(headers, (s) => s.status === 'active')).toMatchObject({ status: 'active', gradesRemaining: 5000 });
    expect(await grade(agentId)).toBe('allowance');

    // Another account whose card never pays: retried, then the subscription ends as expired.
    const never = await newAgent();
    await pay((await checkout(never.headers, 'grading_10000')).json.checkoutUrl, OTHER_CARD_DECLINES);
    const neverTrial = await waitFor(never.headers, (s) => s.status === 'trialing');
    await advanceTo(new Date(String(neverTrial.trialEndsAtUtc)), 5 * DAY);
    expect(await waitFor(never.headers, (s) => s.status === 'expired')).toMatchObject({ status: 'expired', gradesRemaining: 0 });
    expect(await grade(never.agentId)).toBe('subscription_required');
    // Expired is not renewable: the portal and cancel answer 404; a new checkout has no trial.
    expect((await post('/v1/subscriptions/portal', never.headers)).status).toBe(404);
    expect((await checkout(never.headers, 'grading_5000')).json.trialDays).toBe(0);
  }, 120_000);

  it('one trial per person: a second account of the same owner gets no trial days and a trial_already_used problem', async () => {
    const first = await newAgent('same.owner@example.com');
    expect((await checkout(first.headers, 'grading_5000')).json).toMatchObject({ action: 'checkout', trialDays: 7, trialRefusal: null });
    const second = await newAgent('Same.Owner+second@Example.com');
    const refused = await checkout(second.headers, 'grading_5000');
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({ action: 'checkout', trialDays: 0, trialRefusal: { code: 'trial_already_used', status: 409, title: 'Trial already used' } });
  }, 60_000);

  it('duplicated and reordered webhooks give the state of the newest provider event', async () => {
    const { agentId, headers } = await newAgent();
    const now = Math.floor((await clockNow()).getTime() / 1000);
    const subscriptionId = `sub_e2e_${agentId}`;
    const metadata = { purchase_kind: 'subscription', rail: 'checkout', agent_id: String(agentId), plan: 'grading_5000', price_cents: '25000', trial_days: '0', environment: 'local', checkout_id: '' };
    const subscription = (status: string, created: number, extra: object = {}) => ({
      id: subscriptionId,
      object: 'subscription',
      customer: `cus_e2e_${agentId}`,
      status,
      metadata,
      items: { data: [{ price: { id: 'price_e2e_unknown' }, current_period_start: now - 60, current_period_end: now + 30 * DAY }] },
      trial_start: null,
      trial_end: null,
      cancel_at_period_end: false,
      created,
      ...extra,
    });
    const event = (id: string, type: string, created: number, object: object) => ({ id, object: 'event', type, created, data: { object } });
    const invoice = {
      id: `in_e2e_${agentId}`,
      object: 'invoice',
      customer: `cus_e2e_${agentId}`,
      status: 'paid',
      amount_paid: 25000,
      amount_due: 25000,
      currency: 'usd',
      billing_reason: 'subscription_create',
      parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId, metadata } },
      lines: { data: [{ period: { start: now - 60, end: now + 30 * DAY }, pricing: { price_details: { price: 'price_e2e_unknown' } } }] },
    };
    const created = event(`evt_e2e_${agentId}_1`, 'customer.subscription.created', now - 60, subscription('incomplete', now - 60));
    const activated = event(`evt_e2e_${agentId}_2`, 'customer.subscription.updated', now - 59, subscription('active', now - 60));
    const paid = event(`evt_e2e_${agentId}_3`, 'invoice.paid', now - 59, invoice);
    const cancelled = event(`evt_e2e_${agentId}_4`, 'customer.subscription.updated', now - 30, subscription('active', now - 60, { cancel_at_period_end: true }));
    // Newest first, each twice: an arrival-order reading would end at `incomplete` without cancellation.
    for (const e of [cancelled, paid, cancelled, activated, created, paid, created, activated]) {
      const payload = JSON.stringify(e);
      const r = await stack.call('POST', '/v1/webhooks/stripe', { rawBody: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) } });
      expect(r.status).toBe(200);
    }
    const state = await waitFor(headers, (s) => s.status === 'active' && s.cancelAtPeriodEnd === true);
    expect(state).toMatchObject({ status: 'active', plan: 'grading_5000', gradesRemaining: 5000, cancelAtPeriodEnd: true });
    expect(await grade(agentId)).toBe('allowance');
    expect((await waitFor(headers, (s) => s.gradesRemaining === 4999)).gradesRemaining).toBe(4999);
  }, 60_000);

  it("a change made behind the gateway's back reaches GET /v1/subscriptions/me by billing's announcement, well within the TTL", async () => {
    const { agentId, headers } = await newAgent();
    expect(await me(headers)).toMatchObject({ status: 'none' }); // the gateway now keeps the agent's view
    // A checkout link made through billing's own API: this gateway sees no write of the agent's.
    await callUnary(billing, 'createSubscriptionCheckout', { agentId, plan: 'grading_5000', contactEmail: 'owner@example.com' }, { deadlineMs: 30_000 });
    const changed = Date.now();
    expect(await waitFor(headers, (s) => s.status === 'checkout_pending')).toMatchObject({ status: 'checkout_pending' });
    // The gateway's TTL (10 s) did not pass: the announcement did it (outbox relay, then the bus).
    expect(Date.now() - changed).toBeLessThan(8_000);
  });

  it('answers 400 for a bad plan or no contact email, 404 for management without a subscription', async () => {
    const { headers } = await newAgent();
    expect((await checkout(headers, 'grading_1')).json).toMatchObject({ status: 400, code: 'invalid_plan' });
    expect(String((await checkout(headers, undefined)).json.detail)).toContain('grading_5000');
    expect((await post('/v1/subscriptions/portal', headers)).status).toBe(404);
    expect((await post('/v1/subscriptions/cancel', headers)).status).toBe(404);
    expect((await post('/v1/subscriptions/change-plan', headers, { plan: 'grading_10000' })).status).toBe(404);
    const anonymous = await newAgent(null);
    expect((await checkout(anonymous.headers, 'grading_5000')).json).toMatchObject({ status: 400, code: 'contact_email_required' });
  });
}

describe('grading subscriptions e2e (embedded: PGlite, in-process bus, sandbox provider)', () => subscriptionSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'grading subscriptions e2e (infra: Postgres, Redis, Kafka, sandbox provider)', () => subscriptionSuite('infra'));
