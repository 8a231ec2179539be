/**
 * Confidence per sub-grade (0-1). See GRADING.md, "Confidence".
 *
 *   confidence = stability x detection x visibility (surface only) x missing-back factor
 *
 * stability is the chance that the expected measurement noise leaves the combined sub-grade where it is:
 * - corners, edges, surface: the sub-grade is the half-point rounding of a continuous grade
 *   gc = min(front, back + 0.5, back crease grade). Each non-zero measurement i moves gc by
 *   d_i = (gc(m_i + sigma_i) - gc(m_i - sigma_i)) / 2; sigma_g = sqrt(sum d_i²) and the stability is
 *   Phi((hi - gc) / sigma_g) - Phi((lo - gc) / sigma_g) where [lo, hi] = [q - 0.25, q + 0.25] is the interval
 *   that rounds to the same half point q (open-ended at 10 and at 1).
 * - centering (a step table): for each axis share s with noise sigma_s (from the border noise), the distance to
 *   the nearest share where the centering sub-grade changes, up and down; stability = product over the axes
 *   of Phi(up / sigma_s) - Phi(-down / sigma_s).
 * Zero readings ("nothing found") contribute nothing: missing a defect is the detector's uncertainty, carried
 * by the detection confidence and the surface visibility.
 */
import { aggregateSeverities, gradeFromSeverity } from './curves';
import { bgsSideGrade, centeringShares, type CenteringShares } from './centering';
import { BACK_LENIENCY, normalCdf } from './overall';
import { CORNER_IDS, EDGE_IDS } from './geometry';
import { NOT_ASSESSED_FACTOR } from './not-assessed';
import { assessCorner, assessEdge, assessSurfaceDefect } from './severity';
import { boundedCalibration } from './sides';
import type {
  CardMeasurements,
  CornerMeasurement,
  EdgeMeasurement,
  GradeOptions,
  MeasurementNoise,
  NotAssessedReason,
  Side,
  SideMeasurements,
  SubGradeSet,
  SurfaceDefect,
} from './types';

export const DEFAULT_MEASUREMENT_NOISE: MeasurementNoise = {
  borderMm: 0.05,
  cornerAreaMm2: 0.05,
  roundingMm: 0.1,
  edgeLengthMm: 1,
  edgeDepthMm: 0.05,
  chipCount: 0.3,
  surfaceLengthRel: 0.15,
  surfaceAreaRel: 0.2,
  contrast: 0.05,
};

/** Confidence multipliers when the back was not photographed. */
export const MISSING_BACK_FACTOR: SubGradeSet = { centering: 0.8, corners: 0.7, edges: 0.7, surface: 0.7 };

type Category = 'corners' | 'edges' | 'surface';

/** Element grades of one side for one category (continuous, 10 - 9 x severity), plus crease flags for surface. */
interface Elements {
  severities: number[];
  /** Continuous grade of each crease (surface only); NaN for other kinds. */
  creaseGrades: number[];
}

function elementsOf(s: SideMeasurements, cat: Category): Elements {
  if (cat === 'corners') return { severities: CORNER_IDS.map((id) => assessCorner(s.corners[id]).severity), creaseGrades: [] };
  if (cat === 'edges') return { severities: EDGE_IDS.map((id) => assessEdge(s.edges[id], id).severity), creaseGrades: [] };
  const a = s.surface.map(assessSurfaceDefect);
  return { severities: a.map((x) => x.severity), creaseGrades: a.map((x, i) => (s.surface[i]!.kind === 'crease' ? x.grade : NaN)) };
}

/** Continuous combined grade gc = min(front, back + leniency, back creases). */
function combinedContinuous(front: Elements, back?: Elements): number {
  let g = gradeFromSeverity(aggregateSeverities(front.severities));
  if (back) {
    g = Math.min(g, gradeFromSeverity(aggregateSeverities(back.severities)) + BACK_LENIENCY);
    for (const c of back.creaseGrades) if (!Number.isNaN(c)) g = Math.min(g, c);
  }
  return Math.min(10, g);
}

/** One measurement that can move: its value, noise and the element (severity, crease grade) it yields at v. */
interface Probe {
  side: Side;
  index: number;
  value: number;
  sigma: number;
  at(v: number): { severity: number; creaseGrade: number };
}

function probesOf(side: Side, s: SideMeasurements, cat: Category, noise: MeasurementNoise): Probe[] {
  const out: Probe[] = [];
  if (cat === 'corners') {
    CORNER_IDS.forEach((id, index) => {
      const c = s.corners[id];
      const add = (key: keyof CornerMeasurement, sigma: number) => {
        if (c[key] > 0) out.push({ side, index, value: c[key], sigma, at: (v) => ({ severity: assessCorner({ ...c, [key]: v }).severity, creaseGrade: NaN }) });
      };
      add('whiteningAreaMm2', noise.cornerAreaMm2 + 0.1 * c.whiteningAreaMm2);
      add('roundingRadiusMm', noise.roundingMm);
      add('dingAreaMm2', noise.cornerAreaMm2 + 0.1 * c.dingAreaMm2);
    });
  } else if (cat === 'edges') {
    EDGE_IDS.forEach((id, index) => {
      const e = s.edges[id];
      const add = (key: keyof EdgeMeasurement, sigma: number) => {
        if (e[key] > 0) out.push({ side, index, value: e[key], sigma, at: (v) => ({ severity: assessEdge({ ...e, [key]: v }, id).severity, creaseGrade: NaN }) });
      };
      add('whitenedLengthMm', noise.edgeLengthMm);
      add('maxDepthMm', noise.edgeDepthMm);
      add('chipCount', noise.chipCount);
    });
  } else {
    s.surface.forEach((d, index) => {
      const at = (changed: SurfaceDefect) => {
        const a = assessSurfaceDefect(changed);
        return { severity: a.severity, creaseGrade: d.kind === 'crease' ? a.grade : NaN };
      };
      if (d.lengthMm !== undefined && d.lengthMm > 0) {
        out.push({ side, index, value: d.lengthMm, sigma: noise.surfaceLengthRel * d.lengthMm, at: (v) => at({ ...d, lengthMm: v }) });
      } else if (d.areaMm2 !== undefined && d.areaMm2 > 0) {
        out.push({ side, index, value: d.areaMm2, sigma: noise.surfaceAreaRel * d.areaMm2, at: (v) => at({ ...d, areaMm2: v }) });
      }
      if (d.contrast > 0) {
        out.push({ side, index, value: d.contrast, sigma: noise.contrast, at: (v) => at({ ...d, contrast: Math.min(1, v) }) });
      }
    });
  }
  return out;
}

function replaced(e: Elements, index: number, el: { severity: number; creaseGrade: number }): Elements {
  const severities = e.severities.slice();
  severities[index] = el.severity;
  const creaseGrades = e.creaseGrades.slice();
  if (creaseGrades.length > index) creaseGrades[index] = el.creaseGrade;
  return { severities, creaseGrades };
}

/** Chance that a value with Gaussian noise sigma stays in the half-point interval of q = quantise(g). */
function stayProbability(g: number, q: number, sigma: number): number {
  if (!(sigma > 1e-9)) return 1;
  const hi = q >= 10 ? Infinity : q + 0.25;
  const lo = q <= 1 ? -Infinity : q - 0.25;
  return normalCdf((hi - g) / sigma) - normalCdf((lo - g) / sigma);
}

/**
 * 1-sigma error, in grade points, of a side sub-grade that the learned calibration set: about its held-out
 * mean absolute error x 1.25 (GRADING.md, "Learned components").
 */
export const CALIBRATION_SIGMA_GRADES = 1.0;

/** The calibrated severities in place of the measured ones (creases still cap from their measurements). */
function calibratedElements(s: SideMeasurements, cat: Category): Elements {
  const c = boundedCalibration(s)!;
  const severities = cat === 'corners' ? CORNER_IDS.map((id) => c.corners[id]) : cat === 'edges' ? EDGE_IDS.map((id) => c.edges[id]) : [c.surface];
  return { severities, creaseGrades: elementsOf(s, cat).creaseGrades };
}

function categoryStability(m: CardMeasurements, cat: Category, noise: MeasurementNoise, q: number): number {
  if (m.front.calibrated) {
    // The calibration, not measurement noise, is what can move a calibrated sub-grade.
    const g = combinedContinuous(calibratedElements(m.front, cat), m.back?.calibrated ? calibratedElements(m.back, cat) : m.back ? elementsOf(m.back, cat) : undefined);
    return stayProbability(g, q, CALIBRATION_SIGMA_GRADES);
  }
  const front = elementsOf(m.front, cat);
  const back = m.back ? elementsOf(m.back, cat) : undefined;
  const g = combinedContinuous(front, back);
  let variance = 0;
  const all = [...probesOf('front', m.front, cat, noise), ...(m.back ? probesOf('back', m.back, cat, noise) : [])];
  for (const p of all) {
    const evalAt = (v: number): number => {
      const el = p.at(Math.max(0, v));
      return p.side === 'front' ? combinedContinuous(replaced(front, p.index, el), back) : combinedContinuous(front, replaced(back!, p.index, el));
    };
    const up = evalAt(p.value + p.sigma);
    const down = evalAt(p.value - p.sigma);
    const d = (down - up) / 2;
    variance += d * d;
  }
  return stayProbability(g, q, Math.sqrt(variance));
}

/** Noise of a share 100 a / (a + b) from independent noise sigma on both borders. */
function shareSigma(a: number, b: number, sigma: number): number {
  const sum = Math.max(1e-6, a + b);
  return (100 * sigma * Math.hypot(a, b)) / (sum * sum);
}

function centeringStability(m: CardMeasurements, noise: MeasurementNoise, q: number): number {
  const sides: [Side, SideMeasurements][] = m.back ? [['front', m.front], ['back', m.back]] : [['front', m.front]];
  const grades = sides.map(([side, s]) => bgsSideGrade(side, centeringShares(s.centering)));
  let p = 1;
  sides.forEach(([side, s], i) => {
    const shares = centeringShares(s.centering);
    const others = grades.filter((_, j) => j !== i);
    const combined = (sh: CenteringShares) => Math.min(bgsSideGrade(side, sh), ...others);
    for (const axis of ['leftRight', 'topBottom'] as const) {
      const [a, b] = axis === 'leftRight' ? [s.centering.leftMm, s.centering.rightMm] : [s.centering.topMm, s.centering.bottomMm];
      const sigma = shareSigma(Math.max(0, a), Math.max(0, b), noise.borderMm);
      if (!(sigma > 1e-9)) continue;
      const dist = (dir: 1 | -1): number => {
        for (let k = 0.05; k <= 4 * sigma + 1e-9; k += Math.max(0.05, sigma / 10)) {
          const v = shares[axis] + dir * k;
          if (v < 0 || v > 100) return Infinity;
          if (combined({ ...shares, [axis]: v }) !== q) return k;
        }
        return Infinity;
      };
      p *= normalCdf(dist(1) / sigma) - normalCdf(-dist(-1) / sigma);
    }
  });
  return p;
}

/** Probability (0-1) that each combined sub-grade stays where it is under the expected measurement noise. */
export function subGradeStability(
  m: CardMeasurements,
  subGrades: SubGradeSet,
  noise: MeasurementNoise = DEFAULT_MEASUREMENT_NOISE,
): SubGradeSet {
  return {
    centering: centeringStability(m, noise, subGrades.centering),
    corners: categoryStability(m, 'corners', noise, subGrades.corners),
    edges: categoryStability(m, 'edges', noise, subGrades.edges),
    surface: categoryStability(m, 'surface', noise, subGrades.surface),
  };
}

const unit = (x: number | undefined): number => (x === undefined || Number.isNaN(x) ? 1 : Math.min(1, Math.max(0, x)));
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export interface ConfidenceResult {
  subGrades: SubGradeSet;
  overall: number;
  stability: SubGradeSet;
}

/** Confidence per combined sub-grade and overall (geometric mean of the four). */
export function confidences(m: CardMeasurements, subGrades: SubGradeSet, options: GradeOptions = {}, notAssessed: NotAssessedReason[] = []): ConfidenceResult {
  const noise = { ...DEFAULT_MEASUREMENT_NOISE, ...options.noise };
  const stability = subGradeStability(m, subGrades, noise);
  const q = options.quality ?? {};
  const det = m.back
    ? Math.min(unit(q.front?.detectionConfidence), unit(q.back?.detectionConfidence))
    : unit(q.front?.detectionConfidence);
  const vis = m.back
    ? Math.min(unit(q.front?.surfaceVisibility), unit(q.back?.surfaceVisibility))
    : unit(q.front?.surfaceVisibility);
  const sub = {} as SubGradeSet;
  const st = {} as SubGradeSet;
  for (const k of ['centering', 'corners', 'edges', 'surface'] as const) {
    let c = stability[k] * det;
    if (k === 'surface') c *= vis;
    if (!m.back) c *= MISSING_BACK_FACTOR[k];
    // An aspect the photo could not support was graded as nothing seen: that grade is a bound, not a reading.
    if (notAssessed.some((r) => r.item === `front_${k}`)) c *= NOT_ASSESSED_FACTOR;
    if (m.back && notAssessed.some((r) => r.item === `back_${k}`)) c *= MISSING_BACK_FACTOR[k];
    sub[k] = round3(c);
    st[k] = round3(stability[k]);
  }
  const overall = round3(Math.pow(sub.centering * sub.corners * sub.edges * sub.surface, 1 / 4));
  return { subGrades: sub, overall, stability: st };
}
