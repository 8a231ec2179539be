import { describe, expect, it } from '@jest/globals';
import { inkBlobs, inkBlobsOfPgm, lineEms, OcrAllowance } from './ocrWork';
import { pgm } from './readLines';
import type { TextLine } from './textLines';

/** A white image with black rectangles [x0, y0, x1, y1) drawn on it. */
function withRects(width: number, height: number, rects: [number, number, number, number][]): Uint8Array {
  const data = new Uint8Array(width * height).fill(255);
  for (const [x0, y0, x1, y1] of rects) for (let y = y0; y < y1; y++) data.fill(0, y * width + x0, y * width + x1);
  return data;
}

const line = (width: number, glyphHeight: number, y0 = 0): TextLine => ({
  x0: 0,
  y0,
  x1: width,
  y1: y0 + glyphHeight,
  polarity: 'dark',
  glyphHeight,
  glyphs: 1,
  contrast: 100,
  inkLuma: 0,
  spans: [[0, width]],
});

describe('ink blobs (what tesseract must lay out and classify)', () => {
  it('counts separate marks, joins marks touching at a corner (8-connected), and counts a U as one', () => {
    expect(inkBlobs(withRects(20, 10, [[1, 1, 3, 3], [6, 1, 8, 3], [11, 1, 13, 3]]), 20, 10)).toBe(3);
    // Diagonal neighbours: one blob.
    expect(inkBlobs(withRects(10, 10, [[1, 1, 3, 3], [3, 3, 5, 5]]), 10, 10)).toBe(1);
    // A U shape: two runs on top rows, joined by the bottom bar.
    expect(inkBlobs(withRects(10, 10, [[1, 1, 2, 8], [6, 1, 7, 8], [1, 7, 7, 8]]), 10, 10)).toBe(1);
    expect(inkBlobs(withRects(10, 10, []), 10, 10)).toBe(0);
  });

  it('reads a binary PGM, and counts a page of glyph-like marks by the hundred', () => {
    const marks: [number, number, number, number][] = [];
    for (let y = 2; y + 10 < 200; y += 14) for (let x = 2; x + 6 < 400; x += 10) marks.push([x, y, x + 6, y + 10]);
    const image = pgm(400, 200, withRects(400, 200, marks));
    expect(inkBlobsOfPgm(image)).toBe(marks.length);
    expect(marks.length).toBeGreaterThan(500);
    expect(inkBlobsOfPgm(Buffer.from('not an image'))).toBe(0);
  });
});

describe('OcrAllowance', () => {
  it("takes a reading's lines in the order given while their ems fit, skips the ones that do not, and says it cut the reading short", () => {
    expect(lineEms(line(300, 30))).toBe(10);
    const allowance = new OcrAllowance({ ems: 25, emsPerReading: 20, blobsPerCall: 100, blobs: 100 });
    const lines = [line(300, 30, 0), line(600, 30, 40), line(240, 30, 80), line(90, 30, 120)];
    // 10 ems, then 20 (would make 30: skipped), then 8, then 3 (would make 21, over the reading's 20: skipped).
    expect(allowance.take(lines)).toEqual([lines[0], lines[2]]);
    expect(allowance.spentEms).toBe(18);
    expect(allowance.largestReadingEms).toBe(18);
    expect(allowance.capped).toBe(true);
    // The next reading has its own 20 ems, but only 7 are left of the analysis's 25.
    expect(allowance.take([line(300, 30), line(90, 30)])).toEqual([expect.objectContaining({ x1: 90 })]);
    expect(allowance.spentEms).toBe(21);
  });

  it('a reading within every limit is not marked as cut', () => {
    const allowance = new OcrAllowance();
    expect(allowance.take([line(300, 30), line(200, 20)])).toHaveLength(2);
    expect(allowance.capped).toBe(false);
  });
});
