import { describe, expect, it } from '@jest/globals';
import type { CornerId } from '@cardlens/grading-rubric';
import type { RgbImage } from '../image/types';
import { measureOuter } from './outer';

const PPM = 10;
const BORDER: [number, number, number] = [226, 196, 52]; // a yellow TCG border
const ART: [number, number, number] = [92, 70, 130];
const TABLE: [number, number, number] = [28, 28, 30];

/** A clean rectified card (63 x 88 mm at 10 px/mm) whose corners are cut with the given radii (mm), on a dark table. */
function card(radiiMm: Record<CornerId, number>): RgbImage {
  const W = 63 * PPM;
  const H = 88 * PPM;
  const data = new Uint8Array(W * H * 3);
  const frame = 3 * PPM;
  // Share of the pixel on the card, from 4 x 4 samples (the arc's rim is anti-aliased as a photo's would be).
  const onCard = (x: number, y: number): number => {
    let n = 0;
    for (let sy = 0; sy < 4; sy++) {
      for (let sx = 0; sx < 4; sx++) {
        const px = x + (sx + 0.5) / 4;
        const py = y + (sy + 0.5) / 4;
        const corner: CornerId = py < H / 2 ? (px < W / 2 ? 'TL' : 'TR') : px < W / 2 ? 'BL' : 'BR';
        const r = radiiMm[corner] * PPM;
        const cx = px < W / 2 ? r : W - r;
        const cy = py < H / 2 ? r : H - r;
        const inCornerSquare = (px < W / 2 ? px < cx : px > cx) && (py < H / 2 ? py < cy : py > cy);
        if (!inCornerSquare || Math.hypot(px - cx, py - cy) <= r) n++;
      }
    }
    return n / 16;
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const inArt = x >= frame && x < W - frame && y >= frame && y < H - frame;
      const ink = inArt ? ART : BORDER;
      const a = inArt ? 1 : onCard(x, y);
      for (let k = 0; k < 3; k++) data[(y * W + x) * 3 + k] = Math.round(a * ink[k]! + (1 - a) * TABLE[k]!);
    }
  }
  return { width: W, height: H, data };
}

const measure = (radiiMm: Record<CornerId, number>) =>
  measureOuter(card(radiiMm), { pxPerMm: PPM, framePx: { left: 3 * PPM, right: 3 * PPM, top: 3 * PPM, bottom: 3 * PPM }, noise: 1 }).corners;
const rounding = (corners: ReturnType<typeof measure>) => Object.fromEntries(Object.entries(corners).map(([c, r]) => [c, r.roundingRadiusMm]));

describe('corner rounding against the factory cut', () => {
  it('a sports card cut at 1.5 mm shows no rounding', () => {
    for (const r of Object.values(rounding(measure({ TL: 1.5, TR: 1.5, BR: 1.5, BL: 1.5 })))) expect(r).toBeLessThan(0.15);
  });

  it('a trading card die-cut at 3 mm on all four corners is not worn: its own cut is the reference', () => {
    for (const r of Object.values(rounding(measure({ TL: 3, TR: 3, BR: 3, BL: 3 })))) expect(r).toBeLessThan(0.15);
  });

  it('one corner rounded beyond the other three is wear, measured against 1.5 mm like every corner of the card', () => {
    const r = rounding(measure({ TL: 3, TR: 3, BR: 4.6, BL: 3 }));
    expect(r.BR).toBeGreaterThan(2.6);
    for (const c of ['TL', 'TR', 'BL']) expect(r[c]).toBeGreaterThan(1.1);
  });
});
