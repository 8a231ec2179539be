import { describe, expect, it } from '@jest/globals';
import { estimateValue, expectedGradedValueCents } from '../src/domain/estimate';
import { GradePremiumModel, fitGradePremium } from '../src/domain/grade-premium';
import type { Sale } from '../src/domain/types';
import { NOW, sale } from './sales-fixture';

const prior = GradePremiumModel.prior(); // PSA 8 ×1.4, 9 ×2, 9.5 ×3, 10 ×5 (see grade-premium.ts)

describe('raw estimate', () => {
  it('is the time-decayed weighted median of the raw comps (hand-checked)', () => {
    // Half-life 90 days → weights: age 0 → 1, age 90 → 0.5, age 180 → 0.25, age 270 → 0.125.
    // Sorted by price: $8 (w 1), $9 (w 1), $10 (w 0.5), $12 (w 0.25), $14 (w 0.125); total 2.875, half 1.4375.
    // Cumulative 1, 2 → the weighted median is $9 (the unweighted median would be $10).
    // Outlier check: center ln 900; |deviations| 0, 0.105, 0.118, 0.288, 0.442 → MAD 0.118, σ 0.175,
    // cutoff 3.5σ = 0.61: nothing dropped.
    const sales = [sale(800, 0), sale(900, 0), sale(1000, 90), sale(1200, 180), sale(1400, 270)];
    const estimate = estimateValue({ sales, now: NOW, premium: prior });
    expect(estimate.rawEstimateCents).toBe(900);
    expect(estimate.rawEstimateUnavailableReason).toBeNull();
    expect(estimate.rawCompCount).toBe(5);
    expect(estimate.compCount).toBe(5);
    expect(estimate.latestCompAt).toEqual(NOW);
    expect(estimate.currency).toBe('USD');
    expect(estimate.method).toBe('time-weighted median of 5 raw comps; half-life 90d, lookback 730d');
  });

  it('time decay moves the estimate toward recent sales', () => {
    const sales = [sale(800, 0), sale(900, 0), sale(1000, 90), sale(1200, 180), sale(1400, 270)];
    // With (practically) no decay the five weigh the same: the plain median, $10.
    const flat = estimateValue({ sales, now: NOW, premium: prior, options: { halfLifeDays: 1e9 } });
    expect(flat.rawEstimateCents).toBe(1000);
    // A rising card: old sales cheap, recent dear. The decayed estimate sits above the plain median.
    const rising = [sale(500, 300), sale(550, 280), sale(600, 250), sale(1000, 10), sale(1100, 5)];
    const decayed = estimateValue({ sales: rising, now: NOW, premium: prior }).rawEstimateCents!;
    const plain = estimateValue({ sales: rising, now: NOW, premium: prior, options: { halfLifeDays: 1e9 } }).rawEstimateCents!;
    expect(plain).toBe(600);
    expect(decayed).toBe(1000); // weights ≈ 0.1, 0.12, 0.15, 0.93, 0.96: half of 2.25 is reached at $10
  });

  it('two equally weighted comps give their midpoint in log price (the geometric mean)', () => {
    // √(1000 × 1200) = 1095.4 → 1095 cents.
    expect(estimateValue({ sales: [sale(1000, 0), sale(1200, 0)], now: NOW, premium: prior }).rawEstimateCents).toBe(1095);
  });

  it('drops outliers by MAD in log space', () => {
    // Same day, equal weights. $60 is a lot of six: |ln 60 − ln 10.10| = 1.78 ≫ 3.5 × max(1.4826 × MAD, 0.05).
    // Kept $9.80, $10.00, $10.10, $10.20: the midpoint of ln 1000 and ln 1010 → √(1000 × 1010) = 1004.99 → 1005.
    const sales = [sale(980, 0), sale(1000, 0), sale(1010, 0), sale(1020, 0), sale(6000, 0)];
    const estimate = estimateValue({ sales, now: NOW, premium: prior });
    expect(estimate.rawEstimateCents).toBe(1005);
    expect(estimate.method).toBe('time-weighted median of 4 raw comps; half-life 90d, lookback 730d; 1 outlier dropped');
    expect(estimate.rawCompCount).toBe(5);
    // Without rejection the lot stays and the median is the third of five: $10.10.
    expect(estimateValue({ sales, now: NOW, premium: prior, options: { outlierCutoff: Infinity } }).rawEstimateCents).toBe(1010);
  });

  it('rejects options that make no sense', () => {
    expect(() => estimateValue({ sales: [sale(1000, 0)], now: NOW, premium: prior, options: { halfLifeDays: 0 } })).toThrow(RangeError);
    expect(() => estimateValue({ sales: [sale(1000, 0)], now: NOW, premium: prior, options: { lookbackDays: -1 } })).toThrow(RangeError);
  });

  it('ignores sales after now and before the lookback', () => {
    const sales = [sale(1000, 10), sale(5000, -5), sale(9000, 800)];
    const estimate = estimateValue({ sales, now: NOW, premium: prior });
    expect(estimate.rawEstimateCents).toBe(1000);
    expect(estimate.compCount).toBe(1);
  });

  it('derives raw from graded comps through the premium model when there are no raw comps', () => {
    // One PSA 9 at $23; the prior's PSA 9 multiplier is 2 → raw $11.50.
    const estimate = estimateValue({ sales: [sale(2300, 5, { grader: 'PSA', grade: 9 })], now: NOW, premium: prior, predictedGrade: 9 });
    expect(estimate.rawEstimateCents).toBe(1150);
    expect(estimate.rawCompCount).toBe(0);
    expect(estimate.compCount).toBe(1);
    expect(estimate.method).toBe('no raw comps: derived from 1 graded comp through grade premiums; half-life 90d, lookback 730d');
    // The graded estimate at 9 blends the comp ($23, weight ≈ 0.96) with raw × 2 = $23: both say $23.
    expect(estimate.gradedEstimateCents).toBe(2300);
    expect(estimate.gradedValueSpread.every((g) => g.confidence === 'Low')).toBe(true);
  });
});

describe('missing coverage is null with a reason, never 0', () => {
  it('no sales at all', () => {
    const estimate = estimateValue({ sales: [], now: NOW, premium: prior, predictedGrade: 9 });
    expect(estimate.rawEstimateCents).toBeNull();
    expect(estimate.rawEstimateUnavailableReason).toBe('no sales for this card');
    expect(estimate.gradedEstimateCents).toBeNull();
    expect(estimate.gradedEstimateUnavailableReason).toBe('no sales for this card');
    expect(estimate.gradedValueSpread).toEqual([]);
    expect(estimate.latestCompAt).toBeNull();
    expect(estimate.compCount).toBe(0);
  });

  it('only sales after now counts as no sales', () => {
    expect(estimateValue({ sales: [sale(1000, -1)], now: NOW, premium: prior }).rawEstimateUnavailableReason).toBe('no sales for this card');
  });

  it('only stale sales', () => {
    const stale = sale(1000, 800);
    const estimate = estimateValue({ sales: [stale, sale(3000, 900, { grader: 'PSA', grade: 10 })], now: NOW, premium: prior, predictedGrade: 10 });
    expect(estimate.rawEstimateCents).toBeNull();
    expect(estimate.rawEstimateUnavailableReason).toBe('no sales in the last 730 days');
    expect(estimate.gradedEstimateCents).toBeNull();
    expect(estimate.gradedEstimateUnavailableReason).toBe('no sales in the last 730 days');
    expect(estimate.latestCompAt).toEqual(stale.soldAt);
    expect(estimate.compCount).toBe(0);
  });

  it('no predicted grade: raw and spread, graded null with a reason', () => {
    const estimate = estimateValue({ sales: [sale(1000, 1)], now: NOW, premium: prior });
    expect(estimate.rawEstimateCents).toBe(1000);
    expect(estimate.gradedEstimateCents).toBeNull();
    expect(estimate.gradedEstimateUnavailableReason).toBe('no predicted grade or grade distribution given');
    expect(estimate.gradedValueSpread.map((g) => g.grade)).toEqual([10, 9.5, 9, 8.5, 8, 7, 6, 5]);
  });

  it('never returns 0 cents, even for a 1-cent card', () => {
    const estimate = estimateValue({ sales: [sale(1, 0)], now: NOW, premium: prior, predictedGrade: 1 });
    expect(estimate.rawEstimateCents).toBe(1);
    expect(estimate.gradedEstimateCents).toBeGreaterThanOrEqual(1);
    expect(estimate.gradedValueSpread.every((g) => g.valueCents >= 1)).toBe(true);
  });
});

describe('graded estimate', () => {
  // Five raw comps at $10 today → raw $10. One PSA 10 at $80 today.
  const sales = [...[0, 0, 0, 0, 0].map((d) => sale(1000, d)), sale(8000, 0, { grader: 'PSA', grade: 10 })];

  it('fills a sparse grade by shrinking the own comp toward raw × multiplier (hand-checked)', () => {
    // Grade 10: model $10 × 5 = $50; own $80 with weight 1; share 1 / (1 + 3) = 0.25.
    // exp(0.25 ln 8000 + 0.75 ln 5000) = 5000 × 1.6^0.25 = 5623.4 → 5623.
    const estimate = estimateValue({ sales, now: NOW, premium: prior, predictedGrade: 10 });
    expect(estimate.gradedEstimateCents).toBe(5623);
    expect(estimate.gradedEstimateGrade).toBe(10);
    const spread = new Map(estimate.gradedValueSpread.map((g) => [g.grade, g.valueCents]));
    expect(spread.get(10)).toBe(5623);
    // 9.5: the PSA 10 comp is half a grade away: moved to 9.5 it is $80 × 3/5 = $48, weight 0.5, share 0.5/3.5 = 1/7.
    // Model $30. 3000 × 1.6^(1/7) = 3208.4 → 3208.
    expect(spread.get(9.5)).toBe(3208);
    // 9: one grade away: $80 × 2/5 = $32, weight 0.25, share 1/13; model $20 → 2000 × 1.6^(1/13) = 2073.6 → 2074.
    expect(spread.get(9)).toBe(2074);
    // 8: no comp within one grade → the model alone, $10 × 1.4.
    expect(spread.get(8)).toBe(1400);
  });

  it('weights a grade distribution by probability (normalised)', () => {
    // No graded comps: 9 → $20, 10 → $50. Probabilities 1:1 → 0.5 each → $35, expected grade 9.5.
    const rawOnly = [0, 0, 0].map((d) => sale(1000, d));
    const estimate = estimateValue({ sales: rawOnly, now: NOW, premium: prior, gradeDistribution: [{ grade: 9, probability: 1 }, { grade: 10, probability: 1 }] });
    expect(estimate.gradedEstimateCents).toBe(3500);
    expect(estimate.gradedEstimateGrade).toBe(9.5);
    expect(expectedGradedValueCents({ sales: rawOnly, now: NOW, premium: prior, gradeDistribution: [{ grade: 9, probability: 0.5 }, { grade: 10, probability: 0.5 }] })).toBe(3500);
  });

  it('a card with many own comps at a grade follows them, not the model', () => {
    const psa9 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((d) => sale(4000, d, { grader: 'PSA', grade: 9 }));
    const estimate = estimateValue({ sales: [sale(1000, 1), ...psa9], now: NOW, premium: prior, predictedGrade: 9 });
    // Own $40 with weight ≈ 9.6 against the model's $20 at pseudo-count 3: about 76% own.
    expect(estimate.gradedEstimateCents!).toBeGreaterThan(3300);
    expect(estimate.gradedEstimateCents!).toBeLessThan(4000);
  });

  it('converts other graders to the PSA scale through the model offsets', () => {
    const model = GradePremiumModel.fromJSON({ ...prior.toJSON(), graderLogOffsets: { CGC: Math.log(0.8) } });
    // A CGC 9 at $16 is a PSA 9 at $20 under that model; raw derived: $20 / 2 = $10.
    const estimate = estimateValue({ sales: [sale(1600, 0, { grader: 'CGC', grade: 9 })], now: NOW, premium: model, predictedGrade: 9 });
    expect(estimate.rawEstimateCents).toBe(1000);
    expect(estimate.gradedEstimateCents).toBe(2000);
  });
});

describe('spread confidence', () => {
  it('High with many tight, fresh comps at the grade; Medium with two older ones; Low from the model alone', () => {
    const psa10 = [7900, 8000, 8100, 8050, 7950, 8000].map((p, i) => sale(p, 3 + i * 4, { grader: 'PSA', grade: 10 }));
    const psa9 = [sale(2000, 200, { grader: 'PSA', grade: 9 }), sale(2200, 210, { grader: 'PSA', grade: 9 })];
    const estimate = estimateValue({ sales: [sale(1000, 1), sale(1000, 2), ...psa10, ...psa9], now: NOW, premium: prior });
    const confidence = new Map(estimate.gradedValueSpread.map((g) => [g.grade, g.confidence]));
    expect(confidence.get(10)).toBe('High');
    expect(confidence.get(9)).toBe('Medium');
    expect(confidence.get(7)).toBe('Low');
  });

  it('stale comps at a grade are not High', () => {
    const psa10 = [8000, 8000, 8000, 8000, 8000].map((p, i) => sale(p, 100 + i, { grader: 'PSA', grade: 10 }));
    const estimate = estimateValue({ sales: [sale(1000, 1), ...psa10], now: NOW, premium: prior });
    expect(estimate.gradedValueSpread.find((g) => g.grade === 10)!.confidence).toBe('Medium');
  });

  it('Medium from a solid raw value where the premium model has data at the grade', () => {
    // A fitted model with data at 8: six cards, 3 raw at $10 and one PSA 8 at $15 each.
    const training: Sale[] = [];
    for (let card = 0; card < 6; card++) {
      for (const s of [sale(1000, 10), sale(1000, 20), sale(1000, 30), sale(1500, 15, { grader: 'PSA', grade: 8 })]) training.push({ ...s, cardId: `t${card}` });
    }
    const fitted = fitGradePremium(training);
    expect(fitted.support(8)).toBe(6);
    const rawComps = [980, 1000, 1010, 1020, 990].map((p, i) => sale(p, 5 + i * 10));
    const withData = estimateValue({ sales: rawComps, now: NOW, premium: fitted });
    expect(withData.gradedValueSpread.find((g) => g.grade === 8)!.confidence).toBe('Medium');
    expect(withData.gradedValueSpread.find((g) => g.grade === 10)!.confidence).toBe('Low');
    const withPrior = estimateValue({ sales: rawComps, now: NOW, premium: prior });
    expect(withPrior.gradedValueSpread.every((g) => g.confidence === 'Low')).toBe(true);
  });
});
