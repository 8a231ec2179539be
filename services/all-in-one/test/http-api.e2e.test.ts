import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSample } from '@cardlens/card-synth';
import { billingEventsV1, events, inferenceV1, timestampFromDate, valuationV1 } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { describeWithInfra } from '@cardlens/testing';
import { startStack, type Stack, type StackMode } from './stack';

// HTTP end-to-end: every request goes client → gateway → gRPC → accounts/billing → database, and every
// response is checked against the OpenAPI document by stack.call(). The same suite runs on the embedded
// defaults (PGlite, memory limits) and on the real Postgres + Redis.

let ipCounter = 0;
/** A fresh client address per use (TEST-NET-3), so per-IP limits of one test do not touch another. */
const freshIp = () => `203.0.113.${++ipCounter % 250}`;
const KEY_PATTERN = /^clk_[A-Za-z0-9]{40}$/;

function apiSuite(mode: StackMode) {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(mode);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const register = async (body: Record<string, unknown>, ip = freshIp()) => stack.call('POST', '/v1/agents', { body, ip });

  describe('registration', () => {
    it('anonymous agents get 1 trial credit and a key shown once', async () => {
      const r = await register({ name: 'anon bot' });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ tier: 'anonymous', credits: 1, docsUrl: `${stack.baseUrl}/api-docs` });
      expect(r.json.apiKey).toMatch(KEY_PATTERN);
      expect(r.json).not.toHaveProperty('note');
      expect(typeof r.json.agentId).toBe('number');
    });

    it('a contact email makes the tier registered with 3 credits', async () => {
      const r = await register({ name: 'reg bot', contactEmail: 'owner@example.com', operatorUrl: 'https://operator.example/bot' });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ tier: 'registered', credits: 3 });
    });

    it('commercial-only agents get no prepaid credits', async () => {
      const r = await register({ name: 'biz', contactEmail: 'biz@example.com', commercialOnly: true });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ tier: 'registered', credits: 0 });
      expect(r.json.message).toMatch(/subscriptions\/checkout/);
      expect(r.json).not.toHaveProperty('note');
    });

    it.each([
      ['missing name', {}, /name/],
      ['name over 100', { name: 'n'.repeat(101) }, /100/],
      ['name not a string', { name: 7 }, /name/],
      ['bad email', { name: 'x', contactEmail: 'nope' }, /contactEmail/],
      ['email over 256', { name: 'x', contactEmail: `${'a'.repeat(252)}@b.io` }, /contactEmail/],
      ['relative operatorUrl', { name: 'x', operatorUrl: '/bot' }, /operatorUrl/],
      ['ftp operatorUrl', { name: 'x', operatorUrl: 'ftp://x.example' }, /operatorUrl/],
      ['operatorUrl over 512', { name: 'x', operatorUrl: `https://x.example/${'p'.repeat(500)}` }, /512/],
      ['commercialOnly not boolean', { name: 'x', commercialOnly: 'true' }, /commercialOnly/],
      ['body is an array', [1, 2], /JSON object/],
    ])('%s → 400 invalid_body', async (_label, body, detail) => {
      const r = await stack.call('POST', '/v1/agents', { body, ip: freshIp() });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'invalid_body', status: 400, title: 'Invalid request body', type: `${stack.baseUrl}/api-docs/errors#invalid_body` });
      expect(String(r.json.detail)).toMatch(detail);
    });

    it('malformed JSON, wrong media type and oversize bodies are problems too', async () => {
      const bad = await stack.call('POST', '/v1/agents', { rawBody: '{"name":', headers: { 'Content-Type': 'application/json' }, ip: freshIp() });
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('invalid_body');
      const text = await stack.call('POST', '/v1/agents', { rawBody: 'name=x', headers: { 'Content-Type': 'text/plain' }, ip: freshIp() });
      expect(text.status).toBe(415);
      expect(text.json.code).toBe('unsupported_media_type');
      const big = await stack.call('POST', '/v1/agents', { body: { name: 'x', pad: 'p'.repeat(70_000) }, ip: freshIp() });
      expect(big.status).toBe(413);
      expect(big.json.code).toBe('body_too_large');
    });
  });

  describe('authentication', () => {
    let apiKey: string;
    beforeAll(async () => {
      apiKey = String((await register({ name: 'auth bot', contactEmail: 'a@example.com' })).json.apiKey);
    });

    it('GET /v1/agents/me works with Bearer and with X-Api-Key, with the headers the spec promises', async () => {
      for (const headers of [{ Authorization: `Bearer ${apiKey}` }, { 'X-Api-Key': apiKey }] as Record<string, string>[]) {
        const r = await stack.call('GET', '/v1/agents/me', { headers });
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ name: 'auth bot', tier: 'registered', credits: 3, keyPrefix: apiKey.slice(0, 12) });
        expect(r.json.balances).toMatchObject({ prepaidCredits: 3, gradingSubscription: { status: 'none', unlimitedGrading: false } });
        expect(r.headers.get('x-credits-remaining')).toBe('3');
        expect(r.headers.get('x-ratelimit-policy')).toBe('per-key;limit=60;window=60s');
        expect(new Date(String(r.json.createdAt)).toISOString()).toBe(r.json.createdAt);
      }
    });

    it.each([
      ['no key', {}],
      ['malformed bearer', { Authorization: 'Bearer clk_short' }],
      ['unknown well-formed key', { Authorization: `Bearer clk_${'A'.repeat(40)}` }],
      ['Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
      ['malformed X-Api-Key', { 'X-Api-Key': 'not-a-key' }],
      ['unknown X-Api-Key', { 'X-Api-Key': `clk_${'b'.repeat(40)}` }],
    ])('%s → 401 invalid_api_key', async (_label, headers) => {
      const r = await stack.call('GET', '/v1/agents/me', { headers });
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'invalid_api_key', status: 401 });
      expect(r.headers.get('x-credits-remaining')).toBeNull();
    });

    it('never accepts a key in the URL, even a valid one', async () => {
      const r = await stack.call('GET', `/v1/agents/me?api_key=${apiKey}`);
      expect(r.status).toBe(401);
      expect(String(r.json.detail)).toMatch(/never accepted in URLs/);
      expect(JSON.stringify(r.json)).not.toContain(apiKey);
    });
  });

  describe('rate limits', () => {
    it('the 61st authenticated request in a minute gets 429 rate_limited with Retry-After', async () => {
      const key = String((await register({ name: 'busy bot' })).json.apiKey);
      for (let i = 0; i < 60; i++) {
        const ok = await stack.call('GET', '/v1/agents/me', { headers: { 'X-Api-Key': key } });
        expect(ok.status).toBe(200);
      }
      const limited = await stack.call('GET', '/v1/agents/me', { headers: { 'X-Api-Key': key } });
      expect(limited.status).toBe(429);
      expect(limited.json.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // The budget is per key: another agent is unaffected.
      const other = String((await register({ name: 'calm bot' })).json.apiKey);
      expect((await stack.call('GET', '/v1/agents/me', { headers: { 'X-Api-Key': other } })).status).toBe(200);
    });

    it('registration allows 5 attempts per hour per IP, failed ones included', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) expect((await register({ name: '' }, ip)).status).toBe(400);
      const sixth = await register({ name: 'now valid' }, ip);
      expect(sixth.status).toBe(429);
      expect(sixth.json.code).toBe('rate_limited');
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(60);
      expect((await register({ name: 'elsewhere' }, freshIp())).status).toBe(201);
    });

    it('at most 3 new agents per IP per 24 h, counting successful creations only', async () => {
      const ip = freshIp();
      expect((await register({ name: 'n'.repeat(101) }, ip)).status).toBe(400); // does not count as a creation
      for (let i = 0; i < 3; i++) expect((await register({ name: `agent ${i}` }, ip)).status).toBe(201);
      const fourth = await register({ name: 'one too many' }, ip);
      expect(fourth.status).toBe(429);
      expect(fourth.json.code).toBe('rate_limited');
      expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(3600);
    });
  });

  describe('payment confirmations on the bus', () => {
    it('a confirmed credit-pack purchase makes the agent paid, once, even when redelivered', async () => {
      const registered = await register({ name: 'buyer bot' });
      const agentId = Number(registered.json.agentId);
      const confirmation = events.paymentConfirmationReceived.encode(
        billingEventsV1.PaymentConfirmationReceived.fromPartial({
          providerEventId: `evt_${agentId}`,
          kind: billingEventsV1.PaymentKind.CREDIT_PACK,
          agentId,
          pack: 'starter',
          amountCents: 500,
          currency: 'usd',
          credits: 25,
          paymentIntentId: `pi_bus_${agentId}`,
          occurredAt: timestampFromDate(new Date()),
        }),
      );
      const message = { id: `payment-${agentId}`, key: String(agentId), value: confirmation };
      await stack.bus.publish(events.paymentConfirmationReceived.topic, [message]);
      await stack.bus.publish(events.paymentConfirmationReceived.topic, [message]); // a redelivery
      const key = { 'X-Api-Key': String(registered.json.apiKey) };
      let tier = '';
      for (let i = 0; i < 100 && tier !== 'paid'; i++) {
        tier = String((await stack.call('GET', '/v1/agents/me', { headers: key })).json.tier);
        if (tier !== 'paid') await new Promise((r) => setTimeout(r, 150));
      }
      expect(tier).toBe('paid');
      // Billing consumed the same confirmation: the credits once (1 trial + 25).
      let credits = 0;
      for (let i = 0; i < 100 && credits !== 26; i++) {
        credits = Number((await stack.call('GET', '/v1/agents/me', { headers: key })).json.credits);
        if (credits !== 26) await new Promise((r) => setTimeout(r, 100));
      }
      expect(credits).toBe(26);
    });
  });

  describe('open price lists', () => {
    it('GET /v1/pricing has the module costs, packs and trial amounts', async () => {
      const r = await stack.call('GET', '/v1/pricing', { ip: freshIp() });
      expect(r.status).toBe(200);
      const modules = Object.fromEntries((r.json.modules as { key: string; credits: number; available: boolean }[]).map((m) => [m.key, m]));
      expect(modules).toMatchObject({ identify: { credits: 1 }, grade: { credits: 1 }, market: { credits: 1 }, full: { credits: 2 }, deep: { credits: 3, available: false } });
      expect(r.json.trial).toEqual({ anonymous: 1, registered: 3 });
      expect(r.json.packs).toEqual([
        { key: 'starter', displayName: 'Starter', credits: 25, priceUsd: 5 },
        { key: 'builder', displayName: 'Builder', credits: 120, priceUsd: 19 },
        { key: 'scale', displayName: 'Scale', credits: 400, priceUsd: 49 },
      ]);
      expect(r.headers.get('x-credits-remaining')).toBeNull();
    });

    it('GET /v1/credits/packs says how to purchase', async () => {
      const r = await stack.call('GET', '/v1/credits/packs', { ip: freshIp() });
      expect(r.status).toBe(200);
      expect((r.json.packs as unknown[]).length).toBe(3);
      expect(r.json.purchase).toMatch(/POST \/v1\/credits\/purchase/);
    });

    it('GET /v1/subscriptions/plans lists both grading plans with the trial', async () => {
      const r = await stack.call('GET', '/v1/subscriptions/plans', { ip: freshIp() });
      expect(r.status).toBe(200);
      expect(r.json.plans).toEqual([
        expect.objectContaining({ key: 'grading_5000', gradesPerMonth: 5000, priceUsd: 250, currency: 'USD', trialDays: 7 }),
        expect.objectContaining({ key: 'grading_10000', gradesPerMonth: 10000, priceUsd: 449, currency: 'USD', trialDays: 7 }),
      ]);
    });
  });

  describe('inference', () => {
    it('grades a photographed card over gRPC on its own loopback port', async () => {
      const client = createClient(inferenceV1.InferenceServiceClient, `127.0.0.1:${stack.ports.inference}`);
      try {
        const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
        const r = await callUnary(client, 'analyzeCard', { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: true, wantEvidence: false, wantOverlay: false }, { deadlineMs: 60_000 });
        expect(r.frontDetection?.found).toBe(true);
        expect(Math.abs(r.grading!.frontCentering!.leftRight - sample.label.centering.front.leftRight)).toBeLessThan(2);
        expect(r.grading!.justification.length).toBeGreaterThan(20);
      } finally {
        client.close();
      }
    }, 120_000);
  });

  describe('valuation', () => {
    it('identifies the evidence inference reads from a photographed card and values it, over gRPC', async () => {
      const inference = createClient(inferenceV1.InferenceServiceClient, `127.0.0.1:${stack.ports.inference}`);
      const valuation = createClient(valuationV1.ValuationServiceClient, `127.0.0.1:${stack.ports.valuation}`);
      try {
        const r = await callUnary(valuation, 'identifyCard', {
          evidence: { titleText: 'Charizard', titleAlternatives: [], numberText: '4/102', numberAlternatives: [], serialText: '', copyrightText: '©1999 Wizards', fingerprint: [], finishCues: ['holo'], otherText: [], borderColor: 'yellow', holderLabelText: [] },
        }, { deadlineMs: 10_000 });
        expect(r).toMatchObject({ inCatalog: true, cardId: 'base1-4' });
        expect(r.identification).toMatchObject({ name: 'Charizard', set: 'Base Set', number: '4/102', year: '1999', category: 'Pokemon' });
        // Charizard has real TCGplayer prices (the test snapshot's last day is 2025-10-25) and its PriceCharting table.
        const value = await callUnary(valuation, 'valueCard', { cardId: 'base1-4', parallel: '', predictedGrade: 8, gradeDistribution: [] }, { deadlineMs: 10_000 });
        expect(value.value).toMatchObject({ rawEstimateCents: 46_045, gradedEstimateCents: 65_000, sampleData: false, printing: 'Holofoil' });
        expect(value.value!.rawSource).toMatchObject({ name: 'TCGplayer market price', asOf: '2025-10-25' });
        const market = await callUnary(valuation, 'analyzeMarket', { cardId: 'base1-4', parallel: '', predictedGrade: 8, gradeDistribution: [] }, { deadlineMs: 10_000 });
        expect(market.market!.context).toMatch(/TCGplayer/);
        // A card without a TCGplayer id (a TCG Pocket promo) has no real price: the test catalog gives it sample sales, a
        // number labelled sample data.
        const unpriced = await callUnary(valuation, 'valueCard', { cardId: 'P-A-009', parallel: '', predictedGrade: 8, gradeDistribution: [] }, { deadlineMs: 10_000 });
        expect(unpriced.value!.rawEstimateCents).toBeGreaterThan(0);
        expect(unpriced.value!.sampleData).toBe(true);
        expect(unpriced.value!.rawSource?.name).toMatch(/sample sales/);
        // From a photo: inference's evidence goes straight into identification.
        const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
        const analysis = await callUnary(inference, 'analyzeCard', { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: false, wantEvidence: true, wantOverlay: false }, { deadlineMs: 60_000 });
        const fromPhoto = await callUnary(valuation, 'identifyCard', { evidence: analysis.evidence! }, { deadlineMs: 10_000 });
        // The test catalog is a sample, so the photographed card may be absent: then it says why, with no card id.
        expect(fromPhoto.inCatalog ? fromPhoto.cardId : fromPhoto.notInCatalogReason).toBeTruthy();
      } finally {
        inference.close();
        valuation.close();
      }
    }, 120_000);
  });

  describe('problems for everything else', () => {
    it('unknown routes → 404 not_found', async () => {
      const r = await stack.call('GET', '/v1/nothing-here', { undocumented: true });
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ code: 'not_found', type: `${stack.baseUrl}/api-docs/errors#not_found` });
    });

    it('wrong methods → 405 method_not_allowed with Allow', async () => {
      const r = await stack.call('DELETE', '/v1/pricing', { undocumented: true });
      expect(r.status).toBe(405);
      expect(r.json.code).toBe('method_not_allowed');
      expect(r.headers.get('allow')).toBe('GET, HEAD');
      const p = await stack.call('PUT', '/v1/agents', { body: {}, undocumented: true });
      expect(p.status).toBe(405);
      expect(p.headers.get('allow')).toBe('POST');
    });

    it('answers the liveness and readiness probes', async () => {
      expect((await stack.call('GET', '/healthz')).json).toEqual({ status: 'ok' });
      const ready = await stack.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json).toEqual({ status: 'ready', checks: { accounts: 'ok', billing: 'ok', scans: 'ok', grading: 'ok', rateLimits: 'ok' } });
    });

    it('serves the OpenAPI document and the error catalogue that problem types point to', async () => {
      const doc = await stack.call('GET', '/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.json).toMatchObject({ openapi: '3.1.0', info: { version: '1.5.0' } });
      const errors = await stack.call('GET', '/api-docs/errors');
      expect(errors.status).toBe(200);
      expect(String(errors.body)).toContain('id="insufficient_credits"');
    });
  });
}

describe('HTTP API on the embedded defaults (PGlite, in-memory limits)', () => apiSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'HTTP API on real Postgres, Redis and Kafka', () => apiSuite('infra'));

describe('the global daily trial pool', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('embedded', { TRIAL_POOL_DAILY_CREDITS: '4' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('when exhausted, registration still succeeds with 0 credits and a note on how to buy', async () => {
    const first = await stack.call('POST', '/v1/agents', { body: { name: 'a', contactEmail: 'a@example.com' }, ip: freshIp() });
    expect(first.json.credits).toBe(3);
    const second = await stack.call('POST', '/v1/agents', { body: { name: 'b', contactEmail: 'b@example.com' }, ip: freshIp() });
    expect(second.status).toBe(201);
    expect(second.json.credits).toBe(0);
    expect(second.json.note).toMatch(/\/v1\/credits\/packs/);
    // All or nothing: one credit is left in the pool, enough for an anonymous agent.
    const third = await stack.call('POST', '/v1/agents', { body: { name: 'c' }, ip: freshIp() });
    expect(third.json.credits).toBe(1);
    expect(third.json).not.toHaveProperty('note');
    const fourth = await stack.call('POST', '/v1/agents', { body: { name: 'd' }, ip: freshIp() });
    expect(fourth.json.credits).toBe(0);
    const me = await stack.call('GET', '/v1/agents/me', { headers: { 'X-Api-Key': String(second.json.apiKey) } });
    expect(me.json.credits).toBe(0);
    expect(me.headers.get('x-credits-remaining')).toBe('0');
  });
});
