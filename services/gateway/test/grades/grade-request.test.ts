import { describe, expect, it } from '@jest/globals';
import { commonV1, gradingV1, timestampFromDate } from '@cardlens/contracts';
import { checkGradeModules, parseGradeId, requireIdempotencyKey } from '../../src/http/grade-request';
import { presentGrade } from '../../src/http/grade-view';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('POST /v1/grades request rules', () => {
  it('requires an Idempotency-Key: missing and malformed keys have their own codes', () => {
    expect(requireIdempotencyKey('grade-0001_A')).toBe('grade-0001_A');
    expect(codeOf(() => requireIdempotencyKey(undefined))).toBe('missing_idempotency_key');
    expect(codeOf(() => requireIdempotencyKey(''))).toBe('invalid_idempotency_key');
    expect(codeOf(() => requireIdempotencyKey('has space'))).toBe('invalid_idempotency_key');
    expect(codeOf(() => requireIdempotencyKey('x'.repeat(65)))).toBe('invalid_idempotency_key');
  });

  it('modules is optional and may only name grade; other known modules are 403, unknown names 400', () => {
    for (const ok of [undefined, null, 'grade', ' grade ', ['grade'], 'GRADE', 'grade,grade']) expect(codeOf(() => checkGradeModules(ok))).toBeUndefined();
    for (const paid of ['identify', 'market', 'full', 'deep', 'grade,identify', ['grade', 'market']]) expect(codeOf(() => checkGradeModules(paid))).toBe('subscription_grading_only');
    for (const bad of ['polish', ['grade', 3], 42, { grade: true }]) expect(codeOf(() => checkGradeModules(bad))).toBe('invalid_modules');
  });

  it('a grade id is a positive integer; anything else names no grade (404)', () => {
    expect(parseGradeId('987')).toBe(987);
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999999999999', undefined]) expect(codeOf(() => parseGradeId(bad))).toBe('grade_not_found');
  });
});

describe('the commercial grade view', () => {
  const base = {
    gradeId: 42,
    billingSource: commonV1.BillingSource.SUBSCRIPTION,
    gradesCharged: 1,
    creditsCharged: 0,
    createdAt: timestampFromDate(new Date('2026-11-02T10:15:00Z')),
    error: '',
  };
  const grading = commonV1.Grading.fromPartial({
    grade: 8.5,
    predictedGrade: 8,
    subGrades: { centering: 8, corners: 8.5, edges: 9, surface: 8.5 },
    front: { centering: 8, corners: 8.5, edges: 9, surface: 8.5 },
    back: { centering: 8.5, corners: 9, edges: 9, surface: 9 },
    frontCentering: { leftRight: 55, topBottom: 52 },
    backCentering: { leftRight: 53, topBottom: 50 },
    summary: 'AI estimate 8.5',
    justification: 'not shown on commercial grades',
  });

  it('a completed grade shows numeric scores and per-side detail, never identification, value, market or overlay links', () => {
    const view = presentGrade({ ...base, status: gradingV1.CommercialGradeStatus.COMPLETED, grading, completedAt: timestampFromDate(new Date('2026-11-02T10:15:01Z')) });
    expect(view).toMatchObject({ id: 42, gradeId: 'grade_42', status: 'completed', billingSource: 'subscription', gradesCharged: 1, creditsCharged: 0, links: { self: '/v1/grades/42' } });
    expect(view.grading).toMatchObject({
      grade: 8.5,
      predictedGrade: 8,
      back: { corners: 9 },
      centering: { front: { leftRight: '55/45', topBottom: '52/48' }, back: { leftRight: '53/47' } },
      summary: 'AI estimate 8.5',
    });
    expect(JSON.stringify(view)).not.toMatch(/justification|identification|value|market|overlay/);
  });

  it('a refunded grade shows 0 charged, when it was refunded and a generic error; a processing one no grading', () => {
    const refunded = presentGrade({ ...base, status: gradingV1.CommercialGradeStatus.REFUNDED, gradesCharged: 0, refundedAt: timestampFromDate(new Date('2026-11-02T10:16:00Z')), error: 'Grading failed.' });
    expect(refunded).toMatchObject({ status: 'refunded', gradesCharged: 0, completedAt: null, refundedAt: '2026-11-02T10:16:00.000Z', error: 'Grading failed.' });
    expect(refunded).not.toHaveProperty('grading');
    const processing = presentGrade({ ...base, status: gradingV1.CommercialGradeStatus.PROCESSING, billingSource: commonV1.BillingSource.UNSPECIFIED });
    expect(processing).toMatchObject({ status: 'processing', billingSource: null, completedAt: null });
    expect(processing).not.toHaveProperty('grading');
  });
});
