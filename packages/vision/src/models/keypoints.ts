/**
 * Card corner (keypoint) model: a letterboxed 128 x 128 RGB photo in; out (1) four corner heatmaps on a 32 x 32
 * grid (stride 4) and (2) four orientation logits.
 *
 * The heatmaps give the corners in GEOMETRIC order, the convention of geometry/quad.ts orderCardCorners: the
 * card is portrait, TL is the start of the short side facing the photo's top. Each heatmap is a spatial
 * softmax; the corner is the probability-weighted mean of the cells around the peak (sub-cell precision). This
 * coarse quad is what the geometry's subpixel refinement (geometry/detect.ts refineQuad) starts from.
 * The orientation head says which geometric corner holds the card's PRINTED top-left (k = 0: upright,
 * 1: turned 90 deg clockwise, 2: upside down, 3: turned 90 deg anticlockwise), i.e. contentQuad[i] =
 * quad[(i + k) % 4]; the generator photographs ~10 % of cards sideways or upside down.
 */
import type { Point, Quad, RgbImage } from '../image/types';
import { orderCardCorners } from '../geometry/quad';
import { letterbox, toInput, type Letterboxed } from './prep';
import type { ModelRuntime } from './runtime';

export const KEYPOINT_MODEL = 'corners';
export const KEYPOINT_INPUT = 128;
export const KEYPOINT_STRIDE = 4;
export const KEYPOINT_GRID = KEYPOINT_INPUT / KEYPOINT_STRIDE;
/** Half-width (cells) of the window around the heatmap peak used for the sub-cell estimate. */
const PEAK_RADIUS = 2;

export interface CornerPrediction {
  /** TL, TR, BR, BL in geometric order (orderCardCorners), input image pixels (continuous, centres at +0.5). */
  quad: Quad;
  /** Probabilities of k = 0..3 (see above). */
  orientationProbs: [number, number, number, number];
  /** Most likely k. */
  orientation: 0 | 1 | 2 | 3;
  /** The quad in the card's printed order (TL = printed top-left corner) under the most likely orientation. */
  contentQuad: Quad;
  /** Per corner: probability mass in the window around the peak (0..1; a sharp single peak is close to 1). */
  cornerConfidence: [number, number, number, number];
  /** Minimum of the corner confidences. */
  confidence: number;
}

/**
 * Decodes one image's heatmap logits ([grid, grid, 4], row-major, channels last) into corners in letterbox input
 * pixels. Shared by training evaluation and inference.
 */
export function decodeHeatmaps(
  logits: Float32Array,
  grid = KEYPOINT_GRID,
  stride = KEYPOINT_STRIDE,
): { points: Point[]; confidence: number[] } {
  const points: Point[] = [];
  const confidence: number[] = [];
  const n = grid * grid;
  const p = new Float64Array(n);
  for (let k = 0; k < 4; k++) {
    let max = -Infinity;
    let arg = 0;
    for (let i = 0; i < n; i++) {
      const v = logits[i * 4 + k]!;
      if (v > max) {
        max = v;
        arg = i;
      }
    }
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const e = Math.exp(logits[i * 4 + k]! - max);
      p[i] = e;
      sum += e;
    }
    const py = Math.floor(arg / grid);
    const px = arg % grid;
    let mass = 0;
    let mx = 0;
    let my = 0;
    for (let y = Math.max(0, py - PEAK_RADIUS); y <= Math.min(grid - 1, py + PEAK_RADIUS); y++)
      for (let x = Math.max(0, px - PEAK_RADIUS); x <= Math.min(grid - 1, px + PEAK_RADIUS); x++) {
        const w = p[y * grid + x]!;
        mass += w;
        mx += w * x;
        my += w * y;
      }
    points.push([(mx / mass + 0.5) * stride, (my / mass + 0.5) * stride]);
    confidence.push(mass / sum);
  }
  return { points, confidence };
}

/** Maps letterbox input pixels back to the image's pixels. */
export function fromLetterbox(lb: Pick<Letterboxed, 'scaleX' | 'scaleY' | 'offX' | 'offY'>, p: Point): Point {
  return [(p[0] - lb.offX) / lb.scaleX, (p[1] - lb.offY) / lb.scaleY];
}

/** Rotates a geometric quad into printed order: contentQuad[i] = quad[(i + k) % 4]. */
export function rotateQuad(quad: Quad, k: number): Quad {
  return [0, 1, 2, 3].map((i) => quad[(i + k) % 4]!) as Quad;
}

/** Index k such that content[0] is geometric corner k (the label of the orientation head). */
export function orientationOf(content: readonly Point[]): { geometric: Quad; k: 0 | 1 | 2 | 3 } {
  const geometric = orderCardCorners(content);
  let k = 0;
  let best = Infinity;
  geometric.forEach((p, i) => {
    const d = Math.hypot(p[0] - content[0]![0], p[1] - content[0]![1]);
    if (d < best) {
      best = d;
      k = i;
    }
  });
  return { geometric, k: k as 0 | 1 | 2 | 3 };
}

function softmax4(v: ArrayLike<number>): [number, number, number, number] {
  const m = Math.max(v[0]!, v[1]!, v[2]!, v[3]!);
  const e = [0, 1, 2, 3].map((i) => Math.exp(v[i]! - m));
  const s = e[0]! + e[1]! + e[2]! + e[3]!;
  return e.map((x) => x / s) as [number, number, number, number];
}

/**
 * Runs the corner model on an RGB image of any size (typically the ~512 px detection image; larger images are
 * area-averaged down, so any size works) and returns the coarse quad in that image's pixels.
 */
export async function predictCorners(runtime: ModelRuntime, image: RgbImage): Promise<CornerPrediction> {
  const model = await runtime.loadModel(KEYPOINT_MODEL);
  const lb = letterbox(image, KEYPOINT_INPUT);
  const { tf } = runtime;
  const [heat, orient] = tf.tidy(() => {
    const x = tf.tensor4d(toInput(lb.data), [1, KEYPOINT_INPUT, KEYPOINT_INPUT, 3]);
    return model.predict(x) as ReturnType<typeof tf.tensor4d>[];
  }) as [ReturnType<typeof tf.tensor4d>, ReturnType<typeof tf.tensor4d>];
  const [heatData, orientData] = (await Promise.all([heat.data(), orient.data()])) as [Float32Array, Float32Array];
  tf.dispose([heat, orient]);
  const { points, confidence } = decodeHeatmaps(heatData);
  const raw = points.map((pt) => fromLetterbox(lb, pt));
  // re-impose the geometric order (a near-90-degree card can make two heatmaps trade places)
  const quad = orderCardCorners(raw);
  const cornerConfidence = quad.map((p) => confidence[raw.findIndex((r) => r[0] === p[0] && r[1] === p[1])] ?? 0) as [
    number,
    number,
    number,
    number,
  ];
  const orientationProbs = softmax4(orientData);
  const orientation = orientationProbs.indexOf(Math.max(...orientationProbs)) as 0 | 1 | 2 | 3;
  return {
    quad,
    orientationProbs,
    orientation,
    contentQuad: rotateQuad(quad, orientation),
    cornerConfidence,
    confidence: Math.min(...cornerConfidence),
  };
}
