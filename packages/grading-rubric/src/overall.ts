/**
 * From sub-grades to the overall grade, the predicted professional grade and the grade distribution.
 * See GRADING.md, "Overall grade" and "Predicted professional grade".
 */
import type { GradeProbability, SubGradeName, SubGradeSet } from './types';

/**
 * A back flaw costs this much less than the same flaw on the front: combined = min(front, back + 0.5).
 * Creases are exempt (they go through the card): a back crease caps the combined surface directly.
 */
export const BACK_LENIENCY = 0.5;

/** Combined sub-grade of a category from the two sides (front only when the back was not assessed). */
export function combineSides(front: number, back?: number, backStructuralCap?: number): number {
  if (back === undefined) return front;
  let g = Math.min(front, back + BACK_LENIENCY);
  if (backStructuralCap !== undefined) g = Math.min(g, backStructuralCap);
  return Math.min(10, g);
}

/** Sub-grade order used to break ties when naming the lowest sub-grade (BGS weighs centering first). */
export const SUB_GRADE_ORDER: readonly SubGradeName[] = ['centering', 'corners', 'edges', 'surface'];

export interface OverallDetail {
  grade: number;
  lowest: SubGradeName;
  lowestGrade: number;
  secondLowestGrade: number;
  /** Mean of the other three sub-grades. */
  othersMean: number;
  /** othersMean - lowest. */
  gap: number;
  /** Bonus over the lowest the gap allows (0, 0.5 or 1), before the second-lowest limit. */
  bonus: number;
}

/**
 * BGS-like overall grade. The lowest sub-grade dominates:
 *   gap = mean(other three) - lowest
 *   bonus = 0 when gap < 0.5; 0.5 when 0.5 <= gap < 1.5; 1 when gap >= 1.5
 *   overall = min(lowest + bonus, second-lowest sub-grade)
 * Reproduces Beckett's published examples (9.5/9.5/9/8 -> 8.5; 9.5/9.5/8.5/9 -> 9; 10/6/10/10 -> 7;
 * three 9.5 and a 9 -> 9.5; a lowest sub-grade that occurs twice is the overall grade).
 */
export function overallDetail(sub: SubGradeSet): OverallDetail {
  const entries = SUB_GRADE_ORDER.map((k) => [k, sub[k]] as const);
  let lowestIdx = 0;
  entries.forEach(([, g], i) => {
    if (g < entries[lowestIdx]![1]) lowestIdx = i;
  });
  const [lowest, lowestGrade] = entries[lowestIdx]!;
  const others = entries.filter((_, i) => i !== lowestIdx).map(([, g]) => g);
  const secondLowestGrade = Math.min(...others);
  const othersMean = others.reduce((a, b) => a + b, 0) / others.length;
  const gap = othersMean - lowestGrade;
  const bonus = gap >= 1.5 - 1e-9 ? 1 : gap >= 0.5 - 1e-9 ? 0.5 : 0;
  const grade = Math.min(10, Math.min(lowestGrade + bonus, secondLowestGrade));
  return { grade, lowest, lowestGrade, secondLowestGrade, othersMean, gap, bonus };
}

export function overallGrade(sub: SubGradeSet): number {
  return overallDetail(sub).grade;
}

/**
 * Predicted professional (PSA-like, integer) grade: the overall rounded down to a whole grade, capped by
 * PSA's centering table (front and, when assessed, back).
 */
export function predictedProfessionalGrade(overall: number, psaCap: number): number {
  return Math.max(1, Math.min(Math.floor(overall + 1e-9), psaCap));
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  if (z === Infinity) return 1;
  if (z === -Infinity) return 0;
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Spread (grade units) of the distribution for an overall confidence: 0.35 at confidence 1, 1.85 at 0. */
export function distributionSigma(confidence: number): number {
  const c = Math.min(1, Math.max(0, confidence));
  return 0.35 + 1.5 * (1 - c);
}

/**
 * Probability over the integer professional grades 1..10: a normal around the predicted grade with the
 * spread above, integrated over [g - 0.5, g + 0.5) (grade 1 takes everything below 1.5 and grade 10 everything
 * from 9.5), rounded to 4 decimals with the rounding remainder on the predicted grade so the sum is exactly 1.
 */
export function gradeDistribution(predicted: number, confidence: number): GradeProbability[] {
  const sigma = distributionSigma(confidence);
  const out: GradeProbability[] = [];
  for (let g = 1; g <= 10; g++) {
    const lo = g === 1 ? -Infinity : (g - 0.5 - predicted) / sigma;
    const hi = g === 10 ? Infinity : (g + 0.5 - predicted) / sigma;
    out.push({ grade: g, probability: Math.round((normalCdf(hi) - normalCdf(lo)) * 1e4) / 1e4 });
  }
  const sum = out.reduce((a, b) => a + b.probability, 0);
  const at = out.find((p) => p.grade === predicted) ?? out[out.length - 1]!;
  at.probability = Math.round((at.probability + 1 - sum) * 1e4) / 1e4;
  return out;
}
