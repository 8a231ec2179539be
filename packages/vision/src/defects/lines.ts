/**
 * Thin line defects: scratches, creases and print lines.
 *
 * A Hessian ridge filter at sigma ~1 px finds thin bright and dark lines; non-maximum suppression across the
 * ridge and hysteresis give one-pixel centre lines, linked into segments per polarity. Every segment is then
 * checked against the card's own texture:
 *   - a step edge (art shape boundary) also excites the filter; real lines have the same level on both flanks;
 *   - holo/reverse-holo foil stripes and refractor rings are families of parallel lines: a segment with several
 *     parallel neighbours at a regular spacing is texture;
 *   - text strokes and sparkles are short.
 * Classification: a bright line with a dark line hugging it (offset ~0.2 mm) is a crease; straight lines
 * parallel to an axis are print lines; other bright lines are scratches.
 */
import type { GrayImage } from '../image/types';
import { median } from './raster';

export interface LineSegment {
  kind: 'scratch' | 'crease' | 'print_line';
  /** +1 bright line, -1 dark line. */
  polarity: 1 | -1;
  /** Centre-line points (px), ordered along the segment. */
  points: [number, number][];
  lengthPx: number;
  /** Mean ridge response. */
  strength: number;
  /** Opacity-like contrast 0..1 (line level vs the flanks relative to the available range). */
  contrast: number;
  /** Direction of the principal axis (radians, 0 = along x). */
  angle: number;
  /** RMS distance of the points from the straight principal axis (px). */
  straightness: number;
  /** Mean |left flank - right flank| relative to the line amplitude (0 = symmetric line, >1 step edge). */
  asymmetry: number;
  /** Fraction of the segment with an opposite-polarity line beside it (crease evidence). */
  paired: number;
  /** Number of parallel lines nearby (texture evidence). */
  parallel: number;
  /** Density of strong edges beside the line (text, busy art), 0..1. */
  clutter: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface RidgeMaps {
  /** Bright-ridge strength (>= 0) and dark-ridge strength (>= 0). */
  bright: GrayImage;
  dark: GrayImage;
  /** Ridge normal direction (unit vector across the line). */
  nx: Float32Array;
  ny: Float32Array;
  /** Gradient magnitude of the smoothed image (levels per px). */
  grad: Float32Array;
}

let pool: { size: number; bufs: Float32Array[] } | null = null;

/** Scratch buffers reused between calls (one side at a time per thread; contents are overwritten). */
function scratch(size: number, count: number): Float32Array[] {
  if (!pool || pool.size !== size || pool.bufs.length < count) {
    pool = { size, bufs: Array.from({ length: count }, () => new Float32Array(size)) };
  }
  return pool.bufs;
}

/** Smooth with the 5-tap binomial (sigma 1) and compute Hessian eigen-analysis per pixel. */
export function ridgeMaps(lum: GrayImage, roi: [number, number, number, number]): RidgeMaps {
  const { width: w, height: h } = lum;
  const s = lum.data;
  const [tmp, sm, Bd, Dd, nx, ny, G] = scratch(w * h, 7) as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  Bd.fill(0);
  Dd.fill(0);
  G.fill(0);
  const [rx0, ry0, rx1, ry1] = roi;
  const xa = Math.max(2, rx0 - 4);
  const xb = Math.min(w - 2, rx1 + 4);
  const ya = Math.max(2, ry0 - 4);
  const yb = Math.min(h - 2, ry1 + 4);
  for (let y = ya - 2; y < yb + 2; y++) {
    const r = y * w;
    for (let i = r + xa, e = r + xb; i < e; i++) {
      tmp[i] = (s[i - 2]! + 4 * (s[i - 1]! + s[i + 1]!) + 6 * s[i]! + s[i + 2]!) * 0.0625;
    }
  }
  const w2 = 2 * w;
  for (let y = ya; y < yb; y++) {
    const r = y * w;
    for (let i = r + xa, e = r + xb; i < e; i++) {
      sm[i] = (tmp[i - w2]! + 4 * (tmp[i - w]! + tmp[i + w]!) + 6 * tmp[i]! + tmp[i + w2]!) * 0.0625;
    }
  }
  const y0 = Math.max(ry0, ya + 1);
  const y1 = Math.min(ry1, yb - 1);
  const x0 = Math.max(rx0, xa + 1);
  const x1 = Math.min(rx1, xb - 1);
  for (let y = y0; y < y1; y++) {
    const r = y * w;
    for (let i = r + x0, e = r + x1; i < e; i++) {
      const c = sm[i]!;
      const l = sm[i - 1]!;
      const rr = sm[i + 1]!;
      const u = sm[i - w]!;
      const d = sm[i + w]!;
      G[i] = Math.abs(rr - l) + Math.abs(d - u);
      const xx = l + rr - 2 * c;
      const yy = u + d - 2 * c;
      const xy = 0.25 * (sm[i - w - 1]! + sm[i + w + 1]! - sm[i - w + 1]! - sm[i + w - 1]!);
      const tr = 0.5 * (xx + yy);
      const hd = 0.5 * (xx - yy);
      const disc = Math.sqrt(hd * hd + xy * xy);
      const l1 = tr - disc; // most negative
      const l2 = tr + disc; // most positive
      const a1 = l1 < 0 ? -l1 : l1;
      const a2 = l2 < 0 ? -l2 : l2;
      let lam: number;
      if (-l1 > a2) {
        Bd[i] = -l1 - (l2 < 0 ? -0.5 * l2 : l2);
        lam = l1;
      } else if (l2 > a1) {
        Dd[i] = l2 - (l1 > 0 ? 0.5 * l1 : -l1);
        lam = l2;
      } else continue;
      // eigenvector of lam: (xy, lam - xx)
      let vx = xy;
      let vy = lam - xx;
      const n = Math.sqrt(vx * vx + vy * vy);
      if (n < 1e-9) {
        const alongX = lam === l1 ? xx < yy : xx > yy;
        vx = alongX ? 1 : 0;
        vy = alongX ? 0 : 1;
      } else {
        vx /= n;
        vy /= n;
      }
      nx[i] = vx;
      ny[i] = vy;
    }
  }
  return { bright: { width: w, height: h, data: Bd }, dark: { width: w, height: h, data: Dd }, nx, ny, grad: G };
}

/** Thin (non-maximum suppressed) ridge mask with hysteresis. */
function centreLines(
  resp: GrayImage,
  opposite: GrayImage,
  nx: Float32Array,
  ny: Float32Array,
  lo: number,
  hi: number,
  roi: [number, number, number, number],
): Uint8Array {
  const { width: w, height: h } = resp;
  const R = resp.data;
  const O = opposite.data;
  const nms = new Uint8Array(w * h); // 1 = weak, 2 = strong
  const [x0, y0, x1, y1] = roi;
  for (let y = Math.max(1, y0); y < Math.min(h - 1, y1); y++) {
    for (let x = Math.max(1, x0); x < Math.min(w - 1, x1); x++) {
      const i = y * w + x;
      const v = R[i]!;
      if (v < lo) continue;
      const dx = Math.round(nx[i]!);
      const dy = Math.round(ny[i]!);
      if (v < R[i + dy * w + dx]! || v <= R[i - dy * w - dx]!) continue;
      // Side lobe of a stronger opposite-polarity line 1-3 px away: not a line of its own.
      let side = 0;
      for (let k = 1; k <= 3; k++) {
        const a = O[i + k * (dy * w + dx)] ?? 0;
        const b = O[i - k * (dy * w + dx)] ?? 0;
        if (a > side) side = a;
        if (b > side) side = b;
      }
      if (side > 2 * v) continue;
      nms[i] = v >= hi ? 2 : 1;
    }
  }
  // hysteresis: keep weak pixels connected to strong ones
  const out = new Uint8Array(w * h);
  const stack: number[] = [];
  for (let i = 0; i < nms.length; i++) {
    if (nms[i] !== 2 || out[i]) continue;
    out[i] = 1;
    stack.push(i);
    while (stack.length) {
      const j = stack.pop()!;
      const x = j % w;
      const y = (j - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const k = (y + dy) * w + x + dx;
          if (k >= 0 && k < nms.length && nms[k] && !out[k] && Math.abs(nx[j]! * nx[k]! + ny[j]! * ny[k]!) > 0.96) {
            out[k] = 1;
            stack.push(k);
          }
        }
      }
    }
  }
  return out;
}

interface RawSeg {
  pixels: number[];
  polarity: 1 | -1;
}

function traceSegments(mask: Uint8Array, w: number, h: number, polarity: 1 | -1, minPx: number, nx: Float32Array, ny: Float32Array): RawSeg[] {
  const seen = new Uint8Array(w * h);
  const segs: RawSeg[] = [];
  const stack: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i] || seen[i]) continue;
    const pixels: number[] = [];
    seen[i] = 1;
    stack.push(i);
    while (stack.length) {
      const j = stack.pop()!;
      pixels.push(j);
      const x = j % w;
      const y = (j - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const k = yy * w + xx;
          if (mask[k] && !seen[k] && Math.abs(nx[j]! * nx[k]! + ny[j]! * ny[k]!) > 0.96) {
            seen[k] = 1;
            stack.push(k);
          }
        }
      }
    }
    if (pixels.length >= minPx) segs.push({ pixels, polarity });
  }
  return segs;
}

export interface LineOptions {
  pxPerMm: number;
  /** Region searched (px): [x0, y0, x1, y1). */
  roi: [number, number, number, number];
  /** Noise sigma (levels) of the image. */
  noise: number;
  /** Minimum segment length (mm). */
  minLengthMm?: number;
  /** Optional per-pixel suppression (1 = ignore: glare, frame line, texture). */
  ignore?: Uint8Array;
  /** Optional per-pixel threshold multiplier (texture-adaptive), on a coarse grid of `tile` px. */
  texture?: { tile: number; cols: number; rows: number; level: Float32Array };
}

/**
 * A line whose two flanks differ by more than this share of its height runs along an edge of the print (the
 * highlight beside an art outline, a box's or border's edge), so it is the design, not damage: a scratch or a
 * print line is a thin line across the print, with the same print just beside it on both sides. Measured 0.2 mm
 * out on either side, median along the line: generated scratches 0.03-0.27 (33, seeds 900,000-900,419), the 192
 * "scratches" marked on the real set's near-mint cards median 0.43; generated print lines at most 0.32 (19), the
 * 133 print lines marked on its near-mint slabs median 0.36.
 */
export const MAX_FLANK_IMBALANCE = 0.35;

/**
 * Median over a line of |left flank - right flank| / the line's height above (bright line) or below (dark line)
 * the nearer flank, flanks `outMm` out along the normal; 0 (balanced) for a line too short to tell (under 5 points).
 */
export function flankImbalance(lum: GrayImage, s: LineSegment, ppm: number, outMm = 0.2): number {
  const at = (x: number, y: number): number | null => {
    const xi = Math.round(x);
    const yi = Math.round(y);
    return xi < 0 || yi < 0 || xi >= lum.width || yi >= lum.height ? null : lum.data[yi * lum.width + xi]!;
  };
  const off = outMm * ppm;
  const values: number[] = [];
  const pts = s.points;
  for (let k = 2; k < pts.length - 2; k += 2) {
    const [x, y] = pts[k]!;
    const dx = pts[k + 2]![0] - pts[k - 2]![0];
    const dy = pts[k + 2]![1] - pts[k - 2]![1];
    const len = Math.hypot(dx, dy) || 1;
    const nx = -dy / len;
    const ny = dx / len;
    const c = at(x, y);
    const a = at(x + off * nx, y + off * ny);
    const b = at(x - off * nx, y - off * ny);
    if (c === null || a === null || b === null) continue;
    values.push(Math.abs(a - b) / Math.max(1, s.polarity === 1 ? c - Math.min(a, b) : Math.max(a, b) - c));
  }
  return values.length ? median(values) : 0;
}

/** Bilinear sample of a grey image at continuous (x, y), clamped to the image. */
export function sampleBilinear(l: GrayImage, x: number, y: number): number {
  const w = l.width;
  const h = l.height;
  const xi = Math.max(0, Math.min(w - 2, Math.floor(x)));
  const yi = Math.max(0, Math.min(h - 2, Math.floor(y)));
  const fx = Math.max(0, Math.min(1, x - xi));
  const fy = Math.max(0, Math.min(1, y - yi));
  const i = yi * w + xi;
  const d = l.data;
  return (d[i]! * (1 - fx) + d[i + 1]! * fx) * (1 - fy) + (d[i + w]! * (1 - fx) + d[i + w + 1]! * fx) * fy;
}

/**
 * Finds line segments. `lum` is the luminance (0..255).
 */
export function findLines(lum: GrayImage, opts: LineOptions): LineSegment[] {
  const { width: w, height: h } = lum;
  const ppm = opts.pxPerMm;
  const maps = ridgeMaps(lum, opts.roi);
  // Thresholds: the ridge response of a 1-px line of contrast k levels is ~0.35 k at sigma 1.
  const base = 2.2 + 0.9 * opts.noise;
  const segs: RawSeg[] = [];
  const minPx = Math.max(6, Math.round((opts.minLengthMm ?? 1.5) * ppm * 0.6));
  for (const [resp, pol] of [
    [maps.bright, 1],
    [maps.dark, -1],
  ] as const) {
    if (opts.texture || opts.ignore) {
      const R = resp.data;
      const t = opts.texture;
      const ig = opts.ignore;
      for (let y = opts.roi[1]; y < opts.roi[3]; y++) {
        const row = y * w;
        const ty = t ? Math.min(t.rows - 1, Math.floor(y / t.tile)) : 0;
        for (let i = row + opts.roi[0], e = row + opts.roi[2]; i < e; i++) {
          if (R[i] === 0) continue;
          if (ig && ig[i]) {
            R[i] = 0;
            continue;
          }
          if (t) {
            const tx = Math.min(t.cols - 1, Math.floor((i - row) / t.tile));
            R[i] = R[i]! / t.level[ty * t.cols + tx]!;
          }
        }
      }
    }
    const mask = centreLines(resp, pol === 1 ? maps.dark : maps.bright, maps.nx, maps.ny, base, base * 2.2, opts.roi);
    segs.push(...traceSegments(mask, w, h, pol, minPx, maps.nx, maps.ny));
  }
  const out: LineSegment[] = [];
  for (const sg of segs) {
    const seg = describe(sg, lum, maps, ppm);
    if (seg) out.push(seg);
  }
  // Texture: parallel families. Count for each segment the others with the same orientation nearby.
  // (Centres, sines and cosines computed once per segment rather than once per pair: the same numbers.)
  const cx = out.map((b) => (b.x0 + b.x1) / 2);
  const cy = out.map((b) => (b.y0 + b.y1) / 2);
  for (let i = 0; i < out.length; i++) {
    const a = out[i]!;
    let n = 0;
    const sin = Math.sin(a.angle);
    const cos = Math.cos(a.angle);
    for (let j = 0; j < out.length; j++) {
      const b = out[j]!;
      if (i === j || b.polarity !== a.polarity) continue;
      let dAng = Math.abs(a.angle - b.angle) % Math.PI;
      dAng = Math.min(dAng, Math.PI - dAng);
      if (dAng > 0.08) continue;
      const dx = cx[j]! - cx[i]!;
      const dy = cy[j]! - cy[i]!;
      // perpendicular distance between the two lines
      const perp = Math.abs(-dx * sin + dy * cos);
      const along = Math.abs(dx * cos + dy * sin);
      if (perp > 1.5 && perp < 4 * ppm && along < (a.lengthPx + b.lengthPx) / 2 + 2 * ppm) n++;
    }
    a.parallel = n;
  }
  // Crease pairing: a bright and a dark line side by side.
  pairCreases(out, maps, w);
  return out;
}

function describe(sg: RawSeg, lum: GrayImage, maps: RidgeMaps, ppm: number): LineSegment | null {
  const w = lum.width;
  const n = sg.pixels.length;
  let mx = 0;
  let my = 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const i of sg.pixels) {
    const x = i % w;
    const y = (i - x) / w;
    mx += x;
    my += y;
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const i of sg.pixels) {
    const x = (i % w) - mx;
    const y = Math.floor(i / w) - my;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
  }
  const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  const ca = Math.cos(angle);
  const sa = Math.sin(angle);
  let tMin = Infinity;
  let tMax = -Infinity;
  let perp2 = 0;
  const resp = sg.polarity === 1 ? maps.bright.data : maps.dark.data;
  let strength = 0;
  for (const i of sg.pixels) {
    const x = (i % w) - mx;
    const y = Math.floor(i / w) - my;
    const t = x * ca + y * sa;
    const p = -x * sa + y * ca;
    if (t < tMin) tMin = t;
    if (t > tMax) tMax = t;
    perp2 += p * p;
    strength += resp[i]!;
  }
  strength /= n;
  const extent = tMax - tMin + 1;
  // A curve folds back on itself when the pixel count is far above the extent (blobs, text): drop.
  if (n > extent * 1.9 + 4) return null;
  const straightness = Math.sqrt(perp2 / n);
  // Ordered points along the axis (binned every 2 px: mean perpendicular offset per bin).
  const nb = Math.max(2, Math.ceil(extent / 2));
  const binP = new Float64Array(nb);
  const binN = new Int32Array(nb);
  for (const i of sg.pixels) {
    const x = (i % w) - mx;
    const y = Math.floor(i / w) - my;
    const t = x * ca + y * sa;
    const p = -x * sa + y * ca;
    const b = Math.min(nb - 1, Math.floor(((t - tMin) / extent) * nb));
    binP[b]! += p;
    binN[b]!++;
  }
  const points: [number, number][] = [];
  for (let b = 0; b < nb; b++) {
    if (!binN[b]) continue;
    const t = tMin + ((b + 0.5) / nb) * extent;
    const p = binP[b]! / binN[b]!;
    points.push([mx + t * ca - p * sa, my + t * sa + p * ca]);
  }
  let lengthPx = 0;
  for (let k = 1; k < points.length; k++) lengthPx += Math.hypot(points[k]![0] - points[k - 1]![0], points[k]![1] - points[k - 1]![1]);
  lengthPx += extent / nb; // the half bins at both ends
  // Profiles across the line: centre level, flanks at +-3 px.
  let asym = 0;
  let amp = 0;
  let contrast = 0;
  let np = 0;
  const step = Math.max(1, Math.floor(n / 40));
  for (let k = 0; k < n; k += step) {
    const i = sg.pixels[k]!;
    const x = (i % w) + 0.5;
    const y = Math.floor(i / w) + 0.5;
    const nxv = maps.nx[i]!;
    const nyv = maps.ny[i]!;
    const c = Math.max(
      sampleBilinear(lum, x - 0.5, y - 0.5),
      sg.polarity === 1 ? sampleBilinear(lum, x - 0.5 + 0.5 * nxv, y - 0.5 + 0.5 * nyv) : -Infinity,
      sg.polarity === 1 ? sampleBilinear(lum, x - 0.5 - 0.5 * nxv, y - 0.5 - 0.5 * nyv) : -Infinity,
    );
    const cd = Math.min(
      sampleBilinear(lum, x - 0.5, y - 0.5),
      sampleBilinear(lum, x - 0.5 + 0.5 * nxv, y - 0.5 + 0.5 * nyv),
      sampleBilinear(lum, x - 0.5 - 0.5 * nxv, y - 0.5 - 0.5 * nyv),
    );
    const centre = sg.polarity === 1 ? c : cd;
    const a = 0.5 * (sampleBilinear(lum, x - 0.5 + 3 * nxv, y - 0.5 + 3 * nyv) + sampleBilinear(lum, x - 0.5 + 4 * nxv, y - 0.5 + 4 * nyv));
    const b = 0.5 * (sampleBilinear(lum, x - 0.5 - 3 * nxv, y - 0.5 - 3 * nyv) + sampleBilinear(lum, x - 0.5 - 4 * nxv, y - 0.5 - 4 * nyv));
    const flank = 0.5 * (a + b);
    const height = sg.polarity === 1 ? centre - Math.max(a, b) : Math.min(a, b) - centre;
    const ampl = Math.abs(centre - flank);
    amp += ampl;
    asym += Math.abs(a - b) / Math.max(2, ampl);
    const range = sg.polarity === 1 ? 255 - flank : flank - 24;
    contrast += Math.max(0, height) / Math.max(20, range);
    np++;
  }
  return {
    kind: 'scratch',
    polarity: sg.polarity,
    points,
    lengthPx,
    strength,
    contrast: np ? contrast / np : 0,
    angle,
    straightness,
    asymmetry: np ? asym / np : 0,
    paired: 0,
    parallel: 0,
    clutter: clutterAround(sg, maps, w, lum.height),
    x0,
    y0,
    x1: x1 + 1,
    y1: y1 + 1,
  };
  void amp;
  void ppm;
}

/** Fraction of pixels 3-14 px beside the line (both sides) with a strong gradient. */
function clutterAround(sg: RawSeg, maps: RidgeMaps, w: number, h: number): number {
  let hit = 0;
  let tot = 0;
  const step = Math.max(1, Math.floor(sg.pixels.length / 30));
  for (let k = 0; k < sg.pixels.length; k += step) {
    const i = sg.pixels[k]!;
    const x = i % w;
    const y = (i - x) / w;
    const nxv = maps.nx[i]!;
    const nyv = maps.ny[i]!;
    for (let d = 3; d <= 14; d += 1) {
      for (const sgn of [-1, 1]) {
        const xx = Math.round(x + sgn * d * nxv);
        const yy = Math.round(y + sgn * d * nyv);
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        tot++;
        if (maps.grad[yy * w + xx]! > 30) hit++;
      }
    }
  }
  return tot ? hit / tot : 0;
}

function pairCreases(segs: LineSegment[], maps: RidgeMaps, w: number): void {
  // For each bright segment, the fraction of its points with dark-ridge response within 1-4 px across.
  for (const s of segs) {
    const other = s.polarity === 1 ? maps.dark.data : maps.bright.data;
    let hit = 0;
    let tot = 0;
    const sa = Math.sin(s.angle);
    const ca = Math.cos(s.angle);
    for (const [x, y] of s.points) {
      tot++;
      let best = 0;
      for (let d = 1; d <= 4; d++) {
        for (const sg of [-1, 1]) {
          const xx = Math.round(x - sg * d * sa);
          const yy = Math.round(y + sg * d * ca);
          const v = other[yy * w + xx] ?? 0;
          if (v > best) best = v;
        }
      }
      if (best > 0.35 * s.strength) hit++;
    }
    s.paired = tot ? hit / tot : 0;
  }
}
