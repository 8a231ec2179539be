import type { Quad, RgbImage } from '../image/types';
import { homographyFromCanonical, warpPerspective } from './homography';
import { ORIENTATION_MODEL } from './orientation-model';

/**
 * Up or upside down? Geometry alone only knows the card's long axis (portrait), so a card photographed rotated
 * by about 180 degrees (or lying sideways, where either short side could be the top) comes out upside down. This
 * tells the two apart from the card's layout: a linear model over a coarse grid (7 x 11 cells of a 2 px/mm
 * rectification) of normalised luminance, colourfulness and edge density, and a finer grid (14 x 22) of luminance. The score is antisymmetric by
 * construction (score(rotated by 180) = -score), so > 0 means "as is" and < 0 means "turn by 180 degrees".
 * Trained on generated cards by `npm run train:orientation -w @cardlens/vision` (scripts/train-orientation.ts).
 */
export const ORIENT_W = 126;
export const ORIENT_H = 176;
const GX = 7;
const GY = 11;
/** A finer grid of luminance alone (4.5 x 4 mm cells): where titles, text boxes and name bars sit. */
const FX = 14;
const FY = 22;
const COARSE_FEATURES = GX * GY * 3;
export const ORIENT_FEATURES = COARSE_FEATURES + FX * FY;

/** Features of a 126 x 176 rectified card. */
export function orientationFeatures(img: RgbImage): Float64Array {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const Y = new Float32Array(n);
  const C = new Float32Array(n);
  let mean = 0;
  for (let i = 0; i < n; i++) {
    const r = data[i * 3]!;
    const g = data[i * 3 + 1]!;
    const b = data[i * 3 + 2]!;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    Y[i] = y;
    C[i] = (Math.max(r, g, b) - Math.min(r, g, b)) / 255;
    mean += y;
  }
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (Y[i]! - mean) ** 2;
  const sd = Math.sqrt(v / n) + 1;
  const E = new Float32Array(n);
  let emean = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const e = Math.abs(Y[i + 1]! - Y[i - 1]!) + Math.abs(Y[i + w]! - Y[i - w]!);
      E[i] = e;
      emean += e;
    }
  }
  emean = emean / n + 1;
  const f = new Float64Array(ORIENT_FEATURES);
  const cw = w / GX;
  const ch = h / GY;
  for (let gy = 0; gy < GY; gy++) {
    for (let gx = 0; gx < GX; gx++) {
      let sy = 0;
      let sc = 0;
      let se = 0;
      let cnt = 0;
      for (let y = Math.floor(gy * ch); y < Math.floor((gy + 1) * ch); y++) {
        for (let x = Math.floor(gx * cw); x < Math.floor((gx + 1) * cw); x++) {
          const i = y * w + x;
          sy += Y[i]!;
          sc += C[i]!;
          se += E[i]!;
          cnt++;
        }
      }
      const k = (gy * GX + gx) * 3;
      f[k] = (sy / cnt - mean) / sd;
      f[k + 1] = sc / cnt;
      f[k + 2] = Math.log1p(se / cnt / emean);
    }
  }
  const fw = w / FX;
  const fh = h / FY;
  for (let gy = 0; gy < FY; gy++) {
    for (let gx = 0; gx < FX; gx++) {
      let sy = 0;
      let cnt = 0;
      for (let y = Math.floor(gy * fh); y < Math.floor((gy + 1) * fh); y++) {
        for (let x = Math.floor(gx * fw); x < Math.floor((gx + 1) * fw); x++) {
          sy += Y[y * w + x]!;
          cnt++;
        }
      }
      f[COARSE_FEATURES + gy * FX + gx] = (sy / cnt - mean) / sd;
    }
  }
  return f;
}

/** x - P x, P = the 180-degree rotation of the grid: the antisymmetric part the model scores. */
export function antisymmetric(f: Float64Array): Float64Array {
  const d = new Float64Array(ORIENT_FEATURES);
  for (let gy = 0; gy < GY; gy++) {
    for (let gx = 0; gx < GX; gx++) {
      const k = (gy * GX + gx) * 3;
      const r = ((GY - 1 - gy) * GX + (GX - 1 - gx)) * 3;
      for (let c = 0; c < 3; c++) d[k + c] = f[k + c]! - f[r + c]!;
    }
  }
  for (let gy = 0; gy < FY; gy++) {
    for (let gx = 0; gx < FX; gx++) {
      const k = COARSE_FEATURES + gy * FX + gx;
      d[k] = f[k]! - f[COARSE_FEATURES + (FY - 1 - gy) * FX + (FX - 1 - gx)]!;
    }
  }
  return d;
}

/** > 0: the card is upright as rectified; < 0: it is upside down. */
export function uprightScore(small: RgbImage): number {
  const d = antisymmetric(orientationFeatures(small));
  const w = ORIENTATION_MODEL.weights;
  let s = 0;
  for (let i = 0; i < d.length; i++) s += (w[i] ?? 0) * d[i]!;
  return s;
}

/** The 126 x 176 rectification used for the orientation decision. */
export function orientationThumb(src: RgbImage, quad: Quad): RgbImage {
  // 3 x 3 bilinear sub-samples are plenty for 8 mm grid cells, and much cheaper than an exact box reduction
  return warpPerspective(src, homographyFromCanonical(quad, ORIENT_W, ORIENT_H), ORIENT_W, ORIENT_H, { supersample: 3 });
}

export interface OrientationDecision {
  quad: Quad;
  /** true when the quad was turned by 180 degrees */
  flipped: boolean;
  /** the model's margin (|score|); small = unsure */
  margin: number;
}

/** Turns the quad by 180 degrees (TL <-> BR, TR <-> BL) when the card looks upside down. */
export function orientQuad(src: RgbImage, quad: Quad): OrientationDecision {
  const s = uprightScore(orientationThumb(src, quad));
  if (s >= 0) return { quad, flipped: false, margin: s };
  return { quad: [quad[2], quad[3], quad[0], quad[1]], flipped: true, margin: -s };
}
