import { AppError } from '@cardlens/errors';
import type { Point, Quad, RgbImage } from '../image/types';
import { computeEdges, type EdgeMap } from './edges';
import { CARD_ASPECT } from './homography';
import { fitLineRobust, intersectLines, lineThrough, parabolicPeak, signedDistance, type Line, type WeightedPoint } from './lines';
import { isConvex, orderCardCorners, quadArea, quadCentroid, sideLengths } from './quad';
import { dogKernel, profileGradient, sampleRgb } from './sampling';
import { edgeEvidence, worstColourMismatch } from './resolve';

// ---------------------------------------------------------------------------------------------------------------
// Coarse detection: edges -> oriented Hough lines -> quad hypotheses scored by edge support, aspect and bands.
// ---------------------------------------------------------------------------------------------------------------

interface HoughLine extends Line {
  votes: number;
  /** prefix sums of edge support along the line, indexed by u + offset (u = position along the line direction) */
  cum: Float32Array;
  offset: number;
}

export interface CoarseDetection {
  quad: Quad;
  /** 0..1 */
  score: number;
  /** Per side support (fraction of the side backed by edge pixels), TL-TR, TR-BR, BR-BL, BL-TL. */
  support: [number, number, number, number];
}

const ANGLE_BINS = 180;
/**
 * How an edge pixel votes. `narrow`: for the lines within 2 one-degree bins of its gradient direction, weighted
 * 1 / 0.8 / 0.4 (precise where edges are clean). `wide`: within 5 bins, all with the same weight. Only a line's true
 * angle lines the votes up in rho, so the peak stays sharp; what the wide spread buys is the pixels whose own
 * direction is off. On a dim phone photo the gradient direction along a card's straight edge scatters by about
 * 7 degrees (noise and JPEG blocks at the detection scale), and with the narrow spread a card filling half the frame
 * got under a third of its edge's votes. The wide spread also lets the slab's walls and the table's texture line up,
 * so it is the second look only (locate.ts).
 */
export type HoughVotes = 'narrow' | 'wide';

export function houghLines(e: EdgeMap, maxLines: number, votes: HoughVotes = 'narrow'): HoughLine[] {
  const { width: w, height: h } = e;
  const cx = w / 2;
  const cy = h / 2;
  const D = Math.ceil(Math.hypot(w, h) / 2) + 2;
  const nR = 2 * D + 1;
  const acc = new Float32Array(ANGLE_BINS * nR);
  const cosT = new Float64Array(ANGLE_BINS);
  const sinT = new Float64Array(ANGLE_BINS);
  for (let t = 0; t < ANGLE_BINS; t++) {
    cosT[t] = Math.cos((t * Math.PI) / ANGLE_BINS);
    sinT[t] = Math.sin((t * Math.PI) / ANGLE_BINS);
  }
  // Vote weight by bin offset from the pixel's own direction, -spread..+spread.
  const weights = votes === 'wide' ? new Array<number>(11).fill(1) : [0.4, 0.8, 1, 0.8, 0.4];
  const spread = (weights.length - 1) / 2;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (!e.edge[i]) continue;
      const tb = Math.round((e.angle[i]! / Math.PI) * ANGLE_BINS);
      const px = x + 0.5 - cx;
      const py = y + 0.5 - cy;
      for (let dt = -spread; dt <= spread; dt++) {
        let t = tb + dt;
        let flip = 1;
        if (t < 0) {
          t += ANGLE_BINS;
          flip = -1;
        } else if (t >= ANGLE_BINS) {
          t -= ANGLE_BINS;
          flip = -1;
        }
        const r = flip * (px * cosT[t]! + py * sinT[t]!);
        const ri = Math.round(r) + D;
        acc[t * nR + ri]! += weights[dt + spread]!;
      }
    }
  }
  // smooth along rho ([1 2 1]) to merge split votes
  const sm = new Float32Array(acc.length);
  for (let t = 0; t < ANGLE_BINS; t++) {
    const b = t * nR;
    for (let r = 1; r < nR - 1; r++) sm[b + r] = acc[b + r - 1]! + 2 * acc[b + r]! + acc[b + r + 1]!;
  }
  // peaks: local maxima in a (+-3 deg, +-4 px) window
  const minVotes = 4 * 0.08 * Math.min(w, h);
  const peaks: { t: number; r: number; v: number }[] = [];
  for (let t = 0; t < ANGLE_BINS; t++) {
    for (let r = 1; r < nR - 1; r++) {
      const v = sm[t * nR + r]!;
      if (v < minVotes) continue;
      let isMax = true;
      for (let dt = -3; dt <= 3 && isMax; dt++) {
        let tt = t + dt;
        let rr0 = r;
        if (tt < 0) {
          tt += ANGLE_BINS;
          rr0 = 2 * D - r;
        } else if (tt >= ANGLE_BINS) {
          tt -= ANGLE_BINS;
          rr0 = 2 * D - r;
        }
        for (let dr = -4; dr <= 4; dr++) {
          const rr = rr0 + dr;
          if (rr < 0 || rr >= nR || (dt === 0 && dr === 0)) continue;
          const u = sm[tt * nR + rr]!;
          if (u > v || (u === v && (tt * nR + rr) < t * nR + r)) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) peaks.push({ t, r, v });
    }
  }
  peaks.sort((a, b) => b.v - a.v);
  const lines: HoughLine[] = [];
  // keep orientations diverse: parallel texture (stripes, wood grain, paper lines) must not crowd out the card
  const chosen: { t: number; r: number; v: number }[] = [];
  for (const p of peaks) {
    if (chosen.length >= maxLines) break;
    let near = 0;
    for (const q of chosen) {
      const dt = Math.abs(q.t - p.t);
      if (Math.min(dt, ANGLE_BINS - dt) <= 3) near++;
    }
    if (near >= 12) continue;
    chosen.push(p);
  }
  for (const p of chosen) {
    const nx = cosT[p.t]!;
    const ny = sinT[p.t]!;
    const c = p.r - D + nx * cx + ny * cy;
    const refined = refineHoughLine(e, { nx, ny, c });
    lines.push({ ...refined, votes: p.v / 4, cum: new Float32Array(0), offset: 0 });
  }
  for (const l of lines) buildSupport(e, l);
  return lines;
}

/**
 * Least-squares refit of a Hough line to its nearby, consistently oriented edge pixels, in passes with a
 * narrowing band (the 1-degree Hough bins leave several pixels of tilt error at the ends of a long edge).
 */
function refineHoughLine(e: EdgeMap, line: Line): Line {
  const { width: w, height: h } = e;
  const D = Math.ceil(Math.hypot(w, h));
  const pts: WeightedPoint[] = [];
  const seen = new Set<number>();
  let l = line;
  for (const band of [4, 2.5, 1.5]) {
    pts.length = 0;
    seen.clear();
    const dx = -l.ny;
    const dy = l.nx;
    const theta = Math.atan2(l.ny, l.nx);
    const x0 = l.nx * l.c;
    const y0 = l.ny * l.c;
    for (let u = -D; u <= D; u++) {
      const bx = x0 + u * dx;
      const by = y0 + u * dy;
      if (bx < -band || by < -band || bx >= w + band || by >= h + band) continue;
      for (let k = -band; k <= band; k += 0.5) {
        const px = Math.floor(bx + k * l.nx);
        const py = Math.floor(by + k * l.ny);
        if (px < 1 || py < 1 || px >= w - 1 || py >= h - 1) continue;
        const i = py * w + px;
        if (!e.edge[i] || seen.has(i)) continue;
        seen.add(i);
        if (angleDiff(e.angle[i]!, theta) > 0.2) continue;
        pts.push({ x: px + 0.5, y: py + 0.5, w: 1 });
      }
    }
    if (pts.length < 10) return l;
    const fit = fitLineRobust(pts, { initial: l, minSigma: 0.6, iterations: 4 });
    if (!fit) return l;
    l = fit.line;
  }
  return l;
}

function angleDiff(a: number, b: number): number {
  let d = Math.abs(a - b) % Math.PI;
  if (d > Math.PI / 2) d = Math.PI - d;
  return d;
}

function buildSupport(e: EdgeMap, l: HoughLine): void {
  const { width: w, height: h } = e;
  const D = Math.ceil(Math.hypot(w, h)) + 2;
  const dx = -l.ny;
  const dy = l.nx;
  const x0 = l.nx * l.c;
  const y0 = l.ny * l.c;
  const theta = Math.atan2(l.ny, l.nx);
  const cum = new Float32Array(2 * D + 2);
  let s = 0;
  for (let u = -D; u <= D; u++) {
    const bx = x0 + u * dx;
    const by = y0 + u * dy;
    let hit = 0;
    if (bx >= 1 && by >= 1 && bx < w - 1 && by < h - 1) {
      for (let k = -2; k <= 2 && !hit; k++) {
        const px = Math.floor(bx + k * 0.75 * l.nx);
        const py = Math.floor(by + k * 0.75 * l.ny);
        if (px < 1 || py < 1 || px >= w - 1 || py >= h - 1) continue;
        const i = py * w + px;
        if (e.edge[i] && angleDiff(e.angle[i]!, theta) < 0.21) hit = 1;
      }
    }
    s += hit;
    cum[u + D + 1] = s;
  }
  l.cum = cum;
  l.offset = D;
}

/** Fraction of the segment a-b (points on line l) backed by edge pixels, ignoring `trim` at each end. */
function segmentSupport(l: HoughLine, a: Point, b: Point, trim: number): number {
  const dx = -l.ny;
  const dy = l.nx;
  let ua = a[0] * dx + a[1] * dy;
  let ub = b[0] * dx + b[1] * dy;
  if (ua > ub) [ua, ub] = [ub, ua];
  const len = ub - ua;
  ua += trim * len;
  ub -= trim * len;
  const ia = Math.max(0, Math.min(l.cum.length - 1, Math.round(ua) + l.offset));
  const ib = Math.max(0, Math.min(l.cum.length - 1, Math.round(ub) + l.offset));
  if (ib <= ia) return 0;
  return (l.cum[ib]! - l.cum[ia]!) / (ib - ia);
}

interface Hypothesis {
  /** geometric score x edge evidence (set for the re-ranked few) */
  final?: number;
  corners: Point[];
  sides: [HoughLine, HoughLine, HoughLine, HoughLine];
  support: [number, number, number, number];
  score: number;
}

/** Is p inside the convex polygon q (or within tol px of it)? */
function insideQuad(q: Point[], p: Point, tol: number): boolean {
  const c = quadCentroid(q);
  for (let i = 0; i < q.length; i++) {
    const l = lineThrough(q[i]!, q[(i + 1) % q.length]!);
    const sc = signedDistance(l, c[0], c[1]);
    const sp = signedDistance(l, p[0], p[1]);
    if (Math.sign(sc) !== Math.sign(sp) && Math.abs(sp) > tol) return false;
  }
  return true;
}

/**
 * Finds the most card-like quadrilateral in a (downscaled, ~640 px) RGB image. Returns null when nothing
 * plausible is there.
 */
export function detectCardCoarse(img: RgbImage, votes: HoughVotes = 'narrow', debug?: string[], debugAll?: string[]): CoarseDetection | null {
  const e = computeEdges(img);
  const lines = houghLines(e, 60, votes);
  const w = img.width;
  const h = img.height;
  const minDim = Math.min(w, h);
  const ctr: Point = [w / 2, h / 2];
  const hyps: Hypothesis[] = [];
  // orient every normal to point away from the image centre for consistent pairing
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i]!;
      const b = lines[j]!;
      const dot = a.nx * b.nx + a.ny * b.ny;
      if (Math.abs(dot) < Math.cos((32 * Math.PI) / 180)) continue;
      const sa = signedDistance(a, ctr[0], ctr[1]);
      const sb = signedDistance(b, ctr[0], ctr[1]) * Math.sign(dot);
      if (Math.abs(sa - sb) < 0.12 * minDim) continue;
      const ang = Math.atan2(a.ny + Math.sign(dot) * b.ny, a.nx + Math.sign(dot) * b.nx);
      pairs.push([i, j, ang]);
    }
  }
  const margin = 0.03 * Math.max(w, h);
  for (let p = 0; p < pairs.length; p++) {
    for (let q = p + 1; q < pairs.length; q++) {
      const [i, j, angA] = pairs[p]!;
      const [k, m, angB] = pairs[q]!;
      if (i === k || i === m || j === k || j === m) continue;
      if (angleDiff(angA, angB) < (48 * Math.PI) / 180) continue;
      const L = [lines[i]!, lines[k]!, lines[j]!, lines[m]!] as const;
      const pts: Point[] = [];
      let ok = true;
      for (let s = 0; s < 4 && ok; s++) {
        const x = intersectLines(L[s]!, L[(s + 1) % 4]!);
        if (!x || x[0] < -margin || x[1] < -margin || x[0] > w + margin || x[1] > h + margin) ok = false;
        else pts.push(x);
      }
      if (!ok || !isConvex(pts)) {
        if (debugAll && pts.length === 4) debugAll.push(`nonconvex ${pts.map((p) => p.map((v) => v.toFixed(0)).join(',')).join(' ')}`);
        continue;
      }
      const lens = sideLengths(pts);
      if (Math.min(...lens) < 0.1 * minDim) continue;
      const area = quadArea(pts);
      if (area < 0.03 * w * h || area > 0.99 * w * h) continue;
      const pa = (lens[0] + lens[2]) / 2;
      const pb = (lens[1] + lens[3]) / 2;
      const ratio = Math.min(pa, pb) / Math.max(pa, pb);
      if (ratio < 0.45 || ratio > 0.97) continue;
      // side s lies on L[s+1]: pts[s] = L[s] x L[s+1], pts[s+1] = L[s+1] x L[s+2]
      const sides = [L[1]!, L[2]!, L[3]!, L[0]!] as [HoughLine, HoughLine, HoughLine, HoughLine];
      const support: [number, number, number, number] = [0, 0, 0, 0];
      let minSup = 1;
      let sum = 0;
      let tot = 0;
      for (let s = 0; s < 4; s++) {
        const sup = segmentSupport(sides[s]!, pts[s]!, pts[(s + 1) % 4]!, 0.08);
        support[s] = sup;
        minSup = Math.min(minSup, sup);
        sum += sup * lens[s]!;
        tot += lens[s]!;
      }
      if (minSup < 0.3) {
        if (debugAll) debugAll.push(`rejected sup ${pts.map((p) => p.map((v) => v.toFixed(0)).join(",")).join(" ")} ${support.map((v) => v.toFixed(2)).join(",")}`);
        continue;
      }
      const lr = Math.log(ratio / CARD_ASPECT);
      const aspectPrior = Math.exp((-lr * lr) / (2 * 0.12 * 0.12));
      const score = (sum / tot) * Math.sqrt(minSup) * (0.35 + 0.65 * aspectPrior) * Math.pow(area / (w * h), 0.08);
      hyps.push({ corners: pts, sides, support, score });
      debugAll?.push(`acc ${pts.map((p) => p.map((v) => v.toFixed(0)).join(',')).join(' ')} score ${score.toFixed(3)}`);
    }
  }
  if (hyps.length === 0) return null;
  hyps.sort((a, b) => b.score - a.score);
  // re-rank the best few with the band test: a card edge has the uniform border just inside it
  const top = hyps.slice(0, 160).filter((hy) => hy.score >= 0.4 * hyps[0]!.score);
  // side evidence depends on the line and (roughly) the segment: cache it, many hypotheses share sides
  const evCache = new Map<string, { evidence: number; colour: [number, number, number] }>();
  let best: Hypothesis | null = null;
  let bestScore = -Infinity;
  for (const hy of top) {
    const c = quadCentroid(hy.corners);
    const lens = sideLengths(hy.corners);
    const longPair = lens[0] + lens[2] > lens[1] + lens[3] ? 0 : 1;
    let ev = 1;
    const evs: number[] = [];
    const rings: number[][] = [];
    for (let s = 0; s < 4; s++) {
      const pxPerMm = lens[s]! / (s % 2 === longPair ? 88 : 63);
      const pa = hy.corners[s]!;
      const pb = hy.corners[(s + 1) % 4]!;
      const key = `${lines.indexOf(hy.sides[s]!)}:${Math.round(pa[0] / 6)},${Math.round(pa[1] / 6)},${Math.round(pb[0] / 6)},${Math.round(pb[1] / 6)}:${c[0] < (pa[0] + pb[0]) / 2 ? 1 : 0}${c[1] < (pa[1] + pb[1]) / 2 ? 1 : 0}`;
      let e1 = evCache.get(key);
      if (!e1) {
        e1 = edgeEvidence(img, pa, pb, c, pxPerMm);
        evCache.set(key, e1);
      }
      evs.push(e1.evidence);
      rings.push(e1.colour);
      ev *= 0.25 + 0.75 * e1.evidence;
    }
    // the border is printed in one colour: the bands just inside all four sides should match
    const mismatch = worstColourMismatch(rings);
    ev *= 0.3 + 0.7 * Math.exp(-((mismatch / 0.15) ** 2));
    const s = hy.score * ev;
    debug?.push(`${hy.corners.map((p) => p.map((v) => v.toFixed(0)).join(',')).join(' ')} geo ${hy.score.toFixed(3)} ev ${ev.toFixed(3)} mis ${mismatch.toFixed(2)} [${evs.map((v) => v.toFixed(2)).join(',')}] sup ${hy.support.map((v) => v.toFixed(2)).join(',')}`);
    hy.final = s;
    if (s > bestScore) {
      bestScore = s;
      best = hy;
    }
  }
  if (!best) return null;
  // A hypothesis cut short by a line inside the card (frame, art box, header bar, half the card) shares three
  // lines with the full card and lies inside it: prefer the container when it scores comparably. One side moves
  // out per step, to the nearest container, and every step is held to the best hypothesis's score: a threshold
  // that followed each pick down let the chain climb past the card onto a slab's well and its plastic walls
  // (56 of the real set's 126 slab scans were outlined as the slab).
  const firstFinal = best.final ?? 0;
  for (let changed = true; changed; ) {
    changed = false;
    const cur: Hypothesis = best;
    const curArea = quadArea(cur.corners);
    let pick: Hypothesis | null = null;
    for (const hy of top) {
      if (hy === cur || (hy.final ?? 0) < 0.5 * firstFinal) continue;
      const shared = hy.sides.filter((l) => cur.sides.includes(l)).length;
      if (shared < 3) continue;
      const area = quadArea(hy.corners);
      if (area <= curArea * 1.02 || area > 2.2 * curArea) continue;
      if (!cur.corners.every((p) => insideQuad(hy.corners, p, 2))) continue;
      if (!pick || area < quadArea(pick.corners)) pick = hy;
    }
    if (pick) {
      best = pick;
      bestScore = pick.final ?? bestScore;
      changed = true;
    }
  }
  const completed = completeAcrossLongSide(img, best, debug);
  if (completed) best = completed;
  const quad = orderCardCorners(best.corners);
  // support in the TL,TR,BR,BL side order: find the hypothesis side joining the same two corners
  const key = (p: Point): string => `${p[0]},${p[1]}`;
  const support = [0, 1, 2, 3].map((s) => {
    const ends = new Set([key(quad[s]!), key(quad[(s + 1) % 4]!)]);
    for (let h = 0; h < 4; h++) {
      if (ends.has(key(best!.corners[h]!)) && ends.has(key(best!.corners[(h + 1) % 4]!))) return best!.support[h]!;
    }
    return 0;
  }) as [number, number, number, number];
  return { quad, score: Math.min(1, bestScore / 0.6), support };
}

/** Outline proportions (short over long side) taken for a card by completeAcrossLongSide. */
const CUT_SHORT_RATIO = [0.66, 0.77] as const;
/** How far (share of the card's long side) the completed long sides are searched around the card-aspect length. */
const CUT_SHORT_SEARCH = 0.12;
/** Support both side lines need beyond the cut, and the share of the new side that must show an edge. */
const CUT_SHORT_MIN_SUPPORT = 0.6;
const CUT_SHORT_MIN_EDGE = 0.6;
/** Support past the completed corners (over 15 % of the card's long side) above which the side lines are not the card's. */
const CUT_SHORT_MAX_PAST = 0.5;
/** Colour step (RGB distance, levels) across the completed side that counts as an edge there. */
const CUT_SHORT_STEP = 14;

/**
 * A card-shaped outline can be the top or bottom 45 mm of a card lying the other way: the card's top edge, its two
 * sides, and a line across it (the art box's lower edge, an attack bar) make a sideways card. It happens when the
 * card's real far edge is too faint to be a Hough line at all (a silver border on a pale carpet, out of focus),
 * so no container hypothesis exists to move to. Then the two side lines run on past the cut line with edge
 * support, as far as a card as wide as the cut is long, where an edge (however faint) crosses them, and stop there.
 * When both run on and stop, and that edge is there, the outline is completed to it. Null when the outline is not
 * such a cut.
 */
function completeAcrossLongSide(img: RgbImage, hy: Hypothesis, debug?: string[]): Hypothesis | null {
  const pts = hy.corners;
  const lens = sideLengths(pts);
  const ratio = Math.min(lens[0] + lens[2], lens[1] + lens[3]) / Math.max(lens[0] + lens[2], lens[1] + lens[3]);
  if (ratio < CUT_SHORT_RATIO[0] || ratio > CUT_SHORT_RATIO[1]) return null;
  const longPair = lens[0] + lens[2] > lens[1] + lens[3] ? 0 : 1;
  const unit = (a: Point, b: Point): Point => {
    const l = Math.hypot(b[0] - a[0], b[1] - a[1]);
    return [(b[0] - a[0]) / l, (b[1] - a[1]) / l];
  };
  const margin = 2;
  const inImage = (p: Point): boolean => p[0] >= margin && p[1] >= margin && p[0] <= img.width - margin && p[1] <= img.height - margin;
  let best: { hy: Hypothesis; score: number } | null = null;
  for (const s of [longPair, longPair + 2]) {
    const prev = (s + 3) % 4;
    const next = (s + 1) % 4;
    const far = (s + 2) % 4;
    // side s runs pts[s] -> pts[s+1]; the sides before and after it leave from pts[prev] and pts[far]
    const dirA = unit(pts[prev]!, pts[s]!);
    const dirB = unit(pts[far]!, pts[next]!);
    const target = lens[s]! / CARD_ASPECT;
    const endA = (f: number): Point => [pts[prev]![0] + dirA[0] * target * f, pts[prev]![1] + dirA[1] * target * f];
    const endB = (f: number): Point => [pts[far]![0] + dirB[0] * target * f, pts[far]![1] + dirB[1] * target * f];
    // (an object, not two lets: TypeScript does not follow assignments made inside the closure)
    const found: { edge: number; f: [number, number] | null } = { edge: 0, f: null };
    const tryEnds = (fa: number, fb: number, onTie: boolean): void => {
      const a = endA(fa);
      const b = endB(fb);
      if (!inImage(a) || !inImage(b)) return;
      const edge = edgeAcross(img, a, b);
      if (edge > found.edge || (onTie && edge === found.edge && edge > 0)) {
        found.edge = edge;
        found.f = [fa, fb];
      }
    };
    // the outermost of equal edges: past the card there is only background
    for (let f = 1 - CUT_SHORT_SEARCH; f <= 1 + CUT_SHORT_SEARCH + 1e-9; f += 0.01) tryEnds(f, f, true);
    if (!found.f) continue;
    // then each end on its own, taken only where the edge is stronger: a card held in the hand is seen in
    // perspective, its far edge not parallel to the cut
    const [f0a, f0b] = found.f;
    for (let da = -0.03; da <= 0.03 + 1e-9; da += 0.005) {
      for (let db = -0.03; db <= 0.03 + 1e-9; db += 0.005) tryEnds(f0a + da, f0b + db, false);
    }
    const bestEdge = found.edge;
    const bestEnds: [Point, Point] = [endA(found.f[0]), endB(found.f[1])];
    const supA = segmentSupport(hy.sides[prev]!, pts[s]!, bestEnds[0], 0.05);
    const supB = segmentSupport(hy.sides[next]!, pts[next]!, bestEnds[1], 0.05);
    // ... and end there, as a card's sides do: lines that run on past the new corners too are not the card's sides
    // but longer straight things (a slab's walls run on past its well, up beside the label)
    const beyond = (from: Point, dir: Point): Point => [from[0] + dir[0] * 0.15 * target, from[1] + dir[1] * 0.15 * target];
    const pastA = segmentSupport(hy.sides[prev]!, bestEnds[0], beyond(bestEnds[0], dirA), 0);
    const pastB = segmentSupport(hy.sides[next]!, bestEnds[1], beyond(bestEnds[1], dirB), 0);
    debug?.push(`cut-short side ${s}: edge ${bestEdge.toFixed(2)} run-on ${supA.toFixed(2)},${supB.toFixed(2)} past ${pastA.toFixed(2)},${pastB.toFixed(2)} to ${bestEnds.map((p) => p.map((v) => v.toFixed(0)).join(',')).join(' ')}`);
    if (supA < CUT_SHORT_MIN_SUPPORT || supB < CUT_SHORT_MIN_SUPPORT || bestEdge < CUT_SHORT_MIN_EDGE) continue;
    if (Math.max(pastA, pastB) > CUT_SHORT_MAX_PAST) continue;
    const corners = pts.slice();
    corners[s] = bestEnds[0];
    corners[next] = bestEnds[1];
    const side = lineThrough(bestEnds[0], bestEnds[1]);
    const sides = hy.sides.slice() as Hypothesis['sides'];
    sides[s] = { ...side, votes: 0, cum: new Float32Array(0), offset: 0 };
    const support = hy.support.slice() as Hypothesis['support'];
    support[s] = bestEdge;
    const score = Math.min(supA, supB) * bestEdge;
    if (!best || score > best.score) best = { hy: { corners, sides, support, score: hy.score, final: hy.final }, score };
  }
  return best?.hy ?? null;
}

/**
 * Share of the segment a-b (sampled over its middle 80 %) where the colour steps across it by CUT_SHORT_STEP in the
 * direction the whole segment steps: an edge between two surfaces changes colour the same way all along, where the
 * steps of texture and noise point every way. The step is looked for up to 2 px either side of the segment.
 */
function edgeAcross(img: RgbImage, a: Point, b: Point): number {
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
  const nx = -(b[1] - a[1]) / len;
  const ny = (b[0] - a[0]) / len;
  const M = 24;
  const p = new Float64Array(3);
  const q = new Float64Array(3);
  let best = 0;
  for (let d = -2; d <= 2; d++) {
    const steps: [number, number, number][] = [];
    const mean = [0, 0, 0];
    for (let i = 0; i < M; i++) {
      const t = 0.1 + (0.8 * (i + 0.5)) / M;
      const x = a[0] + (b[0] - a[0]) * t;
      const y = a[1] + (b[1] - a[1]) * t;
      sampleRgb(img, x + (d - 1.5) * nx, y + (d - 1.5) * ny, p, 0);
      sampleRgb(img, x + (d + 1.5) * nx, y + (d + 1.5) * ny, q, 0);
      const step: [number, number, number] = [q[0]! - p[0]!, q[1]! - p[1]!, q[2]! - p[2]!];
      steps.push(step);
      for (let c = 0; c < 3; c++) mean[c]! += step[c]! / M;
    }
    const norm = Math.hypot(mean[0]!, mean[1]!, mean[2]!);
    if (norm < 1e-6) continue;
    let hits = 0;
    for (const st of steps) if ((st[0] * mean[0]! + st[1] * mean[1]! + st[2] * mean[2]!) / norm >= CUT_SHORT_STEP) hits++;
    best = Math.max(best, hits / M);
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------------------
// Subpixel refinement: gradient peaks along the normals of each side, robust line fits, corners = intersections.
// ---------------------------------------------------------------------------------------------------------------

export interface RefineOptions {
  /** Half-width (px) of the search band along each side's normal. Default: 2% of the quad's short side, >= 4 px. */
  searchPx?: number;
  /** Fraction of each side excluded at both ends (rounded corners, wear). Default 0.08. */
  cornerMargin?: number;
  /** Profiles per side. Default: one per ~2 px of side length, 24..160. */
  samplesPerSide?: number;
  /** Refinement passes (each re-centres the profiles on the previous fit). Default 2. */
  passes?: number;
}

export interface RefinedQuad {
  quad: Quad;
  lines: [Line, Line, Line, Line];
  /** Robust residual scale (px) per side, TL-TR (top), TR-BR (right), BR-BL (bottom), BL-TL (left). */
  sigmaPx: [number, number, number, number];
  /** Fraction of profiles whose edge point agreed with the fitted line, per side. */
  inlierFraction: [number, number, number, number];
  /** 0..1 from inlier fractions and residuals. */
  confidence: number;
}

/**
 * Refines a coarse card quad (TL,TR,BR,BL, from any source: the classical detector or a keypoint model) to
 * subpixel corners on `img`: for each side, colour-gradient profiles along the normal, the dominant straight edge
 * among the profile peaks (a Hough vote over offset and tilt), subpixel peaks near it, a Tukey-weighted total
 * least-squares line, and corners as intersections of adjacent lines (so rounded or worn corners do not matter).
 */
export function refineQuad(img: RgbImage, coarse: Quad, options: RefineOptions = {}): RefinedQuad {
  const passes = options.passes ?? 2;
  let quad = coarse;
  let result: RefinedQuad | null = null;
  const lens = sideLengths(coarse);
  const short = Math.min(lens[0] + lens[2], lens[1] + lens[3]) / 2;
  let search = options.searchPx ?? Math.max(4, 0.02 * short);
  for (let pass = 0; pass < passes; pass++) {
    result = refineOnce(img, quad, search, options);
    quad = result.quad;
    search = Math.max(2, Math.min(search / 2, 4));
  }
  return result!;
}

function refineOnce(img: RgbImage, quad: Quad, search: number, options: RefineOptions): RefinedQuad {
  const margin = options.cornerMargin ?? 0.08;
  const c = quadCentroid(quad);
  const step = 0.5;
  const ns = Math.ceil(search / step);
  const kernel = dogKernel(2); // sigma = 1 px
  const kr = (kernel.length - 1) >> 1;
  const n = 2 * (ns + kr) + 1;
  const prof = new Float32Array(n * 3);
  const grad = new Float32Array(n);
  const lines: Line[] = [];
  const sigmas: number[] = [];
  const inliers: number[] = [];
  for (let k = 0; k < 4; k++) {
    const a = quad[k]!;
    const b = quad[(k + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const dx = (b[0] - a[0]) / len;
    const dy = (b[1] - a[1]) / len;
    let nx = -dy;
    let ny = dx;
    if ((c[0] - a[0]) * nx + (c[1] - a[1]) * ny > 0) {
      nx = -nx;
      ny = -ny;
    }
    const m = options.samplesPerSide ?? Math.max(24, Math.min(160, Math.round(len / 2)));
    // candidate peaks: (t, s, g)
    const candT: number[] = [];
    const candS: number[] = [];
    const candG: number[] = [];
    const candIdx: number[] = [];
    for (let i = 0; i < m; i++) {
      const t = (margin + ((1 - 2 * margin) * (i + 0.5)) / m) * len;
      const bx = a[0] + t * dx;
      const by = a[1] + t * dy;
      for (let j = 0; j < n; j++) {
        const s = (j - (ns + kr)) * step;
        sampleRgb(img, bx + s * nx, by + s * ny, prof, j * 3);
      }
      profileGradient(prof, n, kernel, grad);
      let gmax = 0;
      for (let j = kr + 1; j < n - kr - 1; j++) gmax = Math.max(gmax, grad[j]!);
      if (gmax < 3) continue;
      const found: [number, number][] = [];
      for (let j = kr + 1; j < n - kr - 1; j++) {
        const g = grad[j]!;
        if (g < 0.2 * gmax || g < grad[j - 1]! || g <= grad[j + 1]!) continue;
        const sub = parabolicPeak(grad, j);
        found.push([(j + sub - (ns + kr)) * step, g]);
      }
      found.sort((p, q) => q[1] - p[1]);
      for (const [s, g] of found.slice(0, 4)) {
        candT.push(t);
        candS.push(s);
        candG.push(g);
        candIdx.push(i);
      }
    }
    // vote for the dominant straight edge: s = s0 + slope * (t - len/2)
    const maxSlope = (2 * search) / len;
    const nSlopes = 21;
    const binW = 0.5;
    const nBins = Math.ceil((2 * search + 2) / binW) + 1;
    const acc = new Float32Array(nSlopes * nBins);
    for (let q = 0; q < candT.length; q++) {
      for (let si = 0; si < nSlopes; si++) {
        const slope = -maxSlope + (2 * maxSlope * si) / (nSlopes - 1);
        const s0 = candS[q]! - slope * (candT[q]! - len / 2);
        const bi = Math.round((s0 + search + 1) / binW);
        if (bi < 1 || bi >= nBins - 1) continue;
        const g = Math.sqrt(candG[q]!);
        acc[si * nBins + bi]! += g;
        acc[si * nBins + bi - 1]! += 0.5 * g;
        acc[si * nBins + bi + 1]! += 0.5 * g;
      }
    }
    let bestV = -1;
    let bestSlope = 0;
    let bestS0 = 0;
    for (let si = 0; si < nSlopes; si++) {
      for (let bi = 0; bi < nBins; bi++) {
        const v = acc[si * nBins + bi]!;
        if (v > bestV) {
          bestV = v;
          bestSlope = -maxSlope + (2 * maxSlope * si) / (nSlopes - 1);
          bestS0 = bi * binW - search - 1;
        }
      }
    }
    // per profile: the peak nearest to the voted line (within 1.5 px)
    const pts: WeightedPoint[] = [];
    let prevIdx = -1;
    let bestForIdx: { d: number; t: number; s: number; g: number } | null = null;
    const flush = (): void => {
      if (bestForIdx) {
        pts.push({
          x: a[0] + bestForIdx.t * dx + bestForIdx.s * nx,
          y: a[1] + bestForIdx.t * dy + bestForIdx.s * ny,
          w: Math.sqrt(bestForIdx.g),
        });
      }
      bestForIdx = null;
    };
    for (let q = 0; q < candT.length; q++) {
      if (candIdx[q] !== prevIdx) {
        flush();
        prevIdx = candIdx[q]!;
      }
      const pred = bestS0 + bestSlope * (candT[q]! - len / 2);
      const d = Math.abs(candS[q]! - pred);
      if (d > 1.5) continue;
      if (!bestForIdx || d < bestForIdx.d) bestForIdx = { d, t: candT[q]!, s: candS[q]!, g: candG[q]! };
    }
    flush();
    // tilt the initial line by the voted slope
    const p0: Point = [a[0] + bestS0 * nx - bestSlope * (len / 2) * nx, a[1] + bestS0 * ny - bestSlope * (len / 2) * ny];
    const p1: Point = [
      a[0] + len * dx + (bestS0 + bestSlope * (len / 2)) * nx,
      a[1] + len * dy + (bestS0 + bestSlope * (len / 2)) * ny,
    ];
    let init = lineThrough(p0, p1);
    if (init.nx * nx + init.ny * ny < 0) init = { nx: -init.nx, ny: -init.ny, c: -init.c };
    const fit = pts.length >= 4 ? fitLineRobust(pts, { initial: init, minSigma: 0.1, iterations: 8 }) : null;
    if (!fit) {
      lines.push(init);
      sigmas.push(search);
      inliers.push(0);
    } else {
      lines.push(fit.line);
      sigmas.push(fit.sigma);
      inliers.push((fit.inlierFraction * pts.length) / m);
    }
  }
  const corners: Point[] = [];
  for (let k = 0; k < 4; k++) {
    const p = intersectLines(lines[(k + 3) % 4]!, lines[k]!);
    corners.push(p ?? quad[k]!);
  }
  const inl = inliers as [number, number, number, number];
  const sig = sigmas as [number, number, number, number];
  let conf = 1;
  for (let k = 0; k < 4; k++) conf = Math.min(conf, inl[k]! * Math.exp(-Math.max(0, sig[k]! - 0.3) / 1.5));
  return {
    quad: corners as Quad,
    lines: lines as [Line, Line, Line, Line],
    sigmaPx: sig,
    inlierFraction: inl,
    confidence: Math.max(0, Math.min(1, conf)),
  };
}

/** Throws card_not_found when a detection is missing or not credible. */
export function assertCardFound<T>(value: T | null | undefined, detail = 'No trading card could be found in the photo.'): T {
  if (value === null || value === undefined) throw new AppError('card_not_found', detail);
  return value;
}
