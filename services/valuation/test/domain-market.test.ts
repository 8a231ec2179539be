import { describe, expect, it } from '@jest/globals';
import { estimateValue } from '../src/domain/estimate';
import { GradePremiumModel } from '../src/domain/grade-premium';
import { SAMPLE_DATA_NOTICE, analyzeMarket, computeTrend, formatUsd, recommendGrading } from '../src/domain/market';
import { NOW, sale } from './sales-fixture';

const prior = GradePremiumModel.prior(); // PSA 9 ×2, PSA 10 ×5

describe('recommendGrading', () => {
  it('is neutral without a raw or a graded value', () => {
    expect(recommendGrading(null, 5000, 2000)).toMatchObject({ recommendation: 'neutral', netGainCents: null, missing: 'no raw value to compare against' });
    expect(recommendGrading(1000, null, 2000)).toMatchObject({ recommendation: 'neutral', netGainCents: null, missing: 'no graded value to compare against' });
  });

  it("is dont_grade when the cost eats the gain", () => {
    // $20 graded − $25 cost − $10 raw = −$15.
    expect(recommendGrading(1000, 2000, 2500)).toMatchObject({ recommendation: 'dont_grade', netGainCents: -1500 });
    expect(recommendGrading(1000, 3499, 2500)).toMatchObject({ recommendation: 'dont_grade', netGainCents: -1 });
  });

  it('is grade when the net gain clears max(15% of raw, $10)', () => {
    // $50 − $20 − $10 = $20 > $10.
    expect(recommendGrading(1000, 5000, 2000)).toMatchObject({ recommendation: 'grade', netGainCents: 2000, marginCents: 1000 });
  });

  it('is neutral exactly at the margin and grade one cent above it', () => {
    // Raw $100: margin is 15% = $15. $140 − $25 − $100 = $15: not above the margin.
    expect(recommendGrading(10_000, 14_000, 2500)).toMatchObject({ recommendation: 'neutral', netGainCents: 1500, marginCents: 1500 });
    expect(recommendGrading(10_000, 14_001, 2500)).toMatchObject({ recommendation: 'grade', netGainCents: 1501 });
    // Cheap card: the $10 floor applies. Gain exactly $10 → neutral; no gain at all → neutral.
    expect(recommendGrading(200, 3200, 2000)).toMatchObject({ recommendation: 'neutral', netGainCents: 1000, marginCents: 1000 });
    expect(recommendGrading(1000, 3000, 2000)).toMatchObject({ recommendation: 'neutral', netGainCents: 0 });
  });

  it('rejects a negative grading cost', () => {
    expect(() => recommendGrading(1000, 2000, -1)).toThrow(RangeError);
  });
});

describe('computeTrend', () => {
  it('compares medians of consecutive windows (hand-checked)', () => {
    // Days 30-60 ago: three raw sales at $10. Last 30 days: $11, $11, $12 → median $11 → +10.0%.
    // No sales 90-180 days ago → no 90-day change. Volatility over 6 sales: logs 3×ln 10, 2×ln 11, ln 12;
    // median is halfway between ln 10 and ln 11; MAD = ln(1.1)/2 = 0.0477; × 1.4826 = 0.0707 → 0.071.
    const sales = [sale(1000, 35), sale(1000, 40), sale(1000, 45), sale(1100, 1), sale(1100, 2), sale(1200, 3), sale(9999, 2, { grader: 'PSA', grade: 10 })];
    expect(computeTrend(sales, NOW)).toEqual({
      change30dPercent: 10,
      change90dPercent: null,
      sales30d: 3,
      sales90d: 6,
      medianPrice30dCents: 1100,
      volatility: 0.071,
    });
  });

  it('needs 3 sales in each window and 4 for volatility', () => {
    const trend = computeTrend([sale(1000, 35), sale(1000, 40), sale(1100, 1), sale(1100, 2), sale(1200, 3)], NOW);
    expect(trend.change30dPercent).toBeNull();
    expect(trend.volatility).not.toBeNull();
    expect(computeTrend([sale(1000, 1), sale(1000, 2), sale(1000, 3)], NOW).volatility).toBeNull();
    expect(computeTrend([], NOW)).toEqual({ change30dPercent: null, change90dPercent: null, sales30d: 0, sales90d: 0, medianPrice30dCents: null, volatility: null });
  });

  it('ignores sales after now', () => {
    expect(computeTrend([sale(1000, -3)], NOW).sales30d).toBe(0);
  });
});

describe('analyzeMarket', () => {
  const rawSales = [sale(1000, 35), sale(1000, 40), sale(1000, 45), sale(1000, 1), sale(1000, 2), sale(1000, 3)];

  it('no sales: neutral, and the context says why and that the data is sample data', () => {
    const estimate = estimateValue({ sales: [], now: NOW, premium: prior, predictedGrade: 9 });
    const market = analyzeMarket({ sales: [], now: NOW, estimate, premium: prior, predictedGrade: 9, gradingCostCents: 2500, isSampleData: true });
    expect(market.gradingRecommendation).toBe('neutral');
    expect(market.expectedGradedValueCents).toBeNull();
    expect(market.insights).toContain('No raw value: no sales for this card.');
    expect(market.context).toContain(SAMPLE_DATA_NOTICE);
    expect(market.context).toContain('no raw value to compare against (no sales for this card)');
    expect(market.context).toContain('Based on 0 comps');
    expect(market.trend.sales90d).toBe(0);
  });

  it('grade when the predicted grade clears cost and margin', () => {
    // Raw $10; PSA 10 = $10 × 5 = $50; $50 − $25 − $10 = $15 > $10.
    const estimate = estimateValue({ sales: rawSales, now: NOW, premium: prior });
    const market = analyzeMarket({ sales: rawSales, now: NOW, estimate, premium: prior, predictedGrade: 10, gradingCostCents: 2500, isSampleData: false });
    expect(market.gradingRecommendation).toBe('grade');
    expect(market.expectedGradedValueCents).toBe(5000);
    expect(market.insights).toContain('Raw value about $10.00');
    expect(market.insights).toContain('Raw sales flat over 30 days (3 sales, median $10.00)');
    expect(market.insights).toContain('Expected graded value $50.00 at grade 10');
    expect(market.insights).toContain('$15.00 more than selling raw: worth grading');
    expect(market.context).not.toContain('Sample data');
    expect(market.context).toContain('Based on 6 comps (6 raw) from the last 730 days; latest comp 2025-06-29.');
  });

  it("dont_grade when grading loses money, over a grade distribution", () => {
    // 9 → $20, 10 → $50: 0.8 × 20 + 0.2 × 50 = $26; $26 − $25 − $10 = −$9.
    const estimate = estimateValue({ sales: rawSales, now: NOW, premium: prior });
    const market = analyzeMarket({
      sales: rawSales,
      now: NOW,
      estimate,
      premium: prior,
      gradeDistribution: [{ grade: 9, probability: 0.8 }, { grade: 10, probability: 0.2 }],
      gradingCostCents: 2500,
      isSampleData: true,
    });
    expect(market.expectedGradedValueCents).toBe(2600);
    expect(market.gradingRecommendation).toBe('dont_grade');
    expect(market.insights).toContain('over the predicted grade distribution');
    expect(market.insights).toContain('$9.00 less than selling raw: not worth grading');
  });

  it("uses the estimate's graded value when no grade is passed, and is neutral without one", () => {
    const withGrade = estimateValue({ sales: rawSales, now: NOW, premium: prior, predictedGrade: 10 });
    const market = analyzeMarket({ sales: rawSales, now: NOW, estimate: withGrade, premium: prior, gradingCostCents: 2500, isSampleData: true });
    expect(market.expectedGradedValueCents).toBe(5000);
    expect(market.gradingRecommendation).toBe('grade');

    const withoutGrade = estimateValue({ sales: rawSales, now: NOW, premium: prior });
    const neutral = analyzeMarket({ sales: rawSales, now: NOW, estimate: withoutGrade, premium: prior, gradingCostCents: 2500, isSampleData: true });
    expect(neutral.gradingRecommendation).toBe('neutral');
    expect(neutral.context).toContain('no graded value to compare against (no predicted grade or grade distribution given)');
  });

  it('describes trend and volatility in words and numbers', () => {
    const sales = [sale(1000, 35), sale(1000, 40), sale(1000, 45), sale(1100, 1), sale(1100, 2), sale(1200, 3)];
    const estimate = estimateValue({ sales, now: NOW, premium: prior });
    const market = analyzeMarket({ sales, now: NOW, estimate, premium: prior, gradingCostCents: 2500, isSampleData: true });
    expect(market.insights).toContain('Raw sales up 10% over 30 days (3 sales, median $11.00); 6 raw sales in 90 days; volatility low (±7%).');
  });
});

describe('formatUsd', () => {
  it('formats cents as dollars', () => {
    expect(formatUsd(420)).toBe('$4.20');
    expect(formatUsd(1_234_567)).toBe('$12,345.67');
    expect(formatUsd(-1500)).toBe('-$15.00');
  });
});
