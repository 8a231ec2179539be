import { describe, expect, it } from '@jest/globals';
import { rotate180, rotateQuarter } from './extract';

// A 3 x 2 image whose pixels are numbered 1..6 row by row (one grey value per pixel).
const image = { width: 3, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6].flatMap((v) => [v, v, v])) };
const grey = (img: { data: Uint8Array }) => Array.from(img.data.filter((_, i) => i % 3 === 0));

describe('turning a rectified side', () => {
  it('a quarter turn clockwise puts the left column on top, read bottom to top', () => {
    const turned = rotateQuarter(image, true);
    expect([turned.width, turned.height]).toEqual([2, 3]);
    expect(grey(turned)).toEqual([4, 1, 5, 2, 6, 3]);
  });

  it('a quarter turn anticlockwise puts the right column on top, and undoes a clockwise one', () => {
    expect(grey(rotateQuarter(image, false))).toEqual([3, 6, 2, 5, 1, 4]);
    expect(grey(rotateQuarter(rotateQuarter(image, true), false))).toEqual(grey(image));
    expect(grey(rotateQuarter(rotateQuarter(image, true), true))).toEqual(grey(rotate180(image)));
  });
});
