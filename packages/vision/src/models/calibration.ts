/**
 * Severity calibration: a small learned model that turns what the engine measured on one corner, edge or the
 * surface of a side (the region's feature vector, the rubric's severity of that measurement, and the side's
 * photographic context: glare, foil texture, clutter, noise, blur, detection confidence) into the severity the
 * element most likely has. It is trained on generator photos run through this engine against their true
 * severities (train/calibration-data.ts, train/train-calibration.ts), so it learns where the measurements are
 * fooled: sleeve outlines read as edge wear, glare as corner whitening, blur as rounding.
 *
 * Three models, one per region type (`calibration-corner`, `-edge`, `-surface`): dense 32-16-1 with a sigmoid
 * output, inputs standardised with the training set's mean and spread (saved in the model's metadata).
 *
 * The surface model is monotone by construction in the marks measured: more or longer scratches, creases, print
 * lines, stains, scuffs or dents, or a higher rubric severity, never give a lower calibrated severity. Its kernels
 * are non-negative and its activations (tanh, sigmoid) rise, so its output rises with every input; the inputs it
 * may read either way (the photo's context, the marks' contrast) are fed twice, as they are and negated
 * (`calibrationInput`). Unconstrained, it had learned that many short marks are foil texture, and on real holo
 * cards one false mark fewer could lower a grade (packages/vision/CHANGELOG.md). The corner and edge models stay
 * unconstrained (relu): there, more measured wear can rightly mean less, since whitening along a whole edge is a
 * sleeve's outline, not wear, and constraining them raised the synthetic bench's edge MAE by 0.28 of a grade point.
 */
import type { CornerId, EdgeId, SideCalibration } from '@cardlens/grading-rubric';
import { FEATURE_NAMES, type ConditionAnalysis } from '../defects';
import type { ModelRuntime } from './runtime';

export const CALIBRATION_MODELS = { corner: 'calibration-corner', edge: 'calibration-edge', surface: 'calibration-surface' } as const;
export type CalibratedRegion = keyof typeof CALIBRATION_MODELS;

/** The side's context, appended to every region's features (fixed order; append only). */
export const CONTEXT_NAMES = ['glareFraction', 'holoScore', 'refractorScore', 'textureFraction', 'noise', 'blurPx', 'detectionConfidence', 'surfaceVisibility'] as const;

export function sideContext(side: { detectionConfidence: number; condition: ConditionAnalysis }): number[] {
  const c = side.condition;
  const glare = c.glare.reduce((a, g) => a + g.areaMm2, 0) / (63 * 88);
  return [glare, c.finish.holo, c.finish.refractor, c.finish.textureFraction, c.quality.noise, c.quality.blurPx, side.detectionConfidence, c.surfaceVisibility];
}

/** One training row: a side, its regions with the measured (rubric) and true severities. */
export interface CalibrationRow {
  seed: number;
  side: 'front' | 'back';
  context: number[];
  regions: { region: CalibratedRegion; id: string; values: number[]; measured: number; truth: number }[];
}

/** The surface features that measure an amount of damage: the calibrated surface severity may only rise with them. */
export const MONOTONE_SURFACE_FEATURES = [
  'scratchCount', 'scratchLengthMm', 'scratchMaxLengthMm', 'creaseCount', 'creaseLengthMm', 'printLineLengthMm', 'stainAreaMm2', 'scuffAreaMm2', 'dentAreaMm2',
] as const satisfies readonly (typeof FEATURE_NAMES)['surface'][number][];

/**
 * Names of a model's inputs, in order. Corner and edge: the region's features, the rubric's severity, the side's
 * context. Surface: the rising features, the rubric's severity, then the others and the context as they are and
 * negated.
 */
export function calibrationInputNames(region: CalibratedRegion): string[] {
  if (region !== 'surface') return [...FEATURE_NAMES[region], 'rubricSeverity', ...CONTEXT_NAMES];
  const rising = new Set<string>(MONOTONE_SURFACE_FEATURES);
  const free = [...FEATURE_NAMES.surface.filter((n) => !rising.has(n)), ...CONTEXT_NAMES];
  return [...MONOTONE_SURFACE_FEATURES, 'rubricSeverity', ...free, ...free.map((n) => `-${n}`)];
}

/** Model input of one region (in the order of calibrationInputNames). */
export function calibrationInput(region: CalibratedRegion, values: readonly number[], measured: number, context: readonly number[]): number[] {
  if (region !== 'surface') return [...values, measured, ...context];
  const names: readonly string[] = FEATURE_NAMES.surface;
  const rising = new Set<string>(MONOTONE_SURFACE_FEATURES);
  const free = [...values.filter((_, i) => !rising.has(names[i]!)), ...context];
  return [...MONOTONE_SURFACE_FEATURES.map((n) => values[names.indexOf(n)]!), measured, ...free, ...free.map((v) => -v)];
}

export interface CalibrationMeta {
  mean: number[];
  std: number[];
}

/**
 * Calibrated severities for a list of regions of one region type (one batch through the model).
 * Returns one severity in [0, 1] per input row.
 */
export async function calibrateSeverities(runtime: ModelRuntime, region: CalibratedRegion, inputs: number[][]): Promise<number[]> {
  if (inputs.length === 0) return [];
  const name = CALIBRATION_MODELS[region];
  const [model, meta] = await Promise.all([runtime.loadModel(name), runtime.modelMetadata(name)]);
  const { mean, std } = meta.normalisation as CalibrationMeta;
  const width = mean.length;
  const flat = new Float32Array(inputs.length * width);
  inputs.forEach((row, r) => row.forEach((v, i) => (flat[r * width + i] = (v - mean[i]!) / (std[i]! || 1))));
  const { tf } = runtime;
  const y = tf.tidy(() => model.predict(tf.tensor2d(flat, [inputs.length, width])) as ReturnType<typeof tf.tensor2d>);
  const out = Array.from((await y.data()) as Float32Array, (v) => Math.min(1, Math.max(0, v)));
  y.dispose();
  return out;
}

/** The photo conditions the calibration responds to, in words for the justification. */
export function describeConditions(context: readonly number[]): string {
  const [glare, holo, refractor, , noise, blurPx, detection] = context as number[];
  const seen: string[] = [];
  if (glare! >= 0.01) seen.push(`glare on ${Math.round(glare! * 100)} % of the side`);
  if (blurPx! >= 1) seen.push(`blur ${blurPx!.toFixed(1)} px`);
  if (noise! >= 6) seen.push(`noise ${noise!.toFixed(0)} levels`);
  if (holo! >= 0.5 || refractor! >= 0.5) seen.push('foil pattern');
  if (detection! < 0.6) seen.push(`outline confidence ${detection!.toFixed(2)}`);
  return seen.length ? seen.join(', ') : 'no notable glare, blur or noise';
}

/**
 * Calibrated severities of one measured side: its four corners, four edges and its surface through the three
 * models, with the rubric's severities of the measurements (`measured`) as an input.
 */
export async function calibrateSide(
  runtime: ModelRuntime,
  side: { detectionConfidence: number; condition: ConditionAnalysis },
  measured: { corners: Record<CornerId, number>; edges: Record<EdgeId, number>; surfaceAggregate: number },
): Promise<SideCalibration> {
  const context = sideContext(side);
  const byRegion = (region: CalibratedRegion) => side.condition.features.filter((f) => f.region === region);
  const corners = byRegion('corner');
  const edges = byRegion('edge');
  const surface = byRegion('surface');
  const [c, e, s] = await Promise.all([
    calibrateSeverities(runtime, 'corner', corners.map((f) => calibrationInput('corner', f.values, measured.corners[f.id as CornerId], context))),
    calibrateSeverities(runtime, 'edge', edges.map((f) => calibrationInput('edge', f.values, measured.edges[f.id as EdgeId], context))),
    calibrateSeverities(runtime, 'surface', surface.map((f) => calibrationInput('surface', f.values, measured.surfaceAggregate, context))),
  ]);
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  return {
    corners: Object.fromEntries(corners.map((f, i) => [f.id, r3(c[i]!)])) as Record<CornerId, number>,
    edges: Object.fromEntries(edges.map((f, i) => [f.id, r3(e[i]!)])) as Record<EdgeId, number>,
    surface: r3(s[0] ?? 0),
    conditions: describeConditions(context),
  };
}
