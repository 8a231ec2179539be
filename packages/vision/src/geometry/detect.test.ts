import { describe, expect, it } from '@jest/globals';
import type { RgbImage } from '../image/types';
import { detectCardCoarse } from './detect';

// A card held up in a room (drawn at the detection scale, about 3.7 px per mm): its top against a dark wall, its
// lower half against a pale carpet, a silver border all round, and a pale bar across it where the art box ends,
// 63 x 0.716 = 45 mm below its top, so that the top, the two sides and that bar make a card lying sideways. The
// card's bottom edge is out of focus over a textured carpet: too faint to be a Hough line, as on the Sprigatito
// phone photo of the real set, whose outline stopped at the art box.
function heldCard(blurBottom: boolean): { image: RgbImage; card: { x0: number; x1: number; y0: number; y1: number; border: number } } {
  const width = 450;
  const height = 600;
  const card = { x0: 60, x1: 390, y0: 60, y1: 521 };
  const border = 12;
  const bar = card.y0 + Math.round((card.x1 - card.x0) * 0.716);
  const data = new Uint8Array(width * height * 3);
  const px = (x: number, y: number): [number, number, number] => {
    const inCard = x >= card.x0 && x < card.x1 && y >= card.y0 && y < card.y1;
    if (!inCard) return y < 0.4 * height ? [50, 45, 40] : [215, 205, 200];
    const inBorder = x < card.x0 + border || x >= card.x1 - border || y < card.y0 + border || y >= card.y1 - border;
    if (inBorder) return [150, 140, 140];
    if (y >= bar - 2 && y < bar + 2) return [230, 230, 230];
    return [70, 90, 30];
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(px(x, y), (y * width + x) * 3);
  }
  if (blurBottom) {
    // a vertical box blur 13 px tall over the card's bottom edge and its border
    const src = data.slice();
    for (let y = card.y1 - 20; y < card.y1 + 36; y++) {
      for (let x = 0; x < width; x++) {
        for (let c = 0; c < 3; c++) {
          let s = 0;
          for (let d = -6; d <= 6; d++) s += src[((y + d) * width + x) * 3 + c]!;
          data[(y * width + x) * 3 + c] = Math.round(s / 13);
        }
      }
    }
  }
  // sensor noise (a fixed sequence): a photo has no perfectly flat areas or two-pixel-wide gradient plateaus; with
  // the blur, the carpet's texture (+-15 levels) over the lowest fifth of the photo
  let seed = 12345;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const amp = blurBottom && i > 0.8 * data.length ? 31 : 7;
    data[i] = Math.max(0, Math.min(255, data[i]! + ((seed >>> 16) % amp) - (amp - 1) / 2));
  }
  return { image: { width, height, data }, card: { ...card, border } };
}

describe('detectCardCoarse: a card-shaped outline cut short by a line across the card', () => {
  it.each([
    ['sharp', false],
    ['out of focus', true],
  ])('the whole card is outlined when its bottom edge is %s, not its top 45 mm lying sideways', (_label, blur) => {
    const { image, card } = heldCard(blur);
    const found = detectCardCoarse(image);
    expect(found).not.toBeNull();
    const ys = found!.quad.map((p) => p[1]);
    const xs = found!.quad.map((p) => p[0]);
    // the card's edges or its border's inner edges (which of the two is the edge resolution's job, later)
    const near = (v: number, edge: number, inward: number): boolean => (inward > 0 ? v > edge - 4 && v < edge + inward + 4 : v < edge + 4 && v > edge + inward - 4);
    expect(near(Math.min(...ys), card.y0, card.border)).toBe(true);
    expect(near(Math.max(...ys), card.y1, -card.border)).toBe(true); // not the bar at y = 296
    expect(near(Math.min(...xs), card.x0, card.border)).toBe(true);
    expect(near(Math.max(...xs), card.x1, -card.border)).toBe(true);
  });
});
