import { describe, it, expect } from '@jest/globals';
import {
  assessSideCentering,
  axisShare,
  bgsSideGrade,
  centeringShares,
  cgcSideCap,
  psaCenteringCap,
  psaSideCap,
  shareDisplay,
  PSA_CENTERING_TABLE,
  BGS_FRONT_TABLE,
} from '../src/index';

/** Borders (mm, total 6 mm) giving a left-right share. */
const lr = (share: number) => ({ leftMm: (6 * share) / 100, rightMm: 6 - (6 * share) / 100, topMm: 3, bottomMm: 3 });

describe('shares', () => {
  it('computes directional shares and display strings', () => {
    const s = centeringShares({ leftMm: 3.36, rightMm: 2.64, topMm: 2, bottomMm: 2 });
    expect(s.leftRight).toBeCloseTo(56, 10);
    expect(s.topBottom).toBe(50);
    expect(axisShare(0, 0)).toBe(50);
    expect(axisShare(-1, 2)).toBe(0);
    expect(shareDisplay(56)).toBe('56/44');
    expect(shareDisplay(44)).toBe('44/56');
    expect(shareDisplay(55.5)).toBe('56/44');
    expect(shareDisplay(44.5)).toBe('44/56');
    expect(shareDisplay(50)).toBe('50/50');
  });

  it('reports the worse axis', () => {
    const c = assessSideCentering('front', { leftMm: 3, rightMm: 3, topMm: 2.4, bottomMm: 3.6 });
    expect(c.worstAxis).toBe('top-bottom');
    expect(c.worstShare).toBeCloseTo(60, 10);
    expect(c.topBottomDisplay).toBe('40/60');
  });
});

describe('PSA centering table', () => {
  it.each([
    [50, 10], [55, 10], [55.4, 10], [55.6, 9], [58, 9], [60, 9], [62, 8], [65, 8], [68, 7], [70, 7],
    [75, 6], [80, 6], [82, 5], [85, 5], [88, 3], [90, 3], [92, 1],
  ])('front %p/.. caps the grade at %p', (share, cap) => {
    expect(psaSideCap('front', share)).toBe(cap);
    expect(assessSideCentering('front', lr(share)).psaCap).toBe(cap);
    expect(assessSideCentering('front', lr(100 - share)).psaCap).toBe(cap);
  });

  it.each([[60, 10], [75, 10], [76, 9], [90, 9], [91, 1]])('back %p/.. caps the grade at %p', (share, cap) => {
    expect(psaSideCap('back', share)).toBe(cap);
  });

  it('takes the lower of front and back', () => {
    expect(psaCenteringCap(58, 80)).toBe(9);
    expect(psaCenteringCap(52, 80)).toBe(9);
    expect(psaCenteringCap(52, 70)).toBe(10);
    expect(psaCenteringCap(62)).toBe(8);
  });

  it('table rows are ordered and never stricter for lower grades', () => {
    for (let i = 1; i < PSA_CENTERING_TABLE.length; i++) {
      expect(PSA_CENTERING_TABLE[i]!.grade).toBeLessThan(PSA_CENTERING_TABLE[i - 1]!.grade);
      expect(PSA_CENTERING_TABLE[i]!.front).toBeGreaterThanOrEqual(PSA_CENTERING_TABLE[i - 1]!.front);
      expect(PSA_CENTERING_TABLE[i]!.back).toBeGreaterThanOrEqual(PSA_CENTERING_TABLE[i - 1]!.back);
    }
  });

  it('CGC reference caps match the published rows', () => {
    expect(cgcSideCap('front', 55)).toBe(10);
    expect(cgcSideCap('front', 60)).toBe(9);
    expect(cgcSideCap('back', 75)).toBe(10);
    expect(cgcSideCap('back', 90)).toBe(9);
  });
});

describe('BGS-like centering grade', () => {
  const g = (lrShare: number, tbShare: number) => bgsSideGrade('front', { leftRight: lrShare, topBottom: tbShare });
  it('follows the front table', () => {
    expect(g(50, 50)).toBe(10);
    expect(g(51, 49)).toBe(10);
    expect(g(52, 50)).toBe(9.5);
    expect(g(55, 55)).toBe(9.5);
    expect(g(58, 50)).toBe(9);
    expect(g(60, 55)).toBe(9);
    expect(g(60, 58)).toBe(8.5);
    expect(g(62, 50)).toBe(8);
    expect(g(66, 50)).toBe(7.5);
    expect(g(70, 50)).toBe(7);
    expect(g(75, 50)).toBe(6);
    expect(g(80, 50)).toBe(5);
    expect(g(90, 50)).toBe(3);
    expect(g(99, 50)).toBe(1);
  });

  it('follows the back table', () => {
    const b = (share: number) => bgsSideGrade('back', { leftRight: share, topBottom: 50 });
    expect(b(60)).toBe(10);
    expect(b(61)).toBe(9);
    expect(b(80)).toBe(9);
    expect(b(90)).toBe(8.5);
    expect(b(95)).toBe(8);
    expect(b(99)).toBe(7);
  });

  it('never rises as either axis moves away from 50', () => {
    for (let a = 50; a <= 100; a += 0.5) {
      for (let b = 50; b <= 100; b += 0.5) {
        expect(g(a + 0.5, b)).toBeLessThanOrEqual(g(a, b));
        expect(g(a, b + 0.5)).toBeLessThanOrEqual(g(a, b));
      }
    }
    for (let i = 1; i < BGS_FRONT_TABLE.length; i++) {
      expect(BGS_FRONT_TABLE[i]!.worse).toBeGreaterThanOrEqual(BGS_FRONT_TABLE[i - 1]!.worse);
      expect(BGS_FRONT_TABLE[i]!.better).toBeGreaterThanOrEqual(BGS_FRONT_TABLE[i - 1]!.better);
    }
  });
});
