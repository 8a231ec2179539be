import { describe, expect, it } from '@jest/globals';
import { Random, decayWeight, hashString, isotonicNonDecreasing, median, mulberry32, quantile, robustSigma, weightedMedian } from '../src/domain/stats';

describe('weightedMedian', () => {
  it('is the first value whose cumulative weight reaches half the total', () => {
    // Sorted: 1 (w 1), 2 (w 1), 3 (w 5): total 7, half 3.5; cumulative 1, 2, 7 → 3.
    expect(weightedMedian([3, 1, 2], [5, 1, 1])).toBe(3);
    // Heavy low value: 1 (w 5) reaches 3.5 alone.
    expect(weightedMedian([3, 1, 2], [1, 5, 1])).toBe(1);
  });

  it('equals the ordinary median for equal weights, odd and even counts', () => {
    expect(weightedMedian([5, 1, 3], [1, 1, 1])).toBe(3);
    // Cumulative lands exactly on half after 2: midpoint of 2 and 3.
    expect(weightedMedian([4, 1, 3, 2], [2, 2, 2, 2])).toBe(2.5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('rejects empty input', () => {
    expect(() => weightedMedian([], [])).toThrow();
    expect(() => median([])).toThrow();
  });
});

describe('robust helpers', () => {
  it('robustSigma is MAD × 1.4826', () => {
    // Median 3, absolute deviations 2, 1, 0, 1, 97 → MAD 1.
    expect(robustSigma([1, 2, 3, 4, 100])).toBeCloseTo(1.4826, 10);
  });

  it('quantile interpolates linearly', () => {
    expect(quantile([0, 10], 0.9)).toBeCloseTo(9, 10);
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
  });

  it('decayWeight halves every half-life', () => {
    expect(decayWeight(0, 90)).toBe(1);
    expect(decayWeight(90, 90)).toBeCloseTo(0.5, 12);
    expect(decayWeight(180, 90)).toBeCloseTo(0.25, 12);
  });
});

describe('isotonicNonDecreasing', () => {
  it('pools adjacent violators by weight', () => {
    // 3 (w 1) then 1 (w 3) violate: pooled mean (3 + 3) / 4 = 1.5 for both.
    expect(isotonicNonDecreasing([0, 3, 1, 4], [1, 1, 3, 1])).toEqual([0, 1.5, 1.5, 4]);
  });

  it('leaves a non-decreasing sequence alone', () => {
    expect(isotonicNonDecreasing([1, 2, 2, 5], [1, 1, 1, 1])).toEqual([1, 2, 2, 5]);
  });
});

describe('seeded randomness', () => {
  it('mulberry32 repeats for a seed and differs across seeds', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('hashString is stable and seed-dependent', () => {
    expect(hashString('base1-4', 1)).toBe(hashString('base1-4', 1));
    expect(hashString('base1-4', 1)).not.toBe(hashString('base1-4', 2));
    expect(hashString('base1-4', 1)).not.toBe(hashString('base1-5', 1));
  });

  it('poisson and normal draws have the right means', () => {
    const random = new Random(7);
    const n = 20_000;
    let poissonSum = 0;
    let normalSum = 0;
    let normalSquares = 0;
    for (let i = 0; i < n; i++) {
      poissonSum += random.poisson(4);
      const z = random.normal();
      normalSum += z;
      normalSquares += z * z;
    }
    expect(poissonSum / n).toBeCloseTo(4, 1);
    expect(normalSum / n).toBeCloseTo(0, 1);
    expect(normalSquares / n).toBeCloseTo(1, 1);
    expect(random.poisson(0)).toBe(0);
  });
});
