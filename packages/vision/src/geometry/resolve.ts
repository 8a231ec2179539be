import type { Point, Quad, RgbImage } from '../image/types';
import { intersectLines, lineThrough, voteProfileLines, type Line, type ProfilePeaks } from './lines';
import { quadCentroid } from './quad';
import { dogKernel, profileGradient, sampleRgb } from './sampling';

/**
 * Which of several parallel straight edges near each quad side is the card's physical edge?
 *
 * A photographed card shows, from outside in: background | (sleeve or top-loader outline, a bright ridge, then
 * background lifted by the plastic's haze) | the card edge (a step from background to border colour) | the
 * uniform border | the printed frame line | the design (which has its own long lines: art boxes, header bars,
 * table rows). A coarse detector can land on any of these. Per side this samples profiles along the normal
 * (18 mm each way), finds the straight lines shared by most profiles and describes each as a possible card edge:
 * colour step across it, uniformity of the ring just inside it, distance to the next line inside (the frame,
 * 0.5-9.5 mm), and whether the inside is just the outside lifted towards white (clear plastic). The four sides are
 * then chosen jointly: strong card-edge evidence on every side, one border colour all around (the border is
 * printed in one colour; brightness may drift with the light), and, between equally good choices, the outer one.
 */
export interface EdgeCandidate {
  /** Offset (px, + = inwards) from the input side. */
  offset: number;
  /** 0..1 card-edge evidence. */
  evidence: number;
  /** Colour just inside (the border if this is the card edge). */
  ring: [number, number, number];
  /** Colour step across the line (RGB distance of the bands 0.3-0.9 mm outside and just inside). */
  step: number;
  note: string;
}

export interface ResolvedSide {
  /** Offset (px, + = inwards) of the chosen edge from the input side. */
  shift: number;
  /**
   * A line up to OUTER_STEP.withinMm outside the chosen edge with a far stronger colour step (OUTER_STEP): the chosen
   * edge is then likely the printed face inside the card's border, the card's own edge rejected (a foil border's
   * sheen varies along it like print).
   */
  strongerStepOutside: boolean;
  /**
   * How far (px) the edge was taken out beyond the chosen line, across a strip the card ran on over at both ends of
   * the side (SIDE_ENDS); 0 where it was not. The strip's inner edge is no printed frame.
   */
  beyondEndsPx: number;
  candidates: EdgeCandidate[];
}

export interface ResolveResult {
  quad: Quad;
  sides: ResolvedSide[];
  /** Joint score of the chosen combination (0..1). */
  score: number;
}

interface Band {
  colour: [number, number, number];
  /** spread of the per-profile mean colours along the side, after removing a linear trend */
  across: number;
  /** mean within-profile spread */
  within: number;
}

export function resolveCardEdges(img: RgbImage, quad: Quad): ResolveResult {
  const c = quadCentroid(quad);
  const frames: { a: Point; b: Point; nx: number; ny: number }[] = [];
  const cands: EdgeCandidate[][] = [];
  for (let k = 0; k < 4; k++) {
    const a = quad[k]!;
    const b = quad[(k + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const dx = (b[0] - a[0]) / len;
    const dy = (b[1] - a[1]) / len;
    let nx = -dy;
    let ny = dx;
    if ((c[0] - a[0]) * nx + (c[1] - a[1]) * ny < 0) {
      nx = -nx;
      ny = -ny;
    }
    // sides 0, 2 are the card's short edges (63 mm), 1, 3 the long ones (88 mm)
    const pxPerMm = len / (k % 2 === 0 ? 63 : 88);
    frames.push({ a, b, nx, ny });
    cands.push(sideCandidates(img, a, dx, dy, nx, ny, len, pxPerMm));
  }
  // joint choice
  let best: number[] = [0, 0, 0, 0];
  let bestScore = -1;
  const idx = [0, 0, 0, 0];
  const mmOf = (k: number): number => Math.hypot(quad[(k + 1) % 4]![0] - quad[k]![0], quad[(k + 1) % 4]![1] - quad[k]![1]) / (k % 2 === 0 ? 63 : 88);
  const pxmm = [0, 1, 2, 3].map(mmOf);
  const rec = (k: number): void => {
    if (k === 4) {
      let sc = 1;
      for (let j = 0; j < 4; j++) {
        const cj = cands[j]![idx[j]!]!;
        sc *= 0.05 + 0.95 * cj.evidence;
        // outer preference: 8% per mm inwards (a frame line or header bar inside a good card edge must lose)
        sc *= Math.exp(-0.08 * (cj.offset / pxmm[j]!));
      }
      // one border colour all around
      let worst = 0;
      for (let i = 0; i < 4; i++) {
        for (let j = i + 1; j < 4; j++) worst = Math.max(worst, colourMismatch(cands[i]![idx[i]!]!.ring, cands[j]![idx[j]!]!.ring));
      }
      sc *= Math.exp(-((worst / 0.12) ** 2));
      if (sc > bestScore) {
        bestScore = sc;
        best = idx.slice();
      }
      return;
    }
    for (let i = 0; i < cands[k]!.length; i++) {
      idx[k] = i;
      rec(k + 1);
    }
  };
  rec(0);
  const lines: Line[] = [];
  const sides: ResolvedSide[] = [];
  for (let k = 0; k < 4; k++) {
    const f = frames[k]!;
    const chosen = cands[k]![best[k]!]!;
    const beyondEndsPx = cardBeyondAtEnds(img, quad[k]!, quad[(k + 1) % 4]!, f.nx, f.ny, chosen.offset, chosen.ring, pxmm[k]!) ?? 0;
    const shift = chosen.offset - beyondEndsPx;
    const strongerStepOutside = cands[k]!.some(
      (o) => o.offset < shift && shift - o.offset <= OUTER_STEP.withinMm * pxmm[k]! && o.step >= OUTER_STEP.minStep && o.step >= OUTER_STEP.ratio * chosen.step,
    );
    sides.push({ shift, candidates: cands[k]!, strongerStepOutside, beyondEndsPx });
    lines.push(lineThrough([f.a[0] + shift * f.nx, f.a[1] + shift * f.ny], [f.b[0] + shift * f.nx, f.b[1] + shift * f.ny]));
  }
  const out: Point[] = [];
  for (let k = 0; k < 4; k++) out.push(intersectLines(lines[(k + 3) % 4]!, lines[k]!) ?? quad[k]!);
  return { quad: out as Quad, sides, score: Math.max(0, bestScore) };
}

/**
 * The straight stretch of a side just past each rounded corner (SIDE_ENDS.fromMm-toMm from the outline's corner),
 * where the card's edge may show although the rest of the side does not. On the real set a PSA slab's inner ridge
 * shades the middle of the card's top edge into a grey strip, and the step from that strip to the white border was
 * taken for the edge, 0.85 mm inside the card, while past the corners the border runs on to the black well; on
 * another slab scan a shaded strip 0.5 mm wide along the card's edge was left out the same way. Each short profile
 * there finds its strongest colour step within maxOutMm outside the chosen line. The card runs on to it when:
 * - the colour just inside the line there is the border the side shows along its middle (the chosen line's ring,
 *   within `sameBorder` of colourMismatch, the joint choice's measure);
 * - the step is a clear one, `minContrast` levels between that colour and the colour beyond it;
 * - what lies between is the card's, within `stripShare` of that contrast of the colour inside.
 * Only where the card spans `minPxPerMm` or more: a 0.3 mm run is then 2.4 px or more. A first version without the
 * first two tests and the resolution limit moved 44 outlines of the real set: slab outlines taken out from the dark
 * well to the plastic's wall, and 300-pixel-wide scans whose border runs into the art.
 */
export const SIDE_ENDS = {
  fromMm: 3.25,
  toMm: 5,
  stepMm: 0.25,
  minProfiles: 4,
  minOutMm: 0.3,
  maxOutMm: 1.5,
  agreeMm: 0.3,
  minPxPerMm: 8,
  sameBorder: 0.12,
  minContrast: 100,
  stripShare: 0.35,
} as const;

/**
 * How far (px) the card runs on beyond the chosen line at both ends of the side a-b (`nx, ny` its inward normal, the
 * chosen line `offset` px inwards of it, `ring` the colour just inside it along the side's middle), when both ends
 * agree on it within SIDE_ENDS.agreeMm and it lies between minOutMm and maxOutMm; otherwise null (the line is kept).
 * At each end at least minProfiles of the profiles must find the same run (within agreeMm of their median).
 */
function cardBeyondAtEnds(img: RgbImage, a: Point, b: Point, nx: number, ny: number, offset: number, ring: number[], pxPerMm: number): number | null {
  const E = SIDE_ENDS;
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
  if (pxPerMm < E.minPxPerMm || len < 2 * (E.toMm + 1) * pxPerMm) return null;
  const dx = (b[0] - a[0]) / len;
  const dy = (b[1] - a[1]) / len;
  const h = Math.max(0.5, 0.08 * pxPerMm);
  const px = new Float64Array(3);
  const mean = (vs: number[][]): number[] => [0, 1, 2].map((c) => vs.reduce((acc, v) => acc + v[c]!, 0) / vs.length);
  /** The card's run beyond the chosen line (px) on the profile at t: 0 where the strongest step is the line's own. */
  const runAt = (t: number): number | null => {
    // samples from 0.6 mm inside the line to 0.4 mm past maxOutMm outside it; index j lies at offset + 0.6 mm - j h
    const from = offset + 0.6 * pxPerMm;
    const n = Math.ceil(((E.maxOutMm + 1) * pxPerMm) / h);
    const v: number[][] = [];
    for (let j = 0; j <= n; j++) {
      if (!sampleRgb(img, a[0] + t * dx + (from - j * h) * nx, a[1] + t * dy + (from - j * h) * ny, px, 0)) return null;
      v.push([px[0]!, px[1]!, px[2]!]);
    }
    const index = (s: number): number => Math.round((from - s) / h);
    const inside = mean(v.slice(0, index(offset + 0.2 * pxPerMm) + 1));
    if (colourMismatch(inside, ring) > E.sameBorder) return null;
    let best = -1;
    let bestStep = 0;
    for (let j = Math.max(1, index(offset + 0.2 * pxPerMm)); j <= index(offset - E.maxOutMm * pxPerMm) && j + 1 < v.length; j++) {
      const step = dist(v[j - 1]!, v[j + 1]!);
      if (step > bestStep) {
        bestStep = step;
        best = j;
      }
    }
    if (best < 0) return null;
    const run = (best - index(offset)) * h;
    if (run <= 0.15 * pxPerMm) return 0;
    const beyond = mean(v.slice(best + Math.ceil((0.15 * pxPerMm) / h), best + Math.ceil((0.35 * pxPerMm) / h) + 1));
    const strip = mean(v.slice(index(offset), Math.max(index(offset) + 1, best - 1)));
    const contrast = dist(beyond, inside);
    if (contrast < E.minContrast || dist(strip, inside) > E.stripShare * contrast) return null;
    return run;
  };
  const endRun = (ts: number[]): number | null => {
    const runs = ts.map(runAt).filter((r): r is number => r !== null);
    if (runs.length < E.minProfiles) return null;
    const m = median(runs);
    return runs.filter((r) => Math.abs(r - m) <= E.agreeMm * pxPerMm).length >= E.minProfiles ? m : null;
  };
  const marks: number[] = [];
  for (let mm = E.fromMm; mm <= E.toMm + 1e-9; mm += E.stepMm) marks.push(mm * pxPerMm);
  const first = endRun(marks);
  const last = endRun(marks.map((m) => len - m));
  if (first === null || last === null || Math.abs(first - last) > E.agreeMm * pxPerMm) return null;
  const run = (first + last) / 2;
  return run >= E.minOutMm * pxPerMm && run <= E.maxOutMm * pxPerMm ? run : null;
}

/** Colour difference that tolerates a brightness change (uneven light): chromaticity plus a soft brightness term. */
function colourMismatch(a: number[], b: number[]): number {
  const sa = a[0]! + a[1]! + a[2]! + 30;
  const sb = b[0]! + b[1]! + b[2]! + 30;
  let d = 0;
  for (let c = 0; c < 3; c++) d += Math.abs((a[c]! + 10) / sa - (b[c]! + 10) / sb);
  const ratio = Math.max(sa, sb) / Math.min(sa, sb);
  return d + Math.max(0, ratio - 1.5) * 0.5;
}

/** Is `inside` just `outside` darkened by a uniform factor (a soft shadow on the background)? */
function isShadow(outside: number[], inside: number[]): boolean {
  let num = 0;
  let den = 0;
  for (let c = 0; c < 3; c++) {
    num += outside[c]! * inside[c]!;
    den += outside[c]! * outside[c]!;
  }
  if (den < 1) return false;
  const k = num / den;
  let r = 0;
  for (let c = 0; c < 3; c++) r += (inside[c]! - k * outside[c]!) ** 2;
  return k > 0.45 && k < 0.97 && Math.sqrt(r) < 8;
}

/**
 * A line outside the chosen edge that is likelier the card's own (ResolvedSide.strongerStepOutside): at most this far
 * out (a printed border is 1.5-4 mm), with a colour step at least this large and this many times the chosen one's.
 * On the real set's 2023-24 silver-bordered Pokemon cards the card's edge against the table steps 180-360 levels
 * and the face's edge inside the border 100-160; the ring inside the card's edge, the foil, varies along the side
 * by 36-55 levels (the edge term allows about 24), so the face's edge was chosen on 8 of 9 such photos.
 */
export const OUTER_STEP = { withinMm: 4, minStep: 150, ratio: 1.5 } as const;

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function sideCandidates(
  img: RgbImage,
  a: Point,
  dx: number,
  dy: number,
  nx: number,
  ny: number,
  len: number,
  pxPerMm: number,
): EdgeCandidate[] {
  const mm = pxPerMm;
  const h = Math.max(0.5, 0.12 * mm); // sample step, px
  const rOut = 18 * mm;
  const rIn = 18 * mm;
  const n0 = Math.ceil(rOut / h);
  const n = n0 + Math.ceil(rIn / h) + 1;
  const M = 24;
  const kernel = dogKernel(Math.max(1, (0.08 * mm) / h));
  const prof: Float32Array[] = [];
  const grad = new Float32Array(n);
  const peaks: ProfilePeaks = { t: [], s: [], g: [], idx: [], profiles: M, length: len };
  for (let i = 0; i < M; i++) {
    const t = (0.15 + (0.7 * (i + 0.5)) / M) * len;
    const bx = a[0] + t * dx;
    const by = a[1] + t * dy;
    const p = new Float32Array(n * 3);
    for (let j = 0; j < n; j++) {
      const s = (j - n0) * h;
      sampleRgb(img, bx + s * nx, by + s * ny, p, j * 3);
    }
    prof.push(p);
    profileGradient(p, n, kernel, grad);
    let gmax = 0;
    for (let j = 1; j < n - 1; j++) gmax = Math.max(gmax, grad[j]!);
    for (let j = 1; j < n - 1; j++) {
      const g = grad[j]!;
      if (g < 5 || g < 0.08 * gmax || g < grad[j - 1]! || g <= grad[j + 1]!) continue;
      peaks.t.push(t);
      peaks.s.push((j - n0) * h);
      peaks.g.push(Math.sqrt(g));
      peaks.idx.push(i);
    }
  }
  const voted = voteProfileLines(peaks, { sMin: -rOut, sMax: rIn, maxSlope: 1.5 / len, binS: 2 * h, nSlopes: 5 })
    .filter((v) => v.count >= 0.45 * M)
    .sort((p, q) => p.s0 - q.s0);
  // merge lines closer than 0.3 mm (both flanks of a thin ridge): keep the outer one
  const lines: number[] = [];
  for (const v of voted) {
    if (lines.length > 0 && v.s0 - lines[lines.length - 1]! < 0.3 * mm) continue;
    lines.push(v.s0);
  }
  const band = (from: number, to: number): Band | null => {
    const j0 = Math.max(0, Math.round(from / h) + n0);
    const j1 = Math.min(n - 1, Math.round(to / h) + n0);
    if (j1 < j0) return null;
    const means: [number, number, number][] = [];
    let within = 0;
    for (const p of prof) {
      let r = 0;
      let g = 0;
      let bb = 0;
      for (let j = j0; j <= j1; j++) {
        r += p[j * 3]!;
        g += p[j * 3 + 1]!;
        bb += p[j * 3 + 2]!;
      }
      const m = j1 - j0 + 1;
      r /= m;
      g /= m;
      bb /= m;
      let v = 0;
      for (let j = j0; j <= j1; j++) v += (p[j * 3]! - r) ** 2 + (p[j * 3 + 1]! - g) ** 2 + (p[j * 3 + 2]! - bb) ** 2;
      within += Math.sqrt(v / (3 * m));
      means.push([r, g, bb]);
    }
    const colour: [number, number, number] = [median(means.map((x) => x[0])), median(means.map((x) => x[1])), median(means.map((x) => x[2]))];
    const m = means.length;
    const tm = (m - 1) / 2;
    let stt = 0;
    for (let i = 0; i < m; i++) stt += (i - tm) ** 2;
    const trend = [0, 1, 2].map((ch) => {
      let mean = 0;
      let st = 0;
      for (let i = 0; i < m; i++) mean += means[i]![ch]!;
      mean /= m;
      for (let i = 0; i < m; i++) st += (i - tm) * (means[i]![ch]! - mean);
      return [mean, st / stt] as const;
    });
    const dev = means
      .map((x, i) => Math.hypot(...[0, 1, 2].map((ch) => x[ch]! - trend[ch]![0] - trend[ch]![1] * (i - tm))))
      .sort((p, q) => p - q);
    return { colour, across: dev[Math.floor(dev.length * 0.75)]!, within: within / prof.length };
  };
  const out: EdgeCandidate[] = [];
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!;
    if (s < -rOut + 1.2 * mm || s > rIn - 1.2 * mm) continue;
    const next = lines[i + 1];
    const width = next === undefined ? Infinity : (next - s) / mm;
    // the ring stops well short of the next line (a frame line has a soft flank before its voted peak)
    const ringEnd = next === undefined ? s + 1.5 * mm : s + Math.max(h, Math.min(1.5 * mm, 0.6 * (next - s)));
    const o = band(s - 0.9 * mm, s - 0.3 * mm);
    const r = band(s + Math.max(h, 0.2 * mm), ringEnd);
    if (!o || !r) continue;
    const step = dist(o.colour, r.colour);
    const lift = liftResidual(o.colour, r.colour);
    const sleeveLike = lift.h > -0.03 && lift.h < 0.16 && lift.residual < 12;
    const shadowLike = isShadow(o.colour, r.colour);
    let ev = sigmoid((step - 25) / 6) * sigmoid((16 - r.within) / 3) * sigmoid((24 - r.across) / 5);
    if (sleeveLike || shadowLike) ev *= 0.1;
    if (!(width >= 0.5 && width <= 9.5)) ev *= 0.35;
    out.push({
      offset: s,
      evidence: ev,
      ring: r.colour,
      step,
      note: `${(s / mm).toFixed(2)}mm step ${step.toFixed(0)} ring ${r.within.toFixed(0)}/${r.across.toFixed(0)} lift ${lift.h.toFixed(2)}/${lift.residual.toFixed(0)} w ${width.toFixed(1)} ev ${ev.toFixed(2)}`,
    });
  }
  if (!out.some((x) => Math.abs(x.offset) < 0.5 * mm)) {
    // keep the input position as a (weak) option
    const r = band(0.2 * mm, 1 * mm);
    out.push({ offset: 0, evidence: 0.02, ring: r ? r.colour : [0, 0, 0], step: 0, note: 'input' });
  }
  return out;
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function dist(a: number[], b: number[]): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}

/** How well `inside` = `outside` lifted towards white by a uniform fraction h (what clear plastic does). */
function liftResidual(outside: number[], inside: number[]): { h: number; residual: number } {
  let num = 0;
  let den = 0;
  for (let c = 0; c < 3; c++) {
    const u = 250 - outside[c]!;
    num += u * (inside[c]! - outside[c]!);
    den += u * u;
  }
  const h = den > 1e-6 ? num / den : 0;
  let r = 0;
  for (let c = 0; c < 3; c++) r += (inside[c]! - outside[c]! - h * (250 - outside[c]!)) ** 2;
  return { h, residual: Math.sqrt(r) };
}

/**
 * Cheap evidence (0..1) that the segment a-b is a card edge: across it the colour steps, and just inside it
 * (0.25-0.55 mm) the colour is uniform across the band (the border). Used to rank quad hypotheses, where lines
 * inside the design (art boxes, text) lose because the design right inside them is not uniform.
 */
export function edgeEvidence(img: RgbImage, a: Point, b: Point, inside: Point, pxPerMm: number): { evidence: number; colour: [number, number, number] } {
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
  if (len < 4) return { evidence: 0, colour: [0, 0, 0] };
  const dx = (b[0] - a[0]) / len;
  const dy = (b[1] - a[1]) / len;
  let nx = -dy;
  let ny = dx;
  if ((inside[0] - a[0]) * nx + (inside[1] - a[1]) * ny < 0) {
    nx = -nx;
    ny = -ny;
  }
  const M = 16;
  const px = new Float64Array(3);
  // just inside: thin enough to stay on a 0.8 mm border (off-centre cards), at least a pixel off the edge blur
  const sIn = [Math.max(1, 0.25 * pxPerMm), Math.max(2, 0.55 * pxPerMm)];
  const sOut = [-Math.max(1.5, 0.5 * pxPerMm), -Math.max(2.5, 1.0 * pxPerMm)];
  let good = 0;
  const inner: number[][] = [];
  const shifts = [0, -1, 1, -2, 2]; // the hypothesis line may be a pixel or two off at this scale
  for (let i = 0; i < M; i++) {
    const t = (0.15 + (0.7 * (i + 0.5)) / M) * len;
    let ok = false;
    let firstMean: number[] | null = null;
    for (const d of shifts) {
      const bx = a[0] + t * dx + d * nx;
      const by = a[1] + t * dy + d * ny;
      const mean = [0, 0, 0];
      const vals: number[][] = [];
      for (const s of sIn) {
        sampleRgb(img, bx + s * nx, by + s * ny, px, 0);
        vals.push([px[0]!, px[1]!, px[2]!]);
        for (let ch = 0; ch < 3; ch++) mean[ch]! += px[ch]! / sIn.length;
      }
      firstMean ??= mean;
      let spread = 0;
      for (const v of vals) spread = Math.max(spread, Math.hypot(v[0]! - mean[0]!, v[1]! - mean[1]!, v[2]! - mean[2]!));
      const out = [0, 0, 0];
      for (const s of sOut) {
        sampleRgb(img, bx + s * nx, by + s * ny, px, 0);
        for (let ch = 0; ch < 3; ch++) out[ch]! += px[ch]! / sOut.length;
      }
      const step = Math.hypot(out[0]! - mean[0]!, out[1]! - mean[1]!, out[2]! - mean[2]!);
      if (spread < 14 && step > 20) {
        ok = true;
        inner.push(mean);
        break;
      }
    }
    if (ok) good++;
    else inner.push(firstMean!);
  }
  const colour: [number, number, number] = [
    median(inner.map((x) => x[0]!)),
    median(inner.map((x) => x[1]!)),
    median(inner.map((x) => x[2]!)),
  ];
  return { evidence: good / M, colour };
}

/** Largest pairwise colour mismatch (see colourMismatch) among the given colours. */
export function worstColourMismatch(colours: number[][]): number {
  let worst = 0;
  for (let i = 0; i < colours.length; i++) {
    for (let j = i + 1; j < colours.length; j++) worst = Math.max(worst, colourMismatch(colours[i]!, colours[j]!));
  }
  return worst;
}
