// Chooses the condition's intensities so the card lands on a target overall grade drawn from a distribution
// that covers the whole range: many near-mint cards and a healthy tail of worn ones. The rubric decides: the
// template's sizes grow monotonically with each intensity, so a bisection on the rubric's grade finds them.
import { gradeSides, overallGrade, type SubGradeName, type SubGradeSet } from '@cardlens/grading-rubric';
import { buildCondition, type CardCondition, type ConditionTemplate, type Intensity } from './condition';
import type { Rng } from './prng';

/** Target overall grade -> relative weight (sums to 1). */
export const TARGET_GRADE_WEIGHTS: readonly (readonly [number, number])[] = [
  [10, 0.1],
  [9.5, 0.1],
  [9, 0.14],
  [8.5, 0.12],
  [8, 0.11],
  [7.5, 0.08],
  [7, 0.07],
  [6.5, 0.05],
  [6, 0.05],
  [5.5, 0.03],
  [5, 0.03],
  [4.5, 0.02],
  [4, 0.02],
  [3.5, 0.015],
  [3, 0.015],
  [2.5, 0.01],
  [2, 0.01],
  [1.5, 0.01],
  [1, 0.01],
];

const CATEGORIES: readonly SubGradeName[] = ['centering', 'corners', 'edges', 'surface'];

export interface ConditionChoice {
  condition: CardCondition;
  targetGrade: number;
  /** The category set to reach the target (the others were kept at or above their own targets). */
  dominant: SubGradeName;
  /** Per-category sub-grade targets for the non-dominant categories. */
  subGradeTargets: Partial<SubGradeSet>;
}

export interface ConditionRequest {
  /** Overall grade to aim at (1-10, half points). Drawn from TARGET_GRADE_WEIGHTS when absent. */
  targetGrade?: number;
  /** Category that limits the grade. Drawn when absent. */
  dominant?: SubGradeName;
}

function subGrades(t: ConditionTemplate, i: Intensity): SubGradeSet {
  return gradeSides(buildCondition(t, i).measurements).subGrades;
}

/** Largest x in [lo, 1] with pred(x) (pred true for small x, false beyond some point). */
function bisectMax(pred: (x: number) => boolean, lo = 0, iterations = 12): number {
  if (pred(1)) return 1;
  if (!pred(lo)) return lo;
  let a = lo;
  let b = 1;
  for (let k = 0; k < iterations; k++) {
    const mid = (a + b) / 2;
    if (pred(mid)) a = mid;
    else b = mid;
  }
  return a;
}

function sampleDominant(rng: Rng, target: number): SubGradeName {
  if (target <= 3) return rng.weighted<SubGradeName>([['corners', 0.45], ['surface', 0.45], ['edges', 0.1]]);
  if (target <= 4.5) return rng.weighted<SubGradeName>([['corners', 0.35], ['surface', 0.3], ['edges', 0.25], ['centering', 0.1]]);
  return rng.weighted<SubGradeName>([['centering', 0.22], ['corners', 0.3], ['edges', 0.24], ['surface', 0.24]]);
}

export function chooseCondition(rng: Rng, template: ConditionTemplate, request: ConditionRequest = {}): ConditionChoice {
  const target = request.targetGrade ?? rng.weighted(TARGET_GRADE_WEIGHTS);
  const dominant = request.dominant ?? sampleDominant(rng, target);
  const intensity: Intensity = { centering: 0, corners: 0, edges: 0, surface: 0 };
  const targets: Partial<SubGradeSet> = {};
  // Non-dominant categories: their own sub-grade target at or above the overall target, mostly near 10.
  for (const c of CATEGORIES) {
    if (c === dominant) continue;
    const g = target >= 10 ? 10 : Math.min(10, Math.round((target + 0.5 + (9.5 - target) * Math.sqrt(rng.next())) * 2) / 2);
    targets[c] = g;
    const max = bisectMax((x) => subGrades(template, { ...intensity, [c]: x })[c] >= g);
    // At 10, often nothing at all; otherwise somewhere between half way and the limit.
    intensity[c] = g >= 10 ? (rng.chance(0.5) ? 0 : max * rng.next()) : max * rng.range(0.6, 1);
  }
  const overallAt = (i: Intensity) => overallGrade(subGrades(template, i));
  const dmax = bisectMax((x) => overallAt({ ...intensity, [dominant]: x }) >= target);
  intensity[dominant] = target >= 10 ? dmax * rng.range(0.3, 1) : dmax;
  // When the dominant category alone cannot get that low (e.g. no crease in the template), others help.
  if (overallAt(intensity) > target) {
    for (const c of CATEGORIES) {
      if (c === dominant) continue;
      intensity[c] = bisectMax((x) => overallAt({ ...intensity, [c]: x }) >= target, intensity[c]);
      if (overallAt(intensity) <= target) break;
    }
  }
  return { condition: buildCondition(template, intensity), targetGrade: target, dominant, subGradeTargets: targets };
}
