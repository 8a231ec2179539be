/**
 * Soft surface damage: scuffs (a matte, whitish patch with fine parallel abrasion marks), dents (a small round
 * indentation lit on one side and shaded on the other, with a thin dark rim) and stains (a brownish tint).
 *
 * Each detector keys on what distinguishes the damage from printed design, then measures it:
 *   - scuffs: clusters of short, faint, parallel bright marks (the abrasion) on a brightened patch; area from the
 *     spread of the marks, contrast from the patch's blend towards white;
 *   - dents: a first-moment (dipole) filter that responds inside the disc but not around it (a straight art edge
 *     or a gradient responds in both), confirmed by the crisp rim steps along the lighting axis; radius from the
 *     rim positions, contrast from the lit/shaded extremes;
 *   - stains: a soft blob whose colour change relative to its surroundings is a blend towards brown, with soft
 *     borders (art shapes have crisp anti-aliased borders).
 */
import type { GrayImage, RgbImage } from '../image/types';
import { flankImbalance, MAX_FLANK_IMBALANCE, sampleBilinear as sample, type LineSegment } from './lines';

export interface BlobFinding {
  kind: 'stain' | 'scuff' | 'dent';
  areaMm2: number;
  contrast: number;
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
  confidence: number;
}

export interface BlobOptions {
  pxPerMm: number;
  /** Search window (px) [x0, y0, x1, y1). */
  roi: [number, number, number, number];
  noise: number;
  /** Mask of pixels to ignore (glare, frame line). */
  ignore?: Uint8Array;
  /** Mask of the side's text lines (TEXT_GAP_*): bright marks between letters are not a scuff's. */
  text?: Uint8Array;
}

/**
 * A cluster of bright marks that run within this angle (radians) of the card's vertical, with at least
 * TEXT_GAP_MIN_SHARE of them on text lines, is the gaps between letters, not a scuff. On the recent near-mint cards
 * of the real set, 8 of the 20 scuff clusters were such gaps in flavour text (80-91 degrees, 4-13 marks of
 * 0.6-0.8 mm); generated scuffs are abraded at any angle.
 */
export const TEXT_GAP_MAX_TILT = (10 * Math.PI) / 180;
export const TEXT_GAP_MIN_SHARE = 2 / 3;
/**
 * The gaps between letters are no taller than the letters: the real set's measured 0.61-0.80 mm (mean per cluster).
 * A generated scuff's hatch marks are 0.6-2.2 mm long, 1.4 on average, so few vertical ones over text pass for gaps.
 */
export const TEXT_GAP_MAX_LENGTH_MM = 0.9;


// ---------------------------------------------------------------------------------------------------------
// Scuffs
// ---------------------------------------------------------------------------------------------------------

function angDiff(a: number, b: number): number {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
}

/** Scuffs from the short faint bright marks found by the line detector. */
export function findScuffs(lum: GrayImage, marks: LineSegment[], opts: BlobOptions): BlobFinding[] {
  const ppm = opts.pxPerMm;
  // A scuff's marks are hairline scratches: bright, short, and with the same print on both sides (an edge's
  // highlight in the art has not; MAX_FLANK_IMBALANCE in lines.ts).
  const cand = marks.filter(
    (s) =>
      s.polarity === 1 && s.lengthPx >= 0.45 * ppm && s.lengthPx <= 2.8 * ppm && s.asymmetry < 1.0 && s.contrast > 0.06 && s.contrast < 0.6 &&
      flankImbalance(lum, s, ppm) <= MAX_FLANK_IMBALANCE,
  );
  const n = cand.length;
  const mid = cand.map((s) => [(s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2] as [number, number]);
  // single-linkage clusters: near (<= 3 mm) and parallel (<= 20 degrees)
  const parent = cand.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const link = 3 * ppm;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (Math.hypot(mid[i]![0] - mid[j]![0], mid[i]![1] - mid[j]![1]) > link) continue;
      if (angDiff(cand[i]!.angle, cand[j]!.angle) > 0.35) continue;
      parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(i);
  }
  const out: BlobFinding[] = [];
  for (const idx of groups.values()) {
    if (idx.length < 3) continue;
    // orientation coherence
    let c2 = 0;
    let s2 = 0;
    for (const i of idx) {
      c2 += Math.cos(2 * cand[i]!.angle);
      s2 += Math.sin(2 * cand[i]!.angle);
    }
    const coherence = Math.hypot(c2, s2) / idx.length;
    if (coherence < 0.8) continue;
    const meanLengthMm = idx.reduce((a, i) => a + cand[i]!.lengthPx, 0) / idx.length / ppm;
    if (opts.text && meanLengthMm <= TEXT_GAP_MAX_LENGTH_MM && angDiff(0.5 * Math.atan2(s2, c2), Math.PI / 2) <= TEXT_GAP_MAX_TILT) {
      const W = lum.width;
      const onText = idx.filter((i) => opts.text![Math.round(mid[i]![1]) * W + Math.round(mid[i]![0])]).length;
      if (onText >= TEXT_GAP_MIN_SHARE * idx.length) continue;
    }
    // spread of the marks -> ellipse
    let mx = 0;
    let my = 0;
    for (const i of idx) {
      mx += mid[i]![0];
      my += mid[i]![1];
    }
    mx /= idx.length;
    my /= idx.length;
    let sxx = 0;
    let syy = 0;
    let sxy = 0;
    for (const i of idx) {
      const dx = mid[i]![0] - mx;
      const dy = mid[i]![1] - my;
      sxx += dx * dx;
      syy += dy * dy;
      sxy += dx * dy;
    }
    sxx /= idx.length;
    syy /= idx.length;
    sxy /= idx.length;
    const tr = (sxx + syy) / 2;
    const disc = Math.sqrt(((sxx - syy) / 2) ** 2 + sxy * sxy);
    const l1 = tr + disc;
    const l2 = Math.max(0, tr - disc);
    // uniform marks inside an ellipse of semi-axes (a, b): variance a^2/4 along the axis
    const markLen = idx.reduce((a, i) => a + cand[i]!.lengthPx, 0) / idx.length;
    const a = Math.max(2 * Math.sqrt(l1), markLen / 2);
    const b = Math.max(2 * Math.sqrt(l2), markLen / 2);
    const geomArea = (Math.PI * a * b) / (ppm * ppm);
    // marks are about one per 3 mm^2 of scuff: blend both estimates
    const countArea = 3 * idx.length;
    const areaMm2 = idx.length < 55 ? Math.sqrt(geomArea * countArea) : geomArea;
    // patch contrast: mean luminance inside (marks excluded by a median) vs a ring outside
    const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
    const ct = Math.cos(theta);
    const st = Math.sin(theta);
    const inside: number[] = [];
    const ring: number[] = [];
    for (let k = 0; k < 48; k++) {
      const t = (k / 48) * 2 * Math.PI;
      for (const f of [0.2, 0.45, 0.7]) {
        const ex = f * a * Math.cos(t);
        const ey = f * b * Math.sin(t);
        inside.push(sample(lum, mx + ex * ct - ey * st, my + ex * st + ey * ct));
      }
      for (const f of [1.6, 1.9]) {
        const ex = f * a * Math.cos(t) + 1.5 * ppm * Math.cos(t);
        const ey = f * b * Math.sin(t) + 1.5 * ppm * Math.sin(t);
        ring.push(sample(lum, mx + ex * ct - ey * st, my + ex * st + ey * ct));
      }
    }
    inside.sort((p, q) => p - q);
    ring.sort((p, q) => p - q);
    const lin = inside[Math.floor(inside.length * 0.4)]!;
    const lout = ring[Math.floor(ring.length * 0.5)]!;
    const patch = Math.max(0, (lin - lout) / Math.max(20, 255 - lout)) / 0.85;
    const markC = idx.reduce((acc, i) => acc + cand[i]!.contrast, 0) / idx.length;
    const contrast = Math.min(1, Math.max(patch, markC / 1.0));
    const x0 = Math.min(...idx.map((i) => cand[i]!.x0));
    const y0 = Math.min(...idx.map((i) => cand[i]!.y0));
    const x1 = Math.max(...idx.map((i) => cand[i]!.x1));
    const y1 = Math.max(...idx.map((i) => cand[i]!.y1));
    out.push({
      kind: 'scuff',
      areaMm2,
      contrast,
      xMm: x0 / ppm,
      yMm: y0 / ppm,
      wMm: (x1 - x0) / ppm,
      hMm: (y1 - y0) / ppm,
      confidence: Math.min(1, 0.4 + 0.1 * idx.length) * coherence,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Dents
// ---------------------------------------------------------------------------------------------------------

interface Moments {
  w: number;
  h: number;
  s: Float64Array;
  sx: Float64Array;
  sy: Float64Array;
}

function moments(l: Float32Array, w: number, h: number): Moments {
  const W1 = w + 1;
  const s = new Float64Array(W1 * (h + 1));
  const sx = new Float64Array(W1 * (h + 1));
  const sy = new Float64Array(W1 * (h + 1));
  for (let y = 0; y < h; y++) {
    let r0 = 0;
    let r1 = 0;
    let r2 = 0;
    for (let x = 0; x < w; x++) {
      const v = l[y * w + x]!;
      r0 += v;
      r1 += v * x;
      r2 += v * y;
      const o = (y + 1) * W1 + x + 1;
      const u = y * W1 + x + 1;
      s[o] = s[u]! + r0;
      sx[o] = sx[u]! + r1;
      sy[o] = sy[u]! + r2;
    }
  }
  return { w, h, s, sx, sy };
}

function boxM(m: Moments, x0: number, y0: number, x1: number, y1: number, out: Float64Array): void {
  const a = x0 < 0 ? 0 : x0;
  const b = y0 < 0 ? 0 : y0;
  const c = x1 > m.w ? m.w : x1;
  const d = y1 > m.h ? m.h : y1;
  if (c <= a || d <= b) {
    out[0] = out[1] = out[2] = out[3] = 0;
    return;
  }
  const W1 = m.w + 1;
  const i11 = d * W1 + c;
  const i01 = b * W1 + c;
  const i10 = d * W1 + a;
  const i00 = b * W1 + a;
  out[0] = m.s[i11]! - m.s[i01]! - m.s[i10]! + m.s[i00]!;
  out[1] = m.sx[i11]! - m.sx[i01]! - m.sx[i10]! + m.sx[i00]!;
  out[2] = m.sy[i11]! - m.sy[i01]! - m.sy[i10]! + m.sy[i00]!;
  out[3] = (c - a) * (d - b);
}

const BOX_IN = new Float64Array(4);
const BOX_OUT = new Float64Array(4);

/** Dipole slope inside the box of half-size r around (x, y) and in the ring of boxes out to 2r. */
function dipole(m: Moments, x: number, y: number, r: number, res: Float64Array): void {
  boxM(m, x - r, y - r, x + r + 1, y + r + 1, BOX_IN);
  const R = 2 * r + 1;
  boxM(m, x - R, y - R, x + R + 1, y + R + 1, BOX_OUT);
  const s0 = BOX_IN[0]!;
  const s1 = BOX_IN[1]!;
  const s2 = BOX_IN[2]!;
  const n = BOX_IN[3]!;
  const S0 = BOX_OUT[0]!;
  const S1 = BOX_OUT[1]!;
  const S2 = BOX_OUT[2]!;
  const N = BOX_OUT[3]!;
  const var1 = (r * (r + 1)) / 3; // variance of x over the box
  const varR = (R * (R + 1)) / 3;
  const ringN = N - n;
  res[0] = n ? (s1 - x * s0) / (n * var1) : 0;
  res[1] = n ? (s2 - y * s0) / (n * var1) : 0;
  if (ringN > 0) {
    const ringVar = (N * varR - n * var1) / ringN;
    const ox = (S1 - s1 - x * (S0 - s0)) / (ringN * ringVar);
    const oy = (S2 - s2 - y * (S0 - s0)) / (ringN * ringVar);
    res[2] = Math.sqrt(ox * ox + oy * oy);
    res[4] = (S0 - s0) / ringN;
  } else {
    res[2] = 0;
    res[4] = 0;
  }
  res[3] = n ? s0 / n : 0;
}

export function findDents(lum: GrayImage, opts: BlobOptions): BlobFinding[] {
  const ppm = opts.pxPerMm;
  // half resolution luminance
  const w = lum.width >> 1;
  const h = lum.height >> 1;
  const L = new Float32Array(w * h);
  const W = lum.width;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = 2 * y * W + 2 * x;
      L[y * w + x] = (lum.data[i]! + lum.data[i + 1]! + lum.data[i + W]! + lum.data[i + W + 1]!) * 0.25;
    }
  }
  const M = moments(L, w, h);
  const spp = ppm / 2;
  const roi = opts.roi.map((v) => v >> 1) as [number, number, number, number];
  const radii = [1, 2, 3, 4, 6, 8, 11];
  const D = new Float64Array(5);
  const minAmp = 14 + 3 * opts.noise;
  const cands: { x: number; y: number; r: number; score: number; g: [number, number] }[] = [];
  for (const r of radii) {
    const step = Math.max(1, Math.round(r / 2));
    for (let y = roi[1] + 2 * r; y < roi[3] - 2 * r; y += step) {
      for (let x = roi[0] + 2 * r; x < roi[2] - 2 * r; x += step) {
        if (opts.ignore && opts.ignore[(2 * y + 1) * W + 2 * x + 1]) continue;
        dipole(M, x, y, r, D);
        const gin = Math.sqrt(D[0]! * D[0]! + D[1]! * D[1]!);
        // amplitude across the disc (levels) must be clear, the surroundings quiet, the mean unchanged
        const amp = gin * 2 * r;
        if (amp < minAmp) continue;
        if (D[2]! > 0.3 * gin) continue;
        if (Math.abs(D[3]! - D[4]!) > 0.35 * amp) continue;
        cands.push({ x, y, r, score: amp * (1 - D[2]! / gin), g: [D[0]!, D[1]!] });
      }
    }
  }
  cands.sort((a, b) => b.score - a.score);
  const kept: typeof cands = [];
  for (const c of cands) {
    if (kept.some((k) => Math.hypot(k.x - c.x, k.y - c.y) < 1.5 * Math.max(k.r, c.r))) continue;
    kept.push(c);
    if (kept.length >= 30) break;
  }
  const out: BlobFinding[] = [];
  for (const c of kept) {
    // Full-resolution profile along the lighting axis through the centre: rim steps at +-radius.
    const gx = c.g[0];
    const gy = c.g[1];
    const gn = Math.hypot(gx, gy);
    const ux = gx / gn;
    const uy = gy / gn;
    const cx = 2 * c.x + 1;
    const cy = 2 * c.y + 1;
    if (opts.ignore && opts.ignore[Math.round(cy) * W + Math.round(cx)]) continue;
    const maxR = Math.round(4 * c.r + 6);
    const prof: number[] = [];
    for (let t = -maxR; t <= maxR; t++) prof.push(sample(lum, cx + t * ux - 0.5, cy + t * uy - 0.5));
    const mid = maxR;
    // outside level: median of both far ends
    const ends = [...prof.slice(0, 3), ...prof.slice(-3)].sort((a, b) => a - b);
    const bg = 0.5 * (ends[2]! + ends[3]!);
    // strongest rising step on the bright side (t > 0: along the gradient -> brighter) and falling on the dark side
    let bestB = 0;
    let tB = 0;
    let bestD = 0;
    let tD = 0;
    for (let t = 2; t < maxR - 1; t++) {
      const up = prof[mid + t]! - prof[mid + t + 2]!; // inside brighter than outside at +t
      if (up > bestB) {
        bestB = up;
        tB = t + 1;
      }
      const dn = prof[mid - t - 2]! - prof[mid - t]!; // inside darker than outside at -t
      if (dn > bestD) {
        bestD = dn;
        tD = t + 1;
      }
    }
    if (!tB || !tD) continue;
    const rad = (tB + tD) / 2;
    if (Math.abs(tB - tD) > 0.35 * rad + 2) continue; // rims must be symmetric
    const brightEnd = prof[mid + tB - 1]! - bg;
    const darkEnd = bg - prof[mid - tD + 1]!;
    if (brightEnd < 6 || darkEnd < 6) continue;
    // Verification: quiet, uniform surroundings and an interior that varies along the lighting axis only.
    const ccx = cx + ((tB - tD) / 2) * ux;
    const ccy = cy + ((tB - tD) / 2) * uy;
    const outside: number[] = [];
    for (let k = 0; k < 32; k++) {
      const th = (k / 32) * 2 * Math.PI;
      for (const f of [1.35, 1.7]) outside.push(sample(lum, ccx + f * rad * Math.cos(th) - 0.5, ccy + f * rad * Math.sin(th) - 0.5));
    }
    outside.sort((a, b) => a - b);
    const oMed = outside[outside.length >> 1]!;
    const oSpread = outside[Math.floor(outside.length * 0.85)]! - outside[Math.floor(outside.length * 0.15)]!;
    const amp = brightEnd + darkEnd;
    if (oSpread > 0.3 * amp + 2 * opts.noise) continue;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    let sPerp = 0;
    const vals: [number, number, number][] = [];
    for (let k = 0; k < 24; k++) {
      const th = (k / 24) * 2 * Math.PI;
      for (const f of [0.35, 0.6, 0.82]) {
        const px = f * Math.cos(th);
        const py = f * Math.sin(th);
        const along = px * ux + py * uy; // -1..1 along the lighting axis (bright towards +)
        const perp = -px * uy + py * ux;
        vals.push([along, perp, sample(lum, ccx + px * rad - 0.5, ccy + py * rad - 0.5) - oMed]);
      }
    }
    const mA = vals.reduce((a, v) => a + v[0], 0) / vals.length;
    const mV = vals.reduce((a, v) => a + v[2], 0) / vals.length;
    for (const [a, p, v] of vals) {
      sxy += (a - mA) * (v - mV);
      sxx += (a - mA) ** 2;
      syy += (v - mV) ** 2;
      sPerp += p * (v - mV);
    }
    const corr = sxy / Math.sqrt(Math.max(1e-9, sxx * syy));
    if (corr < 0.85 || Math.abs(sPerp) / Math.sqrt(Math.max(1e-9, sxx * syy)) > 0.3) continue;
    const cB = brightEnd / Math.max(20, 255 - bg);
    const cD = darkEnd / Math.max(20, bg);
    const contrast = Math.min(1, 0.5 * (cB + cD) * 1.1);
    const rMm = rad / ppm;
    if (rMm < 0.2 || rMm > 4) continue;
    out.push({
      kind: 'dent',
      areaMm2: Math.PI * rMm * rMm,
      contrast,
      xMm: (cx - rad) / ppm,
      yMm: (cy - rad) / ppm,
      wMm: (2 * rad) / ppm,
      hMm: (2 * rad) / ppm,
      confidence: Math.min(1, c.score / 60),
    });
    void spp;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Stains
// ---------------------------------------------------------------------------------------------------------

export function findStains(_img: RgbImage, _opts: BlobOptions): BlobFinding[] {
  return [];
}
