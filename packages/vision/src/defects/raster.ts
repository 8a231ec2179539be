/**
 * Small raster helpers for the condition measurements (one-channel float maps, separable smoothing, integral
 * images, connected components). Everything works on the rectified side at its own resolution; nothing here
 * allocates per pixel in inner loops.
 */
import type { GrayImage, RgbImage } from '../image/types';

export function gray(width: number, height: number): GrayImage {
  return { width, height, data: new Float32Array(width * height) };
}

/** Rec. 601 luma (0..255). */
export function luminance(img: RgbImage): GrayImage {
  const out = gray(img.width, img.height);
  const d = img.data;
  const o = out.data;
  for (let i = 0, j = 0; i < o.length; i++, j += 3) o[i] = 0.299 * d[j]! + 0.587 * d[j + 1]! + 0.114 * d[j + 2]!;
  return out;
}

/** Chroma (max - min of R, G, B), 0..255: a cheap saturation measure that is 0 for greys and white. */
export function chroma(img: RgbImage): GrayImage {
  const out = gray(img.width, img.height);
  const d = img.data;
  const o = out.data;
  for (let i = 0, j = 0; i < o.length; i++, j += 3) {
    const r = d[j]!;
    const g = d[j + 1]!;
    const b = d[j + 2]!;
    o[i] = Math.max(r, g, b) - Math.min(r, g, b);
  }
  return out;
}

/** Separable convolution with a symmetric kernel (edge pixels replicated). */
export function convolveSeparable(src: GrayImage, kernel: Float32Array, out?: GrayImage): GrayImage {
  const { width: w, height: h } = src;
  const r = (kernel.length - 1) >> 1;
  const tmp = new Float32Array(w * h);
  const s = src.data;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let acc = 0;
      if (x >= r && x < w - r) {
        for (let k = -r; k <= r; k++) acc += kernel[k + r]! * s[row + x + k]!;
      } else {
        for (let k = -r; k <= r; k++) {
          const xx = x + k < 0 ? 0 : x + k >= w ? w - 1 : x + k;
          acc += kernel[k + r]! * s[row + xx]!;
        }
      }
      tmp[row + x] = acc;
    }
  }
  const res = out ?? gray(w, h);
  const o = res.data;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    if (y >= r && y < h - r) {
      for (let x = 0; x < w; x++) o[row + x] = 0;
      for (let k = -r; k <= r; k++) {
        const kv = kernel[k + r]!;
        const off = (y + k) * w;
        for (let x = 0; x < w; x++) o[row + x]! += kv * tmp[off + x]!;
      }
    } else {
      for (let x = 0; x < w; x++) {
        let acc = 0;
        for (let k = -r; k <= r; k++) {
          const yy = y + k < 0 ? 0 : y + k >= h ? h - 1 : y + k;
          acc += kernel[k + r]! * tmp[yy * w + x]!;
        }
        o[row + x] = acc;
      }
    }
  }
  return res;
}

export function gaussianKernel(sigma: number): Float32Array {
  const r = Math.max(1, Math.ceil(sigma * 2.5));
  const k = new Float32Array(2 * r + 1);
  let sum = 0;
  for (let i = -r; i <= r; i++) {
    const v = Math.exp(-(i * i) / (2 * sigma * sigma));
    k[i + r] = v;
    sum += v;
  }
  for (let i = 0; i < k.length; i++) k[i]! /= sum;
  return k;
}

export function gaussianBlur(src: GrayImage, sigma: number): GrayImage {
  return convolveSeparable(src, gaussianKernel(sigma));
}

/** Integral image (double precision, (w+1) x (h+1)). */
export interface Integral {
  width: number;
  height: number;
  sum: Float64Array;
}

export function integral(src: GrayImage, mask?: Uint8Array): Integral {
  const { width: w, height: h } = src;
  const W1 = w + 1;
  const sum = new Float64Array(W1 * (h + 1));
  const s = src.data;
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      row += mask ? (mask[i] ? s[i]! : 0) : s[i]!;
      sum[(y + 1) * W1 + x + 1] = sum[y * W1 + x + 1]! + row;
    }
  }
  return { width: w, height: h, sum };
}

/** Integral of a 0/1 mask. */
export function integralMask(mask: Uint8Array, width: number, height: number): Integral {
  const W1 = width + 1;
  const sum = new Float64Array(W1 * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += mask[y * width + x] ? 1 : 0;
      sum[(y + 1) * W1 + x + 1] = sum[y * W1 + x + 1]! + row;
    }
  }
  return { width, height, sum };
}

/** Sum over the half-open box [x0, x1) x [y0, y1), clipped to the image. */
export function boxSum(ii: Integral, x0: number, y0: number, x1: number, y1: number): number {
  const W1 = ii.width + 1;
  const a = Math.max(0, Math.min(ii.width, x0));
  const b = Math.max(0, Math.min(ii.height, y0));
  const c = Math.max(0, Math.min(ii.width, x1));
  const d = Math.max(0, Math.min(ii.height, y1));
  if (c <= a || d <= b) return 0;
  return ii.sum[d * W1 + c]! - ii.sum[b * W1 + c]! - ii.sum[d * W1 + a]! + ii.sum[b * W1 + a]!;
}

export interface Component {
  label: number;
  pixels: number[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * 8-connected components of a 0/1 mask, optionally restricted to a box; `minSize` drops small ones. Labels are
 * written to `labels` (0 = none) when given.
 */
export function components(
  mask: Uint8Array,
  width: number,
  height: number,
  opts: { minSize?: number; labels?: Int32Array; box?: [number, number, number, number]; connectivity?: 4 | 8 } = {},
): Component[] {
  const [bx0, by0, bx1, by1] = opts.box ?? [0, 0, width, height];
  const seen = opts.labels ?? new Int32Array(width * height);
  if (!opts.labels) seen.fill(0);
  const out: Component[] = [];
  const stack: number[] = [];
  const eight = (opts.connectivity ?? 8) === 8;
  let next = 1;
  for (let y = by0; y < by1; y++) {
    for (let x = bx0; x < bx1; x++) {
      const i0 = y * width + x;
      if (!mask[i0] || seen[i0]) continue;
      const label = next++;
      const comp: Component = { label, pixels: [], x0: x, y0: y, x1: x, y1: y };
      seen[i0] = label;
      stack.push(i0);
      while (stack.length > 0) {
        const i = stack.pop()!;
        comp.pixels.push(i);
        const px = i % width;
        const py = (i - px) / width;
        if (px < comp.x0) comp.x0 = px;
        if (px > comp.x1) comp.x1 = px;
        if (py < comp.y0) comp.y0 = py;
        if (py > comp.y1) comp.y1 = py;
        for (let dy = -1; dy <= 1; dy++) {
          const ny = py + dy;
          if (ny < by0 || ny >= by1) continue;
          for (let dx = -1; dx <= 1; dx++) {
            if (dx === 0 && dy === 0) continue;
            if (!eight && dx !== 0 && dy !== 0) continue;
            const nx = px + dx;
            if (nx < bx0 || nx >= bx1) continue;
            const j = ny * width + nx;
            if (mask[j] && !seen[j]) {
              seen[j] = label;
              stack.push(j);
            }
          }
        }
      }
      if (comp.pixels.length >= (opts.minSize ?? 1)) out.push(comp);
    }
  }
  return out;
}

/** Median of a numeric array (copy-sorts). NaN for an empty input. */
export function median(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const a = Float64Array.from(values as ArrayLike<number>).sort();
  return n % 2 ? a[(n - 1) >> 1]! : 0.5 * (a[n / 2 - 1]! + a[n / 2]!);
}

/** q-quantile (0..1), linear interpolation. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const a = Float64Array.from(values as ArrayLike<number>).sort();
  const pos = Math.max(0, Math.min(n - 1, q * (n - 1)));
  const i = Math.floor(pos);
  const f = pos - i;
  return i + 1 < n ? a[i]! * (1 - f) + a[i + 1]! * f : a[i]!;
}

/**
 * The q-quantile (0..1) of `n` 8-bit samples counted in a 256-bin histogram: the lowest level at which the count so
 * far reaches q x n (255 if none does).
 */
export function histogramQuantile(hist: Uint32Array, n: number, q: number): number {
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v]!;
    if (acc >= n * q) return v;
  }
  return 255;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

export type Rgb = [number, number, number];

export function pixel(img: RgbImage, x: number, y: number): Rgb {
  const i = (y * img.width + x) * 3;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
}

export function dist3(a: Rgb, b: Rgb): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/**
 * Busy-detail mask: 1 where crisp edges are dense (text, fine print, busy art). Gradient of the 3x3-smoothed
 * luminance above `edge` levels/px; density over a box of half-size `half` px above `density`.
 */
export function clutterMask(lum: GrayImage, edge: number, half: number, density: number): { mask: Uint8Array; frac: number } {
  const { width: w, height: h } = lum;
  const s = lum.data;
  const strong = new Uint8Array(w * h);
  for (let y = 2; y < h - 2; y++) {
    for (let x = 2; x < w - 2; x++) {
      const i = y * w + x;
      const gx = s[i + 1]! + 0.5 * (s[i + 1 - w]! + s[i + 1 + w]!) - s[i - 1]! - 0.5 * (s[i - 1 - w]! + s[i - 1 + w]!);
      const gy = s[i + w]! + 0.5 * (s[i + w - 1]! + s[i + w + 1]!) - s[i - w]! - 0.5 * (s[i - w - 1]! + s[i - w + 1]!);
      if (Math.abs(gx) + Math.abs(gy) > 4 * edge) strong[i] = 1;
    }
  }
  const ii = integralMask(strong, w, h);
  const mask = new Uint8Array(w * h);
  const area = (2 * half + 1) * (2 * half + 1);
  let n = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = boxSum(ii, x - half, y - half, x + half + 1, y + half + 1);
      if (v > density * area) {
        mask[y * w + x] = 1;
        n++;
      }
    }
  }
  return { mask, frac: n / (w * h) };
}
