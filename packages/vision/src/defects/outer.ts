/**
 * Corner and edge wear: measured in the outer zone of the rectified side with the colour models of colour.ts.
 *
 * Reference colours are estimated per card (and locally, so uneven light and refractor rainbows do not matter):
 *   - border colour B: per edge, running median along the edge of the inner part of the border band (between
 *     the wear zone and the printed frame), stock-like samples excluded;
 *   - background G: per corner, from the pixels at the very tip (always off the card: the factory corner
 *     radius is 1.5 mm);
 *   - stock colour S: the colour that the outermost pixels take where they deviate from B (whitening is
 *     exposed card stock), else a neutral default.
 * Corners: extra rounding from the off-card area at the tip, whitening area and ding area (a darkened tip).
 * Edges: per position along the edge, chip depth (off-card run from the outline) and whitening depth (stock run
 * after it); whitened length, max depth and chip count follow.
 */
import type { CornerId, EdgeId, CornerMeasurement, EdgeMeasurement } from '@cardlens/grading-rubric';
import type { RgbImage } from '../image/types';
import { fitPixel, lumOf, medianColour, newPixelModel, type ZoneColours } from './colour';
import { median, type Rgb } from './raster';

export const CORNER_IDS: readonly CornerId[] = ['TL', 'TR', 'BR', 'BL'];
export const EDGE_IDS: readonly EdgeId[] = ['top', 'right', 'bottom', 'left'];

const FACTORY_RADIUS_MM = 1.5;
const CORNER_MM = 6;
const EDGE_BAND_MM = 2.5;

/** Border widths in px (distance from the outline to the printed frame) per edge. */
export type FramePx = Record<EdgeId, number>;

export interface OuterOptions {
  pxPerMm: number;
  framePx: FramePx;
  /** Noise level of the image (RGB levels, 1 sigma); sets the detection thresholds. */
  noise: number;
}

export interface CornerResult extends CornerMeasurement {
  corner: CornerId;
  /** Bounding boxes (mm) of the whitening and the ding found, for the overlay. */
  whiteningBox: Box | null;
  dingBox: Box | null;
  /** Fit quality 0..1 (how much of the corner square the colour models explain). */
  confidence: number;
}

export interface EdgeResult extends EdgeMeasurement {
  edge: EdgeId;
  /** Whitened / chipped intervals along the edge (mm from the edge start: x for top/bottom, y for left/right). */
  intervals: [number, number][];
  chips: { atMm: number; widthMm: number; depthMm: number }[];
  confidence: number;
}

export interface Box {
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
}

export interface OuterResult {
  corners: Record<CornerId, CornerResult>;
  edges: Record<EdgeId, EdgeResult>;
  colours: { border: Rgb; stock: Rgb; background: Rgb; stockObserved: boolean };
}

// ---------------------------------------------------------------------------------------------------------
// Coordinate helpers: edges as (s along, d depth), corners as (u along the horizontal edge, v along vertical)
// ---------------------------------------------------------------------------------------------------------

function edgeLen(img: RgbImage, e: EdgeId): number {
  return e === 'top' || e === 'bottom' ? img.width : img.height;
}

function edgeIndex(img: RgbImage, e: EdgeId, s: number, d: number): number {
  const W = img.width;
  const H = img.height;
  switch (e) {
    case 'top':
      return (d * W + s) * 3;
    case 'bottom':
      return ((H - 1 - d) * W + s) * 3;
    case 'left':
      return (s * W + d) * 3;
    case 'right':
      return (s * W + (W - 1 - d)) * 3;
  }
}

function cornerXY(img: RgbImage, c: CornerId, u: number, v: number): [number, number] {
  const right = c === 'TR' || c === 'BR';
  const bottom = c === 'BR' || c === 'BL';
  return [right ? img.width - 1 - u : u, bottom ? img.height - 1 - v : v];
}

/** The edge running horizontally / vertically from a corner, and whether s counts from that corner. */
function cornerEdges(c: CornerId): { h: EdgeId; v: EdgeId; hFromStart: boolean; vFromStart: boolean } {
  switch (c) {
    case 'TL':
      return { h: 'top', v: 'left', hFromStart: true, vFromStart: true };
    case 'TR':
      return { h: 'top', v: 'right', hFromStart: false, vFromStart: true };
    case 'BR':
      return { h: 'bottom', v: 'right', hFromStart: false, vFromStart: false };
    case 'BL':
      return { h: 'bottom', v: 'left', hFromStart: true, vFromStart: false };
  }
}

function rgbAt(img: RgbImage, i: number): Rgb {
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
}

function dist(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

// ---------------------------------------------------------------------------------------------------------
// Reference colours
// ---------------------------------------------------------------------------------------------------------

interface EdgeRef {
  /** Border colour per position s (smoothed). */
  border: Rgb[];
}

function borderBand(framePx: number, ppm: number): [number, number] {
  const hi = Math.floor(framePx - 0.4 * ppm);
  const lo = Math.max(Math.round(0.25 * ppm), hi - Math.round(1.4 * ppm));
  return hi - lo >= 2 ? [lo, hi] : [Math.max(1, hi - 2), Math.max(2, hi)];
}

function median3(a: number[]): number {
  a.sort((x, y) => x - y);
  const n = a.length;
  return n % 2 ? a[(n - 1) >> 1]! : 0.5 * (a[n / 2 - 1]! + a[n / 2]!);
}

function runningMedianColours(samples: { s: number; c: Rgb }[], len: number, half: number, fallback: Rgb): Rgb[] {
  const out: Rgb[] = new Array(len);
  if (samples.length === 0) {
    for (let s = 0; s < len; s++) out[s] = fallback;
    return out;
  }
  // Evaluated every 4 px, held in between.
  let lo = 0;
  let hi = 0;
  let last: Rgb = fallback;
  const r: number[] = [];
  const g: number[] = [];
  const b: number[] = [];
  for (let s = 0; s < len; s++) {
    if (s % 4 === 0) {
      while (lo < samples.length && samples[lo]!.s < s - half) lo++;
      while (hi < samples.length && samples[hi]!.s <= s + half) hi++;
      if (hi - lo >= 3) {
        r.length = 0;
        g.length = 0;
        b.length = 0;
        for (let k = lo; k < hi; k++) {
          const c = samples[k]!.c;
          r.push(c[0]);
          g.push(c[1]);
          b.push(c[2]);
        }
        last = [median3(r), median3(g), median3(b)];
      }
    }
    out[s] = last;
  }
  return out;
}

function mixResidual(c: Rgb, p: Rgb, q: Rgb): number {
  const d: Rgb = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
  const n2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const e: Rgb = [c[0] - p[0], c[1] - p[1], c[2] - p[2]];
  let t = n2 > 1e-6 ? (e[0] * d[0] + e[1] * d[1] + e[2] * d[2]) / n2 : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(e[0] - t * d[0], e[1] - t * d[1], e[2] - t * d[2]);
}

interface Colours {
  refs: Record<EdgeId, EdgeRef>;
  z: ZoneColours;
  stockObserved: boolean;
  cornerBg: Record<CornerId, Rgb>;
}

/**
 * Card stock colour. Prior: white stock, which shows greyish-beige on near-white borders (white wear would be
 * invisible there). Refined by a few median-shift steps over the uniform, deviating outer-zone samples, so the
 * observed colour (exposure, white balance) wins when enough wear is visible.
 */
export function stockPrior(border: Rgb): Rgb {
  return Math.min(border[0], border[1], border[2]) > 185 ? [196, 191, 176] : [244, 243, 238];
}

function stockCluster(samples: Rgb[], prior: Rgb): { stock: Rgb; support: number } {
  let est = prior;
  let support = 0;
  for (const radius of [45, 30, 20, 16]) {
    const near = samples.filter((c) => dist(c, est) < radius);
    if (near.length < 8) break;
    est = medianColour(near);
    support = near.length;
  }
  return { stock: support ? est : prior, support };
}

function estimateColours(img: RgbImage, opts: OuterOptions): Colours {
  const ppm = opts.pxPerMm;
  // Background at the corner tips.
  const cornerBg = {} as Record<CornerId, Rgb>;
  const allBg: Rgb[] = [];
  for (const c of CORNER_IDS) {
    const px: Rgb[] = [];
    for (const [u, v] of [
      [0, 0],
      [1, 0],
      [0, 1],
    ] as const) {
      const [x, y] = cornerXY(img, c, u, v);
      px.push(rgbAt(img, (y * img.width + x) * 3));
    }
    cornerBg[c] = medianColour(px);
    allBg.push(...px);
  }
  const background = medianColour(allBg);
  // Border band samples per edge (column medians every 2 px).
  const raw = {} as Record<EdgeId, { s: number; c: Rgb }[]>;
  const all: Rgb[] = [];
  const r: number[] = [];
  const g: number[] = [];
  const b: number[] = [];
  for (const e of EDGE_IDS) {
    const len = edgeLen(img, e);
    const [lo, hi] = borderBand(opts.framePx[e], ppm);
    const list: { s: number; c: Rgb }[] = [];
    for (let s = 0; s < len; s += 2) {
      r.length = 0;
      g.length = 0;
      b.length = 0;
      for (let d = lo; d <= hi; d += 2) {
        const i = edgeIndex(img, e, s, d);
        r.push(img.data[i]!);
        g.push(img.data[i + 1]!);
        b.push(img.data[i + 2]!);
      }
      const m: Rgb = [median3(r), median3(g), median3(b)];
      list.push({ s, c: m });
      if (s % 6 === 0) all.push(m);
    }
    raw[e] = list;
  }
  const border0 = medianColour(all);
  // Stock colour: outermost pixels deviating from the local border colour (not outline mixes, not art).
  const prelim = {} as Record<EdgeId, Rgb[]>;
  for (const e of EDGE_IDS) prelim[e] = runningMedianColours(raw[e], edgeLen(img, e), Math.round(2 * ppm), border0);
  const dev: Rgb[] = [];
  const devTh = 10 + 3 * opts.noise;
  const ring = 1 + Math.round(opts.noise / 3);
  const W = img.width;
  const H = img.height;
  const nearBackground = (x: number, y: number, bg: Rgb): boolean => {
    for (let dy = -ring; dy <= ring; dy++) {
      const yy = y + dy;
      if (yy < 0 || yy >= H) continue;
      for (let dx = -ring; dx <= ring; dx++) {
        const xx = x + dx;
        if (xx < 0 || xx >= W) continue;
        const i = (yy * W + xx) * 3;
        if (Math.hypot(img.data[i]! - bg[0], img.data[i + 1]! - bg[1], img.data[i + 2]! - bg[2]) < 40) return true;
      }
    }
    return false;
  };
  const uniTh = 8 + 2 * opts.noise;
  const uniform = (x: number, y: number): boolean => {
    if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) return false;
    const i0 = (y * W + x) * 3;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const i = ((y + dy) * W + x + dx) * 3;
        if (Math.abs(img.data[i]! - img.data[i0]!) + Math.abs(img.data[i + 1]! - img.data[i0 + 1]!) + Math.abs(img.data[i + 2]! - img.data[i0 + 2]!) > uniTh) return false;
      }
    }
    return true;
  };
  const consider = (c: Rgb, bref: Rgb, bg: Rgb, x: number, y: number) => {
    const d = dist(c, bref);
    if (d <= devTh || dist(c, bg) < 30) return;
    if (nearBackground(x, y, bg) || !uniform(x, y)) return;
    if (mixResidual(c, bg, bref) < 6 + opts.noise) return;
    if (lumOf(c) < 100 || Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) > 70) return;
    dev.push(c);
  };
  for (const e of EDGE_IDS) {
    const len = edgeLen(img, e);
    const c0 = Math.round(CORNER_MM * ppm);
    for (let s = c0; s < len - c0; s++) {
      for (let d = 1; d <= 2; d++) {
        const i = edgeIndex(img, e, s, d) / 3;
        consider(rgbAt(img, i * 3), prelim[e][s]!, background, i % W, Math.floor(i / W));
      }
    }
  }
  const near = Math.round(2.5 * ppm);
  for (const c of CORNER_IDS) {
    const ce = cornerEdges(c);
    const bh = prelim[ce.h][ce.hFromStart ? Math.round(7 * ppm) : edgeLen(img, ce.h) - 1 - Math.round(7 * ppm)]!;
    const fu = opts.framePx[ce.v] - 0.3 * ppm;
    const fv = opts.framePx[ce.h] - 0.3 * ppm;
    for (let v = 0; v < near; v++) {
      for (let u = 0; u < near; u++) {
        if (u >= fu && v >= fv) continue;
        const [x, y] = cornerXY(img, c, u, v);
        consider(rgbAt(img, (y * img.width + x) * 3), bh, cornerBg[c], x, y);
      }
    }
  }
  const { stock, support } = stockCluster(dev, stockPrior(border0));
  const stockObserved = support > 0;
  // Final border references without stock-like samples.
  const refs = {} as Record<EdgeId, EdgeRef>;
  const sep = dist(border0, stock);
  for (const e of EDGE_IDS) {
    const kept = raw[e].filter((x) => dist(x.c, stock) > 0.5 * sep || dist(x.c, border0) < 0.25 * sep);
    refs[e] = { border: runningMedianColours(kept, edgeLen(img, e), Math.round(2 * ppm), border0) };
  }
  return { refs, z: { border: border0, stock, background }, stockObserved, cornerBg };
}

// ---------------------------------------------------------------------------------------------------------
// Edges
// ---------------------------------------------------------------------------------------------------------

function measureEdge(
  img: RgbImage,
  e: EdgeId,
  ref: EdgeRef,
  z: ZoneColours,
  bgStart: Rgb,
  bgEnd: Rgb,
  opts: OuterOptions,
): EdgeResult & { basePx: number; stBase: Float32Array; bgBase: Float32Array } {
  const ppm = opts.pxPerMm;
  const len = edgeLen(img, e);
  const c0 = Math.round(CORNER_MM * ppm);
  const maxD = Math.min(Math.round(EDGE_BAND_MM * ppm), Math.max(2, Math.floor(opts.framePx[e] - 0.3 * ppm)));
  const n = len - 2 * c0;
  const D = maxD;
  const bgA = new Float32Array(n * D);
  const stA = new Float32Array(n * D);
  const resid = new Float32Array(n);
  const pm = newPixelModel();
  const residMax = 18 + 3 * opts.noise;
  const data = img.data;
  const zz: ZoneColours = { border: z.border, stock: z.stock, background: z.background };
  const outlineD = Math.min(D, 3 + Math.round(opts.noise / 2));
  for (let k = 0; k < n; k++) {
    const s = c0 + k;
    const f = s / len;
    zz.background = [bgStart[0] * (1 - f) + bgEnd[0] * f, bgStart[1] * (1 - f) + bgEnd[1] * f, bgStart[2] * (1 - f) + bgEnd[2] * f];
    zz.border = ref.border[s]!;
    zz.stock = scaleStock(z, zz.border);
    let rsum = 0;
    for (let d = 0; d < D; d++) {
      const i = edgeIndex(img, e, s, d);
      fitPixel(data[i]!, data[i + 1]!, data[i + 2]!, zz, d < outlineD || bgA[k * D + d - 1]! > 0.3, false, pm);
      rsum += Math.min(60, pm.resid);
      if (pm.resid > residMax) continue;
      bgA[k * D + d] = pm.bg;
      stA[k * D + d] = pm.stock;
    }
    resid[k] = rsum / D;
  }
  // What an unworn edge looks like here (blur, resampling, a slightly offset outline): the median profile of
  // the columns without deep wear (wear reaches beyond the few px that blur affects).
  const stBase = new Float32Array(D);
  const bgBase = new Float32Array(D);
  const probe = Math.min(D - 1, 3 + Math.round(opts.noise / 3));
  const clean: number[] = [];
  for (let k = 0; k < n; k += 2) {
    let deep = 0;
    for (let d = probe; d < Math.min(D, probe + 3); d++) deep = Math.max(deep, stA[k * D + d]!);
    if (deep < 0.2) clean.push(k);
  }
  if (clean.length >= Math.max(10, 0.08 * (n / 2))) {
    const col: number[] = [];
    for (let d = 0; d < D; d++) {
      col.length = 0;
      for (const k of clean) col.push(stA[k * D + d]!);
      col.sort((x, y) => x - y);
      stBase[d] = col[col.length >> 1] ?? 0;
      col.length = 0;
      for (const k of clean) col.push(bgA[k * D + d]!);
      col.sort((x, y) => x - y);
      bgBase[d] = col[col.length >> 1] ?? 0;
    }
  }
  const chipD = new Float32Array(n);
  const whiteD = new Float32Array(n);
  const stepTh = 0.15 + 0.03 * opts.noise;
  for (let k = 0; k < n; k++) {
    let chip = 0;
    let d = 0;
    for (; d < D; d++) {
      const x = bgA[k * D + d]! - bgBase[d]!;
      if (x < 0.05) break;
      chip += x;
    }
    let white = 0;
    let gap = 0;
    for (; d < D; d++) {
      const x = stA[k * D + d]! - stBase[d]!;
      if (x < stepTh) {
        if (++gap >= 2) break;
        continue;
      }
      white += x + (gap > 0 ? 0.5 : 0);
      gap = 0;
    }
    chipD[k] = chip;
    whiteD[k] = white;
  }
  const base = 0;
  const chipTh = 0.45 + 0.08 * opts.noise;
  const whiteTh = 0.12 + 0.12 * opts.noise;
  const excess = new Float32Array(n);
  for (let k = 0; k < n; k++) excess[k] = Math.max(0, chipD[k]! - base);
  // Chips: runs of excess above threshold, at least 2 px long, with a clear peak.
  const chips: EdgeResult['chips'] = [];
  for (let k = 0; k < n; ) {
    if (excess[k]! <= chipTh) {
      k++;
      continue;
    }
    let j = k;
    let peak = 0;
    while (j < n && (excess[j]! > chipTh * 0.6 || (j + 1 < n && excess[j + 1]! > chipTh))) {
      peak = Math.max(peak, excess[j]!);
      j++;
    }
    if (j - k >= 2 && peak >= 0.9 + 0.1 * opts.noise) {
      chips.push({ atMm: (c0 + (k + j) / 2) / ppm, widthMm: (j - k + 1) / ppm, depthMm: peak / ppm });
    }
    k = j + 1;
  }
  // Whitened positions (wear or chip), runs with small gaps bridged.
  const worn = new Uint8Array(n);
  for (let k = 0; k < n; k++) worn[k] = whiteD[k]! > whiteTh || excess[k]! > chipTh ? 1 : 0;
  for (const ch of chips) {
    const a = Math.max(0, Math.round((ch.atMm - ch.widthMm / 2) * ppm) - c0);
    const b = Math.min(n - 1, Math.round((ch.atMm + ch.widthMm / 2) * ppm) - c0);
    for (let k = a; k <= b; k++) worn[k] = 1;
  }
  const intervals: [number, number][] = [];
  const minRun = Math.max(2, Math.round(0.25 * ppm));
  let maxDepth = 0;
  for (let k = 0; k < n; ) {
    if (!worn[k]) {
      k++;
      continue;
    }
    let j = k;
    let gap = 0;
    let last = k;
    while (j < n && gap <= 2) {
      if (worn[j]) {
        last = j;
        gap = 0;
      } else gap++;
      j++;
    }
    if (last - k + 1 >= minRun) {
      intervals.push([(c0 + k) / ppm, (c0 + last + 1) / ppm]);
      // depth: running median of 3 to resist single noisy columns
      for (let q = k; q <= last; q++) {
        const a = excess[q]! + whiteD[q]!;
        const b = q > k ? excess[q - 1]! + whiteD[q - 1]! : a;
        const c = q < last ? excess[q + 1]! + whiteD[q + 1]! : a;
        const m = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
        if (m > maxDepth) maxDepth = m;
      }
    }
    k = last + 1;
  }
  const whitenedLengthMm = intervals.reduce((acc, [a, b]) => acc + (b - a), 0);
  const meanResid = median(Array.from(resid).filter((_, i) => i % 5 === 0));
  return {
    edge: e,
    whitenedLengthMm: round3(whitenedLengthMm),
    maxDepthMm: round3(maxDepth / ppm),
    chipCount: chips.length,
    intervals,
    chips,
    confidence: Math.max(0.2, Math.min(1, 1.2 - meanResid / 60)),
    basePx: base,
    stBase,
    bgBase,
  };
}

/** Stock colour under the local light: scale S by the local border luminance relative to the global one. */
function scaleStock(z: ZoneColours, localBorder: Rgb): Rgb {
  const g = lumOf(localBorder) / Math.max(1, lumOf(z.border));
  const k = Math.max(0.6, Math.min(1.4, g));
  return [Math.min(255, z.stock[0] * k), Math.min(255, z.stock[1] * k), Math.min(255, z.stock[2] * k)];
}

// ---------------------------------------------------------------------------------------------------------
// Corners
// ---------------------------------------------------------------------------------------------------------

function convexHullArea(points: [number, number][]): number {
  if (points.length < 3) return 0;
  const pts = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: [number, number], a: [number, number], b: [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: [number, number][] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: [number, number][] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  let a = 0;
  for (let i = 0; i < hull.length; i++) {
    const p = hull[i]!;
    const q = hull[(i + 1) % hull.length]!;
    a += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(a) / 2;
}

const N4: readonly [number, number][] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

function measureCorner(
  img: RgbImage,
  c: CornerId,
  refs: Record<EdgeId, EdgeRef>,
  z: ZoneColours,
  bg: Rgb,
  edgeBase: Record<EdgeId, number>,
  stBase: Float32Array,
  opts: OuterOptions,
): CornerResult {
  const ppm = opts.pxPerMm;
  const N = Math.round(CORNER_MM * ppm);
  const ce = cornerEdges(c);
  // Local border colour: from both adjacent edges just beyond the corner square.
  const pick = (e: EdgeId, fromStart: boolean): Rgb => {
    const len = edgeLen(img, e);
    const s = fromStart ? N + Math.round(ppm) : len - 1 - N - Math.round(ppm);
    return refs[e].border[Math.max(0, Math.min(len - 1, s))]!;
  };
  const bh = pick(ce.h, ce.hFromStart);
  const bv = pick(ce.v, ce.vFromStart);
  const border: Rgb = [(bh[0] + bv[0]) / 2, (bh[1] + bv[1]) / 2, (bh[2] + bv[2]) / 2];
  const zz: ZoneColours = { border, stock: scaleStock(z, border), background: bg };
  // Frame limits in local coordinates: whitening and dings are searched in the border zone only.
  const fu = opts.framePx[ce.v] - 0.25 * ppm;
  const fv = opts.framePx[ce.h] - 0.25 * ppm;
  const NN = N * N;
  const rgb = new Uint8Array(NN * 3);
  const right = c === 'TR' || c === 'BR';
  const bottom = c === 'BR' || c === 'BL';
  for (let v = 0; v < N; v++) {
    const y = bottom ? img.height - 1 - v : v;
    for (let u = 0; u < N; u++) {
      const x = right ? img.width - 1 - u : u;
      const i = (y * img.width + x) * 3;
      const j = (v * N + u) * 3;
      rgb[j] = img.data[i]!;
      rgb[j + 1] = img.data[i + 1]!;
      rgb[j + 2] = img.data[i + 2]!;
    }
  }
  const pm = newPixelModel();
  const residMax = 18 + 3 * opts.noise;
  // Pass 1: outline mixes only, to find the pure background at the tip.
  const bg1 = new Float32Array(NN);
  for (let i = 0; i < NN; i++) {
    fitPixel(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, zz, true, false, pm);
    bg1[i] = pm.resid <= residMax ? pm.bg : 0;
  }
  const pure = new Uint8Array(NN);
  {
    const stack: number[] = [];
    if (bg1[0]! > 0.8) {
      pure[0] = 1;
      stack.push(0);
    }
    while (stack.length) {
      const i = stack.pop()!;
      const u = i % N;
      const v = (i - u) / N;
      for (const [du, dv] of N4) {
        const uu = u + du;
        const vv = v + dv;
        if (uu < 0 || vv < 0 || uu >= N || vv >= N) continue;
        const j = vv * N + uu;
        if (!pure[j] && bg1[j]! > 0.8) {
          pure[j] = 1;
          stack.push(j);
        }
      }
    }
  }
  // Outline zone: within `reach` px of the pure background (blur widens it).
  const reach = 2 + Math.round(opts.noise / 3);
  const zone = new Uint8Array(NN);
  for (let v = 0; v < N; v++) {
    for (let u = 0; u < N; u++) {
      if (!pure[v * N + u]) continue;
      for (let dv = -reach; dv <= reach; dv++) {
        const vv = v + dv;
        if (vv < 0 || vv >= N) continue;
        for (let du = -reach; du <= reach; du++) {
          const uu = u + du;
          if (uu < 0 || uu >= N) continue;
          zone[vv * N + uu] = 1;
        }
      }
    }
  }
  // Pass 2: full models; background mixes only in the outline zone, dings only outside it.
  const bgA = new Float32Array(NN);
  const st = new Float32Array(NN);
  const dk = new Uint8Array(NN);
  let residSum = 0;
  let residN = 0;
  for (let v = 0; v < N; v++) {
    for (let u = 0; u < N; u++) {
      const i = v * N + u;
      const inBorder = u < fu || v < fv;
      if (!inBorder && !zone[i]) continue;
      const inZone = zone[i] === 1;
      fitPixel(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, zz, inZone, inBorder, pm, inZone ? 8 : 3);
      residSum += Math.min(60, pm.resid);
      residN++;
      const isDark = pm.model === 'dB' || pm.model === 'dS';
      if (pm.resid > residMax + (isDark ? 6 : 0)) continue;
      bgA[i] = inZone ? pm.bg : 0;
      st[i] = pm.stock;
      if (isDark && pm.dark < 0.9) dk[i] = 1;
    }
  }
  // Off-card area: the background mixes connected to the tip through the zone.
  let area = 0;
  const offCard = new Uint8Array(NN);
  {
    const stack: number[] = [];
    if (zone[0]) {
      offCard[0] = 1;
      stack.push(0);
    }
    while (stack.length) {
      const i = stack.pop()!;
      area += bgA[i]!;
      const u = i % N;
      const v = (i - u) / N;
      for (const [du, dv] of N4) {
        const uu = u + du;
        const vv = v + dv;
        if (uu < 0 || vv < 0 || uu >= N || vv >= N) continue;
        const j = vv * N + uu;
        if (!offCard[j] && zone[j] && bgA[j]! > 0.02) {
          offCard[j] = 1;
          stack.push(j);
        }
      }
    }
  }
  // Straight edges sitting inside the image border (photos) add a strip of background; remove it.
  const eh = Math.max(0, edgeBase[ce.h]);
  const ev = Math.max(0, edgeBase[ce.v]);
  const strip = eh * N + ev * N - eh * ev;
  const corr = Math.max(0, area - strip);
  const rPx = Math.sqrt(corr / (1 - Math.PI / 4));
  const extra = Math.max(0, rPx / ppm - FACTORY_RADIUS_MM);
  // Whitening: stock-covered pixels connected to the outline (off-card zone or the image border), in excess of
  // what an unworn outline shows at the same distance (blur and resampling mix some stock-like colour in).
  const stepTh = 0.12 + 0.03 * opts.noise;
  const R = Math.max(rPx, FACTORY_RADIUS_MM * ppm);
  const DB = stBase.length;
  for (let v = 0; v < N; v++) {
    for (let u = 0; u < N; u++) {
      const i = v * N + u;
      if (st[i]! <= 0) continue;
      const cu = u + 0.5;
      const cv = v + 0.5;
      const dist = cu < R && cv < R ? R - Math.hypot(R - cu, R - cv) : Math.min(cu, cv);
      const di = dist < 0 ? 0 : Math.min(DB - 1, Math.floor(dist));
      const ex = st[i]! - (DB ? stBase[di]! : 0);
      st[i] = ex >= stepTh ? ex : 0;
    }
  }
  const wseen = new Uint8Array(NN);
  const wstack: number[] = [];
  const seed = (j: number) => {
    if (!wseen[j] && (st[j]! > 0.12 || dk[j])) {
      wseen[j] = 1;
      wstack.push(j);
    }
  };
  for (let i = 0; i < NN; i++) if (offCard[i]) seed(i);
  for (let k = 0; k < N; k++) {
    seed(k);
    seed(k * N);
  }
  let whitePx = 0;
  let wu0 = N;
  let wv0 = N;
  let wu1 = -1;
  let wv1 = -1;
  while (wstack.length) {
    const i = wstack.pop()!;
    const u = i % N;
    const v = (i - u) / N;
    if (st[i]! > 0.12) {
      whitePx += st[i]!;
      if (st[i]! > 0.4) {
        if (u < wu0) wu0 = u;
        if (v < wv0) wv0 = v;
        if (u > wu1) wu1 = u;
        if (v > wv1) wv1 = v;
      }
    }
    for (let dv = -1; dv <= 1; dv++) {
      for (let du = -1; du <= 1; du++) {
        const uu = u + du;
        const vv = v + dv;
        if (uu < 0 || vv < 0 || uu >= N || vv >= N) continue;
        seed(vv * N + uu);
      }
    }
  }
  // Ding: darkened pixels connected to the outline; area of their convex hull with the tip, minus off-card.
  let dingArea = 0;
  let dingBox: Box | null = null;
  {
    const seen = new Uint8Array(NN);
    const dstack: number[] = [];
    for (let i = 0; i < NN; i++) {
      if (!dk[i]) continue;
      const u = i % N;
      const v = (i - u) / N;
      let near = u === 0 || v === 0;
      for (let dv = -1; dv <= 1 && !near; dv++) {
        for (let du = -1; du <= 1 && !near; du++) {
          const uu = u + du;
          const vv = v + dv;
          if (uu >= 0 && vv >= 0 && uu < N && vv < N && zone[vv * N + uu]) near = true;
        }
      }
      if (!near) continue;
      seen[i] = 1;
      dstack.push(i);
    }
    const pts: [number, number][] = [];
    let count = 0;
    let u1 = 0;
    let v1 = 0;
    while (dstack.length) {
      const i = dstack.pop()!;
      const u = i % N;
      const v = (i - u) / N;
      count++;
      pts.push([u, v], [u + 1, v], [u, v + 1], [u + 1, v + 1]);
      if (u + 1 > u1) u1 = u + 1;
      if (v + 1 > v1) v1 = v + 1;
      for (let dv = -1; dv <= 1; dv++) {
        for (let du = -1; du <= 1; du++) {
          const uu = u + du;
          const vv = v + dv;
          if (uu < 0 || vv < 0 || uu >= N || vv >= N) continue;
          const j = vv * N + uu;
          if (dk[j] && !seen[j]) {
            seen[j] = 1;
            dstack.push(j);
          }
        }
      }
    }
    const minPx = Math.max(8, (0.1 + 0.04 * opts.noise) * ppm * ppm);
    if (count >= minPx) {
      pts.push([0, 0]);
      const hull = convexHullArea(pts) - area;
      // a bent tip is a filled triangle, not a thin line along the outline
      if (count >= 0.45 * hull) {
        dingArea = Math.max(0, hull);
        dingBox = localBox(img, c, 0, 0, u1, v1, ppm);
      }
    }
  }
  const residMean = residN ? residSum / residN : 0;
  return {
    corner: c,
    whiteningAreaMm2: round3(whitePx / (ppm * ppm)),
    roundingRadiusMm: round3(extra < 0.08 ? 0 : extra),
    dingAreaMm2: round3(dingArea / (ppm * ppm)),
    whiteningBox: wu1 >= 0 ? localBox(img, c, wu0, wv0, wu1 + 1, wv1 + 1, ppm) : null,
    dingBox,
    confidence: Math.max(0.2, Math.min(1, 1.15 - residMean / 50)),
  };
}

function localBox(img: RgbImage, c: CornerId, u0: number, v0: number, u1: number, v1: number, ppm: number): Box {
  const right = c === 'TR' || c === 'BR';
  const bottom = c === 'BR' || c === 'BL';
  const x0 = right ? img.width - u1 : u0;
  const y0 = bottom ? img.height - v1 : v0;
  return { xMm: round3(x0 / ppm), yMm: round3(y0 / ppm), wMm: round3((u1 - u0) / ppm), hMm: round3((v1 - v0) / ppm) };
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** Trading-card games are die-cut with larger corners than sports cards (about 3 mm against 1.5 mm). */
const DIE_CUT_RADIUS_MM: [number, number] = [2.2, 3.6];
/** How far apart four die-cut corners may measure (resampling and blur spread them). */
const DIE_CUT_SPREAD_MM = 0.4;
/** Whitening a die-cut arc may show per corner: the arc's anti-aliased rim measured against a 1.5 mm one. */
const DIE_CUT_RIM_MM2 = 0.3;

/**
 * A card whose four corners are rounded alike, each within a die-cut radius and none whitened beyond the arc's
 * rim or dented, was cut that way: wear rounds the corners a card is handled by, unevenly, and exposes stock as it
 * goes. Such a card's rounding is measured from its own smallest corner instead of the sports-card 1.5 mm (its
 * whitening stays as measured).
 */
function factoryRounding(corners: Record<CornerId, CornerResult>, ppm: number): void {
  const list = CORNER_IDS.map((c) => corners[c]);
  if (list.some((r) => r.whiteningAreaMm2 > DIE_CUT_RIM_MM2 || r.dingAreaMm2 > 0.05)) return;
  const radii = list.map((r) => FACTORY_RADIUS_MM + r.roundingRadiusMm);
  const lo = Math.min(...radii);
  const hi = Math.max(...radii);
  if (lo < DIE_CUT_RADIUS_MM[0] || hi > DIE_CUT_RADIUS_MM[1] || hi - lo > DIE_CUT_SPREAD_MM + 1 / ppm) return;
  for (const r of list) {
    const extra = FACTORY_RADIUS_MM + r.roundingRadiusMm - lo;
    r.roundingRadiusMm = round3(extra < 0.08 ? 0 : extra);
  }
}

export function measureOuter(img: RgbImage, opts: OuterOptions): OuterResult {
  const t0 = performance.now();
  const { refs, z, stockObserved, cornerBg } = estimateColours(img, opts);
  const t1 = performance.now();
  const edges = {} as Record<EdgeId, EdgeResult>;
  const edgeBase = {} as Record<EdgeId, number>;
  const stBases = {} as Record<EdgeId, Float32Array>;
  const ends: Record<EdgeId, [CornerId, CornerId]> = {
    top: ['TL', 'TR'],
    bottom: ['BL', 'BR'],
    left: ['TL', 'BL'],
    right: ['TR', 'BR'],
  };
  for (const e of EDGE_IDS) {
    const [a, b] = ends[e];
    const { basePx, stBase, bgBase: _bg, ...res } = measureEdge(img, e, refs[e], z, cornerBg[a], cornerBg[b], opts);
    edges[e] = res;
    edgeBase[e] = basePx;
    stBases[e] = stBase;
  }
  const t2 = performance.now();
  const corners = {} as Record<CornerId, CornerResult>;
  for (const c of CORNER_IDS) {
    const ce = cornerEdges(c);
    const A = stBases[ce.h];
    const B = stBases[ce.v];
    const base = new Float32Array(Math.max(A.length, B.length));
    for (let d = 0; d < base.length; d++) base[d] = 0.5 * ((A[Math.min(d, A.length - 1)] ?? 0) + (B[Math.min(d, B.length - 1)] ?? 0));
    corners[c] = measureCorner(img, c, refs, z, cornerBg[c], edgeBase, base, opts);
  }
  factoryRounding(corners, opts.pxPerMm);
  const t3 = performance.now();
  if (process.env.DD_TIME) process.stderr.write(`colours ${(t1 - t0).toFixed(1)} edges ${(t2 - t1).toFixed(1)} corners ${(t3 - t2).toFixed(1)}\n`);
  return { corners, edges, colours: { border: z.border, stock: z.stock, background: z.background, stockObserved } };
}
