import { describe, expect, it } from '@jest/globals';
import type { RgbImage } from '../image/types';
import { slabLabelImage } from '../evidence/slabLabel';
import { findCardInWell, findSlabLabel, hasDarkRim, photoWhiteGains } from './holder';
import { homographyFromCanonical } from './homography';

// A card 5 px/mm at (60, y0) in a drawn photo: in a slab (grey plastic, a printed white label beyond one edge),
// on a white table, and with labels that are not one (blank, cut by the photo's edge).
const PX = 5;
const W = 63 * PX;
const H = 88 * PX;

function photo(width: number, height: number, background: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(background, i * 3);
  return { width, height, data };
}
function fill(img: RgbImage, x0: number, y0: number, x1: number, y1: number, rgb: [number, number, number]): void {
  for (let y = Math.max(0, y0); y < Math.min(img.height, y1); y++) for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) img.data.set(rgb, (y * img.width + x) * 3);
}
/** The card: a coloured face with a yellow border. Returns its quad's homography. */
function card(img: RgbImage, x0: number, y0: number) {
  fill(img, x0, y0, x0 + W, y0 + H, [230, 200, 40]);
  fill(img, x0 + 3 * PX, y0 + 3 * PX, x0 + W - 3 * PX, y0 + H - 3 * PX, [70, 90, 160]);
  return homographyFromCanonical([[x0, y0], [x0 + W, y0], [x0 + W, y0 + H], [x0, y0 + H]]);
}
/** A label `fromMm`-`toMm` above the card at y0, with printed lines (or blank). */
function label(img: RgbImage, x0: number, y0: number, fromMm: number, toMm: number, printed = true): void {
  const top = y0 - toMm * PX;
  const bottom = y0 - fromMm * PX;
  fill(img, x0 - 2 * PX, top, x0 + W + 2 * PX, bottom, [245, 245, 240]);
  if (!printed) return;
  // Lines of text 1.5 mm tall every 2.5 mm, over a third of the width.
  for (let y = top + 2 * PX; y < bottom - 2 * PX; y += 2.5 * PX) fill(img, x0 + 4 * PX, Math.round(y), x0 + 24 * PX, Math.round(y + 1.5 * PX), [20, 20, 20]);
}

describe('findSlabLabel', () => {
  it("finds a graded slab's printed label beyond the card's top edge, with its extent", () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 180);
    label(img, 60, 180, 6, 20);
    const found = findSlabLabel(img, h);
    expect(found).toMatchObject({ side: 'top' });
    // Rows are 0.5 mm apart.
    expect(Math.abs(found!.fromMm - 6)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(found!.toMm - 20)).toBeLessThanOrEqual(0.5);
  });

  it('finds it beyond the bottom edge too (a card upside down, or a slab photographed turned)', () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 40);
    // Drawn below the card: the label rows, mirrored.
    fill(img, 40, 40 + H + 6 * PX, 60 + W + 10, 40 + H + 20 * PX, [245, 245, 240]);
    for (let y = 40 + H + 8 * PX; y < 40 + H + 18 * PX; y += 2.5 * PX) fill(img, 80, Math.round(y), 180, Math.round(y + 1.5 * PX), [20, 20, 20]);
    expect(findSlabLabel(img, h)).toMatchObject({ side: 'bottom' });
  });

  it('a card on a white table is not in a slab, however the light falls off', () => {
    const img = photo(W + 120, H + 260, [235, 235, 232]);
    const h = card(img, 60, 180);
    fill(img, 0, 0, W + 120, 60, [150, 150, 150]); // the table's far edge, 24 mm above the card
    expect(findSlabLabel(img, h)).toBeNull();
  });

  it('looks as far out as asked: a label 60-74 mm beyond the outline (the lower part of a card outlined) only with farMm', () => {
    const img = photo(W + 120, H + 420, [70, 72, 75]);
    const h = card(img, 60, 400);
    label(img, 60, 400, 60, 74);
    expect(findSlabLabel(img, h)).toBeNull();
    const found = findSlabLabel(img, h, 100);
    expect(found).toMatchObject({ side: 'top' });
    expect(Math.abs(found!.fromMm - 60)).toBeLessThanOrEqual(0.5);
  });

  it("finds a label that is white only for its photo: a slab under a shop's dim, cool light (the white point)", () => {
    // Everything at 55 % of the bright photo's levels, and bluer: the label reads (130, 138, 140), under 185.
    const dim = ([r, g, b]: [number, number, number]): [number, number, number] => [Math.round(r * 0.53), Math.round(g * 0.56), Math.round(b * 0.58)];
    const img = photo(W + 120, H + 260, dim([70, 72, 75]));
    const x0 = 60;
    const y0 = 180;
    fill(img, x0, y0, x0 + W, y0 + H, dim([230, 200, 40]));
    fill(img, x0 + 3 * PX, y0 + 3 * PX, x0 + W - 3 * PX, y0 + H - 3 * PX, dim([70, 90, 160]));
    fill(img, x0 - 2 * PX, y0 - 20 * PX, x0 + W + 2 * PX, y0 - 6 * PX, dim([245, 245, 240]));
    for (let y = y0 - 18 * PX; y < y0 - 8 * PX; y += 2.5 * PX) fill(img, x0 + 4 * PX, Math.round(y), x0 + 24 * PX, Math.round(y + 1.5 * PX), [10, 10, 10]);
    // A few specular highlights on the plastic do not set the photo's white.
    fill(img, 5, 5, 25, 25, [255, 255, 255]);
    const h = homographyFromCanonical([[x0, y0], [x0 + W, y0], [x0 + W, y0 + H], [x0, y0 + H]]);
    expect(findSlabLabel(img, h)).toMatchObject({ side: 'top' });
  });

  it("scales a dim photo's channels up to its white, by at most WHITE_POINT.maxGain, and leaves a bright one as it is", () => {
    // A scan: grey plastic, with a white label over a tenth of it.
    const bright = photo(100, 100, [120, 122, 126]);
    fill(bright, 0, 0, 100, 10, [255, 255, 255]);
    expect(photoWhiteGains(bright)).toEqual([1, 1, 1]);
    const dim = photo(100, 100, [170, 200, 100]);
    const [r, g, b] = photoWhiteGains(dim);
    expect(r).toBeCloseTo(255 / 170, 5);
    expect(g).toBeCloseTo(255 / 200, 5);
    expect(b).toBe(1.6);
  });

  it("a label right against the outline is found only when asked (againstOutline): the outline is then the slab's compartment, not a card", () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 180);
    label(img, 60, 180, 0, 14);
    expect(findSlabLabel(img, h)).toBeNull();
    const found = findSlabLabel(img, h, undefined, { againstOutline: true });
    expect(found).toMatchObject({ side: 'top', fromMm: 1 });
    expect(Math.abs(found!.toMm - 14)).toBeLessThanOrEqual(0.5);
    // A card on a white table, blank up to the table's far edge, is still not in a slab.
    const table = photo(W + 120, H + 260, [235, 235, 232]);
    const onTable = card(table, 60, 180);
    fill(table, 0, 0, W + 120, 60, [150, 150, 150]);
    expect(findSlabLabel(table, onTable, undefined, { againstOutline: true })).toBeNull();
  });

  it('a bounded white band with nothing printed on it is not a label', () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 180);
    label(img, 60, 180, 6, 20, false);
    expect(findSlabLabel(img, h)).toBeNull();
  });

  it('a white band that runs off the photo is not known to end, so it is not a label', () => {
    const img = photo(W + 120, H + 60 + 12 * PX, [70, 72, 75]);
    const h = card(img, 60, 12 * PX);
    label(img, 60, 12 * PX, 6, 20);
    expect(findSlabLabel(img, h)).toBeNull();
  });

  it('a printed sheet of paper beside part of the card (a cluttered desk) is not a label: it does not span the card', () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 180);
    // The sheet covers the left two thirds of the card's width, 6-20 mm beyond its top edge, with lines of print.
    fill(img, 0, 180 - 20 * PX, 60 + 44 * PX, 180 - 6 * PX, [245, 245, 240]);
    for (let y = 180 - 18 * PX; y < 180 - 8 * PX; y += 2.5 * PX) fill(img, 60 + 4 * PX, Math.round(y), 60 + 12 * PX, Math.round(y + 1.5 * PX), [20, 20, 20]);
    expect(findSlabLabel(img, h)).toBeNull();
  });

  it("rectifies the label found at 10 px/mm, the card's width and the label's rows with a margin, for OCR", () => {
    const img = photo(W + 120, H + 260, [70, 72, 75]);
    const h = card(img, 60, 180);
    label(img, 60, 180, 6, 20);
    const found = findSlabLabel(img, h)!;
    const crop = slabLabelImage(img, h, found)!;
    expect(crop.width).toBe(690); // 63 mm + 3 mm each side
    expect(Math.abs(crop.height - (found.toMm - found.fromMm + 6) * 10)).toBeLessThanOrEqual(1);
    // The label's white fills the middle of the crop; the slab's grey its margins.
    const at = (x: number, y: number) => crop.data[(y * crop.width + x) * 3]!;
    expect(at(40, Math.round(crop.height / 2))).toBeGreaterThan(230);
    expect(at(645, Math.round(crop.height / 2))).toBeGreaterThan(230);
    expect(at(345, 5)).toBeLessThan(100);
    // A label beside a landscape card is not read yet; one partly outside the photo is not either.
    expect(slabLabelImage(img, h, { ...found, side: 'left' })).toBeNull();
    expect(slabLabelImage(img, h, { ...found, toMm: 60 })).toBeNull();
  });
});

describe('hasDarkRim', () => {
  it("takes a slab's well (dark backing just inside its outline all round) for one, and a card for none", () => {
    const img = photo(W + 200, H + 200, [120, 122, 126]);
    // The well 3 mm larger than the card on every side, its dark backing showing around the card.
    fill(img, 100 - 3 * PX, 100 - 3 * PX, 100 + W + 3 * PX, 100 + H + 3 * PX, [18, 18, 20]);
    const cardInWell = card(img, 100, 100);
    const well = homographyFromCanonical([[100 - 3 * PX, 100 - 3 * PX], [100 + W + 3 * PX, 100 - 3 * PX], [100 + W + 3 * PX, 100 + H + 3 * PX], [100 - 3 * PX, 100 + H + 3 * PX]]);
    expect(hasDarkRim(img, well)).toBe(true);
    expect(hasDarkRim(img, cardInWell)).toBe(false);
  });

  it('is not fooled by one dark side (a card lying against a dark object)', () => {
    const img = photo(W + 200, H + 200, [200, 200, 200]);
    const h = card(img, 100, 100);
    fill(img, 100, 100, 100 + 3 * PX, 100 + H, [15, 15, 15]);
    expect(hasDarkRim(img, h)).toBe(false);
  });
});

describe('findCardInWell', () => {
  // A slab's well 4 mm larger than the card on every side: its dark backing, the wall's bright inner rim 1.5 mm in
  // from the outline (as on PSA scans), then the card; inside the card a near-black strip 4-5.5 mm above its bottom
  // edge (an illustrator line), with the blue face above it: three rises from dark on the bottom side.
  function slabWell() {
    const img = photo(W + 300, H + 300, [120, 122, 126]);
    const x0 = 150;
    const y0 = 150;
    const m = 4 * PX;
    fill(img, x0 - m, y0 - m, x0 + W + m, y0 + H + m, [14, 14, 16]);
    fill(img, x0 - m + 1.5 * PX, y0 - m + 1.5 * PX, x0 + W + m - 1.5 * PX, y0 + H + m - 1.5 * PX, [150, 150, 150]);
    fill(img, x0 - m + 2.5 * PX, y0 - m + 2.5 * PX, x0 + W + m - 2.5 * PX, y0 + H + m - 2.5 * PX, [14, 14, 16]);
    card(img, x0, y0);
    fill(img, x0 + 3 * PX, y0 + H - 5.5 * PX, x0 + W - 3 * PX, y0 + H - 4 * PX, [10, 10, 12]);
    const well = homographyFromCanonical([[x0 - m, y0 - m], [x0 + W + m, y0 - m], [x0 + W + m, y0 + H + m], [x0 - m, y0 + H + m]]);
    const expected = [[x0, y0], [x0 + W, y0], [x0 + W, y0 + H], [x0, y0 + H]];
    return { img, well, expected };
  }

  it("walks in from the well's walls past their bright rim to the card's edge, not to a dark line printed inside it", () => {
    const { img, well, expected } = slabWell();
    const quad = findCardInWell(img, well)!;
    expect(quad).not.toBeNull();
    for (let i = 0; i < 4; i++) expect(Math.hypot(quad[i]![0] - expected[i]![0]!, quad[i]![1] - expected[i]![1]!)).toBeLessThan(2);
  });

  it('walks as far in as asked: a card 12 mm in from the outline (a PSA label\'s plastic before the well) only with maxMm 15', () => {
    const img = photo(W + 300, H + 300, [120, 122, 126]);
    const x0 = 150;
    const y0 = 150;
    fill(img, x0 - 2 * PX, y0 - 2 * PX, x0 + W + 2 * PX, y0 + H + 2 * PX, [14, 14, 16]);
    card(img, x0, y0);
    // The outline reaches 12 mm above the card (to a label's edge): dark backing all the way down to the card.
    fill(img, x0 - 2 * PX, y0 - 12 * PX, x0 + W + 2 * PX, y0, [14, 14, 16]);
    const outline = homographyFromCanonical([[x0 - 2 * PX, y0 - 12 * PX], [x0 + W + 2 * PX, y0 - 12 * PX], [x0 + W + 2 * PX, y0 + H + 2 * PX], [x0 - 2 * PX, y0 + H + 2 * PX]]);
    expect(findCardInWell(img, outline)).toBeNull();
    const quad = findCardInWell(img, outline, 15)!;
    const expected = [[x0, y0], [x0 + W, y0], [x0 + W, y0 + H], [x0, y0 + H]];
    for (let i = 0; i < 4; i++) expect(Math.hypot(quad[i]![0] - expected[i]![0]!, quad[i]![1] - expected[i]![1]!)).toBeLessThan(2);
  });

  it('finds no card in an outline with no dark backing inside it (a bare card on a table)', () => {
    const img = photo(W + 200, H + 200, [120, 122, 126]);
    expect(findCardInWell(img, card(img, 100, 100))).toBeNull();
  });
});
