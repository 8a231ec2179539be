/**
 * Pixel preparation shared by training and inference (the same code path, so the models see at run time exactly
 * what they were trained on): area resampling, letterboxing, normalisation, rectified-card crops.
 */
import type { RgbImage } from '../image/types';

/** Per-axis box-filter weights for resampling n source samples to m (area average; bilinear when upsampling). */
function axisWeights(n: number, m: number): { start: Int32Array; count: Int32Array; w: Float32Array; stride: number } {
  const scale = n / m;
  const support = Math.max(1, scale);
  const stride = Math.ceil(support) + 2;
  const start = new Int32Array(m);
  const count = new Int32Array(m);
  const w = new Float32Array(m * stride);
  for (let i = 0; i < m; i++) {
    if (scale >= 1) {
      // area average over [i*scale, (i+1)*scale)
      const a = i * scale;
      const b = Math.min(n, a + scale);
      const s = Math.floor(a);
      const e = Math.min(n, Math.ceil(b - 1e-9), s + stride);
      let sum = 0;
      for (let j = s; j < e; j++) {
        const cover = Math.min(b, j + 1) - Math.max(a, j);
        w[i * stride + j - s] = cover;
        sum += cover;
      }
      start[i] = s;
      count[i] = e - s;
      for (let q = 0; q < e - s; q++) w[i * stride + q]! /= sum;
    } else {
      const c = (i + 0.5) * scale - 0.5;
      const j0 = Math.max(0, Math.min(n - 1, Math.floor(c)));
      const j1 = Math.min(n - 1, j0 + 1);
      const f = Math.max(0, Math.min(1, c - j0));
      start[i] = j0;
      count[i] = j1 > j0 ? 2 : 1;
      w[i * stride] = j1 > j0 ? 1 - f : 1;
      if (j1 > j0) w[i * stride + 1] = f;
    }
  }
  return { start, count, w, stride };
}

/**
 * Resamples a rectangle [x0, x0+w) x [y0, y0+h) of an RGB image (clamped at the borders) to dw x dh with a
 * separable area filter and writes 8-bit RGB into `out` at (ox, oy) of a row-major image `outWidth` wide.
 */
export function resampleInto(
  src: RgbImage,
  rect: { x0: number; y0: number; w: number; h: number },
  dw: number,
  dh: number,
  out: Uint8Array,
  outWidth: number,
  ox: number,
  oy: number,
): void {
  const sw = Math.max(1, Math.round(rect.w));
  const sh = Math.max(1, Math.round(rect.h));
  const x0 = Math.round(rect.x0);
  const y0 = Math.round(rect.y0);
  const ax = axisWeights(sw, dw);
  const ay = axisWeights(sh, dh);
  // horizontal pass: sh rows x dw columns
  const tmp = new Float32Array(sh * dw * 3);
  for (let y = 0; y < sh; y++) {
    const sy = Math.min(src.height - 1, Math.max(0, y0 + y));
    const row = sy * src.width;
    for (let x = 0; x < dw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      const base = x * ax.stride;
      for (let k = 0; k < ax.count[x]!; k++) {
        const sx = Math.min(src.width - 1, Math.max(0, x0 + ax.start[x]! + k));
        const wgt = ax.w[base + k]!;
        const i = (row + sx) * 3;
        r += wgt * src.data[i]!;
        g += wgt * src.data[i + 1]!;
        b += wgt * src.data[i + 2]!;
      }
      const o = (y * dw + x) * 3;
      tmp[o] = r;
      tmp[o + 1] = g;
      tmp[o + 2] = b;
    }
  }
  for (let y = 0; y < dh; y++) {
    const base = y * ay.stride;
    for (let x = 0; x < dw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < ay.count[y]!; k++) {
        const i = ((ay.start[y]! + k) * dw + x) * 3;
        const wgt = ay.w[base + k]!;
        r += wgt * tmp[i]!;
        g += wgt * tmp[i + 1]!;
        b += wgt * tmp[i + 2]!;
      }
      const o = ((oy + y) * outWidth + ox + x) * 3;
      out[o] = r + 0.5;
      out[o + 1] = g + 0.5;
      out[o + 2] = b + 0.5;
    }
  }
}

/** 8-bit RGB -> normalised float model input. */
export function toInput(rgb: Uint8Array, out = new Float32Array(rgb.length), offset = 0): Float32Array {
  for (let i = 0; i < rgb.length; i++) out[offset + i] = (rgb[i]! - 127.5) / 127.5;
  return out;
}

export interface Letterboxed {
  /** size x size 8-bit RGB, letterbox padding mid grey (128). */
  data: Uint8Array;
  size: number;
  /** input px = image px * scaleX + offX (and y likewise). */
  scaleX: number;
  scaleY: number;
  offX: number;
  offY: number;
}

/** Fits the whole image into a size x size square (aspect kept, centred, mid-grey padding). */
export function letterbox(image: RgbImage, size: number): Letterboxed {
  const s = size / Math.max(image.width, image.height);
  const cw = Math.max(1, Math.min(size, Math.round(image.width * s)));
  const ch = Math.max(1, Math.min(size, Math.round(image.height * s)));
  const offX = Math.floor((size - cw) / 2);
  const offY = Math.floor((size - ch) / 2);
  const data = new Uint8Array(size * size * 3).fill(128);
  resampleInto(image, { x0: 0, y0: 0, w: image.width, h: image.height }, cw, ch, data, size, offX, offY);
  return { data, size, scaleX: cw / image.width, scaleY: ch / image.height, offX, offY };
}

/**
 * How a crop is turned into the canonical orientation: corners TR, BR, BL are mirrored onto TL (flipX, flipXY,
 * flipY); the bottom edge is mirrored onto the top (flipY); the right/left edges are rotated onto the top
 * (rightToTop: the source's right column becomes the output's top row; leftToTop likewise).
 */
export type CropTransform = 'none' | 'flipX' | 'flipY' | 'flipXY' | 'rightToTop' | 'leftToTop';

/**
 * Crop [x0, x0+w) x [y0, y0+h) of an image (clamped at the borders), area-resampled and turned by `transform`
 * into a dw x dh 8-bit RGB patch (row-major).
 */
export function orientedCrop(
  src: RgbImage,
  x0: number,
  y0: number,
  w: number,
  h: number,
  dw: number,
  dh: number,
  transform: CropTransform,
): Uint8Array {
  const swapped = transform === 'rightToTop' || transform === 'leftToTop';
  // resample in the source orientation first: cw x chh
  const cw = swapped ? dh : dw;
  const chh = swapped ? dw : dh;
  const plain = new Uint8Array(cw * chh * 3);
  resampleInto(src, { x0, y0, w, h }, cw, chh, plain, cw, 0, 0);
  if (transform === 'none') return plain;
  const out = new Uint8Array(dw * dh * 3);
  for (let v = 0; v < dh; v++)
    for (let u = 0; u < dw; u++) {
      let sx: number;
      let sy: number;
      switch (transform) {
        case 'flipX':
          sx = cw - 1 - u;
          sy = v;
          break;
        case 'flipY':
          sx = u;
          sy = chh - 1 - v;
          break;
        case 'flipXY':
          sx = cw - 1 - u;
          sy = chh - 1 - v;
          break;
        case 'rightToTop':
          sx = cw - 1 - v;
          sy = u;
          break;
        case 'leftToTop':
          sx = v;
          sy = chh - 1 - u;
          break;
      }
      const i = (sy * cw + sx) * 3;
      const o = (v * dw + u) * 3;
      out[o] = plain[i]!;
      out[o + 1] = plain[i + 1]!;
      out[o + 2] = plain[i + 2]!;
    }
  return out;
}
