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
import { median, quantile } from '../defects/raster';
import type { RgbImage } from '../image/types';
import { applyHomography, CANONICAL_PX_PER_MM, CARD_HEIGHT_MM, CARD_WIDTH_MM, invertHomography, type Homography } from './homography';

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
  /** Near-white: the brightest channel at least this, and the channels within this share of it. */
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

/**
 * The slab label next to the card, or null. `cardToImage` maps canonical card pixels (CANONICAL_PX_PER_MM per mm,
 * 63 x 88 mm) to `image` pixels.
 */
export function findSlabLabel(image: RgbImage, cardToImage: Homography): SlabLabel | null {
  const L = SLAB_LIMITS;
  const geometry: Record<CardSide, { length: number; at: (along: number, out: number) => [number, number] }> = {
    top: { length: CARD_WIDTH_MM, at: (a, o) => [a, -o] },
    bottom: { length: CARD_WIDTH_MM, at: (a, o) => [a, CARD_HEIGHT_MM + o] },
    left: { length: CARD_HEIGHT_MM, at: (a, o) => [-o, a] },
    right: { length: CARD_HEIGHT_MM, at: (a, o) => [CARD_WIDTH_MM + o, a] },
  };
  const d = image.data;
  for (const [side, g] of Object.entries(geometry) as [CardSide, (typeof geometry)[CardSide]][]) {
    // Each row: near-white share, or null once the row leaves the photo.
    let runStart: number | null = null;
    let runRows = 0;
    let runInkedRows = 0;
    // Near-white samples and samples per quarter of the row, over the run.
    const quarterWhite = [0, 0, 0, 0];
    const quarterSamples = [0, 0, 0, 0];
    for (let out = L.nearMm; out <= L.farMm; out += L.rowStepMm) {
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
        const max = Math.max(d[i]!, d[i + 1]!, d[i + 2]!);
        const min = Math.min(d[i]!, d[i + 1]!, d[i + 2]!);
        if (max >= L.whiteMinLevel && max - min <= L.whiteMaxChroma * max) {
          white++;
          rowQuarterWhite[quarter]!++;
        } else if (max <= L.inkMaxLevel) ink++;
      }
      // Past the photo's edge: a band still open here is not known to end, so it is not a label.
      if (total - inside > L.maxOutsideShare * total) break;
      const isWhite = white / inside >= L.minWhiteShare;
      if (isWhite && runStart === null) {
        // White from the card's edge on: the card lies on white, not in a slab's well (which is darker plastic).
        if (out === L.nearMm) break;
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
  const P = CANONICAL_PX_PER_MM;
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
        const [x, y] = applyHomography(outline, at(a, d).map((v) => v * P) as [number, number]);
        const xi = Math.floor(x);
        const yi = Math.floor(y);
        if (xi < 0 || yi < 0 || xi >= image.width || yi >= image.height) continue;
        const i = (yi * image.width + xi) * 3;
        lums.push(0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!);
      }
    }
    return lums.length >= 10 && median(lums) <= WELL_LIMITS.gapMaxLum;
  });
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
  const lum = (xMm: number, yMm: number): number | null => {
    const [x, y] = applyHomography(inner, [xMm * P, yMm * P]);
    const xi = Math.floor(x);
    const yi = Math.floor(y);
    if (xi < 0 || yi < 0 || xi >= image.width || yi >= image.height) return null;
    const i = (yi * image.width + xi) * 3;
    return 0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!;
  };
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
