/**
 * Is the card in a graded slab? Every grading company's slab carries its label next to the card, inside the same
 * plastic: a printed, near-white band across the card's width, set a few mm off the card's edge (past the well)
 * and bounded on both sides by the slab's darker plastic. A bare card photographed on white paper or a white table
 * has white next to it too, but blank and unbounded (it runs to the photo's edge or far past a label's size); a
 * printed sheet lying beside it on a desk does not span the card's width.
 *
 * The label is looked for outside each of the card's four edges (a landscape card sits sideways in its slab), in
 * rows parallel to the edge, through the card's homography extrapolated past the card.
 *
 * In a slab the engine sees the card's edges and corners through plastic beside the holder's well, whose shadow and
 * walls it cannot tell from whitening and wear (GRADING.md, "Photos that cannot support a measurement").
 */
import { histogramQuantile, median, quantile } from '../defects/raster';
import type { Quad, RgbImage } from '../image/types';
import { outlineAspect } from './quad';
import { applyHomography, CANONICAL_PX_PER_MM, CARD_ASPECT, CARD_HEIGHT_MM, CARD_WIDTH_MM, invertHomography, type Homography } from './homography';

export type CardSide = 'top' | 'right' | 'bottom' | 'left';

export interface SlabLabel {
  /** The card edge the label lies beyond. */
  side: CardSide;
  /** Its near and far boundaries, mm out from the card's edge. */
  fromMm: number;
  toMm: number;
}

export const SLAB_LIMITS = {
  /** Rows are looked at from this far out from the card's edge (inside a slab's well, which is never white) ... */
  nearMm: 1,
  /** ... to this far (past any slab label). */
  farMm: 50,
  rowStepMm: 0.5,
  /** Along a row: inset from the card's corners and sample step (mm). */
  insetMm: 4,
  stepMm: 0.5,
  /** A label row: at least this share of it is near-white (bright and nearly grey). */
  minWhiteShare: 0.5,
  /**
   * Near-white: the brightest channel at least this, and the channels within this share of it, once each channel is
   * scaled by the photo's white point (photoWhiteGains).
   */
  whiteMinLevel: 185,
  whiteMaxChroma: 0.22,
  /** Printed on the label: rows with at least minInkShare of samples this dark (brightest channel) ... */
  inkMaxLevel: 110,
  minInkShare: 0.02,
  /** ... make up at least this share of the label's rows. */
  minInkedRows: 0.35,
  /** Over the label's rows, each quarter of its width is at least this share near-white. */
  minQuarterWhiteShare: 0.5,
  /** A label's extent across its rows (mm): the PSA labels of the real set measure 10-16.5 mm; 22 leaves room for taller ones. */
  labelMinMm: 6,
  labelMaxMm: 22,
  /** Rows with more than this share of their samples outside the photo end the search on that side. */
  maxOutsideShare: 0.2,
} as const;

export const WHITE_POINT = {
  /** A channel's white is this quantile of its levels over the photo (sampled every `stride` pixels) ... */
  quantile: 0.95,
  stride: 16,
  /** ... scaled up to 255 by at most this gain, never down. */
  maxGain: 1.6,
} as const;

/**
 * Per-channel gains that take the photo's white to 255 (a white patch at WHITE_POINT.quantile, so a few specular
 * highlights do not set it): a slab label under dim or warm light is white for that photo, not for a bright scan.
 * A phone photo of a PSA slab in a shop's display case shows its label at 105-140 levels with the photo's 95th
 * percentile at 150-168; a BGS label under warm light reads (250, 225, 190). Scans and daylight photos have their
 * white at 255 already and keep gains of 1.
 */
export function photoWhiteGains(image: RgbImage): [number, number, number] {
  const histograms = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  const d = image.data;
  let samples = 0;
  for (let i = 0; i < image.width * image.height; i += WHITE_POINT.stride) {
    for (let c = 0; c < 3; c++) histograms[c]![d[i * 3 + c]!]!++;
    samples++;
  }
  return histograms.map((histogram) => {
    const white = histogramQuantile(histogram, samples, WHITE_POINT.quantile);
    return Math.min(WHITE_POINT.maxGain, Math.max(1, 255 / Math.max(1, white)));
  }) as [number, number, number];
}

/** Luminance of `image` at (xMm, yMm) in the canonical frame of `cardToImage` (mm on the card), or null outside it. */
function lumAt(image: RgbImage, cardToImage: Homography, xMm: number, yMm: number): number | null {
  const [x, y] = applyHomography(cardToImage, [xMm * CANONICAL_PX_PER_MM, yMm * CANONICAL_PX_PER_MM]);
  const xi = Math.floor(x);
  const yi = Math.floor(y);
  if (xi < 0 || yi < 0 || xi >= image.width || yi >= image.height) return null;
  const i = (yi * image.width + xi) * 3;
  return 0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!;
}

/**
 * The slab label next to the card, or null. `cardToImage` maps canonical card pixels (CANONICAL_PX_PER_MM per mm,
 * 63 x 88 mm) to `image` pixels. With `againstOutline`, the label may begin right at the outline's edge: the outline
 * is then not a card (a card lies in a well apart from its label) but the slab's compartment around it, and the
 * caller looks for the card inside. Otherwise white from the edge on means the card lies on white.
 */
export function findSlabLabel(image: RgbImage, cardToImage: Homography, farMm: number = SLAB_LIMITS.farMm, options: { againstOutline?: boolean } = {}): SlabLabel | null {
  const L = SLAB_LIMITS;
  const geometry: Record<CardSide, { length: number; at: (along: number, out: number) => [number, number] }> = {
    top: { length: CARD_WIDTH_MM, at: (a, o) => [a, -o] },
    bottom: { length: CARD_WIDTH_MM, at: (a, o) => [a, CARD_HEIGHT_MM + o] },
    left: { length: CARD_HEIGHT_MM, at: (a, o) => [-o, a] },
    right: { length: CARD_HEIGHT_MM, at: (a, o) => [CARD_WIDTH_MM + o, a] },
  };
  const d = image.data;
  const [gainR, gainG, gainB] = photoWhiteGains(image);
  for (const [side, g] of Object.entries(geometry) as [CardSide, (typeof geometry)[CardSide]][]) {
    // Each row: near-white share, or null once the row leaves the photo.
    let runStart: number | null = null;
    let runRows = 0;
    let runInkedRows = 0;
    // Near-white samples and samples per quarter of the row, over the run.
    const quarterWhite = [0, 0, 0, 0];
    const quarterSamples = [0, 0, 0, 0];
    for (let out = L.nearMm; out <= farMm; out += L.rowStepMm) {
      let white = 0;
      let ink = 0;
      let inside = 0;
      let total = 0;
      const rowQuarterWhite = [0, 0, 0, 0];
      const rowQuarterSamples = [0, 0, 0, 0];
      for (let a = L.insetMm; a <= g.length - L.insetMm; a += L.stepMm) {
        total++;
        const [xMm, yMm] = g.at(a, out);
        const [x, y] = applyHomography(cardToImage, [xMm * CANONICAL_PX_PER_MM, yMm * CANONICAL_PX_PER_MM]);
        const xi = Math.floor(x);
        const yi = Math.floor(y);
        if (xi < 0 || yi < 0 || xi >= image.width || yi >= image.height) continue;
        inside++;
        const quarter = Math.min(3, Math.floor(((a - L.insetMm) / (g.length - 2 * L.insetMm)) * 4));
        rowQuarterSamples[quarter]!++;
        const i = (yi * image.width + xi) * 3;
        const [r, gr, b] = [d[i]! * gainR, d[i + 1]! * gainG, d[i + 2]! * gainB];
        const max = Math.max(r, gr, b);
        const min = Math.min(r, gr, b);
        if (max >= L.whiteMinLevel && max - min <= L.whiteMaxChroma * max) {
          white++;
          rowQuarterWhite[quarter]!++;
        } else if (Math.max(d[i]!, d[i + 1]!, d[i + 2]!) <= L.inkMaxLevel) ink++;
      }
      // Past the photo's edge: a band still open here is not known to end, so it is not a label.
      if (total - inside > L.maxOutsideShare * total) break;
      const isWhite = white / inside >= L.minWhiteShare;
      if (isWhite && runStart === null) {
        // White from the card's edge on: the card lies on white, not in a slab's well (which is darker plastic).
        if (out === L.nearMm && !options.againstOutline) break;
        runStart = out;
        runRows = 0;
        runInkedRows = 0;
        quarterWhite.fill(0);
        quarterSamples.fill(0);
      }
      if (isWhite) {
        runRows++;
        if (ink >= L.minInkShare * inside) runInkedRows++;
        for (let q = 0; q < 4; q++) {
          quarterWhite[q]! += rowQuarterWhite[q]!;
          quarterSamples[q]! += rowQuarterSamples[q]!;
        }
      } else if (runStart !== null) {
        const extent = out - runStart;
        // A label is printed across its height (name, grade, barcode); paper or a table under the card is blank,
        // however its light falls off. And it spans the card's width: a sheet of paper lying across one corner of
        // the card (a cluttered desk) leaves a quarter of the rows dark.
        const spans = quarterWhite.every((w, q) => w >= L.minQuarterWhiteShare * quarterSamples[q]!);
        if (extent >= L.labelMinMm && extent <= L.labelMaxMm && runInkedRows >= L.minInkedRows * runRows && spans) return { side, fromMm: runStart, toMm: out };
        runStart = null;
      }
    }
  }
  return null;
}

export const WELL_LIMITS = {
  /** The gap between the card and its well's wall (mm, every side). PSA wells leave 0.5-4 mm. */
  gapMinMm: 0.3,
  gapMaxMm: 6,
  /** The gap is the well's dark backing: its median luminance at most this ... */
  gapMaxLum: 70,
  /** ... and the card's ring just inside its edge (0.3-1 mm, the printed border) this much brighter. */
  ringMinStep: 40,
  /** The ring is one printed colour: the spread (interquartile, luminance) of its samples along a side. */
  ringMaxSpread: 30,
} as const;

/**
 * Could `outline` be a slab's well rather than a card: just inside it on every side, the well's dark backing (the
 * gap around a card in it, WELL_LIMITS.gapMaxLum). A cheap test before the card is looked for inside it; a card
 * with a black border passes it too, and isCardInWell then tells the two apart.
 */
export function hasDarkRim(image: RgbImage, outline: Homography): boolean {
  const sides: ((a: number, d: number) => [number, number])[] = [
    (a, d) => [a * CARD_WIDTH_MM, d],
    (a, d) => [CARD_WIDTH_MM - d, a * CARD_HEIGHT_MM],
    (a, d) => [a * CARD_WIDTH_MM, CARD_HEIGHT_MM - d],
    (a, d) => [d, a * CARD_HEIGHT_MM],
  ];
  return sides.every((at) => {
    const lums: number[] = [];
    for (let a = 0.15; a <= 0.85; a += 0.05) {
      for (const d of [0.6, 1]) {
        const v = lumAt(image, outline, ...at(a, d));
        if (v !== null) lums.push(v);
      }
    }
    return lums.length >= 10 && median(lums) <= WELL_LIMITS.gapMaxLum;
  });
}

export const WELL_WALK = {
  /** Profiles per side, spread over its middle 80 %. */
  profiles: 41,
  /** Walked in from the well's outline up to this far (mm, its canonical frame), in steps of stepMm. */
  maxMm: 10,
  stepMm: 0.1,
  /** An edge: dark (WELL_LIMITS.gapMaxLum) over outsideMm just outside it, ringMinStep brighter over ringMm inside. */
  outsideMm: [0.1, 0.4],
  ringMm: [0.1, 0.4],
  /** Rises within this of one another (mm) on different profiles are one line; at least minShare of them make one. */
  inlierMm: 0.4,
  minShare: 0.5,
  /** The band 0.3-1 mm inside a side's line: the spread (interquartile, luminance) of its profiles' medians. */
  ringMaxSpread: 60,
  /** Lines looked at per side, innermost first. */
  maxCandidates: 3,
  /** The card found: width over height within this of a card's 0.716. */
  maxAspectError: 0.03,
} as const;

type WallLine = { c: number; m: number; mid: number };

/**
 * The card lying in a slab's well whose outline is `well` (a card-to-image homography), found by walking in from
 * each wall: every rise from the well's dark backing to something clearly brighter (WELL_LIMITS.ringMinStep) is an
 * edge candidate (its steepest point); a side's candidate lines are offsets that most profiles agree on and whose
 * inside is one colour along the side (the card's printed border, WELL_WALK.ringMaxSpread), up to three, innermost
 * first; and the four lines that make a card's proportions best are the card's. Neither the outermost nor the
 * innermost line will do: PSA wells show their walls' inner rims as bright strips between the outline and the card,
 * and a card may carry a near-black strip just inside its edge (an illustrator line) from which its print rises to
 * a uniform band too. The four lines' corners in `image` pixels (TL, TR, BR, BL, the well's own order), or null
 * where a side has no such line or no four make a card (within WELL_WALK.maxAspectError). The classical detector,
 * run inside the well, often picks a box of the card's print instead (its art or text box, also card-shaped).
 * Each side is walked in up to `maxMm` (the well's canonical mm).
 */
export function findCardInWell(image: RgbImage, well: Homography, maxMm: number = WELL_WALK.maxMm): Quad | null {
  const W = { ...WELL_WALK, maxMm };
  const P = CANONICAL_PX_PER_MM;
  const lum = (xMm: number, yMm: number): number => lumAt(image, well, xMm, yMm) ?? NaN;
  // Each side: its length, and the point `d` mm in from it at `a` mm along (in the well's canonical mm).
  const sides: { length: number; at: (a: number, d: number) => [number, number] }[] = [
    { length: CARD_WIDTH_MM, at: (a, d) => [a, d] },
    { length: CARD_HEIGHT_MM, at: (a, d) => [CARD_WIDTH_MM - d, a] },
    { length: CARD_WIDTH_MM, at: (a, d) => [a, CARD_HEIGHT_MM - d] },
    { length: CARD_HEIGHT_MM, at: (a, d) => [d, a] },
  ];
  const steps = (mm: number) => Math.round(mm / W.stepMm);
  const bandMedian = (profile: number[], i: number, from: number, to: number, sign: 1 | -1) => {
    const vals: number[] = [];
    for (let k = steps(from); k <= steps(to); k++) {
      const v = profile[i + sign * k];
      if (v !== undefined && Number.isFinite(v)) vals.push(v);
    }
    return vals.length ? median(vals) : NaN;
  };
  // Each side's candidate lines, innermost first.
  const candidates: WallLine[][] = [];
  for (const side of sides) {
    // Per profile: its samples, and the offsets (mm) where it rises from the dark backing.
    const profiles: { a: number; profile: number[]; rises: number[] }[] = [];
    for (let k = 0; k < W.profiles; k++) {
      const a = side.length * (0.1 + (0.8 * k) / (W.profiles - 1));
      const profile: number[] = [];
      for (let d = 0; d <= W.maxMm + W.ringMm[1]; d += W.stepMm) profile.push(lum(...side.at(a, d)));
      const rises: number[] = [];
      for (let i = steps(W.outsideMm[1]); i <= steps(W.maxMm); i++) {
        const outside = bandMedian(profile, i, W.outsideMm[0], W.outsideMm[1], -1);
        const inside = bandMedian(profile, i, W.ringMm[0], W.ringMm[1], 1);
        if (outside <= WELL_LIMITS.gapMaxLum && inside >= outside + WELL_LIMITS.ringMinStep) {
          // The edge: the steepest rise near where the bands first differ enough.
          let edge = i;
          for (let j = Math.max(1, i - steps(0.3)); j <= i + steps(0.3) && j + 1 < profile.length; j++) {
            if (profile[j + 1]! - profile[j - 1]! > profile[edge + 1]! - profile[edge - 1]!) edge = j;
          }
          rises.push(edge * W.stepMm);
          i = edge + steps(W.ringMm[1]); // one rise per edge
        }
      }
      profiles.push({ a, profile, rises });
    }
    // A line: an offset most profiles rise at (within inlierMm), with one colour inside it along the side.
    const offsets = [...new Set(profiles.flatMap((p) => p.rises))].sort((x, y) => y - x);
    const lines: WallLine[] = [];
    for (const d0 of offsets) {
      if (lines.some((l) => Math.abs(l.c - d0) <= W.inlierMm)) continue;
      const kept: [number, number, number[]][] = [];
      for (const p of profiles) {
        const near = p.rises.filter((d) => Math.abs(d - d0) <= W.inlierMm);
        if (near.length) kept.push([p.a, near.reduce((m, d) => (Math.abs(d - d0) < Math.abs(m - d0) ? d : m)), p.profile]);
      }
      if (kept.length < W.minShare * W.profiles) continue;
      const ring = kept.map(([, d, profile]) => bandMedian(profile, steps(d), 0.3, 1, 1)).filter(Number.isFinite);
      if (ring.length < W.minShare * W.profiles || quantile(ring, 0.75) - quantile(ring, 0.25) > W.ringMaxSpread) continue;
      const mid = side.length / 2;
      const ma = kept.reduce((t, [a]) => t + (a - mid), 0) / kept.length;
      const md = kept.reduce((t, [, d]) => t + d, 0) / kept.length;
      const sxx = kept.reduce((t, [a]) => t + (a - mid - ma) ** 2, 0);
      const sxy = kept.reduce((t, [a, d]) => t + (a - mid - ma) * (d - md), 0);
      const m = sxx > 0 ? sxy / sxx : 0;
      lines.push({ c: md - m * ma, m, mid });
      if (lines.length === W.maxCandidates) break;
    }
    if (!lines.length) return null;
    candidates.push(lines);
  }
  const inset = (l: WallLine, a: number) => l.c + l.m * (a - l.mid);
  // Each corner where its two sides' lines cross; the lines are near the axes, so a few substitutions converge.
  const corner = (xOf: (y: number) => number, yOf: (x: number) => number): [number, number] => {
    let x = xOf(0);
    let y = yOf(x);
    for (let i = 0; i < 4; i++) {
      x = xOf(y);
      y = yOf(x);
    }
    return [x, y];
  };
  const quadOf = (top: WallLine, right: WallLine, bottom: WallLine, left: WallLine): Quad =>
    [
      corner((y) => inset(left, y), (x) => inset(top, x)),
      corner((y) => CARD_WIDTH_MM - inset(right, y), (x) => inset(top, x)),
      corner((y) => CARD_WIDTH_MM - inset(right, y), (x) => CARD_HEIGHT_MM - inset(bottom, x)),
      corner((y) => inset(left, y), (x) => CARD_HEIGHT_MM - inset(bottom, x)),
    ].map(([x, y]) => applyHomography(well, [x * P, y * P])) as Quad;
  // The four lines that make a card's proportions best (a line of the print inside the card makes it too short or
  // too narrow); among equals, the innermost.
  let best: { quad: Quad; error: number } | null = null;
  const [tops, rights, bottoms, lefts] = candidates as [WallLine[], WallLine[], WallLine[], WallLine[]];
  for (const t of tops) for (const r of rights) for (const b of bottoms) for (const l of lefts) {
    const quad = quadOf(t, r, b, l);
    const error = Math.abs(outlineAspect(quad) - CARD_ASPECT);
    if (!best || error < best.error - 1e-3) best = { quad, error };
  }
  return best && best.error <= W.maxAspectError ? best.quad : null;
}

/**
 * Is `inner` the card lying in a slab's well whose wall is `outer`? On every side: a gap of the well's dark backing
 * between the two outlines, and just inside `inner` a uniform band clearly brighter than the gap (the card's printed
 * border). A card whose own border is black, found inside its frame line, fails the last test: inside the frame is
 * the artwork, not one colour. Both outlines are card-to-image homographies of `image`.
 */
export function isCardInWell(image: RgbImage, outer: Homography, inner: Homography): boolean {
  const L = WELL_LIMITS;
  const P = CANONICAL_PX_PER_MM;
  const toInner = invertHomography(inner);
  const lum = (xMm: number, yMm: number): number | null => lumAt(image, inner, xMm, yMm);
  // Each side: where along it (mm), and a point `out` mm outside the inner card's edge at `along`.
  const sides = [
    { length: CARD_WIDTH_MM, at: (a: number, out: number): [number, number] => [a, -out], mid: [CARD_WIDTH_MM / 2, 0] as const },
    { length: CARD_HEIGHT_MM, at: (a: number, out: number): [number, number] => [CARD_WIDTH_MM + out, a], mid: [CARD_WIDTH_MM, CARD_HEIGHT_MM / 2] as const },
    { length: CARD_WIDTH_MM, at: (a: number, out: number): [number, number] => [a, CARD_HEIGHT_MM + out], mid: [CARD_WIDTH_MM / 2, CARD_HEIGHT_MM] as const },
    { length: CARD_HEIGHT_MM, at: (a: number, out: number): [number, number] => [-out, a], mid: [0, CARD_HEIGHT_MM / 2] as const },
  ];
  for (const s of sides) {
    // The wall's side midpoint in the inner card's mm: how far outside the card it lies.
    const [ox, oy] = applyHomography(toInner, applyHomography(outer, [s.mid[0] * P, s.mid[1] * P]));
    const gapMm = Math.max(Math.abs(ox / P - s.mid[0]), Math.abs(oy / P - s.mid[1]));
    if (!(gapMm >= L.gapMinMm && gapMm <= L.gapMaxMm)) return false;
    const gap: number[] = [];
    const ring: number[] = [];
    for (let a = 0.15 * s.length; a <= 0.85 * s.length; a += 0.05 * s.length) {
      for (const f of [0.35, 0.5, 0.65]) {
        const v = lum(...s.at(a, f * gapMm));
        if (v !== null) gap.push(v);
      }
      const inside = [0.3, 0.5, 0.7, 1].map((d) => lum(...s.at(a, -d))).filter((v): v is number => v !== null);
      if (inside.length) ring.push(median(inside));
    }
    if (gap.length < 10 || ring.length < 10) return false;
    const g = median(gap);
    if (g > L.gapMaxLum || median(ring) < g + L.ringMinStep) return false;
    if (quantile(ring, 0.75) - quantile(ring, 0.25) > L.ringMaxSpread) return false;
  }
  return true;
}
