import type { RgbImage } from '../image/types';

/**
 * Bilinear RGB sample at continuous coordinates (x, y) (pixel centres at +0.5), clamped at the borders.
 * Writes 3 floats to out[o..o+2]. Returns false when (x, y) is more than one pixel outside the image.
 */
export function sampleRgb(img: RgbImage, x: number, y: number, out: Float32Array | Float64Array, o: number): boolean {
  const w = img.width;
  const h = img.height;
  let u = x - 0.5;
  let v = y - 0.5;
  const inside = u >= -1 && v >= -1 && u <= w && v <= h;
  if (u < 0) u = 0;
  else if (u > w - 1) u = w - 1;
  if (v < 0) v = 0;
  else if (v > h - 1) v = h - 1;
  let x0 = Math.floor(u);
  let y0 = Math.floor(v);
  if (x0 >= w - 1) x0 = Math.max(0, w - 2);
  if (y0 >= h - 1) y0 = Math.max(0, h - 2);
  const fx = u - x0;
  const fy = v - y0;
  const d = img.data;
  const i00 = (y0 * w + x0) * 3;
  const i01 = i00 + 3;
  const i10 = i00 + w * 3;
  const i11 = i10 + 3;
  const w00 = (1 - fx) * (1 - fy);
  const w01 = fx * (1 - fy);
  const w10 = (1 - fx) * fy;
  const w11 = fx * fy;
  out[o] = d[i00]! * w00 + d[i01]! * w01 + d[i10]! * w10 + d[i11]! * w11;
  out[o + 1] = d[i00 + 1]! * w00 + d[i01 + 1]! * w01 + d[i10 + 1]! * w10 + d[i11 + 1]! * w11;
  out[o + 2] = d[i00 + 2]! * w00 + d[i01 + 2]! * w01 + d[i10 + 2]! * w10 + d[i11 + 2]! * w11;
  return inside;
}

/** Derivative-of-Gaussian taps (antisymmetric, index 0 = centre) for sigma in samples. */
export function dogKernel(sigma: number): Float64Array {
  const r = Math.max(1, Math.ceil(3 * sigma));
  const k = new Float64Array(2 * r + 1);
  let norm = 0;
  for (let i = -r; i <= r; i++) {
    const g = -i * Math.exp((-i * i) / (2 * sigma * sigma));
    k[i + r] = g;
    norm += -i * g;
  }
  // normalise so that a unit ramp (f(i) = i) gives derivative 1
  for (let i = 0; i < k.length; i++) k[i] = k[i]! / norm;
  return k;
}

/**
 * Colour-gradient magnitude along a sampled RGB profile (n samples, interleaved RGB in `prof`), written to `grad`
 * (length n; the first and last `r` entries are 0). Also writes the signed derivative of each channel into `dc`
 * when given (length 3n).
 */
export function profileGradient(
  prof: Float32Array,
  n: number,
  kernel: Float64Array,
  grad: Float32Array,
  dc?: Float32Array,
): void {
  const r = (kernel.length - 1) >> 1;
  for (let i = 0; i < n; i++) {
    if (i < r || i >= n - r) {
      grad[i] = 0;
      if (dc) {
        dc[i * 3] = 0;
        dc[i * 3 + 1] = 0;
        dc[i * 3 + 2] = 0;
      }
      continue;
    }
    let a = 0;
    let b = 0;
    let c = 0;
    for (let j = -r; j <= r; j++) {
      const kk = kernel[j + r]!;
      const o = (i + j) * 3;
      // kernel is defined on -i; flip so positive = increasing along the profile
      a -= kk * prof[o]!;
      b -= kk * prof[o + 1]!;
      c -= kk * prof[o + 2]!;
    }
    grad[i] = Math.sqrt(a * a + b * b + c * c);
    if (dc) {
      dc[i * 3] = a;
      dc[i * 3 + 1] = b;
      dc[i * 3 + 2] = c;
    }
  }
}
