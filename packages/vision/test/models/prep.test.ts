import { describe, it, expect } from '@jest/globals';
import type { RgbImage } from '../../src/image/types';
import { fromLetterbox } from '../../src/models/keypoints';
import { letterbox, orientedCrop, toInput } from '../../src/models/prep';
import { cornerPatch, edgePatch, CORNER_INPUT, EDGE_INPUT } from '../../src/models/severity';

function solid(width: number, height: number, rgb: [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(rgb, i * 3);
  return { width, height, data };
}

function paint(img: RgbImage, x0: number, y0: number, w: number, h: number, rgb: [number, number, number]): void {
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) img.data.set(rgb, (y * img.width + x) * 3);
}

const px = (d: Uint8Array, w: number, x: number, y: number) => Array.from(d.subarray((y * w + x) * 3, (y * w + x) * 3 + 3));

describe('model input preparation', () => {
  it('letterboxes with the aspect kept, centred, mid-grey padding, and maps points back', () => {
    const img = solid(400, 300, [255, 0, 0]);
    paint(img, 0, 0, 40, 30, [0, 0, 255]);
    const lb = letterbox(img, 128);
    expect(lb.scaleX).toBeCloseTo(128 / 400, 6);
    expect(lb.scaleY).toBeCloseTo(96 / 300, 6);
    expect([lb.offX, lb.offY]).toEqual([0, 16]);
    expect(px(lb.data, 128, 5, 5)).toEqual([128, 128, 128]); // padding
    expect(px(lb.data, 128, 2, 18)).toEqual([0, 0, 255]); // the blue block, top-left of the content
    expect(px(lb.data, 128, 100, 60)).toEqual([255, 0, 0]);
    const back = fromLetterbox(lb, [64, 64]);
    expect(back[0]).toBeCloseTo(200, 6);
    expect(back[1]).toBeCloseTo(150, 6);
  });

  it('area-averages when shrinking', () => {
    const img = solid(4, 2, [0, 0, 0]);
    paint(img, 0, 0, 1, 2, [200, 200, 200]);
    const out = orientedCrop(img, 0, 0, 4, 2, 2, 1, 'none');
    expect(px(out, 2, 0, 0)).toEqual([100, 100, 100]);
    expect(px(out, 2, 1, 0)).toEqual([0, 0, 0]);
  });

  it('normalises to [-1, 1]', () => {
    expect(Array.from(toInput(Uint8Array.of(0, 255)))).toEqual([-1, 1]);
  });

  it('turns every corner onto the top-left and every edge onto the top', () => {
    const side = solid(630, 880, [50, 50, 50]);
    // a white 3 px mark right at each card corner and along each outer edge's middle
    for (const [x, y] of [
      [0, 0],
      [627, 0],
      [627, 877],
      [0, 877],
    ] as const)
      paint(side, x, y, 3, 3, [255, 255, 255]);
    for (const c of ['TL', 'TR', 'BR', 'BL'] as const) {
      const p = cornerPatch(side, c);
      expect(px(p, CORNER_INPUT, 0, 0)[0]).toBeGreaterThan(200);
      expect(px(p, CORNER_INPUT, CORNER_INPUT - 1, CORNER_INPUT - 1)[0]).toBe(50);
    }
    paint(side, 0, 0, 630, 2, [255, 0, 0]); // top edge red
    paint(side, 628, 0, 2, 880, [0, 255, 0]); // right edge green
    paint(side, 0, 878, 630, 2, [0, 0, 255]); // bottom edge blue
    paint(side, 0, 0, 2, 880, [255, 255, 0]); // left edge yellow
    const expected = { top: [255, 0, 0], right: [0, 255, 0], bottom: [0, 0, 255], left: [255, 255, 0] } as const;
    for (const e of ['top', 'right', 'bottom', 'left'] as const) {
      const p = edgePatch(side, e);
      const row0 = px(p, EDGE_INPUT.along, EDGE_INPUT.along / 2, 0);
      // 48 px deep -> 24 rows: the first output row is the 2 px coloured line
      expect(row0).toEqual([...expected[e]]);
      expect(px(p, EDGE_INPUT.along, EDGE_INPUT.along / 2, EDGE_INPUT.depth - 1)).toEqual([50, 50, 50]);
    }
  });
});
