/**
 * @cardlens/grading-rubric: physical card measurements -> severities -> sub-grades, overall grade,
 * predicted professional grade, confidences, summary and justification. Pure functions, no I/O.
 * The rubric is documented in GRADING.md at the repository root.
 */
export type * from './types';
export * from './geometry';
export { gradeCard, assessCentering, RUBRIC_VERSION } from './grade-card';
export { BACK_NOT_ASSESSED, NOT_ASSESSED_FACTOR, notAssessedReasons } from './not-assessed';
export {
  type Anchors,
  gradeFromAnchors,
  severityFromGrade,
  gradeFromSeverity,
  gradeFromSeverityHalf,
  quantizeHalf,
  floorHalf,
  aggregateSeverities,
  combineComponents,
  AGGREGATE_WEIGHTS,
  COMPONENT_REST_WEIGHT,
} from './curves';
export {
  type SurfaceRule,
  type ElementAssessment,
  type ComponentAssessment,
  type CornerComponent,
  type EdgeComponent,
  type SurfaceAssessment,
  CORNER_WHITENING_ANCHORS,
  CORNER_ROUNDING_ANCHORS,
  CORNER_DING_ANCHORS,
  EDGE_WHITENING_FRACTION_ANCHORS,
  EDGE_DEPTH_ANCHORS,
  EDGE_CHIP_ANCHORS,
  SURFACE_RULES,
  CREASE_MAX_GRADE,
  assessCorner,
  assessEdge,
  assessSurfaceDefect,
  cornerSeverity,
  edgeSeverity,
  surfaceDefectSeverity,
  surfaceDefectSize,
} from './severity';
export {
  type CenteringShares,
  type CenteringCapRow,
  type BgsFrontRow,
  type BgsBackRow,
  axisShare,
  centeringShares,
  foldShare,
  shareDisplay,
  psaSideCap,
  cgcSideCap,
  psaCenteringCap,
  bgsSideGrade,
  assessSideCentering,
  PSA_CENTERING_TABLE,
  CGC_CENTERING_TABLE,
  CGC_PRISTINE_FRONT,
  BGS_FRONT_TABLE,
  BGS_BACK_TABLE,
} from './centering';
export { gradeSide, gradeSides, creaseCap, type CombinedGrades } from './sides';
export {
  type OverallDetail,
  BACK_LENIENCY,
  combineSides,
  overallDetail,
  overallGrade,
  predictedProfessionalGrade,
  gradeDistribution,
  distributionSigma,
  normalCdf,
} from './overall';
export { confidences, subGradeStability, DEFAULT_MEASUREMENT_NOISE, MISSING_BACK_FACTOR, type ConfidenceResult } from './confidence';
export { sideDefects, type DetailedDefect, type DefectDetail } from './defects';
export { gradeLabel, gradeLongName, gradeShortName, formatGrade, qualifier } from './names';
export { DISCLAIMER } from './text';
