import { beforeAll, describe, expect, it } from '@jest/globals';
import { renderCardSides } from '@cardlens/card-synth';
import type { Quad, RgbImage } from '../image/types';
import sharp from 'sharp';
import { analyzeSide } from '../engine';
import { isCardShapedOutline } from '../photo-support';
import { findSlabLabel, isCardInWell } from './holder';
import { homographyFromCanonical } from './homography';
import { frameBeyondMm, locateCardWithin, locateEndOf, turnLocated, type LocatedCard } from './locate';

// A slab's label says which way is up more surely than the layout model: turning a located card by 180 degrees
// must turn its corners and every per-side fit together, and twice must give it back.
describe('turnLocated', () => {
  const quadWork: Quad = [[10, 20], [110, 22], [108, 160], [12, 158]];
  const located = {
    quadWork,
    quadPx: quadWork.map(([x, y]) => [x * 2, y * 2]) as Quad,
    refined: {
      quad: quadWork,
      lines: ['top', 'right', 'bottom', 'left'],
      sigmaPx: [0.1, 0.2, 0.3, 0.4],
      inlierFraction: [0.9, 0.8, 0.7, 0.6],
      confidence: 0.9,
    },
    orientation: { quad: quadWork, flipped: false, margin: 0.05 },
  } as unknown as LocatedCard;

  it("turns the corners (TL <-> BR, TR <-> BL) with each side's fit, and records the flip", () => {
    const turned = turnLocated(located);
    expect(turned.quadWork).toEqual([quadWork[2], quadWork[3], quadWork[0], quadWork[1]]);
    expect(turned.quadPx[0]).toEqual([216, 320]);
    expect(turned.refined.lines as unknown).toEqual(['bottom', 'left', 'top', 'right']);
    expect(turned.refined.sigmaPx).toEqual([0.3, 0.4, 0.1, 0.2]);
    expect(turned.refined.inlierFraction).toEqual([0.7, 0.6, 0.9, 0.8]);
    expect(turned.orientation).toMatchObject({ flipped: true, quad: turned.quadWork });
    expect(located.quadWork).toEqual(quadWork); // the original is left as it was
  });

  it('turning twice gives the card back', () => {
    const back = turnLocated(turnLocated(located));
    expect(back.quadWork).toEqual(located.quadWork);
    expect(back.quadPx).toEqual(located.quadPx);
    expect(back.refined).toEqual(located.refined);
    expect(back.orientation.flipped).toBe(false);
  });
});

// The edge resolution's sides run from the outline's first corner as found; a card turned since (by the layout model
// or a slab's label) reads them the other way round.
describe('frameBeyondMm', () => {
  const quad: Quad = [[0, 0], [630, 0], [630, 880], [0, 880]]; // 10 px per mm
  const side = (beyondEndsPx: number) => ({ shift: 0, strongerStepOutside: false, beyondEndsPx, candidates: [] });
  const located = (flipped: boolean): LocatedCard =>
    ({
      quadWork: quad,
      quadPx: quad,
      refined: { quad, lines: [0, 1, 2, 3], sigmaPx: [0, 0, 0, 0], inlierFraction: [1, 1, 1, 1], confidence: 1 },
      resolved: { quad, score: 1, sides: [side(8.5), side(0), side(0), side(4)] },
      orientation: { quad, flipped, margin: 0.1 },
    }) as unknown as LocatedCard;

  it('gives, per side the card was taken out across a strip, how far in mm', () => {
    expect(frameBeyondMm(located(false))).toEqual({ top: 0.85, left: 0.4 });
  });

  it('on a turned card, the first side found is its bottom', () => {
    expect(frameBeyondMm(located(true))).toEqual({ bottom: 0.85, right: 0.4 });
    expect(frameBeyondMm(turnLocated(located(false)))).toEqual({ bottom: 0.85, right: 0.4 });
  });
});

// A drawn PSA-style slab around a generated card (10 px/mm): grey plastic walls, a printed white label above a dark
// well, the card in the well. The outline handed in is the slab's outer wall, as the detector finds on slab scans
// where the walls outscore the card.
describe('locateCardWithin', () => {
  let slab: RgbImage;
  const card = { x: 185, y: 440, w: 630, h: 880 };
  beforeAll(async () => {
    const sides = await renderCardSides(null, null, 900_410);
    const front = sides.front;
    const width = 1000;
    const height = 1500;
    const data = new Uint8Array(width * height * 3);
    const fill = (x0: number, y0: number, x1: number, y1: number, rgb: [number, number, number]) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.set(rgb, (y * width + x) * 3);
    };
    fill(0, 0, width, height, [28, 28, 30]);
    fill(40, 40, 960, 1460, [118, 121, 126]);
    fill(80, 90, 920, 300, [245, 245, 240]);
    for (let y = 120; y < 270; y += 36) fill(170, y, 420, y + 14, [25, 25, 25]);
    fill(card.x - 30, card.y - 30, card.x + card.w + 30, card.y + card.h + 30, [18, 18, 20]);
    for (let y = 0; y < front.height; y++) {
      for (let x = 0; x < front.width; x++) {
        const a = front.alpha[y * front.width + x]! / 255;
        const o = ((card.y + y) * width + card.x + x) * 3;
        for (let c = 0; c < 3; c++) data[o + c] = Math.round(front.data[(y * front.width + x) * 3 + c]! * a + data[o + c]! * (1 - a));
      }
    }
    slab = { width, height, data };
  }, 60_000);

  const expected = (): Quad => [[card.x, card.y], [card.x + card.w, card.y], [card.x + card.w, card.y + card.h], [card.x, card.y + card.h]];
  const cornerError = (q: Quad): number => Math.max(...q.map(([x, y], i) => Math.hypot(x - expected()[i]![0], y - expected()[i]![1])));
  const outline = (q: Quad) => ({ info: { width: 1000, height: 1500 }, work: slab, scaleX: 1, scaleY: 1, quadWork: q, quadPx: q }) as unknown as LocatedCard;

  it("inside the slab's walls finds the card-shaped well, with the label above it; inside the well, the card", () => {
    const well = locateCardWithin(outline([[40, 40], [960, 40], [960, 1460], [40, 1460]]))!;
    expect(well).not.toBeNull();
    expect(isCardShapedOutline(well.quadPx)).toBe(true);
    expect(findSlabLabel(well.work, homographyFromCanonical(well.quadWork))).toMatchObject({ side: 'top' });
    const inner = locateCardWithin(well)!;
    expect(cornerError(inner.quadWork)).toBeLessThan(3);
    expect(isCardInWell(slab, homographyFromCanonical(well.quadWork), homographyFromCanonical(inner.quadWork))).toBe(true);
    // The card and its own printed frame are not a well and a card: inside the frame is artwork, no dark gap.
    const frameInset = locateCardWithin(inner);
    if (frameInset) expect(isCardInWell(slab, homographyFromCanonical(inner.quadWork), homographyFromCanonical(frameInset.quadWork))).toBe(false);
  });

  it('the engine grades the card in the well, not the well, and knows it is in a slab', async () => {
    const jpeg = await sharp(Buffer.from(slab.data), { raw: { width: slab.width, height: slab.height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
    const side = await analyzeSide(new Uint8Array(jpeg));
    expect(cornerError(side.quadPx)).toBeLessThan(4);
    expect(side.support.slab).toMatchObject({ side: 'top' });
  }, 60_000);

  it("without a label in view, still grades the card in the well, not the slab's outline, and leaves its edges unassessed", async () => {
    // The label painted over with the slab's plastic: a slab photographed with its label cut off or unreadable.
    const unlabelled = Uint8Array.from(slab.data);
    for (let y = 90; y < 300; y++) for (let x = 80; x < 920; x++) unlabelled.set([118, 121, 126], (y * slab.width + x) * 3);
    const jpeg = await sharp(Buffer.from(unlabelled), { raw: { width: slab.width, height: slab.height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
    const side = await analyzeSide(new Uint8Array(jpeg));
    expect(side.support.slab).toBeNull();
    expect(cornerError(side.quadPx)).toBeLessThan(4);
    expect(side.support.notAssessed.corners).toMatch(/inside a larger outline/);
    expect(side.support.notAssessed.edges).toMatch(/inside a larger outline/);
    expect(side.support.notAssessed.surface).toBeUndefined();
  }, 60_000);

  it("in an outline of the label and the card together (as wide as the card), the card is the end with a card's proportions", () => {
    const tall: Quad = [[card.x, 90], [card.x + card.w, 90], [card.x + card.w, card.y + card.h], [card.x, card.y + card.h]];
    const located = { ...outline(tall), confidence: 1, orientation: { quad: tall, flipped: false, margin: 0.1 } } as LocatedCard;
    expect(cornerError(locateEndOf(located, 'bottom').quadWork)).toBeLessThan(3);
    // The other end is the label and the plastic under it, a card's height from the outline's top.
    const top = locateEndOf(located, 'top').quadWork;
    expect(Math.abs(top[0][1] - 90)).toBeLessThan(3);
    expect(Math.abs(top[3][1] - (90 + card.h))).toBeLessThan(6);
  });

  it('finds nothing in an outline too small to hold a card', () => {
    const tiny: Quad = [[100, 100], [120, 100], [120, 120], [100, 120]];
    expect(locateCardWithin(outline(tiny))).toBeNull();
  });
});
