/**
 * The numeric building blocks of the rubric: anchor curves (measurement -> continuous grade), the
 * severity <-> grade relation and the half-point quantisation. See GRADING.md, "Severity and grade".
 */

/** A grade curve: [measurement value, grade] anchors, values strictly increasing, grades non-increasing. */
export type Anchors = readonly (readonly [value: number, grade: number])[];

/**
 * Continuous grade for a measured value: 10 up to the first anchor (the tolerance below which nothing is
 * visible), linear between anchors, the last anchor's grade beyond the last anchor (never below 1).
 * Non-increasing in `value` by construction.
 */
export function gradeFromAnchors(value: number, anchors: Anchors): number {
  // NaN (no reading) and non-positive values are "no damage"; +Infinity falls through to the last anchor.
  if (Number.isNaN(value) || value <= 0) return 10;
  const first = anchors[0];
  if (!first) return 10;
  if (value <= first[0]) {
    // From (0, 10) to the first anchor (usually the first anchor is the tolerance with grade 10).
    return 10 - ((10 - first[1]) * value) / first[0];
  }
  for (let i = 1; i < anchors.length; i++) {
    const a = anchors[i - 1]!;
    const b = anchors[i]!;
    if (value <= b[0]) return a[1] + ((b[1] - a[1]) * (value - a[0])) / (b[0] - a[0]);
  }
  return Math.max(1, anchors[anchors.length - 1]![1]);
}

/** Severity 0..1 from a continuous grade: s = (10 - g) / 9. */
export function severityFromGrade(grade: number): number {
  return clamp01((10 - grade) / 9);
}

/** Continuous grade from a severity: g = 10 - 9 s (10 for s = 0, 1 for s = 1). */
export function gradeFromSeverity(severity: number): number {
  return 10 - 9 * clamp01(severity);
}

/**
 * Half-point grade from a continuous grade: nearest half point, exact ties go DOWN (8.75 -> 8.5), clamped
 * to [1, 10]. A tiny epsilon keeps floating-point noise (8.7500000001) on the conservative side too.
 */
export function quantizeHalf(grade: number): number {
  const q = Math.ceil(grade * 2 - 0.5 - 1e-6) / 2;
  return Math.min(10, Math.max(1, q));
}

/** Half-point grade straight from a severity. Monotone: more severity never gives a higher grade. */
export function gradeFromSeverityHalf(severity: number): number {
  return quantizeHalf(gradeFromSeverity(severity));
}

/** Round down to the half point (used where the rubric must be conservative). */
export function floorHalf(x: number): number {
  return Math.floor(x * 2 + 1e-9) / 2;
}

/**
 * Ordered weighted aggregation of severities: the worst counts fully, the next ones add a decreasing share
 * (weights AGGREGATE_WEIGHTS, the last weight repeats), capped at 1. Monotone in every input and never
 * decreases when a defect is added.
 */
export const AGGREGATE_WEIGHTS = [1, 0.3, 0.15, 0.1] as const;

export function aggregateSeverities(severities: readonly number[]): number {
  const sorted = [...severities].map(clamp01).sort((a, b) => b - a);
  let total = 0;
  sorted.forEach((s, i) => {
    const w = AGGREGATE_WEIGHTS[Math.min(i, AGGREGATE_WEIGHTS.length - 1)]!;
    total += w * s;
  });
  return clamp01(total);
}

/**
 * Severity of one element (a corner, an edge) measured by several components: the worst component counts
 * fully and every other component adds COMPONENT_REST_WEIGHT of its severity, capped at 1.
 */
export const COMPONENT_REST_WEIGHT = 0.25;

export function combineComponents(severities: readonly number[]): number {
  const s = severities.map(clamp01);
  const max = Math.max(0, ...s);
  const sum = s.reduce((a, b) => a + b, 0);
  return clamp01(max + COMPONENT_REST_WEIGHT * (sum - max));
}

export function clamp01(x: number): number {
  if (!Number.isFinite(x)) return x > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, x));
}

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
