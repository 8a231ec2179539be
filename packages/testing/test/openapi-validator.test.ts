import { describe, it, expect } from '@jest/globals';
import { expectMatchesOpenApi, matchPathTemplate } from '../src/openapi-validator';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM = 'application/problem+json';
const AUTH_HEADERS = { 'x-credits-remaining': '3', 'x-ratelimit-policy': 'per-key;limit=60;window=60s' };

const accepted = () => ({
  id: 123,
  status: 'queued',
  modules: ['identify', 'grade'],
  creditsCharged: 2,
  creditsRemaining: 1,
  links: { self: '/v1/scans/123' },
});

const problem = (code: string, status: number) => ({
  type: `https://api.example.test/api-docs/errors#${code}`,
  title: 'Problem',
  status,
  detail: 'Something happened.',
  code,
});

const identification = () => ({
  name: 'Ken Griffey Jr.', subject: 'Ken Griffey Jr.', category: 'baseball', year: '1989', set: 'Upper Deck',
  number: '1', parallel: '', printRun: '', confidence: 0.97, inCatalog: true, candidates: [],
});

const ratio = { leftRight: '56/44', topBottom: '52/48', left: 56, right: 44, top: 52, bottom: 48 };
const side = { centering: 7, corners: 8, edges: 8, surface: 9 };

const frontOnlyGrading = () => ({
  grade: 8,
  predictedGrade: null,
  subGrades: side,
  summary: 'Sharp corners.',
  justification: 'Front only.',
  centering: { front: ratio, back: null },
  subGradeConfidence: { centering: 0.6, corners: 0.5, edges: 0.5, surface: 0.5 },
  defects: [],
  notAssessed: ['back_centering', 'back_corners', 'back_edges', 'back_surface'],
  notAssessedReasons: ['back_centering', 'back_corners', 'back_edges', 'back_surface'].map((item) => ({ item, reason: 'the back was not photographed' })),
  frontBack: { front: side, back: null },
  engine: { version: 'cardlens-vision-29', rubricVersion: '1.2.0' },
  links: { overlay: '/v1/scans/123/overlay' },
});

const value = () => ({
  rawEstimate: null,
  gradedEstimate: 42.5,
  currency: 'USD',
  gradedValueSpread: [{ grade: 9, value: 60, confidence: 'Medium' }],
  reasons: ['No recent raw sales.'],
  freshness: { latestSaleDate: '2026-10-30', compCount: 4 },
  sampleData: false,
  printing: 'Holofoil',
  rawRange: { low: 30, high: 55.5 },
  sources: { raw: null, graded: { name: 'PriceCharting graded values of this card', asOf: '2025-10-20', dataPoints: 5, attribution: 'Graded values: PriceCharting' } },
});

const market = () => ({
  insights: 'Stable demand.',
  gradingRecommendation: 'neutral',
  context: null,
  trend: { change30dPercent: 1.5, change90dPercent: null, salesLast30Days: 0, salesLast90Days: 0, basis: 'daily_market_price', priceDaysLast30Days: 30, volatility30dPercent: 8.2 },
});

const gradeCompleted = (overrides: Record<string, unknown> = {}) => ({
  id: 7,
  gradeId: 'grade_7',
  status: 'completed',
  grading: {
    grade: 9, predictedGrade: 9, subGrades: side, front: side, back: side, centering: { front: ratio, back: ratio },
  },
  billingSource: 'subscription',
  gradesCharged: 1,
  creditsCharged: 0,
  createdAt: '2026-11-02T10:00:00Z',
  completedAt: '2026-11-02T10:00:20Z',
  links: { self: '/v1/grades/7' },
  reportExpiresAt: null,
  ...overrides,
});

const balance = (overrides: Record<string, unknown> = {}) => ({
  prepaidCredits: 0, plan: 'grading_10000', status: 'active', unlimitedGrading: false, trialEndsAtUtc: null,
  gradesRemaining: 9999, monthlyAllowance: 10000, currentPeriodStartUtc: '2026-11-01T00:00:00Z',
  currentPeriodEndUtc: '2026-12-01T00:00:00Z', cancelAtPeriodEnd: false, pendingPlan: null,
  pendingPlanEffectiveAtUtc: null, gradesUsed: 1, accessEndsAtUtc: '2026-12-01T00:00:00Z', trialRefusal: null, ...overrides,
});

describe('matchPathTemplate', () => {
  it('maps actual paths to templates, literal first, ignoring the query', () => {
    expect(matchPathTemplate('/v1/scans/123')).toBe('/v1/scans/{id}');
    expect(matchPathTemplate('/v1/scans/123/overlay')).toBe('/v1/scans/{id}/overlay');
    expect(matchPathTemplate('/v1/scans')).toBe('/v1/scans');
    expect(matchPathTemplate('/v1/agents/me?x=1')).toBe('/v1/agents/me');
    expect(matchPathTemplate('/v1/grades/5')).toBe('/v1/grades/{id}');
    expect(matchPathTemplate('/v2/scans')).toBeUndefined();
  });
});

describe('expectMatchesOpenApi', () => {
  it('accepts a correct 202 and rejects one missing creditsRemaining', () => {
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, accepted(), { ...AUTH_HEADERS, location: 'https://api.example/v1/scans/42' })).not.toThrow();
    const { creditsRemaining: _omit, ...wrong } = accepted();
    expect(() => expectMatchesOpenApi('post', '/v1/scans', 202, JSON_TYPE, wrong)).toThrow(/creditsRemaining/);
  });

  it('accepts JSON given as a string or bytes', () => {
    const text = JSON.stringify(accepted());
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, text)).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, Buffer.from(text))).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, '{oops')).toThrow(/not valid JSON/);
  });

  it('checks problem records: all five members, a code allowed for that status', () => {
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/9', 404, PROBLEM, problem('scan_not_found', 404))).not.toThrow();
    const { code: _omit, ...noCode } = problem('scan_not_found', 404);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/9', 404, PROBLEM, noCode)).toThrow(/code/);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/9', 404, PROBLEM, problem('grade_not_found', 404))).toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 400, PROBLEM, problem('invalid_modules', 401))).toThrow(/status/);
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 400, JSON_TYPE, problem('invalid_modules', 400))).toThrow(
      /does not document content type application\/json/,
    );
  });

  it('requires the insufficient_credits extras on a 402 scan', () => {
    const body = { ...problem('insufficient_credits', 402), creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' };
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 402, PROBLEM, body)).not.toThrow();
    const { purchaseUrl: _omit, ...wrong } = body;
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 402, PROBLEM, wrong)).toThrow(/purchaseUrl/);
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 402, PROBLEM, { ...body, creditsRemaining: '1' })).toThrow();
  });

  it('fails loudly for undocumented paths, methods, statuses and content types', () => {
    expect(() => expectMatchesOpenApi('GET', '/v1/nope', 200, JSON_TYPE, {})).toThrow(/no documented path/);
    expect(() => expectMatchesOpenApi('DELETE', '/v1/scans/1', 200, JSON_TYPE, {})).toThrow(/not documented/);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/1', 418, JSON_TYPE, {})).toThrow(/418 is not documented/);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/1', 200, 'text/html', '<p>')).toThrow(/text\/html/);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/1', 200, undefined, {})).toThrow(/no content type/);
  });

  it('validates scan results by status and only the paid sections', () => {
    const path = '/v1/scans/123';
    // A completed scan carries its links (the share link while it lives) and when that link expires.
    const withLinks = (body: Record<string, unknown>) => (body.status === 'completed' ? { links: { self: path }, reportExpiresAt: null, ...body } : body);
    const ok = (body: Record<string, unknown>) => expectMatchesOpenApi('GET', path, 200, JSON_TYPE, withLinks(body), AUTH_HEADERS);
    expect(() => ok({ id: 123, status: 'processing', progressPercent: 40, statusMessage: null })).not.toThrow();
    expect(() => ok({ id: 123, status: 'failed', error: 'Scan failed.' })).not.toThrow();
    expect(() => ok({ id: 123, status: 'failed' })).toThrow(/error/);
    expect(() => ok({ id: 123, status: 'exploded', progressPercent: 1 })).toThrow();
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['identify', 'grade'], identification: identification(), grading: frontOnlyGrading() }),
    ).not.toThrow();
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['full'], completedAt: null, identification: identification(),
        grading: frontOnlyGrading(), value: value(), market: market() }),
    ).not.toThrow();
    // grading present although only identify was paid for
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['identify'], identification: identification(), grading: frontOnlyGrading() }),
    ).toThrow();
    // market paid but value missing
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['market'], identification: identification(), market: market() }),
    ).toThrow();
    // a zero estimate is not allowed: no coverage is null
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['market'], identification: identification(),
        value: { ...value(), rawEstimate: 0 }, market: market() }),
    ).toThrow();
    expect(() =>
      ok({ id: 123, status: 'completed', modules: ['market'], identification: identification(), value: value(),
        market: { ...market(), gradingRecommendation: 'maybe' } }),
    ).toThrow();
  });

  it('checks documented response headers when given (plain object or fetch Headers)', () => {
    expect(() => expectMatchesOpenApi('GET', '/v1/agents/me', 200, JSON_TYPE, {
      agentId: 1, name: 'bot', tier: 'anonymous', credits: 1, createdAt: '2026-11-02T10:00:00Z',
    }, new Headers({ 'X-Credits-Remaining': '1', 'X-RateLimit-Policy': 'per-key;limit=60;window=60s' }))).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, accepted(), {})).toThrow(/X-Credits-Remaining/);
    expect(() =>
      expectMatchesOpenApi('POST', '/v1/scans', 202, JSON_TYPE, accepted(), { 'X-Credits-Remaining': 'many' }),
    ).toThrow(/X-Credits-Remaining/);
    expect(() => expectMatchesOpenApi('GET', '/v1/pricing', 429, PROBLEM, problem('rate_limited', 429), {})).toThrow(/Retry-After/);
    expect(() =>
      expectMatchesOpenApi('GET', '/v1/pricing', 429, PROBLEM, problem('rate_limited', 429), { 'retry-after': 30 }),
    ).not.toThrow();
  });

  it('checks the PNG overlay', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/5/overlay', 200, 'image/png', png, AUTH_HEADERS)).not.toThrow();
    expect(() => expectMatchesOpenApi('GET', '/v1/scans/5/overlay', 200, 'image/png', Buffer.from('GIF89a'))).toThrow(/PNG/);
  });

  it('validates commercial grades and subscription balances', () => {
    expect(() => expectMatchesOpenApi('POST', '/v1/grades', 200, JSON_TYPE, gradeCompleted())).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/grades', 200, JSON_TYPE, gradeCompleted({ billingSource: 'trial' }))).toThrow();
    expect(() =>
      expectMatchesOpenApi('POST', '/v1/grades', 200, JSON_TYPE, gradeCompleted({ billingSource: 'trial', gradesCharged: 0 })),
    ).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/grades', 200, JSON_TYPE, gradeCompleted({ creditsCharged: 1 }))).toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/grades', 200, JSON_TYPE, gradeCompleted({ gradeId: '7' }))).toThrow();
    expect(() =>
      expectMatchesOpenApi('GET', '/v1/grades/7', 200, JSON_TYPE, gradeCompleted({
        status: 'processing', grading: undefined, completedAt: null,
      })),
    ).not.toThrow();
    expect(() => expectMatchesOpenApi('GET', '/v1/subscriptions/me', 200, JSON_TYPE, balance())).not.toThrow();
    expect(() =>
      expectMatchesOpenApi('GET', '/v1/subscriptions/me', 200, JSON_TYPE, balance({ unlimitedGrading: true, gradesRemaining: 5 })),
    ).toThrow();
    expect(() =>
      expectMatchesOpenApi('GET', '/v1/subscriptions/me', 200, JSON_TYPE, balance({ status: 'paused' })),
    ).toThrow();
  });

  it('accepts both purchase rails and an empty MCP 202', () => {
    const rail = { pack: 'starter', credits: 25, priceUsd: 5 };
    expect(() => expectMatchesOpenApi('POST', '/v1/credits/purchase', 200, JSON_TYPE, {
      ...rail, checkoutUrl: 'https://checkout.example.test/c/1', expiresAt: '2026-11-03T10:00:00Z',
    })).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/credits/purchase', 200, JSON_TYPE, {
      ...rail, status: 'succeeded', creditsRemaining: 26, paymentIntentId: 'pi_1',
    })).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/v1/credits/purchase', 200, JSON_TYPE, rail)).toThrow();
    expect(() => expectMatchesOpenApi('POST', '/mcp', 202, undefined, '')).not.toThrow();
    expect(() => expectMatchesOpenApi('POST', '/mcp', 202, JSON_TYPE, { jsonrpc: '2.0' })).toThrow(/documents none/);
  });
});
