import { describe, expect, it } from '@jest/globals';
import type { CenteringResult } from './geometry/centering';
import type { Quad } from './image/types';
import { outlineKeystone } from './geometry/quad';
import { cornersAtPhotoEdge, isFlatNonCardOutline, photoSupport, PHOTO_SUPPORT_LIMITS, sidesAtPhotoEdge } from './photo-support';

/** An upright card quad spanning pxPerMm pixels per mm. */
const quad = (pxPerMm: number): Quad => [[0, 0], [63 * pxPerMm, 0], [63 * pxPerMm, 88 * pxPerMm], [0, 88 * pxPerMm]];

/** Borders as measured, each fit at `confidence` but the top's, at `surest` (a frame's surest side). */
function centering(mm: { left: number; right: number; top: number; bottom: number }, confidence: number, surest = confidence): CenteringResult {
  const border = (side: 'left' | 'right' | 'top' | 'bottom') => ({
    side, widthMm: mm[side], outerOffsetMm: 0, frameMm: mm[side], frameTilt: 0, frameSigmaMm: 0.02, outerSigmaMm: 0.02, frameInliers: 1, outerInliers: 1,
    confidence: side === 'top' ? surest : confidence, borderSpread: 5,
  });
  return {
    leftMm: mm.left, rightMm: mm.right, topMm: mm.top, bottomMm: mm.bottom,
    leftRight: (100 * mm.left) / (mm.left + mm.right), topBottom: (100 * mm.top) / (mm.top + mm.bottom),
    confidence,
    borders: { left: border('left'), right: border('right'), top: border('top'), bottom: border('bottom') },
  };
}
const centred = centering({ left: 3, right: 3, top: 3, bottom: 3 }, 1);

// A card's proportions seen at an angle come with perspective: the side nearer the camera is the longer. An outline
// with equal opposite sides has to be a card's 0.716 within flatAspectTolerance.
describe('isFlatNonCardOutline', () => {
  const rect = (aspect: number): Quad => [[10, 10], [10 + 1000 * aspect, 10], [10 + 1000 * aspect, 1010], [10, 1010]];
  /** Width `aspect` of the height at mid-height, the top `keystone` shorter than the bottom. */
  const trapezoid = (aspect: number, keystone: number): Quad => {
    const w = 1000 * aspect;
    const dTop = (w * keystone) / 2;
    return [[dTop / 2, 0], [w - dTop / 2, 0], [w + dTop / 2, 1000], [-dTop / 2, 1000]];
  };

  it('takes a straight-on outline with a card\'s proportions, and one within the tolerance either way', () => {
    expect(isFlatNonCardOutline(rect(0.716))).toBe(false);
    expect(isFlatNonCardOutline(rect(0.75))).toBe(false);
    expect(isFlatNonCardOutline(rect(0.68))).toBe(false);
    expect(outlineKeystone(rect(0.75))).toBeCloseTo(0, 9);
  });

  it('rules out a straight-on outline 0.80 or 0.66 wide: no perspective makes a card look so (the lower half of a card, sideways)', () => {
    expect(isFlatNonCardOutline(rect(0.8))).toBe(true);
    expect(isFlatNonCardOutline(rect(0.66))).toBe(true);
  });

  it('takes the same proportions with perspective (a tilted card)', () => {
    expect(outlineKeystone(trapezoid(0.8, 0.1))).toBeGreaterThan(PHOTO_SUPPORT_LIMITS.flatOutlineMaxKeystone);
    expect(isFlatNonCardOutline(trapezoid(0.8, 0.1))).toBe(false);
  });

  it('photoSupport says why such an outline supports nothing', () => {
    const sideways = rect(0.8);
    const s = photoSupport({ quadPx: sideways, blurPx: 0.7, centering: centred });
    expect(s.notAssessed.centering).toBe(
      "the outline found is 0.8 as wide as it is tall with its opposite sides equal, so not a bare card's 0.72 seen at an angle: not the card's own edge (part of the card, or a holder's)",
    );
    expect(Object.keys(s.notAssessed).sort()).toEqual(['centering', 'corners', 'edges', 'surface']);
  });
});

describe('photoSupport', () => {
  it('corners of the outline at the photo\'s edge or beyond it: corners and edges are not assessed, saying how many', () => {
    // 20 px per mm: 5 px is 0.25 mm. The card's top-left corner 4 px in from the photo's left edge, or 3 px past it.
    const shifted = (dx: number): Quad => quad(20).map(([x, y]) => [x + dx, y + 40]) as unknown as Quad;
    const photo = { width: 63 * 20 + 80, height: 88 * 20 + 80 };
    expect(cornersAtPhotoEdge(shifted(40), photo)).toBe(0);
    expect(cornersAtPhotoEdge(shifted(4), photo)).toBe(2);
    expect(cornersAtPhotoEdge(shifted(-3), photo)).toBe(2);
    expect(cornersAtPhotoEdge(shifted(6), photo)).toBe(0);
    const s = photoSupport({ quadPx: shifted(4), blurPx: 0.7, centering: centred, cornersAtPhotoEdge: 2 });
    expect(s.notAssessed.corners).toBe(
      "2 corners of the card lie at the photo's edge or beyond it: the photo may have cut them, so whitening, chips and rounding there and along the edges cannot be told from the crop",
    );
    expect(s.notAssessed.edges).toBe(s.notAssessed.corners);
    expect(s.notAssessed.surface).toBeUndefined();
    expect(s.notAssessed.centering).toBeUndefined();
    expect(photoSupport({ quadPx: shifted(4), blurPx: 0.7, centering: centred, cornersAtPhotoEdge: 1 }).notAssessed.corners).toMatch(/^a corner of the card lies/);
  });

  it('a sharp photo with enough pixels on the card supports every aspect', () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred });
    expect(s.pxPerMm).toBeCloseTo(20, 6);
    expect(s.notAssessed).toEqual({});
  });

  it('too few pixels per mm: corners, edges and surface are not assessed, saying how many there are and are needed', () => {
    const s = photoSupport({ quadPx: quad(6), blurPx: 0.7, centering: centred });
    expect(Object.keys(s.notAssessed).sort()).toEqual(['corners', 'edges', 'surface']);
    expect(s.notAssessed.corners).toBe('the card spans 6 pixels per mm in the photo; 8 are needed to see wear of a few tenths of a mm');
    expect(photoSupport({ quadPx: quad(4), blurPx: 0.7, centering: centred }).notAssessed.centering).toMatch(/4 pixels per mm .* 5 are needed/);
  });

  it('a blurred photo: wear is not assessed, centering still is', () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 2.5, centering: centred });
    expect(s.blurMm).toBeCloseTo(0.25, 6);
    expect(s.notAssessed.surface).toMatch(/blurred by about 0.25 mm; at most 0.15 mm/);
    expect(s.notAssessed.centering).toBeUndefined();
  });

  it('an outline that is not a bare card\'s (a slab is about 0.6 as wide as tall) supports nothing', () => {
    const slab: Quad = [[0, 0], [60 * 20, 0], [60 * 20, 100 * 20], [0, 100 * 20]];
    const s = photoSupport({ quadPx: slab, blurPx: 0.7, centering: centred });
    expect(s.outlineAspect).toBeCloseTo(0.6, 6);
    expect(Object.keys(s.notAssessed).sort()).toEqual(['centering', 'corners', 'edges', 'surface']);
    expect(s.notAssessed.edges).toBe("the outline found is 0.6 as wide as it is tall, not a bare card's 0.72: a slab, top-loader or sleeve, or not the card's own edge");
  });

  it("a card in a graded slab: its corners, edges and surface are not assessed, saying where the slab's label is; centering is", () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, slab: { side: 'top', fromMm: 6.5, toMm: 19 } });
    expect(Object.keys(s.notAssessed).sort()).toEqual(['corners', 'edges', 'surface']);
    expect(s.notAssessed.corners).toBe(
      "the card is in a graded slab (its label lies 6.5-19 mm beyond the card's top edge): its corners and edges are seen through plastic beside the slab's well, whose shadow and walls cannot be told from whitening and wear",
    );
    expect(s.notAssessed.surface).toBe(
      "the card is in a graded slab (its label lies 6.5-19 mm beyond the card's top edge): its surface is seen through the slab's plastic, whose scratches, scuffs and reflections cannot be told from the card's own",
    );
    expect(s.slab).toEqual({ side: 'top', fromMm: 6.5, toMm: 19 });
    // Too few pixels: that reason comes first and covers the surface too.
    expect(photoSupport({ quadPx: quad(6), blurPx: 0.7, centering: centred, slab: { side: 'top', fromMm: 6.5, toMm: 19 } }).notAssessed.corners).toMatch(/pixels per mm/);
  });

  it("a side of the card along the photo's edge: its border is measured from where the photo ends, so centering is not assessed", () => {
    // 20 px per mm: 10 px is 0.5 mm. The card's top edge 8 px below the photo's top, then 12 px, then 3 px above it.
    const photo = { width: 63 * 20 + 80, height: 88 * 20 + 80 };
    const at = (dy: number): Quad => quad(20).map(([x, y]) => [x + 40, y + dy]) as unknown as Quad;
    expect(sidesAtPhotoEdge(at(40), photo)).toEqual([]);
    expect(sidesAtPhotoEdge(at(8), photo)).toEqual(['top']);
    expect(sidesAtPhotoEdge(at(12), photo)).toEqual([]);
    expect(sidesAtPhotoEdge(at(-3), photo)).toEqual(['top']);
    // One corner near the photo's border is not a side along it; a corner in the photo's corner makes two sides.
    const tilted: Quad = [[40, 4], [40 + 63 * 20, 30], [40 + 63 * 20, 30 + 88 * 20], [40, 4 + 88 * 20]];
    expect(sidesAtPhotoEdge(tilted, photo)).toEqual([]);
    const inCorner = quad(20).map(([x, y]) => [x + 2, y + 2]) as unknown as Quad;
    expect(sidesAtPhotoEdge(inCorner, photo)).toEqual(['top', 'left']);
    const s = photoSupport({ quadPx: at(8), blurPx: 0.7, centering: centred, sidesAtPhotoEdge: ['top'] });
    expect(s.notAssessed.centering).toBe(
      "the card's top edge lies along the photo's edge (within 0.5 mm of it, or beyond it): the photo may have cut the card there, and a border cannot be measured without the card's edge in view",
    );
    expect(s.notAssessed.surface).toBeUndefined();
    expect(photoSupport({ quadPx: inCorner, blurPx: 0.7, centering: centred, sidesAtPhotoEdge: ['top', 'left'] }).notAssessed.centering).toMatch(/^the card's top and left edges lie along/);
    // A photo taken as cropped to the card has every side at its edge; its own rule (its proportions) decides.
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, croppedPhoto: true, sidesAtPhotoEdge: ['top', 'right', 'bottom', 'left'] }).notAssessed.centering).toBeUndefined();
  });

  it("a photo cropped to the card: its corners and edges are the photo's and are not assessed; centering and surface are", () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, croppedPhoto: true });
    expect(Object.keys(s.notAssessed).sort()).toEqual(['corners', 'edges']);
    expect(s.notAssessed.edges).toMatch(/cropped to the card/);
  });

  it("a photo cropped to the card whose proportions are not a card's: its borders are not measured from the photo's frame", () => {
    // A 350 x 500 scan: taken at the card's 88 mm length, 61.6 mm wide where a card is 63.
    const scan: Quad = [[0, 0], [350, 0], [350, 500], [0, 500]];
    const s = photoSupport({ quadPx: scan, blurPx: 0.7, centering: centred, croppedPhoto: true });
    expect(s.notAssessed.centering).toMatch(/^the photo is cropped to the card, and its proportions \(0\.7 as wide as tall\) are not a card's \(0\.72\): 1\.4 mm off across the card's width/);
    // Within the limit (0.3 mm narrower) the frame is taken for the card's edges; an outline found in such a photo,
    // not the photo's frame, is measured as it is.
    const near: Quad = [[0, 0], [62.7 * 5.7, 0], [62.7 * 5.7, 88 * 5.7], [0, 88 * 5.7]];
    expect(photoSupport({ quadPx: near, blurPx: 0.7, centering: centred, croppedPhoto: true }).notAssessed.centering).toBeUndefined();
    expect(photoSupport({ quadPx: scan, blurPx: 0.7, centering: centred }).notAssessed.centering).toBeUndefined();
  });

  it('an outline with a stronger edge just outside it on some side: corners, edges and centering not assessed, saying on how many sides', () => {
    const one = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 1 });
    expect(Object.keys(one.notAssessed).sort()).toEqual(['centering', 'corners', 'edges']);
    expect(one.notAssessed.corners).toMatch(/^on 1 side of the card the outline found has a stronger edge up to 4 mm outside it/);
    expect(one.notAssessed.centering).toMatch(/^on 1 side of the card .* the borders would be measured from the face, not from the card's edge$/);
    // Too few pixels for wear: the borders are still not measured from the face.
    expect(photoSupport({ quadPx: quad(6), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 2 }).notAssessed.centering).toMatch(/^on 2 sides /);
    // In a slab the stronger edge outside may be the well's: the frame tests decide, and this one is centred and sure.
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 2, slab: { side: 'top', fromMm: 6.5, toMm: 19 } }).notAssessed.centering).toBeUndefined();
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 3 }).notAssessed.edges).toMatch(/^on 3 sides /);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 0 }).notAssessed).toEqual({});
    // Too few pixels says so first: that limit holds whatever the outline.
    expect(photoSupport({ quadPx: quad(6), blurPx: 0.7, centering: centred, sidesInsideStrongerEdge: 2 }).notAssessed.corners).toMatch(/6 pixels per mm/);
  });

  it('a card found inside a larger outline (a slab without its label in view, a top-loader): corners and edges not assessed', () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, withinHolder: true });
    expect(Object.keys(s.notAssessed).sort()).toEqual(['corners', 'edges']);
    expect(s.notAssessed.corners).toMatch(/inside a larger outline/);
    expect(s.slab).toBeNull();
    // The well's shadow along its edge is no more a printed border there than in a labelled slab.
    const rim = centering({ left: 2.75, right: 0.34, top: 2.82, bottom: 0.41 }, 0.8);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: rim, withinHolder: true }).notAssessed.centering).toMatch(/^in a holder, the line found 0.34 mm in on the right/);
  });

  it("an outline from the detector's second, looser look: only its centering is assessed, and a slab confirming it is graded as one", () => {
    const s = photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, secondLook: true });
    expect(Object.keys(s.notAssessed).sort()).toEqual(['corners', 'edges', 'surface']);
    expect(s.notAssessed.edges).toMatch(/second, looser look .* may be a holder's edge/);
    // A slab's label beside it says what it is: graded as a slab, saying so.
    const slab = { side: 'top' as const, fromMm: 6.5, toMm: 19 };
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centred, slab, secondLook: true }).notAssessed.surface).toMatch(/^the card is in a graded slab/);
    // Too few pixels says so first: that reason holds whatever found the outline.
    expect(photoSupport({ quadPx: quad(5), blurPx: 0.7, centering: centred, secondLook: true }).notAssessed.corners).toMatch(/pixels per mm/);
  });

  it('centering: borders so few pixels wide that one pixel is most of a centering grade are not measured, wherever the card is', () => {
    // 5.3 px per mm: borders of 0.6 and 0.65 mm are 3.2 and 3.4 px, and one pixel moves the share by 7.8 points.
    const edgeHugging = centering({ left: 0.65, right: 0.7, top: 0.6, bottom: 0.65 }, 0.9);
    const s = photoSupport({ quadPx: quad(5.3), blurPx: 0.7, centering: edgeHugging });
    expect(s.notAssessed.centering).toBe(
      "the top/bottom borders found are 3 and 3 pixels wide in the photo: one pixel in either line moves the share by up to 7.8 points (at most 4; a step of PSA's centering table is 5), too few pixels to measure them",
    );
    // The same shares at 20 px per mm (13-14 px): measured.
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: edgeHugging }).notAssessed.centering).toBeUndefined();
    // A generated card at its most off-centre (0.78 and 4.42 mm on an axis) at 5 px per mm: 3.3 points, measured.
    const offCentre = centering({ left: 0.78, right: 4.42, top: 3, bottom: 3 }, 0.9);
    expect(photoSupport({ quadPx: quad(5), blurPx: 0.7, centering: offCentre }).notAssessed.centering).toBeUndefined();
    // One thin border beside a wide one on the other axis: the axis that moves most is named.
    const oneThin = centering({ left: 2.6, right: 2.6, top: 1.8, bottom: 0.56 }, 0.9);
    expect(photoSupport({ quadPx: quad(5.4), blurPx: 0.7, centering: oneThin }).notAssessed.centering).toMatch(/^the top\/bottom borders found are 10 and 3 pixels wide/);
  });

  it("centering in a slab: a border narrower than a printed one is the well's shadow along the card's edge, and is not taken", () => {
    const slab = { side: 'top' as const, fromMm: 6.5, toMm: 19 };
    const rim = centering({ left: 2.75, right: 0.34, top: 2.82, bottom: 0.41 }, 0.8);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: rim, slab }).notAssessed.centering).toBe(
      "in a slab, the line found 0.34 mm in on the right and 0.41 mm in on the bottom is the shadow along the card's edge in the well, not its printed frame (a printed border is at least 0.7 mm wide)",
    );
    // Out of a slab the same reading is held to the frame test only (its lines form a frame: believed).
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: rim }).notAssessed.centering).toBeUndefined();
    // A slabbed card whose borders are printed ones is measured.
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centering({ left: 3.4, right: 2.6, top: 3, bottom: 3 }, 0.8), slab }).notAssessed.centering).toBeUndefined();
  });

  it('centering: where the bands taken for two borders vary like artwork, the design has no border to measure', () => {
    const art = centering({ left: 7.5, right: 8.9, top: 4.5, bottom: 6.5 }, 1);
    art.borders.top.borderSpread = 44;
    art.borders.bottom.borderSpread = 40;
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: art }).notAssessed.centering).toBe(
      'no printed border was found: the band taken for the top, bottom border varies like artwork (44, 40 levels; a printed border is one colour, within 20): a full-bleed design, or lines of its art',
    );
    // one patterned side (a stripe in the border) is not enough
    art.borders.bottom.borderSpread = 5;
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: art }).notAssessed.centering).toBeUndefined();
  });

  it('centering: a frame fit is believed while it costs nothing or while its lines form a frame (in a holder, only a confident one, whatever it reads)', () => {
    // Weak fits on three sides beside a sure one, as on generated off-centre cards (their surest side fits at 0.95+).
    const weakCentred = centering({ left: 3.1, right: 2.9, top: 3, bottom: 3 }, 0.2, 0.95);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakCentred }).notAssessed).toEqual({});
    const weakShifted = centering({ left: 4.2, right: 1.8, top: 3.5, bottom: 2.5 }, 0.2, 0.95);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakShifted }).notAssessed).toEqual({});
    // No side found surely: the lines are the design's, wherever the card is (a Finest refractor's art read 86/14).
    const nowhereSure = centering({ left: 6.3, right: 1, top: 3.2, bottom: 5.3 }, 0.07, 0.22);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: nowhereSure }).notAssessed.centering).toBe(
      "no line of a printed frame was found with confidence: the surest fit, the top border's, is 0.22 (at least one side must fit at 0.5 or better), so the lines found are likely the design's",
    );
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: centering({ left: 3.1, right: 2.9, top: 3, bottom: 3 }, 0.49) }).notAssessed.centering).toMatch(/^no line of a printed frame/);
    // In a slab a reading needs a frame found with confidence, whether or not its lines form one and whatever it
    // reads: on the real set's PSA slabs, weak fits whose lines formed a frame read 69/31 to 77/23 on cards PSA graded
    // 8-10, and weak fits read within 60/40 were 3-13 points off the hand-measured centering.
    const slab = { side: 'top' as const, fromMm: 6.5, toMm: 19 };
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakShifted, slab }).notAssessed.centering).toBe(
      "in a slab, the printed frame was not found with confidence (weakest fit: the left border, 0.2), and the edges beside it may be the holder's: its reading (70/30 on its worse axis) is not used",
    );
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakCentred, slab }).notAssessed.centering).toMatch(/^in a slab, .*\(52\/48 on its worse axis\) is not used$/);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakShifted, withinHolder: true }).notAssessed.centering).toMatch(/not found with confidence/);
    // An outline from the detector's second, looser look is as unsure as a holder's.
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: weakShifted, secondLook: true }).notAssessed.centering).toMatch(/not found with confidence/);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: { ...weakShifted, confidence: 0.5 }, slab }).notAssessed.centering).toBeUndefined();
    // The art's edge taken for the bottom frame line: 0.5 + 8 mm top-bottom against 6 mm left-right.
    const inArt = centering({ left: 3, right: 3, top: 0.5, bottom: 8 }, 0.2, 0.95);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: inArt }).notAssessed.centering).toBe(
      'the printed frame was not found with confidence (weakest fit: the left border, 0.2), and the lines found do not form a frame (left + right 6 mm, top + bottom 8.5 mm)',
    );
    // A confident fit is held to the same test: on real slabbed cards lines of the art fit well, and a frame they
    // make reads 85/15 on a card PSA graded 8 (bench:real).
    const confident = centering({ left: 3, right: 3, top: 0.5, bottom: 8 }, PHOTO_SUPPORT_LIMITS.centeringMinConfidence);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: confident }).notAssessed.centering).toBe(
      'the lines found do not form a frame (left + right 6 mm, top + bottom 8.5 mm)',
    );
    const confidentShifted = centering({ left: 4.5, right: 1.5, top: 3, bottom: 3 }, 1);
    expect(photoSupport({ quadPx: quad(20), blurPx: 0.7, centering: confidentShifted }).notAssessed).toEqual({});
  });
});
