import { describe, it, expect } from '@jest/globals';
import {
  applyHomography,
  homographyFromCanonical,
  homographyFromPoints,
  invertHomography,
  multiplyHomography,
  rectify,
  warpPerspective,
} from './homography';
import type { Point, Quad, RgbImage } from '../image/types';

function close(a: Point, b: Point, tol = 1e-6): void {
  expect(Math.abs(a[0] - b[0])).toBeLessThan(tol);
  expect(Math.abs(a[1] - b[1])).toBeLessThan(tol);
}

describe('homography', () => {
  const known = Float64Array.of(1.2, 0.15, 30, -0.1, 0.9, 55, 0.0004, -0.0002, 1);

  it('recovers a known matrix from 4 exact correspondences', () => {
    const src: Point[] = [
      [0, 0],
      [630, 0],
      [630, 880],
      [0, 880],
    ];
    const dst = src.map((p) => applyHomography(known, p));
    const h = homographyFromPoints(src, dst);
    for (let i = 0; i < 9; i++) expect(h[i]).toBeCloseTo(known[i]!, 9);
  });

  it('least squares over many noiseless points is exact, and averages noise', () => {
    const src: Point[] = [];
    for (let i = 0; i < 40; i++) src.push([(i * 37) % 600, (i * 91) % 850]);
    const dst = src.map((p) => applyHomography(known, p));
    const h = homographyFromPoints(src, dst);
    for (const p of src) close(applyHomography(h, p), applyHomography(known, p), 1e-6);
    // deterministic +-0.5 px noise: mapping error stays well below the noise
    const noisy = dst.map((p, i) => [p[0] + ((i % 3) - 1) * 0.5, p[1] + (((i + 1) % 3) - 1) * 0.5] as Point);
    const hn = homographyFromPoints(src, noisy);
    for (const p of [[300, 400] as Point]) {
      const a = applyHomography(hn, p);
      const b = applyHomography(known, p);
      expect(Math.hypot(a[0] - b[0], a[1] - b[1])).toBeLessThan(0.3);
    }
  });

  it('inverts and composes (round trip)', () => {
    const inv = invertHomography(known);
    for (const p of [[0, 0], [100, 700], [630, 880], [-50, 20]] as Point[]) close(applyHomography(inv, applyHomography(known, p)), p, 1e-9);
    const id = multiplyHomography(known, inv);
    for (let i = 0; i < 9; i++) expect(id[i]).toBeCloseTo([1, 0, 0, 0, 1, 0, 0, 0, 1][i]!, 12);
  });

  it('maps a rectangle to a rectangle with a pure scale + translation', () => {
    const quad: Quad = [
      [100, 50],
      [226, 50],
      [226, 226],
      [100, 226],
    ];
    const h = homographyFromCanonical(quad);
    expect(h[1]).toBeCloseTo(0, 12);
    expect(h[3]).toBeCloseTo(0, 12);
    expect(h[6]).toBeCloseTo(0, 12);
    expect(h[7]).toBeCloseTo(0, 12);
    expect(h[0]).toBeCloseTo(0.2, 12);
    expect(h[4]).toBeCloseTo(0.2, 12);
    close(applyHomography(h, [315, 440]), [163, 138], 1e-9);
  });

  it('maps the canonical corners onto a perspective quad exactly', () => {
    const quad: Quad = [
      [210.3, 95.7],
      [811.9, 140.2],
      [760.4, 903.1],
      [150.8, 850.6],
    ];
    const h = homographyFromCanonical(quad);
    close(applyHomography(h, [0, 0]), quad[0], 1e-8);
    close(applyHomography(h, [630, 0]), quad[1], 1e-8);
    close(applyHomography(h, [630, 880]), quad[2], 1e-8);
    close(applyHomography(h, [0, 880]), quad[3], 1e-8);
  });

  it('throws on degenerate input', () => {
    expect(() => homographyFromPoints([[0, 0]], [[0, 0]])).toThrow();
    expect(() => invertHomography(new Float64Array(9))).toThrow();
  });
});

describe('warpPerspective / rectify', () => {
  function ramp(w: number, h: number): RgbImage {
    const data = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        data[(y * w + x) * 3] = x % 256;
        data[(y * w + x) * 3 + 1] = y % 256;
        data[(y * w + x) * 3 + 2] = 77;
      }
    }
    return { width: w, height: h, data };
  }

  it('identity warp reproduces the image', () => {
    const img = ramp(40, 30);
    const out = warpPerspective(img, Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1), 40, 30, { supersample: 1 });
    expect(Buffer.from(out.data).equals(Buffer.from(img.data))).toBe(true);
  });

  it('a sub-pixel translation interpolates linearly', () => {
    const img = ramp(64, 16);
    const out = warpPerspective(img, Float64Array.of(1, 0, 10.25, 0, 1, 2, 0, 0, 1), 20, 8, { supersample: 1 });
    // output pixel x samples the source at x + 10.25 -> red = x + 10.25 (rounded)
    for (let x = 0; x < 20; x++) expect(out.data[(3 * 20 + x) * 3]).toBe(Math.round(x + 10.25));
    expect(out.data[(3 * 20 + 5) * 3 + 1]).toBe(5);
  });

  it('rectifies a quad back to a canonical image (round trip through a perspective warp)', () => {
    // canonical card with a 2 px checker, warped into a photo, rectified back: mean abs error small
    const W = 126;
    const H = 176;
    const card: RgbImage = { width: W, height: H, data: new Uint8Array(W * H * 3) };
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const v = 60 + 120 * (0.5 + 0.5 * Math.sin(x / 6) * Math.cos(y / 9));
        card.data.fill(Math.round(v), (y * W + x) * 3, (y * W + x) * 3 + 3);
      }
    }
    const quad: Quad = [
      [60.5, 40.25],
      [220.75, 55.5],
      [205.5, 280.25],
      [45.25, 260.5],
    ];
    const photoToCard = invertHomography(homographyFromCanonical(quad, W, H));
    const photo = warpPerspective(card, photoToCard, 280, 320, { supersample: 1, fill: [0, 0, 0] });
    const back = rectify(photo, quad, { width: W, height: H, supersample: 1 });
    let err = 0;
    let n = 0;
    for (let y = 4; y < H - 4; y++) {
      for (let x = 4; x < W - 4; x++) {
        err += Math.abs(back.data[(y * W + x) * 3]! - card.data[(y * W + x) * 3]!);
        n++;
      }
    }
    expect(err / n).toBeLessThan(2);
  });

  it('rectifies a 1200x1700 photo to the 630x880 canonical size, its corners taken from the quad', () => {
    // Speed is measured by bench:real (front.rectify timings), not here; this checks the default output.
    const img = ramp(1200, 1700);
    const quad: Quad = [
      [100, 100],
      [1100, 140],
      [1080, 1600],
      [120, 1560],
    ];
    const out = rectify(img, quad);
    expect(out.width).toBe(630);
    expect(out.height).toBe(880);
    // The ramp stores x % 256 in red and y % 256 in green: the top-left output pixel samples near (100, 100).
    expect(Math.abs(out.data[0]! - 100)).toBeLessThanOrEqual(3);
    expect(Math.abs(out.data[1]! - 100)).toBeLessThanOrEqual(3);
    expect(out.data[2]).toBe(77);
  });
});
