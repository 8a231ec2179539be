import type { Grading } from './gen/cardlens/common/v1/common';

/**
 * What a grading rests on, read from its `not_assessed` list (the engine's one statement of what the photos could
 * not support). Every presenter and every billing rule asks this, so that no number of an aspect that was not
 * measured is ever shown (the rubric grades such an aspect as "nothing seen", a placeholder upper bound).
 */
export type Aspect = 'centering' | 'corners' | 'edges' | 'surface';
export const ASPECTS: readonly Aspect[] = ['centering', 'corners', 'edges', 'surface'];

export interface GradingAssessment {
  /** At least one aspect of one photographed side was measured: the overall grade is a reading of the card. */
  graded: boolean;
  /** Per aspect: measured on at least one photographed side (the combined sub-grade rests on a measurement). */
  aspects: Record<Aspect, boolean>;
  front: Record<Aspect, boolean>;
  /** Null where the back was not photographed (or not graded). */
  back: Record<Aspect, boolean> | null;
}

export function gradingAssessment(grading: Pick<Grading, 'notAssessed' | 'back'>): GradingAssessment {
  const missing = new Set(grading.notAssessed);
  const side = (name: 'front' | 'back') => Object.fromEntries(ASPECTS.map((a) => [a, !missing.has(`${name}_${a}`)])) as Record<Aspect, boolean>;
  const front = side('front');
  const back = grading.back ? side('back') : null;
  const aspects = Object.fromEntries(ASPECTS.map((a) => [a, front[a] || (back?.[a] ?? false)])) as Record<Aspect, boolean>;
  return { graded: ASPECTS.some((a) => aspects[a]), aspects, front, back };
}
