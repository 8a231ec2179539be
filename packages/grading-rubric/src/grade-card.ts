/**
 * gradeCard: the rubric's one entry point. Measurements in, grades, confidences and text out.
 * Pure and deterministic: the same measurements always give the same result.
 */
import { assessSideCentering } from './centering';
import { confidences } from './confidence';
import { sideDefects } from './defects';
import { gradeLabel } from './names';
import { gradeDistribution, overallDetail, predictedProfessionalGrade } from './overall';
import { gradeSides } from './sides';
import { DISCLAIMER, explain } from './text';
import { nothingAssessed, notAssessedReasons, withoutUnsupported } from './not-assessed';
import type { CardMeasurements, CenteringResult, GradeOptions, RubricResult } from './types';

/** Bumped whenever a threshold or rule changes (generated labels record it). */
export const RUBRIC_VERSION = '1.2.0';

export { BACK_NOT_ASSESSED } from './not-assessed';

/** Centering of both sides with the PSA cap, the BGS-like sub-grade and the CGC reference cap. */
export function assessCentering(m: CardMeasurements): CenteringResult {
  const front = assessSideCentering('front', m.front.centering);
  const back = m.back ? assessSideCentering('back', m.back.centering) : undefined;
  const backLimits = back !== undefined && back.psaCap < front.psaCap;
  const result: CenteringResult = {
    front,
    psaCap: backLimits ? back.psaCap : front.psaCap,
    psaCapSide: backLimits ? 'back' : 'front',
    bgsSubGrade: back ? Math.min(front.bgsGrade, back.bgsGrade) : front.bgsGrade,
    cgcCap: back ? Math.min(front.cgcCap, back.cgcCap) : front.cgcCap,
  };
  if (back) result.back = back;
  return result;
}

/** Grade a card from its measurements. See GRADING.md for every rule and threshold. */
export function gradeCard(measured: CardMeasurements, options: GradeOptions = {}): RubricResult {
  const notAssessed = notAssessedReasons(measured, options);
  const m = withoutUnsupported(measured, notAssessed);
  const { front, back, subGrades } = gradeSides(m);
  const centering = assessCentering(m);
  const overall = overallDetail(subGrades);
  // A professional grade is predicted from what was seen: where the photos supported no aspect at all, the
  // grade is only the upper bound of a card on which nothing was seen, and nothing is predicted from it.
  const predicted = nothingAssessed(measured, notAssessed) ? null : predictedProfessionalGrade(overall.grade, centering.psaCap);
  const conf = confidences(m, subGrades, options, notAssessed);
  const detailed = [...sideDefects('front', m.front), ...(m.back ? sideDefects('back', m.back) : [])];
  const text = explain(
    back
      ? { subGrades, front, back, centering, overall, predicted, defects: detailed, notAssessed }
      : { subGrades, front, centering, overall, predicted, defects: detailed, notAssessed },
  );
  return {
    rubricVersion: RUBRIC_VERSION,
    grade: overall.grade,
    gradeLabel: gradeLabel(overall.grade),
    predictedGrade: predicted,
    predictedGradeLabel: predicted === null ? null : gradeLabel(predicted),
    subGrades,
    subGradeConfidences: conf.subGrades,
    confidence: conf.overall,
    sides: back ? { front, back } : { front },
    centering,
    defects: detailed.map((d) => d.defect),
    limitingFactors: text.limitingFactors,
    notAssessed: notAssessed.map((r) => r.item),
    notAssessedReasons: notAssessed,
    gradeDistribution: predicted === null ? [] : gradeDistribution(predicted, conf.overall),
    summary: text.summary,
    justification: text.justification,
    disclaimer: DISCLAIMER,
  };
}
