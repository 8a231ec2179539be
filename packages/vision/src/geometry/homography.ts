import type { Point, Quad, RgbImage } from '../image/types';

/**
 * A plane projective transform as a row-major 3x3 matrix: [x', y', w']^T = H [x, y, 1]^T, point = (x'/w', y'/w').
 * Always normalised so that H[8] = 1 when that is possible (it is for every transform between two bounded views
 * of a card).
 */
export type Homography = Float64Array;

/** Card geometry (VISION.md): 63 x 88 mm, rectified at 10 px/mm. */
export const CARD_WIDTH_MM = 63;
export const CARD_HEIGHT_MM = 88;
/** A card's width over its height: 0.716. */
export const CARD_ASPECT = CARD_WIDTH_MM / CARD_HEIGHT_MM;
export const CANONICAL_PX_PER_MM = 10;
export const CANONICAL_WIDTH = CARD_WIDTH_MM * CANONICAL_PX_PER_MM;
export const CANONICAL_HEIGHT = CARD_HEIGHT_MM * CANONICAL_PX_PER_MM;

export function identityHomography(): Homography {
  return Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
}

export function applyHomography(h: ArrayLike<number>, p: readonly [number, number]): Point {
  const x = p[0];
  const y = p[1];
  const w = h[6]! * x + h[7]! * y + h[8]!;
  return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w];
}

/** a * b (apply b first, then a). */
export function multiplyHomography(a: ArrayLike<number>, b: ArrayLike<number>): Homography {
  const r = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      r[i * 3 + j] = a[i * 3]! * b[j]! + a[i * 3 + 1]! * b[3 + j]! + a[i * 3 + 2]! * b[6 + j]!;
    }
  }
  return normalise(r);
}

export function invertHomography(h: ArrayLike<number>): Homography {
  const [a, b, c, d, e, f, g, hh, i] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!, h[8]!];
  const A = e * i - f * hh;
  const B = -(d * i - f * g);
  const C = d * hh - e * g;
  const det = a * A + b * B + c * C;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-300) throw new Error('singular homography');
  const r = Float64Array.of(
    A, -(b * i - c * hh), b * f - c * e,
    B, a * i - c * g, -(a * f - c * d),
    C, -(a * hh - b * g), a * e - b * d,
  );
  for (let k = 0; k < 9; k++) r[k] = r[k]! / det;
  return normalise(r);
}

function normalise(h: Float64Array): Homography {
  const s = h[8]!;
  if (Math.abs(s) > 1e-12) {
    for (let k = 0; k < 9; k++) h[k] = h[k]! / s;
  } else {
    let n = 0;
    for (let k = 0; k < 9; k++) n += h[k]! * h[k]!;
    n = Math.sqrt(n);
    for (let k = 0; k < 9; k++) h[k] = h[k]! / n;
  }
  return h;
}

/** Similarity that moves the centroid to the origin and scales the mean distance to sqrt(2) (Hartley). */
function normalisingTransform(pts: readonly (readonly [number, number])[]): Float64Array {
  let cx = 0;
  let cy = 0;
  for (const p of pts) {
    cx += p[0];
    cy += p[1];
  }
  cx /= pts.length;
  cy /= pts.length;
  let d = 0;
  for (const p of pts) d += Math.hypot(p[0] - cx, p[1] - cy);
  d /= pts.length;
  const s = d > 0 ? Math.SQRT2 / d : 1;
  return Float64Array.of(s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1);
}

/**
 * Eigen-decomposition of a symmetric n x n matrix by cyclic Jacobi rotations. Returns the eigenvector of the
 * smallest eigenvalue. `m` is destroyed.
 */
function smallestEigenvector(m: Float64Array, n: number): Float64Array {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p * n + q]! * m[p * n + q]!;
    if (off < 1e-30) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = m[p * n + p]!;
        const aqq = m[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k * n + p]!;
          const mkq = m[k * n + q]!;
          m[k * n + p] = c * mkp - s * mkq;
          m[k * n + q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p * n + k]!;
          const mqk = m[q * n + k]!;
          m[p * n + k] = c * mpk - s * mqk;
          m[q * n + k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  let best = 0;
  for (let i = 1; i < n; i++) if (m[i * n + i]! < m[best * n + best]!) best = i;
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = v[k * n + best]!;
  return out;
}

/**
 * Homography mapping src[i] to dst[i] by the normalised DLT: exact for 4 points in general position,
 * algebraic least squares for more. Throws on fewer than 4 points or degenerate (collinear) input.
 */
export function homographyFromPoints(
  src: readonly (readonly [number, number])[],
  dst: readonly (readonly [number, number])[],
): Homography {
  if (src.length !== dst.length || src.length < 4) throw new Error('homography needs >= 4 point pairs');
  const ts = normalisingTransform(src);
  const td = normalisingTransform(dst);
  const ata = new Float64Array(81);
  const row = new Float64Array(9);
  const addRow = (): void => {
    for (let i = 0; i < 9; i++) {
      const ri = row[i]!;
      if (ri === 0) continue;
      for (let j = 0; j < 9; j++) ata[i * 9 + j] = ata[i * 9 + j]! + ri * row[j]!;
    }
  };
  for (let k = 0; k < src.length; k++) {
    const x = ts[0]! * src[k]![0] + ts[2]!;
    const y = ts[4]! * src[k]![1] + ts[5]!;
    const u = td[0]! * dst[k]![0] + td[2]!;
    const v = td[4]! * dst[k]![1] + td[5]!;
    row.set([x, y, 1, 0, 0, 0, -u * x, -u * y, -u]);
    addRow();
    row.set([0, 0, 0, x, y, 1, -v * x, -v * y, -v]);
    addRow();
  }
  const hn = smallestEigenvector(ata, 9);
  const h = multiplyHomography(invertHomography(td), multiplyHomography(hn, ts));
  for (let k = 0; k < 9; k++) if (!Number.isFinite(h[k]!)) throw new Error('degenerate homography');
  return h;
}

/** The homography taking the canonical card rectangle [0,w] x [0,h] (corners TL,TR,BR,BL) onto `quad`. */
export function homographyFromCanonical(quad: Quad, width = CANONICAL_WIDTH, height = CANONICAL_HEIGHT): Homography {
  return homographyFromPoints(
    [
      [0, 0],
      [width, 0],
      [width, height],
      [0, height],
    ],
    quad,
  );
}

export interface WarpOptions {
  /**
   * Sub-samples per output pixel per axis (1 = plain bilinear). 'auto' (default): 1 up to a 1.8x shrink, 2 x 2 up
   * to 3x, and beyond that the source footprint is box-reduced by an integer factor first.
   */
  supersample?: 1 | 2 | 3 | 'auto';
  /** RGB written where the source is outside the image. */
  fill?: [number, number, number];
}

/** Local linear scale (source px per output px) of `dstToSrc` at output point (x, y). */
export function localScale(dstToSrc: ArrayLike<number>, x: number, y: number): number {
  const p = applyHomography(dstToSrc, [x, y]);
  const px = applyHomography(dstToSrc, [x + 1, y]);
  const py = applyHomography(dstToSrc, [x, y + 1]);
  return Math.sqrt(Math.abs((px[0] - p[0]) * (py[1] - p[1]) - (px[1] - p[1]) * (py[0] - p[0])));
}

/**
 * Warps `src` into a new width x height RGB image: output pixel centre (x+0.5, y+0.5) samples the source at
 * dstToSrc(x+0.5, y+0.5) with bilinear interpolation (edge pixels clamped; outside -> fill).
 */
export function warpPerspective(
  src: RgbImage,
  dstToSrc: ArrayLike<number>,
  width: number,
  height: number,
  options: WarpOptions = {},
): RgbImage {
  let ss = options.supersample ?? 'auto';
  if (ss === 'auto') {
    // Anti-aliasing for shrinking warps: up to 3x, 2 x 2 bilinear sub-samples per output pixel; beyond that the
    // footprint of the output in the source is first box-reduced by an integer factor (exact area average).
    const scale = localScale(dstToSrc, width / 2, height / 2);
    const k = Math.floor(scale / 1.5);
    if (k >= 2) {
      const box = footprint(dstToSrc, width, height, src.width, src.height);
      if (box) {
        const x0 = Math.max(0, Math.floor(box[0] / k) * k - k);
        const y0 = Math.max(0, Math.floor(box[1] / k) * k - k);
        const x1 = Math.min(src.width, Math.ceil(box[2] / k) * k + k);
        const y1 = Math.min(src.height, Math.ceil(box[3] / k) * k + k);
        const reduced = boxReduce(src, x0, y0, x1, y1, k);
        const toReduced = Float64Array.of(1 / k, 0, -x0 / k, 0, 1 / k, -y0 / k, 0, 0, 1);
        return warpPerspective(reduced, multiplyHomography(toReduced, dstToSrc), width, height, { ...options, supersample: 1 });
      }
    }
    ss = scale > 1.8 ? 2 : 1;
  }
  if (ss === 1) return warpBilinear(src, dstToSrc, width, height, options.fill ?? [0, 0, 0]);
  const out = new Uint8Array(width * height * 3);
  const fill = options.fill ?? [0, 0, 0];
  const h0 = dstToSrc[0]!, h1 = dstToSrc[1]!, h2 = dstToSrc[2]!;
  const h3 = dstToSrc[3]!, h4 = dstToSrc[4]!, h5 = dstToSrc[5]!;
  const h6 = dstToSrc[6]!, h7 = dstToSrc[7]!, h8 = dstToSrc[8]!;
  const sw = src.width;
  const sh = src.height;
  const sd = src.data;
  const row = sw * 3;
  const inv = 1 / (ss * ss);
  const acc = new Float32Array(width * 3);
  for (let y = 0; y < height; y++) {
    acc.fill(0);
    for (let sy = 0; sy < ss; sy++) {
      const yy = y + (sy + 0.5) / ss;
      for (let sx = 0; sx < ss; sx++) {
        const x0 = (sx + 0.5) / ss;
        let nx = h0 * x0 + h1 * yy + h2;
        let ny = h3 * x0 + h4 * yy + h5;
        let nw = h6 * x0 + h7 * yy + h8;
        for (let x = 0, a = 0; x < width; x++, a += 3, nx += h0, ny += h3, nw += h6) {
          const iw = 1 / nw;
          const u = nx * iw - 0.5;
          const v = ny * iw - 0.5;
          if (u >= 0 && v >= 0 && u < sw - 1 && v < sh - 1) {
            const xi = u | 0;
            const yi = v | 0;
            const fx = u - xi;
            const fy = v - yi;
            const i00 = yi * row + xi * 3;
            const i10 = i00 + row;
            const w00 = (1 - fx) * (1 - fy);
            const w01 = fx * (1 - fy);
            const w10 = (1 - fx) * fy;
            const w11 = fx * fy;
            acc[a]! += sd[i00]! * w00 + sd[i00 + 3]! * w01 + sd[i10]! * w10 + sd[i10 + 3]! * w11;
            acc[a + 1]! += sd[i00 + 1]! * w00 + sd[i00 + 4]! * w01 + sd[i10 + 1]! * w10 + sd[i10 + 4]! * w11;
            acc[a + 2]! += sd[i00 + 2]! * w00 + sd[i00 + 5]! * w01 + sd[i10 + 2]! * w10 + sd[i10 + 5]! * w11;
          } else if (u < -1 || v < -1 || u > sw || v > sh || !Number.isFinite(u) || !Number.isFinite(v)) {
            acc[a]! += fill[0];
            acc[a + 1]! += fill[1];
            acc[a + 2]! += fill[2];
          } else {
            // within one pixel of the border: clamp
            const uc = u < 0 ? 0 : u > sw - 1 ? sw - 1 : u;
            const vc = v < 0 ? 0 : v > sh - 1 ? sh - 1 : v;
            const xi = Math.min(uc | 0, Math.max(0, sw - 2));
            const yi = Math.min(vc | 0, Math.max(0, sh - 2));
            const fx = Math.min(1, uc - xi);
            const fy = Math.min(1, vc - yi);
            const i00 = yi * row + xi * 3;
            const i01 = sw > 1 ? i00 + 3 : i00;
            const i10 = sh > 1 ? i00 + row : i00;
            const i11 = sw > 1 ? i10 + 3 : i10;
            for (let c = 0; c < 3; c++) {
              acc[a + c]! +=
                sd[i00 + c]! * (1 - fx) * (1 - fy) + sd[i01 + c]! * fx * (1 - fy) + sd[i10 + c]! * (1 - fx) * fy + sd[i11 + c]! * fx * fy;
            }
          }
        }
      }
    }
    const o = y * width * 3;
    for (let k = 0; k < width * 3; k++) out[o + k] = acc[k]! * inv + 0.5;
  }
  return { width, height, data: out };
}

/** Plain bilinear warp, one sample per output pixel, 8-bit fixed-point weights (the fast path). */
function warpBilinear(src: RgbImage, H: ArrayLike<number>, width: number, height: number, fill: [number, number, number]): RgbImage {
  const out = new Uint8Array(width * height * 3);
  const h0 = H[0]!, h1 = H[1]!, h2 = H[2]!, h3 = H[3]!, h4 = H[4]!, h5 = H[5]!, h6 = H[6]!, h7 = H[7]!, h8 = H[8]!;
  const sw = src.width;
  const sh = src.height;
  const sd = src.data;
  const row = sw * 3;
  const maxU = sw - 1;
  const maxV = sh - 1;
  for (let y = 0; y < height; y++) {
    const yy = y + 0.5;
    let nx = h0 * 0.5 + h1 * yy + h2;
    let ny = h3 * 0.5 + h4 * yy + h5;
    let nw = h6 * 0.5 + h7 * yy + h8;
    let o = y * width * 3;
    for (let x = 0; x < width; x++, o += 3, nx += h0, ny += h3, nw += h6) {
      const iw = 1 / nw;
      let u = nx * iw - 0.5;
      let v = ny * iw - 0.5;
      if (!(u >= -1 && v >= -1 && u <= sw && v <= sh)) {
        out[o] = fill[0];
        out[o + 1] = fill[1];
        out[o + 2] = fill[2];
        continue;
      }
      if (u < 0) u = 0;
      else if (u > maxU) u = maxU;
      if (v < 0) v = 0;
      else if (v > maxV) v = maxV;
      const ui = (u * 256) | 0;
      const vi = (v * 256) | 0;
      let xi = ui >> 8;
      let yi = vi >> 8;
      let fx = ui & 255;
      let fy = vi & 255;
      if (xi >= maxU) {
        xi = maxU > 0 ? maxU - 1 : 0;
        fx = maxU > 0 ? 256 : 0;
      }
      if (yi >= maxV) {
        yi = maxV > 0 ? maxV - 1 : 0;
        fy = maxV > 0 ? 256 : 0;
      }
      const i00 = yi * row + xi * 3;
      const i01 = maxU > 0 ? i00 + 3 : i00;
      const i10 = maxV > 0 ? i00 + row : i00;
      const i11 = maxU > 0 ? i10 + 3 : i10;
      const w00 = (256 - fx) * (256 - fy);
      const w01 = fx * (256 - fy);
      const w10 = (256 - fx) * fy;
      const w11 = fx * fy;
      out[o] = (sd[i00]! * w00 + sd[i01]! * w01 + sd[i10]! * w10 + sd[i11]! * w11 + 32768) >> 16;
      out[o + 1] = (sd[i00 + 1]! * w00 + sd[i01 + 1]! * w01 + sd[i10 + 1]! * w10 + sd[i11 + 1]! * w11 + 32768) >> 16;
      out[o + 2] = (sd[i00 + 2]! * w00 + sd[i01 + 2]! * w01 + sd[i10 + 2]! * w10 + sd[i11 + 2]! * w11 + 32768) >> 16;
    }
  }
  return { width, height, data: out };
}

/** Bounding box [x0, y0, x1, y1] in the source of the output rectangle's image (null if it leaves the plane). */
function footprint(
  dstToSrc: ArrayLike<number>,
  width: number,
  height: number,
  sw: number,
  sh: number,
): [number, number, number, number] | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of [
    [0, 0],
    [width, 0],
    [width, height],
    [0, height],
  ] as const) {
    const w = dstToSrc[6]! * x + dstToSrc[7]! * y + dstToSrc[8]!;
    if (!(w > 0)) return null;
    const p = applyHomography(dstToSrc, [x, y]);
    x0 = Math.min(x0, p[0]);
    y0 = Math.min(y0, p[1]);
    x1 = Math.max(x1, p[0]);
    y1 = Math.max(y1, p[1]);
  }
  x0 = Math.max(0, x0);
  y0 = Math.max(0, y0);
  x1 = Math.min(sw, x1);
  y1 = Math.min(sh, y1);
  return x1 > x0 && y1 > y0 ? [x0, y0, x1, y1] : null;
}

/** Exact k x k box average of the source window [x0, x1) x [y0, y1) (x0, y0 multiples of k). */
function boxReduce(src: RgbImage, x0: number, y0: number, x1: number, y1: number, k: number): RgbImage {
  const width = Math.floor((x1 - x0) / k);
  const height = Math.floor((y1 - y0) / k);
  const out = new Uint8Array(width * height * 3);
  const acc = new Uint32Array(width * 3);
  const sd = src.data;
  const row = src.width * 3;
  const inv = 1 / (k * k);
  for (let y = 0; y < height; y++) {
    acc.fill(0);
    for (let dy = 0; dy < k; dy++) {
      let i = (y0 + y * k + dy) * row + x0 * 3;
      for (let x = 0; x < width; x++) {
        let r = 0;
        let g = 0;
        let b = 0;
        for (let dx = 0; dx < k; dx++, i += 3) {
          r += sd[i]!;
          g += sd[i + 1]!;
          b += sd[i + 2]!;
        }
        acc[x * 3]! += r;
        acc[x * 3 + 1]! += g;
        acc[x * 3 + 2]! += b;
      }
    }
    const o = y * width * 3;
    for (let j = 0; j < width * 3; j++) out[o + j] = acc[j]! * inv + 0.5;
  }
  return { width, height, data: out };
}

/** Rectifies the card inside `quad` (TL,TR,BR,BL in `src` coordinates) to the canonical width x height image. */
export function rectify(
  src: RgbImage,
  quad: Quad,
  options: WarpOptions & { width?: number; height?: number } = {},
): RgbImage {
  const width = options.width ?? CANONICAL_WIDTH;
  const height = options.height ?? CANONICAL_HEIGHT;
  return warpPerspective(src, homographyFromCanonical(quad, width, height), width, height, options);
}
