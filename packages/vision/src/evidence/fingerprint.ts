// A compact visual fingerprint of a card's art, stable across photos of the same card (exposure, colour cast,
// light gradient, slight blur, JPEG, a pixel or two of rectification error, small glare spots) and different
// between cards. Blocks, each normalised on its own and weighted, then the whole vector L2-normalised:
//   - 63: low-frequency 2-D DCT (8 x 8 minus DC) of the art's luma on a 16 x 16 grid, after removing the
//         mean and dividing by the contrast (exposure / gain invariant);
//   - 32: colour layout: 4 x 4 cells of opponent chroma (R-G, (R+G)/2-B) relative to the cell luma, with the
//         art's mean chroma removed (colour-cast invariant);
//   - 16: hue histogram weighted by chroma (soft-binned, Hellinger), plus
//   -  1: overall colourfulness.
// Compare two fingerprints with the dot product (cosine similarity; both are unit vectors).
import type { RgbImage } from '../image/types';
import { ART_MM, toPx, type RectMm } from './regions';

export const FINGERPRINT_DIMS = 112;

const GRID = 16;
const DCT_N = 8;
const HUE_BINS = 16;
const W_DCT = 1.0;
const W_LAYOUT = 0.55;
const W_HUE = 0.45;
const W_COLOURFUL = 0.15;

/** Pixels this bright and this grey are treated as glare and left out of the averages. */
const GLARE_MIN = 225;
const GLARE_MAX_CHROMA = 30;

interface Grid {
  l: Float64Array;
  o1: Float64Array;
  o2: Float64Array;
  weight: Float64Array;
}

function gridMeans(img: RgbImage, region: RectMm): Grid {
  const r = toPx(region, img.width, img.height);
  const n = GRID * GRID;
  const g: Grid = { l: new Float64Array(n), o1: new Float64Array(n), o2: new Float64Array(n), weight: new Float64Array(n) };
  const w = r.x1 - r.x0;
  const h = r.y1 - r.y0;
  const d = img.data;
  const colOf = new Int32Array(w);
  for (let x = 0; x < w; x++) colOf[x] = Math.min(GRID - 1, Math.floor((x * GRID) / w));
  for (let y = 0; y < h; y++) {
    const gy = Math.min(GRID - 1, Math.floor((y * GRID) / h));
    let j = ((r.y0 + y) * img.width + r.x0) * 3;
    for (let x = 0; x < w; x++, j += 3) {
      const R = d[j]!;
      const G = d[j + 1]!;
      const B = d[j + 2]!;
      const mx = R > G ? (R > B ? R : B) : G > B ? G : B;
      const mn = R < G ? (R < B ? R : B) : G < B ? G : B;
      if (mn >= GLARE_MIN && mx - mn <= GLARE_MAX_CHROMA) continue;
      const k = gy * GRID + colOf[x]!;
      g.l[k]! += (R + G + B) / 3;
      g.o1[k]! += R - G;
      g.o2[k]! += (R + G) / 2 - B;
      g.weight[k]! += 1;
    }
  }
  // Cells wholly under glare take their neighbours' mean (or the region mean).
  let tl = 0;
  let t1 = 0;
  let t2 = 0;
  let tw = 0;
  for (let k = 0; k < n; k++) {
    tl += g.l[k]!;
    t1 += g.o1[k]!;
    t2 += g.o2[k]!;
    tw += g.weight[k]!;
  }
  const mean = tw > 0 ? [tl / tw, t1 / tw, t2 / tw] : [128, 0, 0];
  for (let k = 0; k < n; k++) {
    const wk = g.weight[k]!;
    if (wk > 0) {
      g.l[k] = g.l[k]! / wk;
      g.o1[k] = g.o1[k]! / wk;
      g.o2[k] = g.o2[k]! / wk;
    } else {
      g.l[k] = mean[0]!;
      g.o1[k] = mean[1]!;
      g.o2[k] = mean[2]!;
    }
  }
  return g;
}

const COS = (() => {
  const t = new Float64Array(DCT_N * GRID);
  for (let u = 0; u < DCT_N; u++) {
    for (let x = 0; x < GRID; x++) t[u * GRID + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * GRID));
  }
  return t;
})();

function dctBlock(l: Float64Array): Float64Array {
  // Separable low-frequency DCT-II: rows then columns, only u, v < DCT_N.
  const tmp = new Float64Array(GRID * DCT_N);
  for (let y = 0; y < GRID; y++) {
    for (let u = 0; u < DCT_N; u++) {
      let acc = 0;
      for (let x = 0; x < GRID; x++) acc += l[y * GRID + x]! * COS[u * GRID + x]!;
      tmp[y * DCT_N + u] = acc;
    }
  }
  const out = new Float64Array(DCT_N * DCT_N - 1);
  let i = 0;
  for (let v = 0; v < DCT_N; v++) {
    for (let u = 0; u < DCT_N; u++) {
      if (u === 0 && v === 0) continue;
      let acc = 0;
      for (let y = 0; y < GRID; y++) acc += tmp[y * DCT_N + u]! * COS[v * GRID + y]!;
      out[i++] = acc;
    }
  }
  return out;
}

function normalise(v: Float64Array, weight: number, floor = 1e-9): Float64Array {
  let s = 0;
  for (const x of v) s += x * x;
  const k = weight / Math.sqrt(Math.max(s, floor));
  return v.map((x) => x * k);
}

/** Fingerprint of the art area of a rectified side (default region: the art window, see regions.ts). */
export function fingerprint(img: RgbImage, region: RectMm = ART_MM): number[] {
  const g = gridMeans(img, region);
  const n = GRID * GRID;

  // Luma structure: the best-fitting plane removed (uneven light is close to a linear gain ramp across the
  // card), unit contrast, then the DCT. Its weight follows the art's relative contrast, so a low-contrast
  // (colour-only) art leans on its colour blocks rather than on the shape of the light falling on it.
  let mean = 0;
  let sxl = 0;
  let syl = 0;
  const c = (GRID - 1) / 2;
  let sxx = 0;
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const v = g.l[y * GRID + x]!;
      mean += v;
      sxl += (x - c) * v;
      syl += (y - c) * v;
      sxx += (x - c) ** 2;
    }
  }
  mean /= n;
  const ax = sxl / sxx;
  const ay = syl / sxx;
  const lz = new Float64Array(n);
  let varL = 0;
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const v = g.l[y * GRID + x]! - mean - ax * (x - c) - ay * (y - c);
      lz[y * GRID + x] = v;
      varL += v * v;
    }
  }
  const sd = Math.sqrt(varL / n) || 1;
  // Rank transform (uniform scores in [-1, 1]): a glare spot or a dark shadow moves a few cells to the ends
  // of the scale instead of dominating the whole block.
  const order = Array.from({ length: n }, (_, k) => k).sort((p, q) => lz[p]! - lz[q]!);
  order.forEach((k, r) => (lz[k] = (2 * r) / (n - 1) - 1));
  const relContrast = sd / Math.max(20, mean);
  const dct = normalise(dctBlock(lz), W_DCT * Math.min(1, Math.max(0.25, relContrast / 0.2)));

  // Colour layout on 4 x 4 cells: chroma relative to luma (exposure invariant), mean cast removed.
  const CELLS = 4;
  const step = GRID / CELLS;
  const layout = new Float64Array(CELLS * CELLS * 2);
  let m1 = 0;
  let m2 = 0;
  for (let cy = 0; cy < CELLS; cy++) {
    for (let cx = 0; cx < CELLS; cx++) {
      let a = 0;
      let b = 0;
      let l = 0;
      for (let y = cy * step; y < (cy + 1) * step; y++) {
        for (let x = cx * step; x < (cx + 1) * step; x++) {
          const k = y * GRID + x;
          a += g.o1[k]!;
          b += g.o2[k]!;
          l += g.l[k]!;
        }
      }
      const inv = 1 / Math.max(20, l / (step * step));
      const i = (cy * CELLS + cx) * 2;
      layout[i] = (a / (step * step)) * inv;
      layout[i + 1] = (b / (step * step)) * inv;
      m1 += layout[i]!;
      m2 += layout[i + 1]!;
    }
  }
  m1 /= CELLS * CELLS;
  m2 /= CELLS * CELLS;
  for (let i = 0; i < layout.length; i += 2) {
    layout[i] = layout[i]! - m1;
    layout[i + 1] = layout[i + 1]! - m2;
  }
  // Fixed scale, not unit norm: a nearly grey art must not have its noise blown up.
  let ls = 0;
  for (const v of layout) ls += v * v;
  const layoutScaled = layout.map((v) => (v * W_LAYOUT) / Math.max(Math.sqrt(ls), 0.35));

  // Hue histogram of the grid cells, weighted by chroma relative to luma.
  const hist = new Float64Array(HUE_BINS);
  let colourful = 0;
  for (let k = 0; k < n; k++) {
    const a = g.o1[k]!;
    const b = g.o2[k]! * 1.1547; // (R+G)/2-B scaled to the same range as R-G
    const c = Math.hypot(a, b) / Math.max(20, g.l[k]!);
    colourful += c;
    const hue = (Math.atan2(b, a) / (2 * Math.PI) + 1) % 1;
    const pos = hue * HUE_BINS;
    const i0 = Math.floor(pos) % HUE_BINS;
    const f = pos - Math.floor(pos);
    hist[i0]! += c * (1 - f);
    hist[(i0 + 1) % HUE_BINS]! += c * f;
  }
  const hs = hist.reduce((s, v) => s + v, 0) || 1;
  const hue = normalise(hist.map((v) => Math.sqrt(v / hs)), W_HUE);
  colourful /= n;

  const out = new Float64Array(FINGERPRINT_DIMS);
  out.set(dct, 0);
  out.set(layoutScaled, 63);
  out.set(hue, 95);
  out[111] = Math.min(1, colourful) * W_COLOURFUL;
  const unit = normalise(out, 1);
  return Array.from(unit, (v) => Math.round(v * 1e6) / 1e6);
}

/** Cosine similarity of two fingerprints (dot product of unit vectors), in [-1, 1]. */
export function fingerprintSimilarity(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    s += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return s / (Math.sqrt(na * nb) || 1);
}
