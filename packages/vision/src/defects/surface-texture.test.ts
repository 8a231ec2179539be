import { describe, expect, it } from '@jest/globals';
import type { RgbImage } from '../image/types';
import { mulberry32 } from '@cardlens/card-synth';
import { measureCondition } from './index';

const PPM = 10;
const W = 63 * PPM;
const H = 88 * PPM;

/** A clean rectified card: white border, a mid-grey art area (with some pixel noise, as a photo has). */
function card(seed: number): RgbImage {
  const rand = mulberry32(seed);
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const inArt = x >= 3 * PPM && x < W - 3 * PPM && y >= 3 * PPM && y < H - 3 * PPM;
      const level = (inArt ? 110 : 235) + Math.round((rand() - 0.5) * 4);
      data.fill(level, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return { width: W, height: H, data };
}

/** A bright antialiased stroke from (x0, y0) to (x1, y1) in mm, about 0.15 mm wide. */
function stroke(img: RgbImage, [x0, y0]: [number, number], [x1, y1]: [number, number], lift: number): void {
  const steps = Math.ceil(Math.hypot(x1 - x0, y1 - y0) * PPM * 3);
  const seen = new Set<number>();
  for (let i = 0; i <= steps; i++) {
    const x = (x0 + ((x1 - x0) * i) / steps) * PPM;
    const y = (y0 + ((y1 - y0) * i) / steps) * PPM;
    const p = Math.round(y) * W + Math.round(x);
    if (seen.has(p)) continue;
    seen.add(p);
    for (let k = 0; k < 3; k++) img.data[p * 3 + k] = Math.min(255, img.data[p * 3 + k]! + lift);
  }
}

const SCRATCH: [[number, number], [number, number]] = [[20, 30], [32, 38]];
const scratches = (img: RgbImage) => measureCondition(img).surface.filter((f) => f.kind === 'scratch').map((f) => ({ x: f.xMm, y: f.yMm, length: f.lengthMm }));

describe('scratches against the surface they cross', () => {
  it('a scratch across a calm surface is marked', () => {
    const img = card(1);
    stroke(img, ...SCRATCH, 30);
    expect(scratches(img).length).toBeGreaterThan(0);
  });

  it('the same line inside a field of short fragments (foil sparkle, busy art) is the field, not a scratch', () => {
    const img = card(1);
    stroke(img, ...SCRATCH, 30);
    // Sparkle: short bright fragments, about 0.4 per mm², at every angle, all around the line.
    const rand = mulberry32(7);
    for (let i = 0; i < 200; i++) {
      const cx = 14 + rand() * 24;
      const cy = 24 + rand() * 20;
      const a = rand() * Math.PI;
      const half = 0.5 + rand() * 0.4;
      stroke(img, [cx - half * Math.cos(a), cy - half * Math.sin(a)], [cx + half * Math.cos(a), cy + half * Math.sin(a)], 30);
    }
    expect(scratches(img)).toEqual([]);
  });
});
