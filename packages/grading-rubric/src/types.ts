/**
 * Types of the CardLens grading rubric.
 *
 * Inputs are physical measurements of one card (in millimetres, as the generator renders them and the
 * engine measures them on the rectified 10 px/mm image). Outputs are severities, sub-grades, the overall
 * grade, the predicted professional grade, confidences and the explanation text. See GRADING.md.
 *
 * Stability: fields are only ever added, never renamed or removed.
 */

/** Which side of the card. The back is stored as seen (not mirrored). */
export type Side = 'front' | 'back';

/** Corner order everywhere: top-left, top-right, bottom-right, bottom-left (as seen on that side). */
export type CornerId = 'TL' | 'TR' | 'BR' | 'BL';

/** Edge names (as seen on that side). */
export type EdgeId = 'top' | 'right' | 'bottom' | 'left';

/** One corner (the 6 mm x 6 mm square at the card corner). */
export interface CornerMeasurement {
  /** Area where the colour layer is lost and white card stock shows, mm². 0 for a mint corner. */
  whiteningAreaMm2: number;
  /** EXTRA rounding radius from wear beyond the 1.5 mm factory radius, mm. 0 for a mint corner. */
  roundingRadiusMm: number;
  /** Area of a ding (bent, crushed or dented corner tip), mm². 0 for a mint corner. */
  dingAreaMm2: number;
}

/** One edge (the 2.5 mm band along the edge, excluding the two corner squares). */
export interface EdgeMeasurement {
  /** Total length along the edge showing whitening/wear, mm (at most the band length). */
  whitenedLengthMm: number;
  /** Deepest reach of the wear or chip into the card, measured perpendicular to the edge, mm. */
  maxDepthMm: number;
  /** Number of separate chips/nicks (material missing) along the edge. */
  chipCount: number;
}

export type SurfaceDefectKind = 'scratch' | 'crease' | 'print_line' | 'stain' | 'scuff' | 'dent';

/** One surface defect. Position and bounding box in mm on that side's rectified image (origin top-left). */
export interface SurfaceDefect {
  kind: SurfaceDefectKind;
  /** Length in mm: used for scratch, crease and print_line. */
  lengthMm?: number;
  /** Area in mm²: used for stain, scuff and dent. */
  areaMm2?: number;
  /** Visual contrast against the surroundings, 0 (invisible) to 1 (stark). */
  contrast: number;
  /** Bounding box: left, top, width, height in mm. */
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
}

/** Border widths, mm, from the outer edge to the printed frame, perpendicular to the edge, averaged along it. */
export interface CenteringMeasurement {
  leftMm: number;
  rightMm: number;
  topMm: number;
  bottomMm: number;
}

/** Everything measured on one side of a card. */
export interface SideMeasurements {
  corners: Record<CornerId, CornerMeasurement>;
  edges: Record<EdgeId, EdgeMeasurement>;
  surface: SurfaceDefect[];
  centering: CenteringMeasurement;
  /**
   * Severities (0-1) calibrated for the photo by the engine's learned calibration model, when it ran: they
   * replace the severities of the measurements for the corner, edge and surface sub-grades (the measured
   * grades are kept beside them and both appear in the justification).
   */
  calibrated?: SideCalibration;
}

export interface SideCalibration {
  corners: Record<CornerId, number>;
  edges: Record<EdgeId, number>;
  /** Severity of the side's surface as a whole. */
  surface: number;
  /** What the calibration saw in the photo, for the justification, e.g. 'glare on 12 % of the side'. */
  conditions: string;
}

/** The rubric input: the front always, the back when it was photographed and assessed. */
export interface CardMeasurements {
  front: SideMeasurements;
  back?: SideMeasurements;
}

/**
 * Expected measurement noise (one standard deviation) used for confidences and the grade distribution.
 * Defaults (DEFAULT_MEASUREMENT_NOISE) describe the engine at 10 px/mm; the generator's truth has zero noise
 * but the defaults are fine there too (confidences are diagnostics only).
 */
export interface MeasurementNoise {
  /** Border width, mm. */
  borderMm: number;
  /** Corner whitening and ding area, mm². */
  cornerAreaMm2: number;
  /** Extra corner rounding radius, mm. */
  roundingMm: number;
  /** Edge whitened length, mm. */
  edgeLengthMm: number;
  /** Edge wear depth, mm. */
  edgeDepthMm: number;
  /** Edge chip count. */
  chipCount: number;
  /** Surface defect length, relative (0.15 = 15 %). */
  surfaceLengthRel: number;
  /** Surface defect area, relative. */
  surfaceAreaRel: number;
  /** Surface defect contrast, absolute. */
  contrast: number;
}

/** How well one side could be seen (engine diagnostics). All 0-1, 1 = perfect. */
export interface SideQuality {
  /** Confidence of the card detection / rectification of this side. Default 1. */
  detectionConfidence?: number;
  /** Fraction of the surface that could be inspected (glare, sleeve reflections, blur lower it). Default 1. */
  surfaceVisibility?: number;
  /**
   * Aspects of this side the photo cannot support, each with the reason in words (e.g. the card spans too few
   * pixels per mm for its corners). Such an aspect is graded as "nothing seen" (an upper bound: never lowered
   * by what the engine could not see), listed in `notAssessed` with its reason, and its confidence drops.
   */
  notAssessed?: Partial<Record<SubGradeName, string>>;
}

/** Options of gradeCard. */
export interface GradeOptions {
  quality?: { front?: SideQuality; back?: SideQuality };
  noise?: Partial<MeasurementNoise>;
}

/** The four sub-grades (1-10, half points), or their confidences (0-1). */
export interface SubGradeSet {
  centering: number;
  corners: number;
  edges: number;
  surface: number;
}

export type SubGradeName = keyof SubGradeSet;

/** Centering of one side, as numbers. */
export interface SideCentering {
  /** 100*L/(L+R): directional, 56 reads 56/44 with the wider border on the left. */
  leftRight: number;
  /** 100*T/(T+B). */
  topBottom: number;
  /** Display strings, e.g. '56/44' (rounded share / 100 - it). */
  leftRightDisplay: string;
  topBottomDisplay: string;
  /** max(share, 100-share) of the worse axis (50..100). */
  worstShare: number;
  worstAxis: 'left-right' | 'top-bottom';
  /** Grade ceiling from PSA's table for this side (integer 1-10). */
  psaCap: number;
  /** BGS-like centering grade for this side (half points). */
  bgsGrade: number;
  /** Grade ceiling from CGC's table for this side (documented reference). */
  cgcCap: number;
}

/** Combined centering assessment. */
export interface CenteringResult {
  front: SideCentering;
  back?: SideCentering;
  /** min of the front and back PSA caps: the ceiling of the predicted professional grade. */
  psaCap: number;
  /** Which side's table sets psaCap ('front' when equal). */
  psaCapSide: Side;
  /** Centering sub-grade: min of the BGS-like front and back grades. */
  bgsSubGrade: number;
  cgcCap: number;
}

/** Severities (0 = none, 1 = worst) of one side. */
export interface SideSeverities {
  corners: Record<CornerId, number>;
  edges: Record<EdgeId, number>;
  /** One per input surface defect, same order. */
  surface: number[];
  /** Aggregated severities behind the side's sub-grades. */
  cornersAggregate: number;
  edgesAggregate: number;
  surfaceAggregate: number;
}

/** Grades of one side. */
export interface SideGrades {
  /** BGS-like centering grade of this side. */
  centering: number;
  corners: number;
  edges: number;
  surface: number;
  /** Unquantised grades (10 - 9 x severity) behind corners/edges/surface. */
  unrounded: { corners: number; edges: number; surface: number };
  /** With a calibration: the grades the measurements alone give, and what the calibration saw. */
  measured?: { corners: number; edges: number; surface: number; conditions: string };
  severities: SideSeverities;
}

export type RubricDefectKind = 'corner_wear' | 'edge_wear' | SurfaceDefectKind;

/** A defect found in the measurements, with its severity and the grade level it implies on its own. */
export interface RubricDefect {
  kind: RubricDefectKind;
  side: Side;
  /** 'top-left corner', 'bottom edge' or 'surface'. */
  location: string;
  /** Severity 0-1 (0 barely visible, 1 severe). */
  severity: number;
  /** Grade this defect alone would allow (half points). */
  gradeLevel: number;
  /** Bounding box in mm on that side's rectified image. */
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
  /** Human-readable description with the measured numbers. */
  description: string;
}

/** Something that limited a grade, with the numbers. */
export interface LimitingFactor {
  /** Which grade it limits. */
  target: SubGradeName | 'overall' | 'predicted';
  side?: Side;
  /** Grade it leads to. */
  grade: number;
  /** One clause naming the numbers, e.g. 'front centering 58/42 left-right limits the grade to 9 under PSA's table'. */
  text: string;
}

export type NotAssessedItem = `${Side}_${SubGradeName}`;

/** Why an aspect was not assessed, in words. */
export interface NotAssessedReason {
  item: NotAssessedItem;
  reason: string;
}

export interface GradeProbability {
  /** Integer professional grade 1..10. */
  grade: number;
  probability: number;
}

/** The rubric's output. */
export interface RubricResult {
  /** Version of the rubric (changes whenever a threshold changes). */
  rubricVersion: string;
  /** Overall AI grade, 1-10 in half points. */
  grade: number;
  /** e.g. 'NM-MT+ 8.5'. */
  gradeLabel: string;
  /**
   * Predicted professional (PSA-like) grade, integer 1-10; null where the photos supported no aspect at all
   * (nothing was measured, so nothing is predicted).
   */
  predictedGrade: number | null;
  /** e.g. 'NM-MT 8'; null with predictedGrade. */
  predictedGradeLabel: string | null;
  /** Combined (front + back) sub-grades. */
  subGrades: SubGradeSet;
  /** Confidence 0-1 per combined sub-grade. */
  subGradeConfidences: SubGradeSet;
  /** Overall confidence 0-1. */
  confidence: number;
  sides: { front: SideGrades; back?: SideGrades };
  centering: CenteringResult;
  defects: RubricDefect[];
  limitingFactors: LimitingFactor[];
  /** What could not be assessed (the back when it is missing; aspects the photos cannot support). */
  notAssessed: NotAssessedItem[];
  /** The reason for each entry of notAssessed, in the same order. */
  notAssessedReasons: NotAssessedReason[];
  /** Probability over integer professional grades 1..10 (sums to 1); empty where no grade is predicted. */
  gradeDistribution: GradeProbability[];
  /** One sentence. */
  summary: string;
  /** Several sentences naming every number that limited the grade. */
  justification: string;
  /** 'Grades are AI estimates, not certified grades.' */
  disclaimer: string;
}
