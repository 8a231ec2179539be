// Property tests (fast-check) for the pieces whose contracts hold for any input.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { estimateValue } from '../src/domain/estimate';
import { GRADE_GRID, GradePremiumModel, fitGradePremium } from '../src/domain/grade-premium';
import { parseSalesCsv, parseSalesNdjson, salesToCsv, salesToNdjson } from '../src/domain/sales-file';
import { isotonicNonDecreasing, median, weightedMedian } from '../src/domain/stats';
import { GRADERS, LISTING_TYPES, type Sale } from '../src/domain/types';

const NOW = new Date('2025-06-30T00:00:00Z');
const DAY = 86_400_000;

const gradeArb = fc.integer({ min: 2, max: 20 }).map((half) => half / 2);

/** Text with the characters that trouble CSV and JSON writers. */
const awkwardText = (maxLength: number) =>
  fc.oneof(fc.string({ maxLength }), fc.string({ maxLength, unit: fc.constantFrom('a', 'Z', '0', ',', '"', "'", '\n', '\r', ' ', '\t', 'é', '€', '🃏', '\\') }));

const saleArb: fc.Arbitrary<Sale> = fc.record({
  source: awkwardText(12).filter((s) => s.trim() === s && s.length > 0),
  sourceId: fc.uuid(),
  cardId: awkwardText(20).filter((s) => s.trim() === s && s.length > 0),
  parallel: fc.oneof(fc.constant(''), awkwardText(20).map((s) => s.trim())),
  graded: fc.option(fc.tuple(fc.constantFrom(...GRADERS), gradeArb), { nil: null }),
  priceCents: fc.integer({ min: 1, max: 100_000_000 }),
  soldAtMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2030, 0, 1) }),
  listingType: fc.constantFrom(...LISTING_TYPES),
  title: awkwardText(40),
}).map(({ graded, soldAtMs, ...rest }) => ({ ...rest, grader: graded?.[0] ?? null, grade: graded?.[1] ?? null, soldAt: new Date(soldAtMs) }));

describe('properties', () => {
  it('weightedMedian lies within the values and matches the median for equal weights', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: 0.001, max: 10, noNaN: true })), { minLength: 1, maxLength: 30 }), (pairs) => {
        const values = pairs.map(([v]) => v);
        const result = weightedMedian(values, pairs.map(([, w]) => w));
        expect(result).toBeGreaterThanOrEqual(Math.min(...values));
        expect(result).toBeLessThanOrEqual(Math.max(...values));
        expect(weightedMedian(values, values.map(() => 1))).toBeCloseTo(median(values), 6);
      }),
    );
  });

  it('isotonic regression is non-decreasing and keeps the weighted mean', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: -100, max: 100, noNaN: true }), fc.double({ min: 0.1, max: 10, noNaN: true })), { minLength: 1, maxLength: 25 }), (pairs) => {
        const values = pairs.map(([v]) => v);
        const weights = pairs.map(([, w]) => w);
        const fitted = isotonicNonDecreasing(values, weights);
        for (let i = 1; i < fitted.length; i++) expect(fitted[i]!).toBeGreaterThanOrEqual(fitted[i - 1]! - 1e-9);
        const mean = (xs: number[]) => xs.reduce((s, x, i) => s + x * weights[i]!, 0) / weights.reduce((s, w) => s + w, 0);
        expect(mean(fitted)).toBeCloseTo(mean(values), 6);
      }),
    );
  });

  it('CSV and NDJSON round-trip any valid sale', () => {
    fc.assert(
      fc.property(fc.uniqueArray(saleArb, { selector: (s) => s.sourceId, maxLength: 15 }), (sales) => {
        const fromCsv = parseSalesCsv(salesToCsv(sales));
        expect(fromCsv.rejected).toEqual([]);
        expect(fromCsv.sales).toEqual(sales);
        const fromNdjson = parseSalesNdjson(salesToNdjson(sales));
        expect(fromNdjson.rejected).toEqual([]);
        expect(fromNdjson.sales).toEqual(sales);
      }),
      { numRuns: 150 },
    );
  });

  it('a fitted premium model is monotone in grade whatever the sales', () => {
    const cellArb = fc.record({ card: fc.integer({ min: 0, max: 15 }), graded: fc.option(fc.tuple(fc.constantFrom(...GRADERS), gradeArb), { nil: null }), price: fc.integer({ min: 1, max: 1_000_000 }) });
    fc.assert(
      fc.property(fc.array(cellArb, { maxLength: 200 }), (cells) => {
        const sales: Sale[] = cells.map((c, i) => ({
          source: 't',
          sourceId: String(i),
          cardId: `c${c.card}`,
          parallel: '',
          grader: c.graded?.[0] ?? null,
          grade: c.graded?.[1] ?? null,
          priceCents: c.price,
          soldAt: NOW,
          listingType: 'auction',
          title: '',
        }));
        const model = fitGradePremium(sales, { minCellsPerGrade: 2, minCellsPerGrader: 2 });
        for (let i = 1; i < GRADE_GRID.length; i++) expect(model.multiplier(GRADE_GRID[i]!)).toBeGreaterThanOrEqual(model.multiplier(GRADE_GRID[i - 1]!) * (1 - 1e-12));
      }),
      { numRuns: 60 },
    );
  });

  it('estimates are positive integer cents or null with a reason, never 0', () => {
    const compArb = fc.record({ price: fc.integer({ min: 1, max: 10_000_000 }), daysAgo: fc.integer({ min: -30, max: 1000 }), graded: fc.option(fc.tuple(fc.constantFrom(...GRADERS), gradeArb), { nil: null }) });
    fc.assert(
      fc.property(fc.array(compArb, { maxLength: 20 }), fc.option(gradeArb, { nil: null }), (comps, predictedGrade) => {
        const sales: Sale[] = comps.map((c, i) => ({
          source: 't',
          sourceId: String(i),
          cardId: 'c',
          parallel: '',
          grader: c.graded?.[0] ?? null,
          grade: c.graded?.[1] ?? null,
          priceCents: c.price,
          soldAt: new Date(NOW.getTime() - c.daysAgo * DAY),
          listingType: 'auction',
          title: '',
        }));
        const estimate = estimateValue({ sales, now: NOW, premium: GradePremiumModel.prior(), predictedGrade });
        for (const [value, reason] of [
          [estimate.rawEstimateCents, estimate.rawEstimateUnavailableReason],
          [estimate.gradedEstimateCents, estimate.gradedEstimateUnavailableReason],
        ] as const) {
          if (value === null) expect(reason).toEqual(expect.any(String));
          else {
            expect(Number.isInteger(value) && value >= 1).toBe(true);
            expect(reason).toBeNull();
          }
        }
        for (const g of estimate.gradedValueSpread) expect(Number.isInteger(g.valueCents) && g.valueCents >= 1).toBe(true);
        const spreadValues = estimate.gradedValueSpread.map((g) => g.valueCents);
        expect(spreadValues.length === 0 || spreadValues.length === 8).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
