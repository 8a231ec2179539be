import type { Point, RgbImage } from '../image/types';
import { CANONICAL_PX_PER_MM, CARD_HEIGHT_MM, CARD_WIDTH_MM, type Homography } from './homography';
import { fitLineRobust, parabolicPeak, voteProfileLines, type ProfilePeaks, type WeightedPoint } from './lines';
import { dogKernel, profileGradient, sampleRgb } from './sampling';

export type SideName = 'left' | 'right' | 'top' | 'bottom';

export interface BorderMeasurement {
  side: SideName;
  /** Border width (mm): frame line minus outer edge, perpendicular to the edge, averaged along it. */
  widthMm: number;
  /** Where the outer edge was found relative to the rectified card outline (mm, + = inwards). */
  outerOffsetMm: number;
  /** Frame line position from the rectified outline (mm). */
  frameMm: number;
  /** Tilt of the frame line relative to the outer edge (mm per mm). */
  frameTilt: number;
  /** Robust residual scale of the frame / outer line fits (mm). */
  frameSigmaMm: number;
  outerSigmaMm: number;
  /** Fraction of profiles where the frame / outer edge was found on the fitted line. */
  frameInliers: number;
  outerInliers: number;
  /** 0..1 */
  confidence: number;
  /**
   * How much the band between the outer edge and the frame line varies, RGB levels: the median over profiles of
   * each profile's spread across the band. A printed border is one colour (a few levels of print and noise); on a
   * full-bleed design the "border" is artwork. NaN where the band is under 0.6 mm wide.
   */
  borderSpread: number;
}

export interface CenteringResult {
  leftMm: number;
  rightMm: number;
  topMm: number;
  bottomMm: number;
  /** 100 * L / (L + R): > 50 means the wider border is on the left. */
  leftRight: number;
  /** 100 * T / (T + B): > 50 means the wider border is on the top. */
  topBottom: number;
  /** 0..1: the weakest side's confidence. */
  confidence: number;
  borders: Record<SideName, BorderMeasurement>;
}

export interface CenteringOptions {
  /** How far inwards (mm) the frame line is searched for. Default 9.5 (the generator's widest border is ~7.8). */
  maxBorderMm?: number;
  /** Profile sampling step (mm). Default 0.05. */
  stepMm?: number;
  /** Spacing (mm) between profiles along a side. Default 0.75. */
  spacingMm?: number;
  /** Length (mm) kept clear of each corner. Default 7. */
  cornerClearMm?: number;
  /** Half-width (mm) of the window around the outline searched for the outer edge. Default 0.3. */
  outerWindowMm?: number;
  /**
   * The outline is the photo's frame (a photo cropped to the card): where no edge is seen next to it, the frame is
   * the card's edge, with the confidence of that assumption.
   */
  assumedOutlineConfidence?: number;
  /**
   * Per side, how far inside the outline (mm) the frame line may begin: the edge was taken out across a strip along
   * it (resolve.ts, SIDE_ENDS), whose inner edge is the strip's, not the printed frame.
   */
  frameBeyondMm?: Partial<Record<SideName, number>>;
}

interface SideFrame {
  side: SideName;
  /** point on the outline at position t (mm along the side) */
  origin: (t: number) => Point;
  /** inward unit normal (mm) */
  normal: Point;
  length: number;
}

const SIDES: SideFrame[] = [
  { side: 'left', origin: (t) => [0, t], normal: [1, 0], length: CARD_HEIGHT_MM },
  { side: 'right', origin: (t) => [CARD_WIDTH_MM, t], normal: [-1, 0], length: CARD_HEIGHT_MM },
  { side: 'top', origin: (t) => [t, 0], normal: [0, 1], length: CARD_WIDTH_MM },
  { side: 'bottom', origin: (t) => [t, CARD_HEIGHT_MM], normal: [0, -1], length: CARD_WIDTH_MM },
];

/**
 * Measures the four borders of a card side and its centering shares.
 *
 * `cardToImage` maps canonical card pixels (10 px/mm, card = [0,630] x [0,880]) to `src` pixels, e.g.
 * homographyFromCanonical(quad) for a quad found on `src`, or a pure scale for an already rectified image. All
 * profiles are sampled straight from `src` through the homography (no intermediate rectified image), so the
 * measurement uses the full resolution of `src` and is free of resampling twice.
 *
 * Per side: profiles across the border every 0.5 mm (corner zones excluded), colour-gradient magnitude with a
 * derivative-of-Gaussian, subpixel peaks; the outer edge is the straight line of peaks nearest the outline, the
 * frame is the first straight, well supported line of peaks inside it (a Hough vote over offset and tilt picks
 * lines shared by many profiles, which ignores text, holo sparkle and art); both lines are Tukey-robust fits and
 * the border is their distance at mid-side (the average along the edge).
 */
export function measureCentering(src: RgbImage, cardToImage: Homography, options: CenteringOptions = {}): CenteringResult {
  const borders = {} as Record<SideName, BorderMeasurement>;
  for (const f of SIDES) borders[f.side] = measureBorder(src, cardToImage, f, options);
  const L = borders.left.widthMm;
  const R = borders.right.widthMm;
  const T = borders.top.widthMm;
  const B = borders.bottom.widthMm;
  const share = (a: number, b: number): number => (a + b > 0 ? (100 * a) / (a + b) : 50);
  return {
    leftMm: L,
    rightMm: R,
    topMm: T,
    bottomMm: B,
    leftRight: share(L, R),
    topBottom: share(T, B),
    confidence: Math.min(borders.left.confidence, borders.right.confidence, borders.top.confidence, borders.bottom.confidence),
    borders,
  };
}

/** Convenience: centering on an already rectified image of any size with the card filling it exactly. */
export function measureCenteringRectified(rectified: RgbImage, options: CenteringOptions = {}): CenteringResult {
  const sx = rectified.width / (CARD_WIDTH_MM * CANONICAL_PX_PER_MM);
  const sy = rectified.height / (CARD_HEIGHT_MM * CANONICAL_PX_PER_MM);
  return measureCentering(rectified, Float64Array.of(sx, 0, 0, 0, sy, 0, 0, 0, 1), options);
}

function measureBorder(src: RgbImage, H: Homography, f: SideFrame, options: CenteringOptions): BorderMeasurement {
  const step = options.stepMm ?? 0.05;
  const spacing = options.spacingMm ?? 0.75;
  const clear = options.cornerClearMm ?? 7;
  const maxBorder = options.maxBorderMm ?? 9.5;
  const outside = 1.0; // mm sampled outside the outline
  const outerWin = options.outerWindowMm ?? 0.3;
  const kernel = dogKernel(1.6); // sigma = 0.08 mm
  const kr = (kernel.length - 1) >> 1;
  const n0 = Math.round(outside / step) + kr; // index of u = 0
  const n = n0 + Math.round(maxBorder / step) + kr + 1;
  const prof = new Float32Array(n * 3);
  const grad = new Float32Array(n);
  const P = CANONICAL_PX_PER_MM;
  const outer: ProfilePeaks = { t: [], s: [], g: [], idx: [], profiles: 0, length: f.length };
  const inner: ProfilePeaks = { t: [], s: [], g: [], idx: [], profiles: 0, length: f.length };
  const positions: number[] = [];
  for (let t = clear; t <= f.length - clear + 1e-9; t += spacing) positions.push(t);
  const [nxm, nym] = f.normal;
  let pi = 0;
  // every profile, kept to measure the border band once the lines are known
  const profiles: Float32Array[] = [];
  for (const t of positions) {
    const o = f.origin(t);
    // the profile o + u * normal maps to ((ax + u bx) / (aw + u bw), (ay + u by) / (aw + u bw))
    const ox = o[0] * P;
    const oy = o[1] * P;
    const ux = nxm * P;
    const uy = nym * P;
    const ax = H[0]! * ox + H[1]! * oy + H[2]!;
    const ay = H[3]! * ox + H[4]! * oy + H[5]!;
    const aw = H[6]! * ox + H[7]! * oy + H[8]!;
    const bx = H[0]! * ux + H[1]! * uy;
    const by = H[3]! * ux + H[4]! * uy;
    const bw = H[6]! * ux + H[7]! * uy;
    for (let j = 0; j < n; j++) {
      const u = (j - n0) * step;
      const iw = 1 / (aw + u * bw);
      sampleRgb(src, (ax + u * bx) * iw, (ay + u * by) * iw, prof, j * 3);
    }
    profiles.push(prof.slice());
    profileGradient(prof, n, kernel, grad);
    // outer edge: strongest peak within +-outside of the outline
    let bj = -1;
    let bg = 0;
    // the refined quad is good to a few hundredths of a mm: look only close to the outline, so that on a thin
    // border the (often stronger) frame line is not taken for the edge
    const jo = Math.round(outerWin / step);
    for (let j = Math.max(kr + 1, n0 - jo); j < Math.min(n - kr - 1, n0 + jo + 1); j++) {
      const g = grad[j]!;
      if (g > bg && g >= grad[j - 1]! && g > grad[j + 1]!) {
        bg = g;
        bj = j;
      }
    }
    if (bj >= 0 && bg > 2) {
      outer.t.push(t);
      outer.s.push((bj + parabolicPeak(grad, bj) - n0) * step);
      outer.g.push(bg);
      outer.idx.push(pi);
    }
    // frame candidates: all clear local maxima inside
    let gmax = 0;
    const start = n0 + Math.round(0.25 / step);
    for (let j = start; j < n - kr - 1; j++) gmax = Math.max(gmax, grad[j]!);
    for (let j = Math.max(start, kr + 1); j < n - kr - 1; j++) {
      const g = grad[j]!;
      if (g < 4 || g < 0.12 * gmax || g < grad[j - 1]! || g <= grad[j + 1]!) continue;
      inner.t.push(t);
      inner.s.push((j + parabolicPeak(grad, j) - n0) * step);
      inner.g.push(Math.sqrt(g));
      inner.idx.push(pi);
    }
    pi++;
  }
  outer.profiles = pi;
  inner.profiles = pi;
  // outer line
  const conf = (fit: SideFit | null): number =>
    fit ? Math.max(0, Math.min(1, fit.inliers)) * Math.exp(-Math.max(0, fit.sigma - 0.03) / 0.1) : 0;
  let outerFit = fitSide(outer, { sMin: -outerWin - 0.1, sMax: outerWin + 0.1, maxSlope: 0.01, binS: 0.05, tol: 0.15, pick: 'strongest' });
  // A photo's frame taken for the card's edge: an edge seen next to it only counts where it is surer.
  const assumed = options.assumedOutlineConfidence;
  if (assumed !== undefined && conf(outerFit) < assumed) outerFit = null;
  const outerConfidence = outerFit ? conf(outerFit) : (assumed ?? 0);
  const outerAt = outerFit ? outerFit.s0 : 0;
  // frame line: first well-supported straight line inside the outer edge
  const frameFit = fitSide(inner, {
    sMin: Math.max(outerAt, options.frameBeyondMm?.[f.side] ?? -Infinity) + 0.2,
    sMax: maxBorder,
    maxSlope: 0.03,
    binS: 0.05,
    tol: 0.15,
    pick: 'first',
  });
  const frameAt = frameFit ? frameFit.s0 : outerAt;
  const width = frameAt - outerAt;
  const borderSpread = bandSpread(profiles, n0, step, outerAt + 0.25, frameAt - 0.25);
  return {
    side: f.side,
    widthMm: Math.max(0, width),
    outerOffsetMm: outerAt,
    frameMm: frameAt,
    frameTilt: frameFit ? frameFit.slope - (outerFit?.slope ?? 0) : 0,
    frameSigmaMm: frameFit?.sigma ?? Infinity,
    outerSigmaMm: outerFit?.sigma ?? Infinity,
    frameInliers: frameFit?.inliers ?? 0,
    outerInliers: outerFit?.inliers ?? 0,
    confidence: Math.min(conf(frameFit), outerConfidence),
    borderSpread,
  };
}

/** Median over profiles of the RMS colour deviation across [fromMm, toMm] of each (NaN under 0.6 mm). */
function bandSpread(profiles: Float32Array[], n0: number, step: number, fromMm: number, toMm: number): number {
  if (toMm - fromMm < 0.1) return NaN;
  const j0 = n0 + Math.round(fromMm / step);
  const j1 = n0 + Math.round(toMm / step);
  const spreads = profiles.map((p) => {
    const mean = [0, 0, 0];
    for (let j = j0; j <= j1; j++) for (let c = 0; c < 3; c++) mean[c]! += p[j * 3 + c]!;
    const m = j1 - j0 + 1;
    let v = 0;
    for (let j = j0; j <= j1; j++) for (let c = 0; c < 3; c++) v += (p[j * 3 + c]! - mean[c]! / m) ** 2;
    return Math.sqrt(v / (3 * m));
  });
  spreads.sort((a, b) => a - b);
  return spreads[Math.floor(spreads.length / 2)] ?? NaN;
}

interface SideFit {
  /** offset at mid-side (mm) */
  s0: number;
  slope: number;
  sigma: number;
  inliers: number;
}

function fitSide(
  peaks: ProfilePeaks,
  o: { sMin: number; sMax: number; maxSlope: number; binS: number; tol: number; pick: 'strongest' | 'first' },
): SideFit | null {
  if (peaks.profiles === 0 || peaks.t.length < 4) return null;
  const voted = voteProfileLines(peaks, { sMin: o.sMin, sMax: o.sMax, maxSlope: o.maxSlope, binS: o.binS, nSlopes: 13 });
  if (voted.length === 0) return null;
  let chosen = voted[0]!;
  if (o.pick === 'first') {
    const best = voted[0]!;
    const eligible = voted.filter((v) => v.count >= 0.45 * peaks.profiles && v.votes >= 0.35 * best.votes);
    if (eligible.length > 0) chosen = eligible.reduce((a, b) => (b.s0 < a.s0 ? b : a));
  }
  const mid = peaks.length / 2;
  // nearest peak per profile to the voted line
  const pts: WeightedPoint[] = [];
  let q = 0;
  while (q < peaks.t.length) {
    const idx = peaks.idx[q]!;
    let best = -1;
    let bd = o.tol * 2;
    for (; q < peaks.t.length && peaks.idx[q] === idx; q++) {
      const d = Math.abs(peaks.s[q]! - (chosen.s0 + chosen.slope * (peaks.t[q]! - mid)));
      if (d < bd) {
        bd = d;
        best = q;
      }
    }
    if (best >= 0) pts.push({ x: peaks.t[best]! - mid, y: peaks.s[best]!, w: peaks.g[best]! });
  }
  if (pts.length < 4) return null;
  // fit s = s0 + slope * x as a line in (x, s); slopes are tiny so TLS == OLS here
  const fit = fitLineRobust(pts, {
    initial: lineFromSlope(chosen.s0, chosen.slope),
    minSigma: 0.01,
    maxSigma: 0.2,
    iterations: 8,
  });
  if (!fit || Math.abs(fit.line.ny) < 1e-6) return null;
  const { nx, ny, c } = fit.line;
  // nx * x + ny * s = c  =>  s = (c - nx * x) / ny
  return {
    s0: c / ny,
    slope: -nx / ny,
    sigma: fit.sigma,
    inliers: (fit.inlierFraction * pts.length) / peaks.profiles,
  };
}

function lineFromSlope(s0: number, slope: number): { nx: number; ny: number; c: number } {
  const len = Math.hypot(slope, 1);
  const nx = -slope / len;
  const ny = 1 / len;
  return { nx, ny, c: ny * s0 };
}
