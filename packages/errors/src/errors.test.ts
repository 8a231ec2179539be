import { describe, it, expect } from '@jest/globals';
import { AppError, errorTable, errorCodes, problemFor, problemFromError } from './index';

describe('error table', () => {
  it('has every code the spec names with its HTTP status', () => {
    const spec: Record<string, number> = {
      missing_front_image: 400, invalid_image_url: 400, invalid_modules: 400, deep_unsupported: 400,
      image_too_large: 400, invalid_image: 400, invalid_idempotency_key: 400, invalid_body: 400, invalid_pack: 400,
      invalid_api_key: 401, insufficient_credits: 402, spt_payment_incomplete: 402, subscription_required: 402,
      grading_allowance_exhausted: 402, subscription_grading_only: 403, scan_not_found: 404,
      idempotency_conflict: 409, rate_limited: 429, grade_in_flight: 429, pricing_unavailable: 500,
      enqueue_failed: 500, spt_not_enabled: 501, stripe_error: 502, spt_stripe_error: 502,
    };
    for (const [code, status] of Object.entries(spec)) {
      expect(errorTable[code as keyof typeof errorTable]?.httpStatus).toBe(status);
    }
  });

  it('uses snake_case codes only', () => {
    for (const code of errorCodes) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});

describe('problem rendering', () => {
  it('renders the five members and the type URL', () => {
    const p = problemFor('https://api.example/', 'invalid_pack', 'Unknown pack "x". Valid: starter, builder, scale.');
    expect(p).toEqual({
      type: 'https://api.example/api-docs/errors#invalid_pack',
      title: 'Invalid credit pack',
      status: 400,
      detail: 'Unknown pack "x". Valid: starter, builder, scale.',
      code: 'invalid_pack',
    });
  });

  it('keeps extras but never lets them override standard members', () => {
    const err = new AppError('insufficient_credits', 'Need 2 credits, have 1.', {
      extras: { creditsRemaining: 1, purchaseUrl: '/v1/credits/packs', status: 999 },
    });
    const p = problemFromError('http://x', err);
    expect(p.status).toBe(402);
    expect(p.creditsRemaining).toBe(1);
    expect(p.purchaseUrl).toBe('/v1/credits/packs');
  });

  it('turns unknown failures into a generic 500 without internals', () => {
    const p = problemFromError('http://x', new Error('relation "billing.ledger" does not exist at /srv/app.ts:12'));
    expect(p.code).toBe('internal_error');
    expect(p.status).toBe(500);
    expect(JSON.stringify(p)).not.toMatch(/relation|ledger|app\.ts/);
  });
});
