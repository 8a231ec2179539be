import { describe, it, expect } from '@jest/globals';
import {
  combineSides,
  gradeDistribution,
  overallDetail,
  overallGrade,
  predictedProfessionalGrade,
  gradeLabel,
  gradeLongName,
  type SubGradeSet,
} from '../src/index';

const sub = (centering: number, corners: number, edges: number, surface: number): SubGradeSet => ({ centering, corners, edges, surface });
const HALF: number[] = [];
for (let g = 1; g <= 10; g += 0.5) HALF.push(g);

describe('overall grade (BGS-like, lowest dominates)', () => {
  it.each([
    [[9.5, 9.5, 9, 8], 8.5],
    [[9.5, 9.5, 8.5, 9], 9],
    [[10, 6, 10, 10], 7],
    [[9.5, 9.5, 9.5, 9], 9.5],
    [[9.5, 9.5, 8.5, 8.5], 8.5],
    [[8.5, 9.5, 9, 9], 9],
    [[4.5, 5, 5.5, 10], 5],
    [[9.5, 9.5, 9.5, 8], 9],
    [[10, 10, 10, 10], 10],
    [[10, 10, 10, 9.5], 10],
    [[10, 10, 10, 5], 6],
  ])('%p -> %p', (s, expected) => {
    expect(overallGrade(sub(s[0]!, s[1]!, s[2]!, s[3]!))).toBe(expected);
  });

  it('exhaustively: between the lowest and lowest + 1, and never higher when any sub-grade drops', () => {
    let checked = 0;
    for (const a of HALF) for (const b of HALF) for (const c of HALF) for (const d of HALF) {
      const s = [a, b, c, d];
      const o = overallGrade(sub(a, b, c, d));
      const low = Math.min(...s);
      if (o < low || o > low + 1) throw new Error(`out of range ${s} -> ${o}`);
      for (let i = 0; i < 4; i++) {
        if (s[i]! <= 1) continue;
        const t = s.slice();
        t[i] = s[i]! - 0.5;
        const o2 = overallGrade(sub(t[0]!, t[1]!, t[2]!, t[3]!));
        if (o2 > o) throw new Error(`not monotone: ${s} -> ${o}, ${t} -> ${o2}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(400_000);
  });

  it('names the lowest sub-grade and the bonus', () => {
    const d = overallDetail(sub(9.5, 9.5, 9, 8));
    expect(d).toMatchObject({ lowest: 'surface', lowestGrade: 8, secondLowestGrade: 9, bonus: 0.5, grade: 8.5 });
  });
});

describe('sides, predicted grade, distribution, names', () => {
  it('combines sides: back counts half a grade less, back creases cap directly, no back = front', () => {
    expect(combineSides(10, 8)).toBe(8.5);
    expect(combineSides(8, 10)).toBe(8);
    expect(combineSides(10, 9.5)).toBe(10);
    expect(combineSides(10, 4.5, 4.5)).toBe(4.5);
    expect(combineSides(9)).toBe(9);
  });

  it('predicts the overall rounded down, capped by PSA centering', () => {
    expect(predictedProfessionalGrade(10, 10)).toBe(10);
    expect(predictedProfessionalGrade(9.5, 10)).toBe(9);
    expect(predictedProfessionalGrade(9.5, 8)).toBe(8);
    expect(predictedProfessionalGrade(1, 10)).toBe(1);
  });

  it('gives a distribution over 1..10 that sums to 1, peaks at the prediction and widens with lower confidence', () => {
    for (const p of [1, 5, 8, 10]) {
      for (const c of [0, 0.5, 1]) {
        const d = gradeDistribution(p, c);
        expect(d.map((x) => x.grade)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(d.reduce((a, b) => a + b.probability, 0)).toBeCloseTo(1, 9);
        const best = d.reduce((a, b) => (b.probability > a.probability ? b : a));
        expect(best.grade).toBe(p);
        for (const x of d) expect(x.probability).toBeGreaterThanOrEqual(0);
      }
    }
    const at = (c: number) => gradeDistribution(8, c).find((x) => x.grade === 8)!.probability;
    expect(at(1)).toBeGreaterThan(at(0.5));
  });

  it('names grades PSA-like', () => {
    expect(gradeLabel(10)).toBe('GEM-MT 10');
    expect(gradeLabel(8.5)).toBe('NM-MT+ 8.5');
    expect(gradeLongName(8)).toBe('Near Mint-Mint');
    expect(gradeLongName(1.5)).toBe('Fair');
    expect(gradeLabel(1)).toBe('PR 1');
  });
});
