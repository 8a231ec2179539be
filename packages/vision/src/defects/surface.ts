/**
 * Surface defects of one rectified side: line defects (scratch, crease, print line) from lines.ts and soft
 * blobs (stain, scuff, dent) from blobs.ts, turned into rubric SurfaceDefects with boxes in mm.
 *
 * The card's own design is the main source of false alarms, so every candidate is checked against it:
 * step edges, parallel texture families (holo foil), text (short strokes) and design rules (axis-parallel lines
 * placed symmetrically in the printed frame) are not damage. Glare regions are masked out beforehand.
 */
import type { SurfaceDefect } from '@cardlens/grading-rubric';
import type { GrayImage } from '../image/types';
import { findLines, flankImbalance, MAX_FLANK_IMBALANCE, type LineSegment } from './lines';

export interface FrameRectPx {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface SurfaceOptions {
  pxPerMm: number;
  frame: FrameRectPx;
  noise: number;
  /** 1 = do not look here (glare, frame line). */
  ignore?: Uint8Array;
  texture?: { tile: number; cols: number; rows: number; level: Float32Array };
}

export interface SurfaceFinding extends SurfaceDefect {
  confidence: number;
  /** Centre line (mm) for line defects, for the overlay. */
  pathMm?: [number, number][];
}

const AXIS_TOL = (1.2 * Math.PI) / 180;

function axisAligned(angle: number): 'h' | 'v' | null {
  const a = ((angle % Math.PI) + Math.PI) % Math.PI;
  if (a < AXIS_TOL || Math.PI - a < AXIS_TOL) return 'h';
  if (Math.abs(a - Math.PI / 2) < AXIS_TOL) return 'v';
  return null;
}

function nearAxis(angle: number, deg: number): boolean {
  const a = ((angle % (Math.PI / 2)) + Math.PI / 2) % (Math.PI / 2);
  const t = (deg * Math.PI) / 180;
  return a < t || Math.PI / 2 - a < t;
}

function angleDiff(a: number, b: number): number {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
}

/** Merge collinear fragments (same polarity) separated by small gaps (a line broken by art edges). */
function mergeCollinear(segs: LineSegment[], maxGap: number): LineSegment[] {
  const out = segs.slice().sort((a, b) => b.lengthPx - a.lengthPx);
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < out.length && !merged; i++) {
      const a = out[i]!;
      for (let j = i + 1; j < out.length; j++) {
        const b = out[j]!;
        if (a.polarity !== b.polarity || angleDiff(a.angle, b.angle) > 0.09) continue;
        const ca = Math.cos(a.angle);
        const sa = Math.sin(a.angle);
        const pa = a.points[0]!;
        // perpendicular offsets of b's points from a's axis, and the gap along it
        let perp = 0;
        let tMinA = Infinity;
        let tMaxA = -Infinity;
        for (const p of a.points) {
          const t = (p[0] - pa[0]) * ca + (p[1] - pa[1]) * sa;
          tMinA = Math.min(tMinA, t);
          tMaxA = Math.max(tMaxA, t);
        }
        let tMinB = Infinity;
        let tMaxB = -Infinity;
        for (const p of b.points) {
          const t = (p[0] - pa[0]) * ca + (p[1] - pa[1]) * sa;
          perp = Math.max(perp, Math.abs(-(p[0] - pa[0]) * sa + (p[1] - pa[1]) * ca));
          tMinB = Math.min(tMinB, t);
          tMaxB = Math.max(tMaxB, t);
        }
        const gap = Math.max(tMinB - tMaxA, tMinA - tMaxB);
        if (perp > 2.5 + 0.04 * Math.max(0, gap) || gap > maxGap || gap < -3) continue;
        const pts = [...a.points, ...b.points].sort(
          (p, q) => (p[0] - pa[0]) * ca + (p[1] - pa[1]) * sa - ((q[0] - pa[0]) * ca + (q[1] - pa[1]) * sa),
        );
        const wa = a.lengthPx;
        const wb = b.lengthPx;
        out[i] = {
          ...a,
          points: pts,
          lengthPx: wa + wb + Math.max(0, gap),
          strength: (a.strength * wa + b.strength * wb) / (wa + wb),
          contrast: (a.contrast * wa + b.contrast * wb) / (wa + wb),
          asymmetry: (a.asymmetry * wa + b.asymmetry * wb) / (wa + wb),
          paired: (a.paired * wa + b.paired * wb) / (wa + wb),
          parallel: Math.max(a.parallel, b.parallel),
          straightness: Math.max(a.straightness, b.straightness),
          x0: Math.min(a.x0, b.x0),
          y0: Math.min(a.y0, b.y0),
          x1: Math.max(a.x1, b.x1),
          y1: Math.max(a.y1, b.y1),
        };
        out.splice(j, 1);
        merged = true;
        break;
      }
    }
  }
  return out;
}

/**
 * Design rules: an axis-parallel line spanning a good part of the frame and placed symmetrically in it (or
 * mirrored by a twin line) is part of the printed layout, not a print defect.
 */
function isDesignLine(s: LineSegment, all: LineSegment[], f: FrameRectPx, ppm: number): boolean {
  const axis = axisAligned(s.angle);
  if (!axis) return false;
  const tol = 0.8 * ppm;
  // Extend over collinear pieces of the same line (a rule broken by symbols printed on it).
  for (const o of all) {
    if (o === s || o.polarity !== s.polarity || axisAligned(o.angle) !== axis) continue;
    if (axis === 'h' && Math.abs((o.y0 + o.y1) / 2 - (s.y0 + s.y1) / 2) < 2) s = { ...s, x0: Math.min(s.x0, o.x0), x1: Math.max(s.x1, o.x1) };
    if (axis === 'v' && Math.abs((o.x0 + o.x1) / 2 - (s.x0 + s.x1) / 2) < 2) s = { ...s, y0: Math.min(s.y0, o.y0), y1: Math.max(s.y1, o.y1) };
  }
  if (axis === 'h') {
    const span = s.x1 - s.x0;
    if (span > 0.3 * (f.x1 - f.x0) && Math.abs(s.x0 - f.x0 - (f.x1 - s.x1)) < tol) return true;
    // full-width rules touching both frame sides
    if (s.x0 - f.x0 < tol && f.x1 - s.x1 < tol) return true;
  } else {
    const span = s.y1 - s.y0;
    if (span > 0.3 * (f.y1 - f.y0) && Math.abs(s.y0 - f.y0 - (f.y1 - s.y1)) < tol) return true;
    if (s.y0 - f.y0 < tol && f.y1 - s.y1 < tol) return true;
  }
  for (const o of all) {
    if (o === s || o.polarity !== s.polarity || axisAligned(o.angle) !== axis) continue;
    if (axis === 'v') {
      const mx = (s.x0 + s.x1) / 2;
      const ox = (o.x0 + o.x1) / 2;
      if (Math.abs(mx + ox - (f.x0 + f.x1)) < tol && Math.abs(s.y0 - o.y0) < tol && Math.abs(s.y1 - o.y1) < tol) return true;
    } else {
      const my = (s.y0 + s.y1) / 2;
      const oy = (o.y0 + o.y1) / 2;
      if (Math.abs(s.x0 - o.x0) < tol && Math.abs(s.x1 - o.x1) < tol && Math.abs(my - oy) > 2 * ppm && Math.abs(my - oy) < 0.6 * (f.y1 - f.y0)) {
        // horizontal twins at the same x-extent (a band's two edges) only when both are weak lines of a band
        if (Math.abs(my + oy - (f.y0 + f.y1)) < tol) return true;
      }
    }
  }
  return false;
}

/**
 * Printed rules come in sets: the rules between a card's attack rows or under its text lines share their ends (the
 * text box's margins). An axis-aligned line with a parallel twin of the same polarity that starts and ends where it
 * does (within 0.8 mm), 1-30 mm away, is layout; a print line (a plate or roller mark) is single.
 */
function hasLayoutTwin(s: LineSegment, all: LineSegment[], ppm: number): boolean {
  const axis = axisAligned(s.angle);
  if (!axis) return false;
  const tol = 0.8 * ppm;
  return all.some((o) => {
    if (o === s || o.polarity !== s.polarity || axisAligned(o.angle) !== axis) return false;
    const h = axis === 'h';
    const gap = h ? Math.abs((s.y0 + s.y1 - o.y0 - o.y1) / 2) : Math.abs((s.x0 + s.x1 - o.x0 - o.x1) / 2);
    const sameEnds = h ? Math.abs(s.x0 - o.x0) < tol && Math.abs(s.x1 - o.x1) < tol : Math.abs(s.y0 - o.y0) < tol && Math.abs(s.y1 - o.y1) < tol;
    return sameEnds && gap > ppm && gap < 30 * ppm;
  });
}

/**
 * A dark line lying square to the card (within RULE_MAX_ANGLE_DEG), ruler-straight (at most RULE_MAX_WOBBLE_MM
 * rms) and stopping short of the searched area at both ends (by at least RULE_SHORT_OF_ROI_MM) is printed, not
 * folded: no hand folds a card along an exact axis, and a fold runs to the card's edge. On the real near-mint slabs
 * the two long "creases" that cost most (0.77 and 0.89, 41 and 51 mm) were the rules under Japanese text boxes:
 * 0.00 degrees off the axis, 0.1-0.8 px rms wobble at 10 px per mm, ending 0.7-15 mm short of the area's ends. Such
 * a line is still looked at as a print line (a straight axis-parallel mark that is not the layout's).
 */
const RULE_MAX_ANGLE_DEG = 0.5;
const RULE_MAX_WOBBLE_MM = 0.1;
const RULE_SHORT_OF_ROI_MM = 0.5;

function isPrintedRule(s: LineSegment, ppm: number, roi: [number, number, number, number]): boolean {
  if (!nearAxis(s.angle, RULE_MAX_ANGLE_DEG) || s.straightness > RULE_MAX_WOBBLE_MM * ppm) return false;
  const short = RULE_SHORT_OF_ROI_MM * ppm;
  const [lo, hi, a, b] = axisAligned(s.angle) === 'h' ? [roi[0], roi[2], s.x0, s.x1] : [roi[1], roi[3], s.y0, s.y1];
  return a - lo >= short && hi - b >= short;
}

/**
 * A short fold comes from bending a corner or an edge: a crease under `belowMm` long is claimed only where it comes
 * within `edgeWithinMm` of the card's edge. Standing alone inside the card it is an outline in the art with a
 * highlight beside it far more often: the 4 such "creases" on the real near-mint slabs (5-8 mm, 13-23 degrees, each
 * 0.56, on art outlines such as a Torchic's beak and a Gyarados's fins) all were. A short dent pressed into the
 * middle of a card is the dent finder's to see. The generator draws folds 8 mm long and more.
 */
const SHORT_CREASE = { belowMm: 8, edgeWithinMm: 8 } as const;

/** A crease's bright companions span at most this many times its dark line's length (generated folds: about 1). */
const MAX_CREASE_SPAN_RATIO = 2;
/**
 * A crease shorter than CREASE_THROUGH_PRINT_MM whose flanks CREASE_FLANK_MM out differ by more than this share
 * of its depth is an outline in the art: generated creases 0.02-0.09 (7, seeds 900,000-900,399), the 21 creases
 * marked on the real set's near-mint slabs median 0.39.
 */
const MAX_CREASE_FLANK_IMBALANCE = 0.25;
const CREASE_FLANK_MM = 0.6;
/** A crease at least this long (mm) is claimed even through dense print, a field of fragments or the art's outlines. */
export const CREASE_THROUGH_PRINT_MM = 30;

function toFinding(kind: SurfaceDefect['kind'], s: LineSegment, ppm: number, contrast: number, confidence: number): SurfaceFinding {
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  return {
    kind,
    lengthMm: r3(s.lengthPx / ppm),
    contrast: r3(Math.max(0.02, Math.min(1, contrast))),
    xMm: r3(s.x0 / ppm),
    yMm: r3(s.y0 / ppm),
    wMm: r3((s.x1 - s.x0) / ppm),
    hMm: r3((s.y1 - s.y0) / ppm),
    confidence: r3(confidence),
    pathMm: s.points.filter((_, i) => i % 3 === 0 || i === s.points.length - 1).map(([x, y]) => [r3(x / ppm), r3(y / ppm)]),
  };
}

/** Line defects on the side. */
export function lineDefects(lum: GrayImage, opts: SurfaceOptions): { findings: SurfaceFinding[]; candidates: LineSegment[]; raw: LineSegment[] } {
  const ppm = opts.pxPerMm;
  const W = lum.width;
  const H = lum.height;
  const inset = Math.round(2.5 * ppm);
  const roi: [number, number, number, number] = [inset, inset, W - inset, H - inset];
  const segs = findLines(lum, {
    pxPerMm: ppm,
    roi,
    noise: opts.noise,
    minLengthMm: 0.5,
    ...(opts.ignore ? { ignore: opts.ignore } : {}),
    ...(opts.texture ? { texture: opts.texture } : {}),
  });
  const cMin = 0.11 + 0.01 * opts.noise;
  const lineLike = segs.filter((s) => s.lengthPx >= 1.5 * ppm && s.asymmetry < 0.8 && s.contrast >= cMin * 0.7);
  const merged = mergeCollinear(lineLike, 1.0 * ppm);
  const findings: SurfaceFinding[] = [];
  const usedBright = new Set<LineSegment>();
  // Creases: a dark line with a bright line hugging it.
  for (const s of merged) {
    if (s.polarity !== -1 || s.lengthPx < 5 * ppm || s.paired < 0.5 || s.parallel >= 3) continue;
    if (s.straightness > 3 + 0.02 * s.lengthPx) continue; // curved design outlines
    if (axisAligned(s.angle) && isDesignLine(s, merged, opts.frame, ppm)) continue;
    // bright companions: parallel, within 4 px, overlapping
    let len = s.lengthPx;
    let x0 = s.x0;
    let y0 = s.y0;
    let x1 = s.x1;
    let y1 = s.y1;
    let companions = 0;
    for (const b of merged) {
      if (b.polarity !== 1 || angleDiff(b.angle, s.angle) > 0.15) continue;
      const c = b.points[Math.floor(b.points.length / 2)]!;
      const p0 = s.points[0]!;
      const perp = Math.abs(-(c[0] - p0[0]) * Math.sin(s.angle) + (c[1] - p0[1]) * Math.cos(s.angle));
      if (perp > 5 + 0.03 * s.lengthPx) continue;
      if (b.x1 < s.x0 - 2 * ppm || b.x0 > s.x1 + 2 * ppm || b.y1 < s.y0 - 2 * ppm || b.y0 > s.y1 + 2 * ppm) continue;
      usedBright.add(b);
      companions += b.lengthPx;
      x0 = Math.min(x0, b.x0);
      y0 = Math.min(y0, b.y0);
      x1 = Math.max(x1, b.x1);
      y1 = Math.max(y1, b.y1);
    }
    if (companions < 0.3 * s.lengthPx) continue;
    // (After the companions are taken: a rule's highlight is part of the rule, not a scratch.)
    if (isPrintedRule(s, ppm, roi)) continue;
    // A fold's bright side runs along its dark side. Bright lines running on far past it (on the real near-mint
    // slabs, a 6-9 mm "crease" whose companions spanned 33-68 mm along the card's border) are a printed rule or
    // border edge beside a short dark stroke, not a fold.
    if (Math.hypot(x1 - x0, y1 - y0) > MAX_CREASE_SPAN_RATIO * s.lengthPx) continue;
    // Both faces of a fold lie on the same print: 0.6 mm out on either side (past its bright side) the print
    // matches. A dark outline with a highlight in the art (cel-shaded and holo art) parts two differently coloured
    // regions. A long crease is claimed whatever it crosses.
    if (s.lengthPx < CREASE_THROUGH_PRINT_MM * ppm && flankImbalance(lum, s, ppm, CREASE_FLANK_MM) > MAX_CREASE_FLANK_IMBALANCE) continue;
    if (s.lengthPx < SHORT_CREASE.belowMm * ppm && Math.min(x0, y0, W - x1, H - y1) > SHORT_CREASE.edgeWithinMm * ppm) continue;
    len = Math.max(len, Math.hypot(x1 - x0, y1 - y0) * 0.98);
    const seg = { ...s, lengthPx: Math.min(len, s.lengthPx * 1.25), x0, y0, x1, y1 };
    findings.push(toFinding('crease', seg, ppm, s.contrast * 1.1, 0.8));
  }
  for (const s of merged) {
    if (usedBright.has(s)) continue;
    const axis = axisAligned(s.angle);
    const lenMm = s.lengthPx / ppm;
    if (s.parallel >= 3 && s.contrast < 0.25) continue; // foil texture
    // Short axis-parallel strokes are text and layout details.
    if (nearAxis(s.angle, 5) && lenMm < 6) continue;
    if (axis && s.straightness < 0.7 && lenMm >= 6) {
      if (isDesignLine(s, merged, opts.frame, ppm) || hasLayoutTwin(s, merged, ppm)) continue;
      if (s.contrast < cMin) continue;
      if (flankImbalance(lum, s, ppm) > MAX_FLANK_IMBALANCE) continue;
      findings.push(toFinding('print_line', s, ppm, s.contrast, 0.7));
      continue;
    }
    if (s.polarity !== 1 || lenMm < 2.2 || s.contrast < cMin) continue;
    // short bright strokes are often text or sparkles: need more contrast and straightness
    if (lenMm < 4 && (s.straightness > 1.2 || s.contrast < 0.2)) continue;
    if (flankImbalance(lum, s, ppm) > MAX_FLANK_IMBALANCE) continue;
    findings.push(toFinding('scratch', s, ppm, s.contrast * 1.25, 0.75));
  }
  return { findings, candidates: merged, raw: segs };
}
