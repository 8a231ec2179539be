/**
 * Severities: deterministic functions from physical measurements to [0, 1].
 *
 * Every measure has an anchor curve (value -> the grade that flaw alone allows); the severity is
 * (10 - grade) / 9. The tables below are the rubric; GRADING.md reproduces them with the reasoning.
 */
import {
  type Anchors,
  combineComponents,
  gradeFromAnchors,
  severityFromGrade,
  clamp01,
} from './curves';
import { edgeLengthMm } from './geometry';
import type { CornerMeasurement, EdgeId, EdgeMeasurement, SurfaceDefect, SurfaceDefectKind } from './types';

// ---------------------------------------------------------------------------------------------------------
// Corners
// ---------------------------------------------------------------------------------------------------------

/** Corner whitening area (mm²) -> grade. 0.3 mm² (a white dot ~0.6 mm across) is a 9-level flaw. */
export const CORNER_WHITENING_ANCHORS: Anchors = [
  [0.05, 10], [0.3, 9], [0.7, 8], [1.5, 7], [3, 6], [5, 5], [8, 4], [12, 3], [18, 2], [25, 1],
];
/** Extra corner rounding radius beyond the 1.5 mm factory radius (mm) -> grade. 2 mm is a 6-level corner. */
export const CORNER_ROUNDING_ANCHORS: Anchors = [
  [0.1, 10], [0.3, 9], [0.6, 8], [1.0, 7], [2.0, 6], [3.0, 5], [4.0, 4], [5.0, 3], [6.0, 2], [8.0, 1],
];
/** Ding (bent/crushed corner tip) area (mm²) -> grade. Dings are structural, so steeper than whitening. */
export const CORNER_DING_ANCHORS: Anchors = [
  [0.05, 10], [0.25, 9], [0.6, 8], [1.2, 7], [2.5, 6], [4, 5], [7, 4], [11, 3], [16, 2], [25, 1],
];

// ---------------------------------------------------------------------------------------------------------
// Edges
// ---------------------------------------------------------------------------------------------------------

/** Whitened fraction of the edge region length (0..1) -> grade. Whitening along the whole edge is a 4. */
export const EDGE_WHITENING_FRACTION_ANCHORS: Anchors = [
  [0.01, 10], [0.05, 9], [0.12, 8], [0.25, 7], [0.45, 6], [0.7, 5], [1.0, 4],
];
/** Deepest wear/chip reach into the card (mm) -> grade. */
export const EDGE_DEPTH_ANCHORS: Anchors = [
  [0.1, 10], [0.25, 9], [0.5, 8], [0.8, 7], [1.2, 6], [1.6, 5], [2.0, 4], [2.5, 3], [3.5, 2], [5, 1],
];
/** Number of chips on the edge -> grade. One small chip is an 8.5-level flaw. */
export const EDGE_CHIP_ANCHORS: Anchors = [
  [1, 8.5], [2, 8], [3, 7.5], [5, 7], [8, 6], [12, 5], [20, 4], [30, 3], [45, 2], [60, 1],
];

// ---------------------------------------------------------------------------------------------------------
// Surface
// ---------------------------------------------------------------------------------------------------------

/**
 * Per kind: which size measure it uses, the contrast weighting (effective size = size x (a + b x contrast);
 * contrast 0.5 gives factor 1 for scratch/print line/stain/scuff) and the anchors on the effective size.
 * Creases are capped at grade 5 whatever their size (CREASE_MAX_GRADE).
 */
export interface SurfaceRule {
  measure: 'length' | 'area';
  contrastBase: number;
  contrastSlope: number;
  anchors: Anchors;
}

export const CREASE_MAX_GRADE = 5;

export const SURFACE_RULES: Record<SurfaceDefectKind, SurfaceRule> = {
  /** A 10 mm scratch of ordinary contrast is a 7. */
  scratch: {
    measure: 'length', contrastBase: 0.4, contrastSlope: 1.2,
    anchors: [[0.5, 10], [2, 9], [5, 8], [10, 7], [20, 6], [35, 5], [50, 4], [70, 3], [100, 2], [140, 1]],
  },
  /** Any crease is at most a 5; a crease across the card (63 mm) is a 2. */
  crease: {
    measure: 'length', contrastBase: 0.6, contrastSlope: 0.8,
    anchors: [[10, 5], [25, 4], [45, 3], [70, 2], [100, 1.5], [140, 1]],
  },
  /** Factory print lines: PSA allows a slight one on a 10, so lenient. */
  print_line: {
    measure: 'length', contrastBase: 0.4, contrastSlope: 1.2,
    anchors: [[2, 10], [8, 9], [20, 8], [40, 7], [63, 6], [88, 5.5], [130, 5]],
  },
  /** Stains: a PSA 10 must be free of staining, so anything visible (0.5 mm²) is a 9. */
  stain: {
    measure: 'area', contrastBase: 0.4, contrastSlope: 1.2,
    anchors: [[0.1, 10], [0.5, 9], [3, 8], [10, 7], [25, 6], [50, 5], [100, 4], [200, 3], [400, 2], [800, 1]],
  },
  /** Scuffs (loss of gloss): lenient per mm², they are faint. */
  scuff: {
    measure: 'area', contrastBase: 0.4, contrastSlope: 1.2,
    anchors: [[1, 10], [4, 9], [15, 8], [40, 7], [80, 6], [150, 5], [300, 4], [600, 3], [1200, 2], [2500, 1]],
  },
  /** Dents (indentations without a crease line): structural, a 0.5 mm² dent is an 8. */
  dent: {
    measure: 'area', contrastBase: 0.7, contrastSlope: 0.6,
    anchors: [[0.1, 10], [0.5, 8], [2, 7], [5, 6], [12, 5], [30, 4], [60, 3], [120, 2], [250, 1]],
  },
};

// ---------------------------------------------------------------------------------------------------------
// Assessments (severity with the component detail the text needs)
// ---------------------------------------------------------------------------------------------------------

export type CornerComponent = 'whitening' | 'rounding' | 'ding';
export type EdgeComponent = 'whitening' | 'depth' | 'chips';

export interface ComponentAssessment<C extends string> {
  component: C;
  /** The measured value in its unit (whitening: mm² for corners, whitened fraction for edges, ...). */
  value: number;
  /** Grade this component alone allows (continuous). */
  grade: number;
  severity: number;
}

export interface ElementAssessment<C extends string> {
  severity: number;
  /** Continuous grade 10 - 9 x severity. */
  grade: number;
  components: ComponentAssessment<C>[];
  /** The component with the highest severity (ties: the first listed). */
  dominant: ComponentAssessment<C>;
}

function component<C extends string>(name: C, value: number, anchors: Anchors): ComponentAssessment<C> {
  const grade = gradeFromAnchors(value, anchors);
  return { component: name, value, grade, severity: severityFromGrade(grade) };
}

function element<C extends string>(components: ComponentAssessment<C>[]): ElementAssessment<C> {
  const severity = combineComponents(components.map((c) => c.severity));
  let dominant = components[0]!;
  for (const c of components) if (c.severity > dominant.severity) dominant = c;
  return { severity, grade: 10 - 9 * severity, components, dominant };
}

const nonNeg = (x: number | undefined): number => (x === undefined || Number.isNaN(x) ? 0 : Math.max(0, x));

/** Corner: worst of whitening, rounding and ding counts fully, the others add a quarter. */
export function assessCorner(c: CornerMeasurement): ElementAssessment<CornerComponent> {
  return element<CornerComponent>([
    component('whitening', nonNeg(c.whiteningAreaMm2), CORNER_WHITENING_ANCHORS),
    component('rounding', nonNeg(c.roundingRadiusMm), CORNER_ROUNDING_ANCHORS),
    component('ding', nonNeg(c.dingAreaMm2), CORNER_DING_ANCHORS),
  ]);
}

export function cornerSeverity(c: CornerMeasurement): number {
  return assessCorner(c).severity;
}

/** Edge: whitened fraction of the edge length, max depth, chip count. */
export function assessEdge(e: EdgeMeasurement, edge: EdgeId): ElementAssessment<EdgeComponent> {
  const fraction = Math.min(1, nonNeg(e.whitenedLengthMm) / edgeLengthMm(edge));
  return element<EdgeComponent>([
    component('whitening', fraction, EDGE_WHITENING_FRACTION_ANCHORS),
    component('depth', nonNeg(e.maxDepthMm), EDGE_DEPTH_ANCHORS),
    component('chips', nonNeg(e.chipCount), EDGE_CHIP_ANCHORS),
  ]);
}

export function edgeSeverity(e: EdgeMeasurement, edge: EdgeId): number {
  return assessEdge(e, edge).severity;
}

export interface SurfaceAssessment {
  /** Raw size in the kind's unit (mm or mm²). */
  size: number;
  unit: 'mm' | 'mm²';
  contrast: number;
  /** size x (contrastBase + contrastSlope x contrast). */
  effectiveSize: number;
  /** Continuous grade the defect alone allows. */
  grade: number;
  severity: number;
}

/**
 * Size of a surface defect: lengthMm (scratch, crease, print line) or areaMm2 (stain, scuff, dent).
 * When the size is missing it is taken from the bounding box: its diagonal for lengths, the inscribed
 * ellipse for areas.
 */
export function surfaceDefectSize(d: SurfaceDefect): number {
  const rule = SURFACE_RULES[d.kind];
  const w = nonNeg(d.wMm);
  const h = nonNeg(d.hMm);
  if (rule.measure === 'length') return d.lengthMm !== undefined && !Number.isNaN(d.lengthMm) ? nonNeg(d.lengthMm) : Math.hypot(w, h);
  return d.areaMm2 !== undefined && !Number.isNaN(d.areaMm2) ? nonNeg(d.areaMm2) : (Math.PI / 4) * w * h;
}

export function assessSurfaceDefect(d: SurfaceDefect): SurfaceAssessment {
  const rule = SURFACE_RULES[d.kind];
  const size = surfaceDefectSize(d);
  const contrast = Number.isNaN(d.contrast) || d.contrast === undefined ? 0.5 : clamp01(d.contrast);
  const effectiveSize = size * (rule.contrastBase + rule.contrastSlope * contrast);
  let grade = gradeFromAnchors(effectiveSize, rule.anchors);
  if (d.kind === 'crease') grade = Math.min(CREASE_MAX_GRADE, grade);
  return {
    size,
    unit: rule.measure === 'length' ? 'mm' : 'mm²',
    contrast,
    effectiveSize,
    grade,
    severity: severityFromGrade(grade),
  };
}

export function surfaceDefectSeverity(d: SurfaceDefect): number {
  return assessSurfaceDefect(d).severity;
}
