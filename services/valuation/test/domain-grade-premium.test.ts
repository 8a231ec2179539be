import { describe, expect, it } from '@jest/globals';
import { GRADE_GRID, GradePremiumModel, fitGradePremium } from '../src/domain/grade-premium';
import type { Sale } from '../src/domain/types';

const NOW = new Date('2025-06-30T00:00:00Z');
let nextId = 0;

function sale(cardId: string, priceCents: number, grader: string | null = null, grade: number | null = null): Sale {
  return {
    source: 'test',
    sourceId: String(nextId++),
    cardId,
    parallel: '',
    grader,
    grade,
    priceCents,
    soldAt: NOW,
    listingType: 'fixed_price',
    title: 'test',
  };
}

/** `cards` cards, each with 3 raw sales at $10 and one graded sale per (grader, grade, ratio) at $10 × ratio. */
function cardsWith(cards: number, cells: [grader: string, grade: number, ratio: number][], prefix = 'card'): Sale[] {
  const sales: Sale[] = [];
  for (let i = 0; i < cards; i++) {
    const cardId = `${prefix}${i}`;
    sales.push(sale(cardId, 1000), sale(cardId, 1000), sale(cardId, 1000));
    for (const [grader, grade, ratio] of cells) sales.push(sale(cardId, Math.round(1000 * ratio), grader, grade));
  }
  return sales;
}

/** Data grades are shrunk toward the prior: (W·ln r + 2·ln prior) / (W + 2), W = cells × 0.75 (3 raw vs 1 graded). */
function shrunk(ratio: number, prior: number, cells: number): number {
  const weight = cells * 0.75;
  return Math.exp((weight * Math.log(ratio) + 2 * Math.log(prior)) / (weight + 2));
}

function expectMonotone(model: GradePremiumModel): void {
  for (let i = 1; i < GRADE_GRID.length; i++) expect(model.multiplier(GRADE_GRID[i]!)).toBeGreaterThanOrEqual(model.multiplier(GRADE_GRID[i - 1]!) - 1e-12);
}

describe('the prior', () => {
  it('is what a fit on no usable sales gives', () => {
    const prior = GradePremiumModel.prior();
    expect(prior.multiplier(9)).toBeCloseTo(2, 12);
    expect(prior.multiplier(10)).toBeCloseTo(5, 12);
    expect(prior.multiplier(1)).toBeCloseTo(0.4, 12);
    expect(fitGradePremium([]).toJSON()).toEqual(prior.toJSON());
    // Graded sales without raw ones beside them make no cells.
    expect(fitGradePremium([sale('x', 5000, 'PSA', 10)]).cellCount).toBe(0);
    expectMonotone(prior);
  });

  it('interpolates log-linearly between grid grades and clamps outside 1-10', () => {
    const prior = GradePremiumModel.prior();
    // Halfway between 9 (×2) and 9.5 (×3): √6.
    expect(prior.multiplier(9.25)).toBeCloseTo(Math.sqrt(6), 12);
    expect(prior.multiplier(11)).toBeCloseTo(prior.multiplier(10), 12);
    expect(prior.multiplier(0)).toBeCloseTo(prior.multiplier(1), 12);
    expect(prior.multiplier(9, 'psa')).toBe(prior.multiplier(9));
    expect(prior.multiplier(9, 'TAG')).toBe(prior.multiplier(9)); // unknown graders count as PSA
  });
});

describe('fitGradePremium', () => {
  it('recovers pooled ratios, shrunk slightly toward the prior (hand-checked)', () => {
    const model = fitGradePremium(cardsWith(20, [['PSA', 8, 1.5], ['PSA', 9, 2.5], ['PSA', 10, 8]]));
    expect(model.cellCount).toBe(60);
    // 20 cells of weight 0.75 = 15 against prior weight 2.
    expect(model.multiplier(8)).toBeCloseTo(shrunk(1.5, 1.4, 20), 10);
    expect(model.multiplier(9)).toBeCloseTo(shrunk(2.5, 2, 20), 10);
    expect(model.multiplier(10)).toBeCloseTo(shrunk(8, 5, 20), 10);
    expect(model.support(10)).toBe(20);
    expect(model.support(9.5)).toBe(0);
  });

  it('fills sparse grades with the prior shape anchored to the data', () => {
    const model = fitGradePremium(cardsWith(20, [['PSA', 8, 1.5], ['PSA', 9, 2.5], ['PSA', 10, 8]]));
    const json = model.toJSON();
    const source = (grade: number) => json.grades.find((g) => g.grade === grade)!.source;
    expect(source(9)).toBe('data');
    expect(source(9.5)).toBe('interpolated');
    expect(source(5)).toBe('extrapolated');
    // Below 8: the prior's ratio to grade 8 (5 is ×0.75, 8 is ×1.4 in the prior).
    expect(model.multiplier(5) / model.multiplier(8)).toBeCloseTo(0.75 / 1.4, 10);
    // 9.5: the prior's ×3 moved by the mean of the 9 and 10 deviations from the prior.
    const deviation9 = shrunk(2.5, 2, 20) / 2;
    const deviation10 = shrunk(8, 5, 20) / 5;
    expect(model.multiplier(9.5)).toBeCloseTo(3 * Math.sqrt(deviation9 * deviation10), 10);
    expectMonotone(model);
  });

  it('a grade with fewer than 5 cells does not count as data', () => {
    const model = fitGradePremium([...cardsWith(20, [['PSA', 9, 2.5]]), ...cardsWith(4, [['PSA', 10, 20]], 'rare')]);
    expect(model.toJSON().grades.find((g) => g.grade === 10)!.source).toBe('extrapolated');
    // 10 follows the prior's 10/9 ratio (5/2) from the fitted 9, ignoring the four ×20 cells.
    expect(model.multiplier(10) / model.multiplier(9)).toBeCloseTo(2.5, 10);
  });

  it('is monotone in grade even when the data are not', () => {
    // Grade 7 cells say ×1.8, grade 8 cells ×1.5: pool-adjacent-violators merges them.
    const model = fitGradePremium(cardsWith(10, [['PSA', 7, 1.8], ['PSA', 8, 1.5], ['PSA', 9, 2.5]]));
    expectMonotone(model);
    expect(model.multiplier(7)).toBeCloseTo(model.multiplier(8), 10);
    expect(model.multiplier(8)).toBeGreaterThan(1.5);
    expect(model.multiplier(8)).toBeLessThan(1.8);
  });

  it('fits one offset per grader relative to PSA', () => {
    const sales = [
      ...cardsWith(12, [['PSA', 9, 2.5], ['BGS', 9, 2.25], ['CGC', 9, 2]], 'a'),
      ...cardsWith(12, [['PSA', 10, 8], ['BGS', 10, 7.2], ['CGC', 10, 6.4]], 'b'),
    ];
    const model = fitGradePremium(sales);
    expect(Math.exp(model.graderOffset('BGS'))).toBeCloseTo(0.9, 3);
    expect(Math.exp(model.graderOffset('cgc'))).toBeCloseTo(0.8, 3);
    expect(model.graderOffset('PSA')).toBe(0);
    expect(model.multiplier(10, 'BGS') / model.multiplier(10, 'PSA')).toBeCloseTo(0.9, 3);
  });

  it('without paired cells, compares a grader with the PSA-only curve', () => {
    // PSA and BGS slabs on different cards: no card has both at one grade.
    const model = fitGradePremium([...cardsWith(12, [['PSA', 9, 2.5]], 'p'), ...cardsWith(12, [['BGS', 9, 2.25]], 'b')]);
    expect(Math.exp(model.graderOffset('BGS'))).toBeCloseTo(0.9, 10);
    // The pooled curve is on the PSA scale: BGS cells moved up by 1/0.9 agree with PSA's ×2.5.
    expect(model.multiplier(9)).toBeCloseTo(shrunk(2.5, 2, 24), 10);
  });

  it('a grader with too few cells stays PSA-equivalent', () => {
    const model = fitGradePremium([...cardsWith(20, [['PSA', 9, 2.5]]), ...cardsWith(3, [['SGC', 9, 1]], 's')]);
    expect(model.graderOffset('SGC')).toBe(0);
  });

  it('is robust to a few wild cells', () => {
    const model = fitGradePremium([...cardsWith(30, [['PSA', 9, 2.5]]), ...cardsWith(3, [['PSA', 9, 60]], 'lot')]);
    expect(model.multiplier(9)).toBeLessThan(2.6);
  });
});

describe('JSON', () => {
  it('round-trips through JSON text', () => {
    const model = fitGradePremium(cardsWith(12, [['PSA', 9, 2.5], ['BGS', 9, 2.25], ['PSA', 10, 8], ['BGS', 10, 7.2]]));
    const restored = GradePremiumModel.fromJSON(JSON.parse(JSON.stringify(model)));
    expect(restored.toJSON()).toEqual(model.toJSON());
    for (const grade of [1, 4.5, 8, 9.25, 10]) expect(restored.multiplier(grade, 'BGS')).toBe(model.multiplier(grade, 'BGS'));
  });

  it('rejects malformed JSON', () => {
    expect(() => GradePremiumModel.fromJSON({})).toThrow();
    expect(() => GradePremiumModel.fromJSON({ ...GradePremiumModel.prior().toJSON(), version: 2 })).toThrow();
    const json = GradePremiumModel.prior().toJSON();
    expect(() => GradePremiumModel.fromJSON({ ...json, grades: json.grades.slice(1) })).toThrow();
  });
});
