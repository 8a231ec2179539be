import type { Point } from '../image/types';

/** A line n . p = c with unit normal n = (nx, ny). */
export interface Line {
  nx: number;
  ny: number;
  c: number;
}

export function lineThrough(a: Point, b: Point): Line {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy) || 1;
  const nx = -dy / len;
  const ny = dx / len;
  return { nx, ny, c: nx * a[0] + ny * a[1] };
}

export function signedDistance(l: Line, x: number, y: number): number {
  return l.nx * x + l.ny * y - l.c;
}

export function intersectLines(a: Line, b: Line): Point | null {
  const det = a.nx * b.ny - a.ny * b.nx;
  if (Math.abs(det) < 1e-9) return null;
  return [(a.c * b.ny - a.ny * b.c) / det, (a.nx * b.c - a.c * b.nx) / det];
}

export interface WeightedPoint {
  x: number;
  y: number;
  w: number;
}

/** Weighted total-least-squares line through points (weights >= 0). Null when degenerate. */
export function fitLineTls(pts: readonly WeightedPoint[], weights?: Float64Array): Line | null {
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < pts.length; i++) {
    const w = weights ? weights[i]! : pts[i]!.w;
    sw += w;
    sx += w * pts[i]!.x;
    sy += w * pts[i]!.y;
  }
  if (sw <= 0) return null;
  const mx = sx / sw;
  const my = sy / sw;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < pts.length; i++) {
    const w = weights ? weights[i]! : pts[i]!.w;
    const dx = pts[i]!.x - mx;
    const dy = pts[i]!.y - my;
    sxx += w * dx * dx;
    syy += w * dy * dy;
    sxy += w * dx * dy;
  }
  // direction = eigenvector of the largest eigenvalue of the scatter matrix; normal is perpendicular
  const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  const dx = Math.cos(theta);
  const dy = Math.sin(theta);
  const nx = -dy;
  const ny = dx;
  if (!Number.isFinite(nx)) return null;
  return { nx, ny, c: nx * mx + ny * my };
}

export interface RobustFit {
  line: Line;
  /** Robust scale of the residuals (px). */
  sigma: number;
  /** Fraction of points with residual < 2.5 sigma (and < the inlier cap). */
  inlierFraction: number;
  weights: Float64Array;
}

/**
 * Iteratively reweighted TLS with Tukey's biweight, started from `initial` (or a plain weighted fit).
 * Residual scale is re-estimated each iteration from the MAD, floored at `minSigma`.
 */
export function fitLineRobust(
  pts: readonly WeightedPoint[],
  options: { initial?: Line; iterations?: number; minSigma?: number; maxSigma?: number } = {},
): RobustFit | null {
  if (pts.length < 2) return null;
  const minSigma = options.minSigma ?? 0.15;
  const maxSigma = options.maxSigma ?? Infinity;
  let line = options.initial ?? fitLineTls(pts);
  if (!line) return null;
  const weights = new Float64Array(pts.length);
  const res = new Float64Array(pts.length);
  let sigma = minSigma;
  const iterations = options.iterations ?? 6;
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < pts.length; i++) res[i] = Math.abs(signedDistance(line, pts[i]!.x, pts[i]!.y));
    const sorted = Float64Array.from(res).sort();
    const mad = sorted[Math.floor(sorted.length / 2)]!;
    sigma = Math.min(maxSigma, Math.max(minSigma, 1.4826 * mad));
    const cut = 4.685 * sigma;
    for (let i = 0; i < pts.length; i++) {
      const u = res[i]! / cut;
      weights[i] = u < 1 ? pts[i]!.w * (1 - u * u) * (1 - u * u) : 0;
    }
    const next = fitLineTls(pts, weights);
    if (!next) break;
    // keep normal orientation stable
    if (next.nx * line.nx + next.ny * line.ny < 0) {
      next.nx = -next.nx;
      next.ny = -next.ny;
      next.c = -next.c;
    }
    line = next;
  }
  let inl = 0;
  for (let i = 0; i < pts.length; i++) {
    if (Math.abs(signedDistance(line, pts[i]!.x, pts[i]!.y)) < 2.5 * sigma) inl++;
  }
  return { line, sigma, inlierFraction: inl / pts.length, weights };
}

/** Subpixel offset of the maximum of a sampled peak at index i by a parabola through i-1, i, i+1. */
export function parabolicPeak(f: ArrayLike<number>, i: number): number {
  const a = f[i - 1]!;
  const b = f[i]!;
  const c = f[i + 1]!;
  const den = a - 2 * b + c;
  if (den >= 0) return 0;
  const d = (0.5 * (a - c)) / den;
  return d > 0.5 ? 0.5 : d < -0.5 ? -0.5 : d;
}

/** Edge-point candidates found on profiles across one side: position t along the side, offset s across it. */
export interface ProfilePeaks {
  t: number[];
  s: number[];
  /** strength (used as vote weight) */
  g: number[];
  /** profile index (one vote per profile and line) */
  idx: number[];
  profiles: number;
  /** length of the side in t units (for the tilt range and the pivot) */
  length: number;
}

export interface VotedLine {
  /** offset at the side's middle (t = length/2) */
  s0: number;
  /** ds/dt */
  slope: number;
  /** number of profiles with a peak within `tol` of the line */
  count: number;
  /** summed vote weight */
  votes: number;
}

/**
 * Straight-line consensus among profile peaks: a Hough vote over (offset at mid-side, tilt), where each profile
 * votes at most once per cell. Returns local maxima sorted by votes (strongest first).
 */
export function voteProfileLines(
  peaks: ProfilePeaks,
  range: { sMin: number; sMax: number; maxSlope: number; binS: number; nSlopes?: number },
): VotedLine[] {
  const nSlopes = range.nSlopes ?? 15;
  const nBins = Math.max(3, Math.ceil((range.sMax - range.sMin) / range.binS) + 1);
  const acc = new Float32Array(nSlopes * nBins);
  const cnt = new Float32Array(nSlopes * nBins);
  const last = new Int32Array(nSlopes * nBins).fill(-1);
  const mid = peaks.length / 2;
  for (let q = 0; q < peaks.t.length; q++) {
    const dt = peaks.t[q]! - mid;
    for (let si = 0; si < nSlopes; si++) {
      const slope = nSlopes === 1 ? 0 : -range.maxSlope + (2 * range.maxSlope * si) / (nSlopes - 1);
      const s0 = peaks.s[q]! - slope * dt;
      const bi = Math.round((s0 - range.sMin) / range.binS);
      for (let d = -1; d <= 1; d++) {
        const b = bi + d;
        if (b < 0 || b >= nBins) continue;
        const cell = si * nBins + b;
        if (last[cell] === peaks.idx[q]) continue; // one vote per profile
        last[cell] = peaks.idx[q]!;
        acc[cell]! += peaks.g[q]! * (d === 0 ? 1 : 0.6);
        cnt[cell]! += 1;
      }
    }
  }
  const out: VotedLine[] = [];
  for (let si = 0; si < nSlopes; si++) {
    for (let b = 0; b < nBins; b++) {
      const cell = si * nBins + b;
      const v = acc[cell]!;
      if (v <= 0) continue;
      let isMax = true;
      for (let ds = -2; ds <= 2 && isMax; ds++) {
        for (let db = -2; db <= 2; db++) {
          if (ds === 0 && db === 0) continue;
          const s2 = si + ds;
          const b2 = b + db;
          if (s2 < 0 || s2 >= nSlopes || b2 < 0 || b2 >= nBins) continue;
          const u = acc[s2 * nBins + b2]!;
          if (u > v || (u === v && s2 * nBins + b2 < cell)) {
            isMax = false;
            break;
          }
        }
      }
      if (!isMax) continue;
      out.push({
        s0: range.sMin + b * range.binS,
        slope: nSlopes === 1 ? 0 : -range.maxSlope + (2 * range.maxSlope * si) / (nSlopes - 1),
        count: cnt[cell]!,
        votes: v,
      });
    }
  }
  out.sort((p, q) => q.votes - p.votes);
  return out;
}
