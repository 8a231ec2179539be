/**
 * Condition measurements of one rectified card side: corners, edges and surface, with glare and foil texture
 * kept apart from damage. Pure function of the rectified RGB image (canonical 630 x 880 at 10 px/mm, card outer
 * edge at the image border) and the printed frame found by the centering measurement.
 *
 * Output: the rubric's physical measurements (SideMeasurements minus centering, which the geometry provides),
 * every finding with its place and size, glare regions, finish cues, confidences per region (lowered where
 * glare hides the surface) and per-region feature vectors for a learned severity refinement.
 */
import type { CenteringMeasurement, CornerId, CornerMeasurement, EdgeId, EdgeMeasurement, SideMeasurements } from '@cardlens/grading-rubric';
import type { RgbImage } from '../image/types';
import { measureOuter, CORNER_IDS, EDGE_IDS, type OuterResult } from './outer';
import { clutterMask, luminance } from './raster';
import { CREASE_THROUGH_PRINT_MM, lineDefects, type SurfaceFinding } from './surface';
import { TEXT_BANDS_EITHER_WAY_UP } from '../evidence/readCard';
import { findTextLines } from '../evidence/textLines';
import { findDents, findScuffs, findStains, type BlobFinding } from './blobs';
import { findGlare, holoScore, refractorScore } from './glare';
import type { Finding, FinishCues, GlareRegion, RegionFeatures } from './types';

export type { Finding, FindingKind, FinishCues, GlareRegion, RegionFeatures } from './types';
export type { SurfaceFinding } from './surface';

export interface ConditionOptions {
  /** Border widths (mm) from the centering measurement; defaults to 3 mm each (re-detected when absent). */
  frame?: CenteringMeasurement;
  /** Image noise sigma in levels; estimated from the image when absent. */
  noise?: number;
}

export interface ConditionAnalysis {
  corners: Record<CornerId, CornerMeasurement>;
  edges: Record<EdgeId, EdgeMeasurement>;
  surface: SurfaceFinding[];
  findings: Finding[];
  glare: GlareRegion[];
  finish: FinishCues;
  /** 0..1 per region: how much of it could be inspected and how well the models fit. */
  confidence: { corners: Record<CornerId, number>; edges: Record<EdgeId, number>; surface: number };
  /** Fraction of the side's surface that could be inspected (glare excluded), for the rubric's SideQuality. */
  surfaceVisibility: number;
  features: RegionFeatures[];
  timingsMs: Record<string, number>;
  /** Detection level used (levels) and the measured blur of the rectified image (gaussian sigma, px). */
  quality: { noise: number; blurPx: number };
}

/** Share of a line defect's path inside dense print above which it is taken for the print itself. */
const MAX_PRINT_SHARE = 0.5;
/** Line fragments per mm² around a line mark (within SPARKLE_MARGIN_MM of its box) above which it is texture. */
const MAX_LINE_FRAGMENT_DENSITY = 0.25;
const SPARKLE_MARGIN_MM = 2;

const CORNER_NAMES: Record<CornerId, string> = {
  TL: 'top-left corner',
  TR: 'top-right corner',
  BR: 'bottom-right corner',
  BL: 'bottom-left corner',
};

/** Robust noise estimate: median absolute Laplacian-like residual over smooth border pixels. */
export function estimateNoise(img: RgbImage): number {
  const w = img.width;
  const h = img.height;
  const d = img.data;
  const vals: number[] = [];
  const step = 7;
  for (let y = 8; y < h - 8; y += step) {
    for (let x = 8; x < w - 8; x += step) {
      const i = (y * w + x) * 3 + 1;
      const c = d[i]!;
      const r = 4 * c - d[i - 3]! - d[i + 3]! - d[i - 3 * w]! - d[i + 3 * w]!;
      vals.push(Math.abs(r));
    }
  }
  vals.sort((a, b) => a - b);
  // median |4c - sum of 4 neighbours| = 0.6745 * sigma * sqrt(20) for white noise
  const med = vals[Math.floor(vals.length * 0.3)] ?? 0;
  return med / (0.3853 * Math.sqrt(20));
}

/**
 * Blur of the rectified image (gaussian sigma, px): the 10-90 % rise width of the printed frame's outer edge
 * (a crisp printed edge on every card) divided by 2.56, median over profiles on all four sides.
 */
export function estimateBlur(img: RgbImage, framePx: { left: number; right: number; top: number; bottom: number }): number {
  const W = img.width;
  const H = img.height;
  const lumAt = (x: number, y: number) => {
    const i = (Math.min(H - 1, Math.max(0, y)) * W + Math.min(W - 1, Math.max(0, x))) * 3;
    return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
  };
  const widths: number[] = [];
  const prof = new Float64Array(10);
  const sides: [number, number, number, number, number][] = [
    // [fixed coordinate of the edge, along start, along end, direction (+1 inwards = increasing), horizontal?]
    [Math.round(framePx.left), Math.round(framePx.top + 60), Math.round(H - framePx.bottom - 60), 1, 0],
    [Math.round(W - framePx.right), Math.round(framePx.top + 60), Math.round(H - framePx.bottom - 60), -1, 0],
    [Math.round(framePx.top), Math.round(framePx.left + 60), Math.round(W - framePx.right - 60), 1, 1],
    [Math.round(H - framePx.bottom), Math.round(framePx.left + 60), Math.round(W - framePx.right - 60), -1, 1],
  ];
  for (const [c, a, b, dir, horiz] of sides) {
    if (b <= a) continue;
    for (let t = a; t < b; t += Math.max(1, Math.floor((b - a) / 12))) {
      for (let k = -6; k <= 3; k++) prof[k + 6] = horiz ? lumAt(t, c + dir * k) : lumAt(c + dir * k, t);
      const lo = Math.min(...prof);
      const hi = Math.max(...prof);
      if (hi - lo < 40) continue;
      // monotone enough? take the steepest crossing of the mid level and measure 10-90 %
      const p10 = lo + 0.1 * (hi - lo);
      const p90 = lo + 0.9 * (hi - lo);
      const rising = prof[9]! > prof[0]!;
      let i10 = -1;
      let i90 = -1;
      for (let k = 0; k < 9; k++) {
        const u = rising ? prof[k]! : -prof[k]!;
        const v = rising ? prof[k + 1]! : -prof[k + 1]!;
        const l10 = rising ? p10 : -p90;
        const l90 = rising ? p90 : -p10;
        if (i10 < 0 && u <= l10 && v > l10) i10 = k + (l10 - u) / (v - u);
        if (u <= l90 && v > l90) i90 = k + (l90 - u) / (v - u);
      }
      if (i10 >= 0 && i90 > i10) widths.push(i90 - i10);
    }
  }
  if (widths.length < 6) return 0.5;
  widths.sort((x, y) => x - y);
  return widths[widths.length >> 1]! / 2.56;
}

/** Where a side's text lines are (the line finder's boxes), in the bands the OCR reads, either way up. */
function textMask(img: RgbImage): Uint8Array {
  const { width: W, height: H } = img;
  const mask = new Uint8Array(W * H);
  const { lines } = findTextLines(img, { bands: TEXT_BANDS_EITHER_WAY_UP.map(([a, b]) => [Math.round(a * H), Math.round(b * H)]) });
  for (const l of lines) {
    for (let y = Math.max(0, Math.floor(l.y0)); y < Math.min(H, Math.ceil(l.y1)); y++) mask.fill(1, y * W + Math.max(0, Math.floor(l.x0)), y * W + Math.min(W, Math.ceil(l.x1)));
  }
  return mask;
}

/** dst |= src, element by element (a small function of its own, so that it is optimised on its own). */
function orInto(dst: Uint8Array, src: Uint8Array): void {
  for (let i = 0; i < dst.length; i++) dst[i] = dst[i]! | src[i]!;
}

export function measureCondition(img: RgbImage, options: ConditionOptions = {}): ConditionAnalysis {
  const t0 = performance.now();
  const ppm = img.width / 63;
  const frame = options.frame ?? { leftMm: 3, rightMm: 3, topMm: 3, bottomMm: 3 };
  const framePx = { left: frame.leftMm * ppm, right: frame.rightMm * ppm, top: frame.topMm * ppm, bottom: frame.bottomMm * ppm };
  // Detection level: pixel noise, or blur (photos) which hides the finest wear the same way.
  const blur = estimateBlur(img, framePx);
  const noise = options.noise ?? Math.max(estimateNoise(img), 4 * Math.max(0, blur - 0.6));
  const outer: OuterResult = measureOuter(img, { pxPerMm: ppm, framePx, noise });
  const t1 = performance.now();
  const lum = luminance(img);
  const W = img.width;
  const H = img.height;
  // Ignore the printed frame line (its two edges look like lines).
  const ignore = new Uint8Array(W * H);
  const fx0 = framePx.left;
  const fx1 = W - framePx.right;
  const fy0 = framePx.top;
  const fy1 = H - framePx.bottom;
  const band = Math.round(0.9 * ppm);
  const fillRect = (x0: number, y0: number, x1: number, y1: number) => {
    const a = Math.max(0, Math.floor(x0));
    const b = Math.min(W, Math.ceil(x1));
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(H, Math.ceil(y1)); y++) ignore.fill(1, y * W + a, y * W + b);
  };
  const off = 0.3 * ppm;
  fillRect(fx0 + off - band, fy0 - band, fx0 + off + band, fy1 + band);
  fillRect(fx1 - off - band, fy0 - band, fx1 - off + band, fy1 + band);
  fillRect(fx0 - band, fy0 + off - band, fx1 + band, fy0 + off + band);
  fillRect(fx0 - band, fy1 - off - band, fx1 + band, fy1 - off + band);
  const b = outer.colours.border;
  const glare = findGlare(img, { pxPerMm: ppm, borderIsWhite: Math.min(b[0], b[1], b[2]) > 215, framePx: { x0: fx0, y0: fy0, x1: fx1, y1: fy1 } });
  orInto(ignore, glare.mask);
  const lines = lineDefects(lum, { pxPerMm: ppm, frame: { x0: fx0, y0: fy0, x1: fx1, y1: fy1 }, noise, ignore });
  // Text and busy print: blobs and faint marks are not looked for there.
  const clutter = clutterMask(lum, 25 + 2 * noise, Math.round(1.2 * ppm), 0.1);
  const blobIgnore = ignore.slice();
  orInto(blobIgnore, clutter.mask);
  const blobOpts = { pxPerMm: ppm, roi: [Math.round(2.5 * ppm), Math.round(2.5 * ppm), W - Math.round(2.5 * ppm), H - Math.round(2.5 * ppm)] as [number, number, number, number], noise, ignore: blobIgnore, text: textMask(img) };
  const marks = lines.raw.filter((m) => !clutter.mask[Math.round((m.y0 + m.y1) / 2) * W + Math.round((m.x0 + m.x1) / 2)]);
  const blobs: BlobFinding[] = [...findScuffs(lum, marks, blobOpts), ...findDents(lum, blobOpts), ...findStains(img, blobOpts)];
  const t2 = performance.now();
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  const inside = (f: SurfaceFinding, b: BlobFinding) =>
    f.xMm >= b.xMm - 0.5 && f.yMm >= b.yMm - 0.5 && f.xMm + f.wMm <= b.xMm + b.wMm + 0.5 && f.yMm + f.hMm <= b.yMm + b.hMm + 0.5;
  // Print is not damage: a line that runs mostly through dense print (text, rules, art detail, holo pattern)
  // is the design's own edge far more often than a scratch, so it is not claimed there. A long crease still is:
  // it crosses the design whatever is printed.
  const printShare = (f: SurfaceFinding): number => {
    const pts = f.pathMm ?? [[f.xMm + f.wMm / 2, f.yMm + f.hMm / 2]];
    let n = 0;
    for (const [x, y] of pts) {
      const px = Math.min(W - 1, Math.max(0, Math.round(x * ppm)));
      const py = Math.min(H - 1, Math.max(0, Math.round(y * ppm)));
      n += clutter.mask[py * W + px]!;
    }
    return n / pts.length;
  };
  // Foil sparkle and busy art are fields of short line fragments; a scratch, a print line or a short crease crosses
  // a surface that is otherwise calm. A line mark among many other fragments (within 2 mm of its box) is the field's
  // texture, not a mark of its own. On the real near-mint slab scans the scratches marked had a median 0.17
  // fragments per mm² around them, generated scratches a median 0; the limit is the lowest that leaves the
  // synthetic bench unchanged (0.15 and 0.2 also dropped a generated scratch). Print lines and short creases
  // follow the same rule since `cardlens-vision-6` (packages/vision/CHANGELOG.md).
  const fragmentDensity = (f: SurfaceFinding): number => {
    const margin = SPARKLE_MARGIN_MM * ppm;
    const own = { x0: f.xMm * ppm - 2, y0: f.yMm * ppm - 2, x1: (f.xMm + f.wMm) * ppm + 2, y1: (f.yMm + f.hMm) * ppm + 2 };
    const near = { x0: own.x0 - margin, y0: own.y0 - margin, x1: own.x1 + margin, y1: own.y1 + margin };
    let n = 0;
    for (const r of lines.raw) {
      const cx = (r.x0 + r.x1) / 2;
      const cy = (r.y0 + r.y1) / 2;
      if (cx < near.x0 || cx > near.x1 || cy < near.y0 || cy > near.y1) continue;
      if (cx >= own.x0 && cx <= own.x1 && cy >= own.y0 && cy <= own.y1) continue;
      n++;
    }
    const areaMm2 = ((near.x1 - near.x0) * (near.y1 - near.y0) - (own.x1 - own.x0) * (own.y1 - own.y0)) / (ppm * ppm);
    return n / Math.max(1, areaMm2);
  };
  const longCrease = (f: SurfaceFinding): boolean => f.kind === 'crease' && (f.lengthMm ?? 0) >= CREASE_THROUGH_PRINT_MM;
  const isPrint = (f: SurfaceFinding): boolean =>
    !longCrease(f) && (printShare(f) > MAX_PRINT_SHARE || fragmentDensity(f) > MAX_LINE_FRAGMENT_DENSITY);
  const surface: SurfaceFinding[] = [
    // scuff marks and dent rims are not scratches of their own
    ...lines.findings.filter((f) => !isPrint(f) && !blobs.some((b) => (b.kind === 'scuff' || b.kind === 'dent') && inside(f, b))),
    ...blobs.map((b) => ({
      kind: b.kind,
      areaMm2: r3(b.areaMm2),
      contrast: r3(b.contrast),
      xMm: r3(b.xMm),
      yMm: r3(b.yMm),
      wMm: r3(b.wMm),
      hMm: r3(b.hMm),
      confidence: r3(b.confidence),
    })),
  ];
  const findings: Finding[] = [];
  const corners = {} as Record<CornerId, CornerMeasurement>;
  const cornerConf = {} as Record<CornerId, number>;
  for (const c of CORNER_IDS) {
    const r = outer.corners[c];
    corners[c] = { whiteningAreaMm2: r.whiteningAreaMm2, roundingRadiusMm: r.roundingRadiusMm, dingAreaMm2: r.dingAreaMm2 };
    cornerConf[c] = r.confidence;
    const box = { xMm: c === 'TR' || c === 'BR' ? 57 : 0, yMm: c === 'BR' || c === 'BL' ? 82 : 0, wMm: 6, hMm: 6 };
    if (r.whiteningAreaMm2 > 0.05) {
      findings.push({ kind: 'corner_whitening', location: CORNER_NAMES[c], region: 'corner', corner: c, ...(r.whiteningBox ?? box), areaMm2: r.whiteningAreaMm2, confidence: r.confidence });
    }
    if (r.roundingRadiusMm > 0.1) {
      findings.push({ kind: 'corner_rounding', location: CORNER_NAMES[c], region: 'corner', corner: c, ...box, radiusMm: r.roundingRadiusMm, confidence: r.confidence });
    }
    if (r.dingAreaMm2 > 0.05) {
      findings.push({ kind: 'corner_ding', location: CORNER_NAMES[c], region: 'corner', corner: c, ...(r.dingBox ?? box), areaMm2: r.dingAreaMm2, confidence: r.confidence });
    }
  }
  const edges = {} as Record<EdgeId, EdgeMeasurement>;
  const edgeConf = {} as Record<EdgeId, number>;
  for (const e of EDGE_IDS) {
    const r = outer.edges[e];
    edges[e] = { whitenedLengthMm: r.whitenedLengthMm, maxDepthMm: r.maxDepthMm, chipCount: r.chipCount };
    edgeConf[e] = r.confidence;
    const horizontal = e === 'top' || e === 'bottom';
    const place = (a: number, b: number, depth: number) =>
      horizontal
        ? { xMm: a, yMm: e === 'top' ? 0 : 88 - depth, wMm: b - a, hMm: depth }
        : { xMm: e === 'left' ? 0 : 63 - depth, yMm: a, wMm: depth, hMm: b - a };
    for (const [a, b] of r.intervals) {
      findings.push({ kind: 'edge_whitening', location: `${e} edge`, region: 'edge', edge: e, ...place(a, b, Math.max(0.3, r.maxDepthMm)), lengthMm: Math.round((b - a) * 1000) / 1000, depthMm: r.maxDepthMm, confidence: r.confidence });
    }
    for (const ch of r.chips) {
      findings.push({ kind: 'edge_chip', location: `${e} edge`, region: 'edge', edge: e, ...place(ch.atMm - ch.widthMm / 2, ch.atMm + ch.widthMm / 2, Math.max(0.3, ch.depthMm)), depthMm: ch.depthMm, lengthMm: ch.widthMm, confidence: r.confidence });
    }
  }
  for (const s of surface) {
    findings.push({
      kind: s.kind,
      location: 'surface',
      region: 'surface',
      xMm: s.xMm,
      yMm: s.yMm,
      wMm: s.wMm,
      hMm: s.hMm,
      ...(s.lengthMm !== undefined ? { lengthMm: s.lengthMm } : {}),
      ...(s.areaMm2 !== undefined ? { areaMm2: s.areaMm2 } : {}),
      contrast: s.contrast,
      confidence: s.confidence,
    });
  }
  const holo = holoScore(lines.candidates, (fx1 - fx0) * (fy1 - fy0) / (ppm * ppm), ppm);
  const refractor = refractorScore(img, ppm, Math.min(framePx.left, framePx.right, framePx.top, framePx.bottom));
  // Glare hides the surface: visibility is the uncovered share of the surface; findings under it are less sure.
  const surfaceVisibility = Math.max(0, Math.min(1, 1 - glare.fraction * 1.2));
  for (const f of findings) {
    const cx = Math.min(W - 1, Math.max(0, Math.round((f.xMm + f.wMm / 2) * ppm)));
    const cy = Math.min(H - 1, Math.max(0, Math.round((f.yMm + f.hMm / 2) * ppm)));
    if (glare.mask[cy * W + cx]) f.confidence = Math.round(f.confidence * 500) / 1000;
  }
  const features = regionFeatures(outer, surface, { glare: glare.fraction, holo: holo.score, refractor, clutter: clutter.frac, noise });
  const t3 = performance.now();
  return {
    corners,
    edges,
    surface,
    findings,
    glare: glare.regions.map((g) => ({ xMm: r3(g.xMm), yMm: r3(g.yMm), wMm: r3(g.wMm), hMm: r3(g.hMm), areaMm2: r3(g.areaMm2) })),
    finish: { holo: r3(holo.score), refractor: r3(refractor), textureFraction: r3(Math.min(1, holo.textureMm * 1.2 / Math.max(1, (fx1 - fx0) * (fy1 - fy0) / (ppm * ppm)))) },
    confidence: { corners: cornerConf, edges: edgeConf, surface: r3(surfaceVisibility * (1 - 0.3 * clutter.frac)) },
    surfaceVisibility: r3(surfaceVisibility),
    features,
    timingsMs: { outer: t1 - t0, surface: t2 - t1, assemble: t3 - t2, total: t3 - t0 },
    quality: { noise: r3(noise), blurPx: r3(blur) },
  };
}

/** Names of the values in RegionFeatures.values, per region type (fixed order; append only). */
export const FEATURE_NAMES = {
  corner: ['whiteningAreaMm2', 'roundingRadiusMm', 'dingAreaMm2', 'fitConfidence', 'borderLum', 'stockLum', 'stockObserved', 'noise'],
  edge: ['whitenedLengthMm', 'maxDepthMm', 'chipCount', 'fitConfidence', 'borderLum', 'stockLum', 'noise'],
  surface: [
    'scratchCount', 'scratchLengthMm', 'scratchMaxLengthMm', 'scratchContrast',
    'creaseCount', 'creaseLengthMm', 'printLineLengthMm', 'stainAreaMm2', 'scuffAreaMm2', 'dentAreaMm2',
    'blobContrast', 'glareFraction', 'holoScore', 'refractorScore', 'clutterFraction', 'noise',
  ],
} as const;

function regionFeatures(
  outer: OuterResult,
  surface: SurfaceFinding[],
  ctx: { glare: number; holo: number; refractor: number; clutter: number; noise: number },
): RegionFeatures[] {
  const lum = (c: [number, number, number]) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
  const bl = lum(outer.colours.border);
  const sl = lum(outer.colours.stock);
  const out: RegionFeatures[] = [];
  for (const c of CORNER_IDS) {
    const r = outer.corners[c];
    out.push({ region: 'corner', id: c, values: [r.whiteningAreaMm2, r.roundingRadiusMm, r.dingAreaMm2, r.confidence, bl, sl, outer.colours.stockObserved ? 1 : 0, ctx.noise] });
  }
  for (const e of EDGE_IDS) {
    const r = outer.edges[e];
    out.push({ region: 'edge', id: e, values: [r.whitenedLengthMm, r.maxDepthMm, r.chipCount, r.confidence, bl, sl, ctx.noise] });
  }
  const of = (k: string) => surface.filter((d) => d.kind === k);
  const sum = (xs: number[]) => xs.reduce((a, v) => a + v, 0);
  const scratches = of('scratch');
  const blobs = surface.filter((d) => d.areaMm2 !== undefined);
  out.push({
    region: 'surface',
    id: 'surface',
    values: [
      scratches.length,
      sum(scratches.map((d) => d.lengthMm ?? 0)),
      Math.max(0, ...scratches.map((d) => d.lengthMm ?? 0)),
      scratches.length ? sum(scratches.map((d) => d.contrast)) / scratches.length : 0,
      of('crease').length,
      sum(of('crease').map((d) => d.lengthMm ?? 0)),
      sum(of('print_line').map((d) => d.lengthMm ?? 0)),
      sum(of('stain').map((d) => d.areaMm2 ?? 0)),
      sum(of('scuff').map((d) => d.areaMm2 ?? 0)),
      sum(of('dent').map((d) => d.areaMm2 ?? 0)),
      blobs.length ? Math.max(...blobs.map((d) => d.contrast)) : 0,
      ctx.glare,
      ctx.holo,
      ctx.refractor,
      ctx.clutter,
      ctx.noise,
    ],
  });
  return out;
}

/** The rubric's SideMeasurements from an analysis plus the centering measured by the geometry. */
export function sideMeasurements(a: ConditionAnalysis, centering: CenteringMeasurement): SideMeasurements {
  return {
    corners: a.corners,
    edges: a.edges,
    surface: a.surface.map(({ confidence: _c, pathMm: _p, ...d }) => d),
    centering,
  };
}
