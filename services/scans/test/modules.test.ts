import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { checkModules, gradingPartCost, scanCost, sectionsFor } from '../src/domain/modules';

const M = scansV1.Module;
const PRICES = [
  { key: 'identify', credits: 1, available: true },
  { key: 'grade', credits: 1, available: true },
  { key: 'market', credits: 1, available: true },
  { key: 'full', credits: 2, available: true },
  { key: 'deep', credits: 3, available: false },
];
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
  return 'no error';
};

describe('scan modules', () => {
  it('accepts any non-empty set of identify, grade and market, or full alone', () => {
    expect(checkModules([M.IDENTIFY, M.GRADE])).toEqual(['identify', 'grade']);
    expect(checkModules([M.FULL])).toEqual(['full']);
  });

  it.each([
    ['nothing', [], 'invalid_modules'],
    ['full with another module', [M.FULL, M.GRADE], 'invalid_modules'],
    ['a duplicate', [M.GRADE, M.GRADE], 'invalid_modules'],
    ['an unspecified value', [M.UNSPECIFIED], 'invalid_modules'],
    ['deep', [M.DEEP], 'deep_unsupported'],
    ['deep among others', [M.IDENTIFY, M.DEEP], 'deep_unsupported'],
  ])('refuses %s', (_label, modules, code) => {
    expect(codeOf(() => checkModules(modules))).toBe(code);
  });

  it('prices combined modules as the sum of their live costs; full costs its own price', () => {
    expect(scanCost(['identify', 'grade'], PRICES)).toBe(2);
    expect(scanCost(['identify', 'grade', 'market'], PRICES)).toBe(3);
    expect(scanCost(['full'], PRICES)).toBe(2);
    expect(scanCost(['grade'], PRICES.map((p) => (p.key === 'grade' ? { ...p, credits: 4 } : p)))).toBe(4);
    expect(codeOf(() => scanCost(['market'], PRICES.filter((p) => p.key !== 'market')))).toBe('pricing_unavailable');
  });

  it('grading iff grade or full; value and market iff market or full', () => {
    fc.assert(
      fc.property(fc.subarray(['identify', 'grade', 'market']), fc.boolean(), (picked, full) => {
        const names = full ? ['full'] : picked;
        const sections = sectionsFor(names);
        expect(sections.grading).toBe(full || picked.includes('grade'));
        expect(sections.valuation).toBe(full || picked.includes('market'));
      }),
    );
  });

  it('prices the grading part of a scan: all of grade, full above market, nothing for identify or market', () => {
    expect(gradingPartCost(['grade'], PRICES)).toBe(1);
    expect(gradingPartCost(['identify', 'grade'], PRICES)).toBe(1);
    expect(gradingPartCost(['full'], PRICES)).toBe(1);
    expect(gradingPartCost(['identify'], PRICES)).toBe(0);
    expect(gradingPartCost(['market', 'identify'], PRICES)).toBe(0);
    // Never more than the scan costs, whatever the price list.
    fc.assert(
      fc.property(fc.subarray(['identify', 'grade', 'market'] as const, { minLength: 1 }), fc.nat(5), fc.nat(5), fc.nat(5), (names, g, mk, f) => {
        const prices = [{ key: 'identify', credits: 1, available: true }, { key: 'grade', credits: g, available: true }, { key: 'market', credits: mk, available: true }, { key: 'full', credits: f, available: true }];
        expect(gradingPartCost(names, prices)).toBeLessThanOrEqual(scanCost(names, prices));
        expect(gradingPartCost(['full'], prices)).toBeLessThanOrEqual(scanCost(['full'], prices));
      }),
    );
  });
});
