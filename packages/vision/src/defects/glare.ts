/**
 * Glare and finish cues.
 *
 * Glare is light reflected by the card's gloss: a large, smooth, very bright and colourless spot (often an
 * ellipse) whose core is blown out to white and whose halo fades over a few millimetres. It is not damage; it
 * hides the surface. We find blown-out cores (near-white, low-chroma, smooth pixels) that the design does not
 * explain (a near-white border is expected to be white), keep blob-shaped ones of a few mm² or more, and grow
 * them by their own size to cover the halo. The mask suppresses surface detection there and lowers the
 * surface confidence ("surface visibility").
 *
 * Finish cues: foil (holo) shows as families of parallel faint stripes (counted by the line detector); a
 * refractor/prizm finish as rainbow colour variation across the whole side, border included.
 */
import type { RgbImage } from '../image/types';
import type { LineSegment } from './lines';
import type { GlareRegion } from './types';

export interface GlareResult {
  /** Full-resolution mask (1 = glare core or halo). */
  mask: Uint8Array;
  regions: GlareRegion[];
  /** Fraction of the side covered. */
  fraction: number;
}

export function findGlare(img: RgbImage, opts: { pxPerMm: number; borderIsWhite: boolean; framePx: { x0: number; y0: number; x1: number; y1: number } }): GlareResult {
  const W = img.width;
  const H = img.height;
  const S = 4; // work at 1/4 resolution
  const w = Math.floor(W / S);
  const h = Math.floor(H / S);
  const d = img.data;
  const white = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // all 4 sampled pixels of the cell near-white and colourless
      let ok = 1;
      for (let k = 0; k < 4 && ok; k++) {
        const xx = x * S + (k & 1) * 2 + 1;
        const yy = y * S + (k >> 1) * 2 + 1;
        const i = (yy * W + xx) * 3;
        const r = d[i]!;
        const g = d[i + 1]!;
        const b = d[i + 2]!;
        const mn = r < g ? (r < b ? r : b) : g < b ? g : b;
        const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
        if (mn < 236 || mx - mn > 14) ok = 0;
      }
      if (!ok) continue;
      // a white border is supposed to be white
      const X = x * S;
      const Y = y * S;
      const inFrame = X > opts.framePx.x0 + 2 && X < opts.framePx.x1 - 2 && Y > opts.framePx.y0 + 2 && Y < opts.framePx.y1 - 2;
      if (opts.borderIsWhite && !inFrame) continue;
      white[y * w + x] = 1;
    }
  }
  // components
  const seen = new Int32Array(w * h);
  const regions: GlareRegion[] = [];
  const mask = new Uint8Array(W * H);
  const stack: number[] = [];
  let label = 0;
  const minCells = Math.ceil((3 * opts.pxPerMm * opts.pxPerMm) / (S * S)); // 3 mm²
  for (let i0 = 0; i0 < w * h; i0++) {
    if (!white[i0] || seen[i0]) continue;
    label++;
    const cells: number[] = [];
    seen[i0] = label;
    stack.push(i0);
    let x0 = w;
    let y0 = h;
    let x1 = 0;
    let y1 = 0;
    while (stack.length) {
      const i = stack.pop()!;
      cells.push(i);
      const x = i % w;
      const y = (i - x) / w;
      if (x < x0) x0 = x;
      if (y < y0) y0 = y;
      if (x > x1) x1 = x;
      if (y > y1) y1 = y;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && white[j] && !seen[j]) {
          seen[j] = label;
          stack.push(j);
        }
      }
    }
    if (cells.length < minCells) continue;
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    const fill = cells.length / (bw * bh);
    // printed white boxes are rectangles (fill ~1); glare cores are rounded blobs
    if (fill > 0.93 && cells.length > 20) continue;
    if (fill < 0.35) continue;
    // halo: grow by the core's own radius
    const rCore = Math.sqrt(cells.length / Math.PI) * S;
    const grow = Math.round(Math.max(1.5 * opts.pxPerMm, rCore));
    const gx0 = Math.max(0, x0 * S - grow);
    const gy0 = Math.max(0, y0 * S - grow);
    const gx1 = Math.min(W, (x1 + 1) * S + grow);
    const gy1 = Math.min(H, (y1 + 1) * S + grow);
    const cx = ((x0 + x1 + 1) / 2) * S;
    const cy = ((y0 + y1 + 1) / 2) * S;
    const ax = (gx1 - gx0) / 2;
    const ay = (gy1 - gy0) / 2;
    let area = 0;
    for (let y = gy0; y < gy1; y++) {
      for (let x = gx0; x < gx1; x++) {
        const u = (x - cx) / ax;
        const v = (y - cy) / ay;
        if (u * u + v * v <= 1) {
          mask[y * W + x] = 1;
          area++;
        }
      }
    }
    const p = opts.pxPerMm;
    regions.push({ xMm: gx0 / p, yMm: gy0 / p, wMm: (gx1 - gx0) / p, hMm: (gy1 - gy0) / p, areaMm2: area / (p * p) });
  }
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i]!;
  return { mask, regions, fraction: n / mask.length };
}

/** Foil texture score from the parallel stripe families the line detector saw, 0..1. */
export function holoScore(segments: LineSegment[], frameAreaMm2: number, pxPerMm: number): { score: number; textureMm: number } {
  let len = 0;
  for (const s of segments) if (s.parallel >= 3 && s.contrast < 0.3) len += s.lengthPx / pxPerMm;
  // stripes every ~1.2 mm over a third of the frame would give frameArea / 3.6 mm of stripes
  const score = Math.max(0, Math.min(1, len / Math.max(1, frameAreaMm2 / 30)));
  return { score, textureMm: len };
}

/** Rainbow variation of the border colour (refractor/prizm), 0..1. */
export function refractorScore(img: RgbImage, pxPerMm: number, borderPx: number): number {
  const W = img.width;
  const H = img.height;
  const d = img.data;
  const samples: [number, number][] = [];
  const depth = Math.max(2, Math.min(Math.round(borderPx * 0.6), Math.round(1.5 * pxPerMm)));
  const step = Math.round(pxPerMm);
  const push = (x: number, y: number) => {
    const i = (y * W + x) * 3;
    const r = d[i]!;
    const g = d[i + 1]!;
    const b = d[i + 2]!;
    // opponent chroma
    samples.push([r - g, (r + g) / 2 - b]);
  };
  for (let x = 8 * step; x < W - 8 * step; x += step) {
    push(x, depth);
    push(x, H - 1 - depth);
  }
  for (let y = 8 * step; y < H - 8 * step; y += step) {
    push(depth, y);
    push(W - 1 - depth, y);
  }
  if (samples.length < 8) return 0;
  const ma = samples.reduce((a, s) => a + s[0], 0) / samples.length;
  const mb = samples.reduce((a, s) => a + s[1], 0) / samples.length;
  // robust spread: median distance from the mean chroma
  const dist = samples.map((s) => Math.hypot(s[0] - ma, s[1] - mb)).sort((a, b) => a - b);
  const med = dist[dist.length >> 1]!;
  return Math.max(0, Math.min(1, (med - 4) / 10));
}
