import { beforeEach, describe, expect, it } from '@jest/globals';
import { billingV1, timestampFromIso, type billingSandboxV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { expectMatchesOpenApi } from '@cardlens/testing';
import type { AgentIdentity, Downstream, GradingSubscriptionView } from '../../src/downstream';
import { useTestGateway } from '../http/test-gateway';

// The subscription routes and the sandbox pages over real HTTP against a fake downstream: the request each
// sends to billing, and every JSON answer checked against the OpenAPI document.

const KEY = { 'X-Api-Key': 'clk_test' };
const AT = '2026-12-01T00:00:00.000Z';

const agent = (contactEmail: string | null): AgentIdentity => ({
  agentId: 7, name: 'grader', tier: 'registered', keyPrefix: 'clk_abcdefgh', contactEmail, createdAt: new Date(AT),
});

const balance = (overrides: Partial<GradingSubscriptionView> = {}): GradingSubscriptionView => ({
  plan: 'grading_5000', status: 'active', unlimitedGrading: false, trialEndsAtUtc: null, gradesRemaining: 4998,
  monthlyAllowance: 5000, currentPeriodStartUtc: '2026-11-01T00:00:00.000Z', currentPeriodEndUtc: AT,
  cancelAtPeriodEnd: false, pendingPlan: null, pendingPlanEffectiveAtUtc: null, gradesUsed: 2, accessEndsAtUtc: AT, trialRefusal: null,
  ...overrides,
});

const calls: unknown[][] = [];
let identity = agent('owner@example.com');
let checkoutResult: billingV1.CreateSubscriptionCheckoutResponse['result'];
let checkoutMode = 'payment';
let portal: billingSandboxV1.SandboxPortal;

const record = <T>(name: string, value: T) => (...args: unknown[]) => {
  calls.push([name, ...args]);
  return Promise.resolve(typeof value === 'function' ? (value as () => unknown)() : value);
};

const downstream = {
  authenticateApiKey: () => Promise.resolve(identity),
  getBalance: () => Promise.resolve({ credits: 3, hasPurchased: false }),
  createSubscriptionCheckout: record('createSubscriptionCheckout', () => {
    if (!identity.contactEmail) throw new AppError('contact_email_required', 'No contact email.');
    return checkoutResult;
  }),
  createPortalSession: record('createPortalSession', 'https://billing.example/p/session_1'),
  changePlan: record('changePlan', { plan: 'grading_10000', currentPlan: 'grading_5000', effectiveAt: timestampFromIso(AT) }),
  cancelSubscription: record('cancelSubscription', { accessEndsAtUtc: AT, subscription: balance({ cancelAtPeriodEnd: true }) }),
  getSubscriptionBalance: record('getSubscriptionBalance', { prepaidCredits: 3, gradingSubscription: balance() }),
  getSandboxCheckout: record('getSandboxCheckout', () => ({
    checkoutSessionId: 'cs_sandbox_1', status: 'open', description: 'CardLens Grading 5,000', amountCents: 25_000, currency: 'usd',
    expiresAt: timestampFromIso(AT), successUrl: '', cancelUrl: '', mode: checkoutMode, trialDays: checkoutMode === 'subscription' ? 7 : 0,
  })),
  completeSandboxCheckout: record('completeSandboxCheckout', 'http://gateway.test/checkout/subscribed?session_id=cs_sandbox_1'),
  getSandboxPortal: record('getSandboxPortal', () => portal),
  actOnSandboxPortal: record('actOnSandboxPortal', 'http://gateway.test/sandbox/portal/bps_sandbox_1'),
} as unknown as Downstream;

const gateway = useTestGateway(downstream);
beforeEach(() => {
  calls.length = 0;
  identity = agent('owner@example.com');
  checkoutMode = 'payment';
  portal = {
    portalSessionId: 'bps_sandbox_1', subscriptionId: 'sub_1', plan: 'grading_5000', status: 'past_due', cancelAtPeriodEnd: false,
    cardLast4: '0341', renewsOrEndsAt: timestampFromIso(AT), returnUrl: 'http://gateway.test/checkout/subscribed', priceCents: 25_000,
  };
});

/** One request; JSON and problem answers must match the OpenAPI document. */
async function call(method: string, path: string, init: { json?: unknown; raw?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | URLSearchParams | undefined = init.raw;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['Content-Type'] = 'application/json';
  } else if (init.form) {
    body = new URLSearchParams(init.form);
  }
  const response = await fetch(gateway.origin + path, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) });
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
  const text = await response.text();
  const parsed: unknown = type.includes('json') ? JSON.parse(text) : text;
  if (response.status !== 303) expectMatchesOpenApi(method, path, response.status, type, parsed, response.headers);
  return { status: response.status, headers: response.headers, json: (type.includes('json') ? parsed : {}) as Record<string, unknown>, text };
}

describe('POST /v1/subscriptions/checkout', () => {
  it('passes the plan and the agent’s contact email to billing and maps a trial checkout', async () => {
    checkoutResult = { $case: 'checkout', value: { checkoutUrl: 'https://checkout.example/cs_1', plan: 'grading_5000', expiresAt: timestampFromIso(AT), includesTrial: true, trialDays: 7 } };
    const r = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_5000' } });
    expect(r.status).toBe(200);
    expect(calls).toEqual([['createSubscriptionCheckout', 7, 'grading_5000', 'owner@example.com']]);
    expect(r.json).toEqual({
      action: 'checkout', plan: 'grading_5000', checkoutUrl: 'https://checkout.example/cs_1', expiresAt: AT, trialDays: 7, trialRefusal: null,
      message: 'Ask the account owner to open checkoutUrl and add a payment method; the 7-day trial starts after checkout and nothing is charged until it ends.',
    });
    expect(r.headers.get('x-credits-remaining')).toBe('3');
  });

  it('the second trial of one person: no trial days and a trial_already_used problem record in the 200 answer', async () => {
    const detail = "The account owner's email already had a grading trial on another account: one trial per person. This checkout charges the plan at once.";
    checkoutResult = {
      $case: 'checkout',
      value: { checkoutUrl: 'https://checkout.example/cs_3', plan: 'grading_5000', expiresAt: timestampFromIso(AT), includesTrial: false, trialDays: 0, trialRefusal: { code: 'trial_already_used', detail } },
    };
    const r = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_5000' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      action: 'checkout',
      trialDays: 0,
      trialRefusal: { type: 'http://gateway.test/api-docs/errors#trial_already_used', title: 'Trial already used', status: 409, detail, code: 'trial_already_used' },
      message: `Ask the account owner to open checkoutUrl; the plan is charged at checkout, without a trial: ${detail}`,
    });
  });

  it('maps a returning subscriber’s checkout, the portal and a scheduled change', async () => {
    checkoutResult = { $case: 'checkout', value: { checkoutUrl: 'https://checkout.example/cs_2', plan: 'grading_10000', expiresAt: timestampFromIso(AT), includesTrial: false, trialDays: 0 } };
    const paid = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_10000' } });
    expect(paid.json).toMatchObject({ action: 'checkout', trialDays: 0, message: 'Ask the account owner to open checkoutUrl; the plan is charged at checkout (no trial for returning subscribers).' });

    checkoutResult = { $case: 'portalUrl', value: 'https://billing.example/p/session_2' };
    const portalAnswer = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_5000' } });
    expect(portalAnswer.json).toMatchObject({ action: 'portal', portalUrl: 'https://billing.example/p/session_2' });

    checkoutResult = { $case: 'scheduled', value: { plan: 'grading_10000', currentPlan: 'grading_5000', effectiveAt: timestampFromIso(AT) } };
    const scheduled = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_10000' } });
    expect(scheduled.json).toMatchObject({ action: 'scheduled', plan: 'grading_5000', pendingPlan: 'grading_10000', effectiveAtUtc: AT });
  });

  it('refuses a missing or non-string plan with invalid_plan listing the keys, without calling billing', async () => {
    for (const json of [{}, { plan: null }, { plan: 5000 }]) {
      const r = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json });
      expect(r.json).toMatchObject({ status: 400, code: 'invalid_plan' });
      expect(String(r.json.detail)).toContain('grading_5000, grading_10000');
    }
    expect(calls).toEqual([]);
  });

  it('answers invalid_body for a non-object or malformed body and 415 for a body that is not JSON', async () => {
    expect((await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: ['grading_5000'] })).json.code).toBe('invalid_body');
    const malformed = await call('POST', '/v1/subscriptions/checkout', { headers: { ...KEY, 'Content-Type': 'application/json' }, raw: '{"plan":' });
    expect(malformed.json).toMatchObject({ status: 400, code: 'invalid_body' });
    expect((await call('POST', '/v1/subscriptions/checkout', { headers: KEY, form: { plan: 'grading_5000' } })).status).toBe(415);
  });

  it('passes an empty email for an account without one (billing answers contact_email_required)', async () => {
    identity = agent(null);
    const r = await call('POST', '/v1/subscriptions/checkout', { headers: KEY, json: { plan: 'grading_5000' } });
    expect(r.json).toMatchObject({ status: 400, code: 'contact_email_required' });
    expect(calls).toEqual([['createSubscriptionCheckout', 7, 'grading_5000', '']]);
  });
});

describe('portal, change-plan, cancel, me', () => {
  it('POST /v1/subscriptions/portal needs no body', async () => {
    const r = await call('POST', '/v1/subscriptions/portal', { headers: KEY });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ action: 'portal', portalUrl: 'https://billing.example/p/session_1' });
    expect(calls).toEqual([['createPortalSession', 7]]);
  });

  it('POST /v1/subscriptions/change-plan schedules the plan', async () => {
    const r = await call('POST', '/v1/subscriptions/change-plan', { headers: KEY, json: { plan: 'grading_10000' } });
    expect(r.json).toMatchObject({ action: 'scheduled', plan: 'grading_5000', pendingPlan: 'grading_10000', effectiveAtUtc: AT });
    expect(calls).toEqual([['changePlan', 7, 'grading_10000']]);
    expect((await call('POST', '/v1/subscriptions/change-plan', { headers: KEY, json: {} })).json.code).toBe('invalid_plan');
  });

  it('POST /v1/subscriptions/cancel needs no body and reports the access end', async () => {
    const r = await call('POST', '/v1/subscriptions/cancel', { headers: KEY });
    expect(r.json).toEqual({ status: 'active', plan: 'grading_5000', cancelAtPeriodEnd: true, accessEndsAtUtc: AT, message: 'No further charges. Grading access continues until accessEndsAtUtc.' });
  });

  it('GET /v1/subscriptions/me is prepaidCredits plus the grading subscription', async () => {
    const r = await call('GET', '/v1/subscriptions/me', { headers: KEY });
    expect(r.json).toEqual({ prepaidCredits: 3, ...balance() });
    expect(r.headers.get('x-credits-remaining')).toBe('3');
  });

  it('needs a key', async () => {
    expect((await call('GET', '/v1/subscriptions/me')).status).toBe(401);
  });
});

describe('owner pages', () => {
  it('GET /checkout/subscribed is a static page, with or without session_id', async () => {
    for (const path of ['/checkout/subscribed?session_id=cs_test_1', '/checkout/subscribed']) {
      const r = await call('GET', path);
      expect(r.status).toBe(200);
      expect(r.text).toContain('GET /v1/subscriptions/me');
    }
    expect(calls).toEqual([]);
  });

  it('the sandbox checkout page of a subscription shows the monthly price, the trial and the two test cards', async () => {
    checkoutMode = 'subscription';
    const page = await call('GET', '/sandbox/checkout/cs_sandbox_1');
    expect(page.text).toContain('SANDBOX: no money moves');
    expect(page.text).toContain('US$250.00 per month');
    expect(page.text).toContain('7-day free trial: nothing is charged today; the first charge is at the end of the trial');
    expect(page.text).toContain('value="4242424242424242" checked');
    expect(page.text).toContain('Visa 0341 (attaches; charges decline)');
    expect(page.text).toContain('id="pay"');
    expect(page.text).toContain('id="cancel"');
  });

  it('the sandbox checkout page of a credit pack is unchanged (amount, no cards)', async () => {
    const page = await call('GET', '/sandbox/checkout/cs_sandbox_1');
    expect(page.text).toContain('250.00 USD');
    expect(page.text).not.toContain('name="card"');
  });

  it('pay passes the chosen card (none without the field) and refuses any other', async () => {
    const chosen = await call('POST', '/sandbox/checkout/cs_sandbox_1/pay', { form: { card: '4000000000000341' } });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('http://gateway.test/checkout/subscribed?session_id=cs_sandbox_1');
    const plain = await call('POST', '/sandbox/checkout/cs_sandbox_1/pay');
    expect(plain.status).toBe(303);
    expect(calls).toEqual([
      ['completeSandboxCheckout', 'cs_sandbox_1', 'pay', '4000000000000341'],
      ['completeSandboxCheckout', 'cs_sandbox_1', 'pay', undefined],
    ]);
    expect((await call('POST', '/sandbox/checkout/cs_sandbox_1/pay', { form: { card: '4000000000000002' } })).json.code).toBe('invalid_body');
    expect(calls).toHaveLength(2);
  });

  it('a form with more fields than the sandbox pages accept is a 400 invalid_body, never a 500, and reaches nothing', async () => {
    const form = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`field${i}`, '4000000000000341']));
    for (const path of ['/sandbox/checkout/cs_sandbox_1/pay', '/sandbox/portal/bps_sandbox_1/card']) {
      const answer = await call('POST', path, { form });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_body', detail: 'The form has more fields than this endpoint accepts.' });
    }
    expect(calls).toHaveLength(0);
  });

  it('the sandbox portal shows the subscription and its forms; the card and cancel forms redirect to billing’s URL', async () => {
    const page = await call('GET', '/sandbox/portal/bps_sandbox_1');
    expect(page.status).toBe(200);
    for (const text of ['SANDBOX: no money moves', 'grading_5000', 'past_due', 'US$250.00 per month', 'ending in 0341', `Renews on: <strong>${AT}`, 'Cancel at period end', 'Visa 4242 (pays)']) {
      expect(page.text).toContain(text);
    }
    portal = { ...portal, cancelAtPeriodEnd: true };
    const cancelled = await call('GET', '/sandbox/portal/bps_sandbox_1');
    expect(cancelled.text).toContain(`Ends on: <strong>${AT}`);
    expect(cancelled.text).not.toContain('Cancel at period end</button>');

    calls.length = 0;
    const card = await call('POST', '/sandbox/portal/bps_sandbox_1/card', { form: { card: '4242424242424242' } });
    expect([card.status, card.headers.get('location')]).toEqual([303, 'http://gateway.test/sandbox/portal/bps_sandbox_1']);
    const cancel = await call('POST', '/sandbox/portal/bps_sandbox_1/cancel');
    expect(cancel.status).toBe(303);
    expect(calls).toEqual([
      ['actOnSandboxPortal', 'bps_sandbox_1', 'update_card', '4242424242424242'],
      ['actOnSandboxPortal', 'bps_sandbox_1', 'cancel_at_period_end'],
    ]);
    expect((await call('POST', '/sandbox/portal/bps_sandbox_1/card')).json.code).toBe('invalid_body');
  });

  it('answers not_found for a malformed portal id without asking billing', async () => {
    const r = await call('GET', '/sandbox/portal/cs_sandbox_1');
    expect(r.json).toMatchObject({ status: 404, code: 'not_found' });
    expect(calls).toEqual([]);
  });
});
