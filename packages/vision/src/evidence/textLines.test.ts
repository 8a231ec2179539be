import { describe, expect, it } from '@jest/globals';
import type { RgbImage } from '../image/types';
import { findTextLines, hasGrainyBand } from './textLines';

/** A light ground with uniform noise of ± `noise` levels and a word of 8 dark hollow letters (16 x 24 px) on it. */
function word(noise: number): RgbImage {
  const width = 320;
  const height = 90;
  const data = new Uint8Array(width * height * 3);
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const k = x - 40;
      const inLetter = y >= 33 && y < 57 && k >= 0 && k < 8 * 22 && k % 22 < 16;
      const stroke = inLetter && (k % 22 < 4 || k % 22 >= 12 || y < 37 || y >= 53);
      const v = stroke ? 40 : Math.round(190 + (2 * random() - 1) * noise);
      data.set([v, v, v], (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

const wordLine = (img: RgbImage, grainy: boolean) => findTextLines(img, { grainy }).lines.find((l) => l.glyphs >= 6 && l.x0 <= 42 && l.x1 >= 210);

describe('findTextLines on a grainy ground', () => {
  it('finds a word on a clean ground either way', () => {
    const img = word(4);
    expect(hasGrainyBand(findTextLines(img).maps)).toBe(false);
    expect(wordLine(img, false)).toBeDefined();
    expect(wordLine(img, true)).toBeDefined();
  });

  it('loses the word to the speckle at the fixed threshold, and finds it with the grainy threshold', () => {
    const img = word(45);
    expect(hasGrainyBand(findTextLines(img).maps)).toBe(true);
    expect(wordLine(img, false)).toBeUndefined();
    const line = wordLine(img, true);
    expect(line).toBeDefined();
    expect(line!.y0).toBeGreaterThanOrEqual(31);
    expect(line!.y1).toBeLessThanOrEqual(59);
  });
});
