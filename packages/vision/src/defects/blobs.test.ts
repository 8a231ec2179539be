import { describe, expect, it } from '@jest/globals';
import type { GrayImage } from '../image/types';
import { findScuffs, TEXT_GAP_MAX_LENGTH_MM } from './blobs';
import type { LineSegment } from './lines';

const PPM = 10;
const [W, H] = [63 * PPM, 88 * PPM];
const lum: GrayImage = { width: W, height: H, data: new Float32Array(W * H).fill(120) };

/** A faint bright mark `lengthMm` long centred at (xMm, yMm), at `angle` radians from the x axis. */
function mark(xMm: number, yMm: number, angle: number, lengthMm = 0.7): LineSegment {
  const n = Math.round(lengthMm * PPM);
  const points = Array.from({ length: n + 1 }, (_, k) => {
    const t = (k / n - 0.5) * lengthMm * PPM;
    return [xMm * PPM + t * Math.cos(angle), yMm * PPM + t * Math.sin(angle)] as [number, number];
  });
  const [[x0, y0], [x1, y1]] = [points[0]!, points[n]!];
  return { kind: 'scratch', polarity: 1, points, lengthPx: n, strength: 10, contrast: 0.15, angle, straightness: 0, asymmetry: 0.2, paired: 0, parallel: 0, clutter: 0, x0: Math.min(x0, x1), y0: Math.min(y0, y1), x1: Math.max(x0, x1), y1: Math.max(y0, y1) };
}

/** Five marks side by side along a row at y = 80 mm, as the gaps between letters of a line of flavour text. */
const row = (angle: number, lengthMm?: number) => [0, 1, 2, 3, 4].map((i) => mark(30 + 0.8 * i, 80, angle, lengthMm));

/** The text-line mask of one line of text, 28-36 mm across and 79-81 mm down. */
function textLine(): Uint8Array {
  const mask = new Uint8Array(W * H);
  for (let y = 79 * PPM; y < 81 * PPM; y++) mask.fill(1, y * W + 28 * PPM, y * W + 36 * PPM);
  return mask;
}

const opts = { pxPerMm: PPM, roi: [25, 25, W - 25, H - 25] as [number, number, number, number], noise: 2 };

describe('findScuffs: the gaps between letters are not a scuff', () => {
  it('vertical marks side by side on a text line are print; the same marks off text are a scuff', () => {
    expect(findScuffs(lum, row(Math.PI / 2), { ...opts, text: textLine() })).toEqual([]);
    expect(findScuffs(lum, row(Math.PI / 2), opts)).toHaveLength(1);
  });

  it('on a text line, marks abraded at another angle, or longer than letters are tall, are still a scuff', () => {
    expect(findScuffs(lum, row(Math.PI / 4), { ...opts, text: textLine() })).toHaveLength(1);
    expect(findScuffs(lum, row(Math.PI / 2, TEXT_GAP_MAX_LENGTH_MM + 0.4), { ...opts, text: textLine() })).toHaveLength(1);
  });
});
