import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { generateSample, renderCardSides } from '@cardlens/card-synth';
import { decodeScaled, probeImage } from '../../src/image/decode';
import type { RgbImage } from '../../src/image/types';
import { KEYPOINT_GRID, KEYPOINT_INPUT, KEYPOINT_MODEL, predictCorners } from '../../src/models/keypoints';
import { createModelRuntime, type ModelRuntime } from '../../src/models/runtime';
import { CALIBRATION_MODELS, calibrateSeverities, calibrationInput, calibrationInputNames, MONOTONE_SURFACE_FEATURES } from '../../src/models/calibration';
import { FEATURE_NAMES } from '../../src/defects';
import { CORNER_INPUT, EDGE_INPUT, predictSeverities, SEVERITY_MODELS, SURFACE_GRID, SURFACE_INPUT } from '../../src/models/severity';

let rt: ModelRuntime;

beforeAll(async () => {
  rt = await createModelRuntime();
});

describe('committed models', () => {
  it.each([
    // the corner model has two heads: heatmaps and orientation logits
    [KEYPOINT_MODEL, [1, KEYPOINT_INPUT, KEYPOINT_INPUT, 3], [[1, KEYPOINT_GRID, KEYPOINT_GRID, 4], [1, 4]]],
    [SEVERITY_MODELS.corner, [4, CORNER_INPUT, CORNER_INPUT, 3], [[4, 3]]],
    [SEVERITY_MODELS.edge, [4, EDGE_INPUT.depth, EDGE_INPUT.along, 3], [[4, 3]]],
    [SEVERITY_MODELS.surface, [1, SURFACE_INPUT.height, SURFACE_INPUT.width, 3], [[1, SURFACE_GRID.rows, SURFACE_GRID.cols, 1]]],
    // calibration: region features + the rubric's severity + the side context (free ones also negated)
    [CALIBRATION_MODELS.corner, [4, calibrationInputNames('corner').length], [[4, 1]]],
    [CALIBRATION_MODELS.edge, [4, calibrationInputNames('edge').length], [[4, 1]]],
    [CALIBRATION_MODELS.surface, [1, calibrationInputNames('surface').length], [[1, 1]]],
  ])('%s loads from packages/vision/models and has the right output shape', async (name, inShape, outShapes) => {
    const model = await rt.loadModel(name);
    type T = ReturnType<typeof rt.tf.zeros>;
    const out = rt.tf.tidy(() => model.predict(rt.tf.zeros(inShape)) as T | T[]);
    const ys = Array.isArray(out) ? out : [out];
    expect(ys.map((y) => y.shape)).toEqual(outShapes);
    for (const y of ys) {
      const v = y.dataSync();
      y.dispose();
      expect(Array.from(v).every(Number.isFinite)).toBe(true);
    }
    const meta = await rt.modelMetadata(name);
    expect(meta.training).toBeDefined();
  });
});

describe('corner model on generated photos', () => {
  // Validation-range seeds (never trained on, never the benchmark's); 1 MP photos decoded like the engine does.
  const SEEDS = [900_400, 900_401, 900_402, 900_403, 900_404];
  const errors: number[] = [];
  const imageMax: number[] = [];

  beforeAll(async () => {
    for (const seed of SEEDS) {
      const sample = await generateSample(seed, { photo: { megapixels: 1 } });
      for (const side of ['front', 'back'] as const) {
        const bytes = side === 'front' ? sample.frontJpeg : sample.backJpeg;
        const info = await probeImage(bytes);
        const det = await decodeScaled(bytes, info, Math.max(1, Math.max(info.width, info.height) / 512));
        const pred = await predictCorners(rt, det.image);
        const truth = sample.label.photo[side].quadPx;
        const long = Math.max(info.width, info.height);
        let worst = 0;
        pred.quad.forEach(([x, y], k) => {
          const e = (Math.hypot(x * det.scaleX - truth[k]![0], y * det.scaleY - truth[k]![1]) / long) * 100;
          errors.push(e);
          worst = Math.max(worst, e);
        });
        imageMax.push(worst);
      }
    }
  }, 180_000);

  it('finds the four corners in order within a few % of the image size', () => {
    expect(imageMax).toHaveLength(2 * SEEDS.length);
    const meanErr = errors.reduce((a, b) => a + b, 0) / errors.length;
    expect(meanErr).toBeLessThan(2);
    // at most one photo of ten may have a corner off by more than 3 %, none by more than 8 %
    expect(imageMax.filter((e) => e > 3).length).toBeLessThanOrEqual(1);
    expect(Math.max(...imageMax)).toBeLessThan(8);
  });
});

describe('severity models', () => {
  let side: RgbImage;
  beforeAll(async () => {
    const card = await renderCardSides(null, null, 900_410);
    side = { width: card.front.width, height: card.front.height, data: card.front.data };
  }, 60_000);

  it('score every corner, edge and surface tile of a rectified side in [0, 1]', async () => {
    const p = await predictSeverities(rt, side);
    for (const c of ['TL', 'TR', 'BR', 'BL'] as const) {
      expect(p.corners[c].severity).toBeGreaterThanOrEqual(0);
      expect(p.corners[c].severity).toBeLessThanOrEqual(1);
      expect(Object.keys(p.corners[c].components)).toEqual(['whitening', 'rounding', 'ding']);
    }
    for (const e of ['top', 'right', 'bottom', 'left'] as const) {
      expect(p.edges[e].severity).toBeGreaterThanOrEqual(0);
      expect(p.edges[e].severity).toBeLessThanOrEqual(1);
      expect(Object.keys(p.edges[e].components)).toEqual(['whitening', 'depth', 'chips']);
    }
    expect(p.surface.tiles).toHaveLength(SURFACE_GRID.rows * SURFACE_GRID.cols);
    expect(p.surface.max).toBe(Math.max(...p.surface.tiles));
  });
});

describe('calibration models', () => {
  // Context: no glare, no foil, no texture, noise 2, blur 0.6 px, outline confidence 0.95, surface fully visible.
  const context = [0, 0, 0, 0, 2, 0.6, 0.95, 1];

  it('read a large measured corner flaw on a glare-free, sharp photo as a flaw, and a mint corner as mint', async () => {
    // corner features: whitening 3 mm², no rounding or ding, fit 1, white border/stock, stock seen, noise 2
    const flaw = calibrationInput('corner', [3, 0, 0, 1, 230, 235, 1, 2], 0.44, context);
    const mint = calibrationInput('corner', [0, 0, 0, 1, 230, 235, 1, 2], 0, context);
    const [f, m] = await calibrateSeverities(rt, 'corner', [flaw, mint]);
    expect(f!).toBeGreaterThan(m!);
    expect(m!).toBeLessThan(0.1);
  });

  it('surface: more measured marks never give a lower severity, whatever the photo', async () => {
    // Random surfaces and photo contexts, each paired with itself plus more of one measured amount of damage
    // (or a higher rubric severity).
    const width = FEATURE_NAMES.surface.length;
    const cases = fc.sample(
      fc.tuple(
        fc.array(fc.double({ min: 0, max: 6, noNaN: true }), { minLength: width, maxLength: width }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
        fc.nat({ max: MONOTONE_SURFACE_FEATURES.length }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
      ),
      { numRuns: 300, seed: 7 },
    );
    const names: readonly string[] = FEATURE_NAMES.surface;
    const base: number[][] = [];
    const more: number[][] = [];
    for (const [values, measured, ctx, which, add] of cases) {
      base.push(calibrationInput('surface', values, measured, ctx));
      const grown = [...values];
      const feature = MONOTONE_SURFACE_FEATURES[which];
      if (feature) grown[names.indexOf(feature)]! += add;
      more.push(calibrationInput('surface', grown, feature ? measured : Math.min(1, measured + add / 10), ctx));
    }
    const [a, b] = await Promise.all([calibrateSeverities(rt, 'surface', base), calibrateSeverities(rt, 'surface', more)]);
    a.forEach((v, i) => expect(b[i]!).toBeGreaterThanOrEqual(v - 1e-6));
  });
});
