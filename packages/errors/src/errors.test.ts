import { describe, it, expect } from '@jest/globals';
import { AppError, errorTable, errorCodes, isTransientDependencyFailure, problemFor, problemFromError, toClientError } from './index';

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

describe('retry hints', () => {
  it("gives the spec's retryable 500s and the transient 503s a Retry-After; a thrower's own figure wins", () => {
    expect(new AppError('pricing_unavailable').retryAfterSeconds).toBe(5);
    expect(new AppError('enqueue_failed').retryAfterSeconds).toBe(5);
    expect(new AppError('service_unavailable').retryAfterSeconds).toBe(5);
    expect(new AppError('billing_unavailable').retryAfterSeconds).toBe(5);
    expect(new AppError('grader_busy').retryAfterSeconds).toBe(2);
    expect(new AppError('service_unavailable', 'starting', { retryAfterSeconds: 1 }).retryAfterSeconds).toBe(1);
    expect(new AppError('internal_error').retryAfterSeconds).toBeUndefined();
    expect(new AppError('invalid_pack').retryAfterSeconds).toBeUndefined();
  });

  it('tells a dropped or restarting dependency from a bug, through cause chains', () => {
    const pgShutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(isTransientDependencyFailure(new Error('query failed', { cause: pgShutdown }))).toBe(true);
    expect(isTransientDependencyFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDependencyFailure(Object.assign(new Error("Can't reach database server"), { code: 'P1001' }))).toBe(true);
    expect(isTransientDependencyFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDependencyFailure(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isTransientDependencyFailure(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isTransientDependencyFailure(undefined)).toBe(false);
  });

  it('renders a dropped connection as 503 service_unavailable and a bug as a generic 500, neither leaking the cause', () => {
    const dropped = toClientError(new Error('Invalid prisma.scan.update() invocation', { cause: Object.assign(new Error('Connection terminated'), { code: '08006' }) }));
    expect(dropped).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 5 });
    const problem = problemFromError('http://x', new Error('Invalid prisma.scan.update() invocation', { cause: { code: '08006' } }));
    expect(problem).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(JSON.stringify(problem)).not.toMatch(/prisma|08006/);
    expect(problemFromError('http://x', new Error('relation "x" does not exist'))).toMatchObject({ status: 500, code: 'internal_error', detail: 'An unexpected error occurred. It is safe to retry.' });
  });
});
