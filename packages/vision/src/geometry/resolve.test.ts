import { describe, expect, it } from '@jest/globals';
import type { Quad, RgbImage } from '../image/types';
import { measureCentering } from './centering';
import { homographyFromCanonical } from './homography';
import { resolveCardEdges, SIDE_ENDS } from './resolve';

// Drawn at 10 px/mm: a card (63 x 88 mm, 3 mm corner radius) with a 2.5 mm white border around red art, on a
// black well, as in a slab scan. X0, Y0: the card's top-left corner.
const PX = 10;
const X0 = 60;
const Y0 = 70;
const W = 63 * PX;
const H = 88 * PX;
const BORDER = 2.5 * PX;
const STRIP = 0.85 * PX;

type Rgb = [number, number, number];

function drawCard(options: { background: Rgb; topShade?: boolean; sleeveGapPx?: number }): RgbImage {
  const width = W + 2 * X0;
  const height = H + 2 * Y0;
  const data = new Uint8Array(width * height * 3);
  const r = 3 * PX;
  const set = (x: number, y: number, c: Rgb): void => data.set(c, (y * width + x) * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x + 0.5 - X0;
      const v = y + 0.5 - Y0;
      // distance outside the rounded rectangle (negative inside)
      const cx = Math.min(Math.max(u, r), W - r);
      const cy = Math.min(Math.max(v, r), H - r);
      const outside = Math.hypot(u - cx, v - cy) - r;
      let c: Rgb = options.background;
      if (options.sleeveGapPx !== undefined) {
        // a sleeve's edge, a bright line 0.2 mm wide, sleeveGapPx outside the card, with the plastic's haze inside it
        if (outside > options.sleeveGapPx && outside <= options.sleeveGapPx + 2) c = [205, 205, 205];
        else if (outside > 0 && outside <= options.sleeveGapPx) c = [62, 62, 62];
      }
      if (outside <= 0) {
        const inArt = u > BORDER && u < W - BORDER && v > BORDER && v < H - BORDER;
        c = inArt ? [196, 78, 66] : [228, 226, 224];
      }
      // A slab's inner ridge over the middle of the card's top edge (6 mm clear of each corner): its lip and the
      // strip of card it shades are one grey, far darker than the border, so no step marks the card's edge there,
      // only the strip's inner edge.
      if (options.topShade && u > 6 * PX && u < W - 6 * PX && v > -3 * PX && v < STRIP) c = v < -1.5 * PX ? [24, 24, 26] : [110, 108, 104];
      set(x, y, c);
    }
  }
  return { width, height, data };
}

const trueQuad: Quad = [
  [X0, Y0],
  [X0 + W, Y0],
  [X0 + W, Y0 + H],
  [X0, Y0 + H],
];

describe('resolveCardEdges: the card past its corners (SIDE_ENDS)', () => {
  it("takes the top edge out across a shaded strip to where the card ends past both corners, and says how far", () => {
    const img = drawCard({ background: [6, 6, 8], topShade: true });
    // the outline as the detector left it on the slab scan: its top on the strip's inner edge
    const start: Quad = [
      [X0, Y0 + STRIP],
      [X0 + W, Y0 + STRIP],
      trueQuad[2],
      trueQuad[3],
    ];
    const resolved = resolveCardEdges(img, start);
    expect(resolved.sides[0]!.beyondEndsPx).toBeGreaterThan(STRIP - 1.5);
    expect(resolved.sides[0]!.beyondEndsPx).toBeLessThan(STRIP + 1.5);
    expect(resolved.quad[0][1]).toBeCloseTo(Y0, -0.3);
    expect(resolved.quad[1][1]).toBeCloseTo(Y0, -0.3);
    for (const k of [1, 2, 3]) expect(resolved.sides[k]!.beyondEndsPx).toBe(0);
  });

  it('leaves a card whose edge shows all along each side where it is', () => {
    const resolved = resolveCardEdges(drawCard({ background: [6, 6, 8] }), trueQuad);
    for (const side of resolved.sides) expect(side.beyondEndsPx).toBe(0);
    resolved.quad.forEach((corner, k) => {
      expect(Math.abs(corner[0] - trueQuad[k]![0])).toBeLessThan(1.5);
      expect(Math.abs(corner[1] - trueQuad[k]![1])).toBeLessThan(1.5);
    });
  });

  it("does not take a sleeve's edge just outside the card for the card's: the haze between is not the card", () => {
    const gap = 0.6 * PX;
    expect(gap).toBeGreaterThan(SIDE_ENDS.minOutMm * PX);
    const resolved = resolveCardEdges(drawCard({ background: [30, 30, 30], sleeveGapPx: gap }), trueQuad);
    for (const side of resolved.sides) expect(side.beyondEndsPx).toBe(0);
    expect(Math.abs(resolved.quad[0][1] - Y0)).toBeLessThan(1.5);
  });
});

describe('measureCentering: frameBeyondMm', () => {
  const img = drawCard({ background: [6, 6, 8], topShade: true });
  const cardToImage = homographyFromCanonical(trueQuad);

  it("without it, the shaded strip's inner edge is taken for the top frame line", () => {
    expect(measureCentering(img, cardToImage).topMm).toBeLessThan(1.2);
  });

  it("with it, the frame is looked for past the strip, and the top border is the printed one's", () => {
    const centering = measureCentering(img, cardToImage, { frameBeyondMm: { top: STRIP / PX } });
    expect(centering.topMm).toBeCloseTo(2.5, 0);
    expect(centering.bottomMm).toBeCloseTo(2.5, 0);
    expect(centering.topBottom).toBeGreaterThan(47);
    expect(centering.topBottom).toBeLessThan(53);
  });
});
