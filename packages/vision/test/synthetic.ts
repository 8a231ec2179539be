// Exact synthetic card photos for geometry tests: an analytic card (rounded outline, uniform border, inner
// frame at known offsets, busy art) mapped by a known homography into a cluttered, noisy photo. Each photo pixel
// is the average of 4x4 analytic sub-samples, so the truth (corners, borders) is exact to well below 0.1 px.
import sharp from 'sharp';
import { mulberry32 } from '@cardlens/card-synth';
import type { Point, Quad, RgbImage } from '../src/image/types';
import { applyHomography, homographyFromPoints, invertHomography } from '../src/geometry/homography';


export interface SyntheticCard {
  /** border widths in mm */
  leftMm: number;
  rightMm: number;
  topMm: number;
  bottomMm: number;
  border: [number, number, number];
  cornerRadiusMm?: number;
}

export interface SyntheticScene {
  width: number;
  height: number;
  /** card corners TL,TR,BR,BL in photo pixels (continuous coordinates) */
  quad: Quad;
  card: SyntheticCard;
  noise?: number;
  clutter?: boolean;
  seed?: number;
  background?: [number, number, number];
}

function cardColour(card: SyntheticCard, x: number, y: number, out: number[]): boolean {
  const W = 63;
  const H = 88;
  if (x < 0 || y < 0 || x > W || y > H) return false;
  const r = card.cornerRadiusMm ?? 1.5;
  const cx = x < r ? r : x > W - r ? W - r : x;
  const cy = y < r ? r : y > H - r ? H - r : y;
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return false;
  const inFrame = x >= card.leftMm && x <= W - card.rightMm && y >= card.topMm && y <= H - card.bottomMm;
  if (!inFrame) {
    out[0] = card.border[0];
    out[1] = card.border[1];
    out[2] = card.border[2];
    return true;
  }
  // art: smooth gradient + a few shapes, kept away from the frame (>= 1.5 mm) by a uniform inner margin
  const fx = x - card.leftMm;
  const fy = y - card.topMm;
  const fw = W - card.leftMm - card.rightMm;
  const fh = H - card.topMm - card.bottomMm;
  if (fx < 1.2 || fy < 1.2 || fx > fw - 1.2 || fy > fh - 1.2) {
    out[0] = 40;
    out[1] = 60;
    out[2] = 110;
    return true;
  }
  const u = fx / fw;
  const v = fy / fh;
  out[0] = 120 + 100 * Math.sin(6 * u + 2 * v);
  out[1] = 110 + 80 * Math.cos(5 * v - 3 * u);
  out[2] = 100 + 60 * Math.sin(9 * u * v);
  if ((u - 0.5) ** 2 + (v - 0.4) ** 2 < 0.04) {
    out[0] = 230;
    out[1] = 200;
    out[2] = 40;
  }
  if (v > 0.7 && v < 0.74) {
    out[0] = 20;
    out[1] = 20;
    out[2] = 20;
  }
  return true;
}

/** Renders the scene to raw RGB. */
export function renderScene(scene: SyntheticScene): RgbImage {
  const { width, height } = scene;
  const rnd = mulberry32(scene.seed ?? 1);
  const H = homographyFromPoints(
    [
      [0, 0],
      [63, 0],
      [63, 88],
      [0, 88],
    ],
    scene.quad,
  );
  const Hi = invertHomography(H);
  const bg = scene.background ?? [90, 110, 95];
  // clutter: random rectangles and bars in the background
  const rects: { x0: number; y0: number; x1: number; y1: number; c: number[] }[] = [];
  if (scene.clutter !== false) {
    for (let i = 0; i < 14; i++) {
      const w = (0.05 + 0.25 * rnd()) * width;
      const h = (0.03 + 0.2 * rnd()) * height;
      const x0 = rnd() * width;
      const y0 = rnd() * height;
      rects.push({ x0, y0, x1: x0 + w, y1: y0 + h, c: [255 * rnd(), 255 * rnd(), 255 * rnd()] });
    }
  }
  const data = new Uint8Array(width * height * 3);
  const ss = 4;
  const col = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const px = x + (sx + 0.5) / ss;
          const py = y + (sy + 0.5) / ss;
          const m = applyHomography(Hi, [px, py]);
          if (cardColour(scene.card, m[0], m[1], col)) {
            r += col[0]!;
            g += col[1]!;
            b += col[2]!;
          } else {
            let c: number[] = bg;
            for (const rc of rects) if (px >= rc.x0 && px < rc.x1 && py >= rc.y0 && py < rc.y1) c = rc.c;
            // background texture
            const t = 12 * Math.sin(px * 0.05) * Math.cos(py * 0.07);
            r += c[0]! + t;
            g += c[1]! + t;
            b += c[2]! + t;
          }
        }
      }
      const o = (y * width + x) * 3;
      const k = 1 / (ss * ss);
      const noise = scene.noise ?? 3;
      data[o] = clamp(r * k + gauss(rnd) * noise);
      data[o + 1] = clamp(g * k + gauss(rnd) * noise);
      data[o + 2] = clamp(b * k + gauss(rnd) * noise);
    }
  }
  return { width, height, data };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

function gauss(rnd: () => number): number {
  const u = Math.max(1e-12, rnd());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

export async function encodeJpeg(img: RgbImage, quality = 92): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/** A quad for a card of `heightPx` rotated by `rotDeg`, centred at (cx, cy), with some perspective. */
export function makeQuad(cx: number, cy: number, heightPx: number, rotDeg: number, persp = 0, seed = 1): Quad {
  const rnd = mulberry32(seed);
  const w = (heightPx * 63) / 88;
  const h = heightPx;
  const base: Point[] = [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ];
  const a = (rotDeg * Math.PI) / 180;
  return base.map(([x, y]) => {
    // perspective-ish: shrink the top edge by persp, jitter corners a little
    const sx = 1 - persp * (0.5 - (y + h / 2) / h);
    const jx = (rnd() - 0.5) * persp * 0.1 * w;
    const jy = (rnd() - 0.5) * persp * 0.1 * h;
    const X = x * sx + jx;
    const Y = y + jy;
    return [cx + X * Math.cos(a) - Y * Math.sin(a), cy + X * Math.sin(a) + Y * Math.cos(a)] as Point;
  }) as Quad;
}
