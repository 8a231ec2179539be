// Photographs a rendered card side: background, perspective warp of the card (inverse homography with
// bilinear sampling), sleeve, uneven light, glare, blur, sensor noise, JPEG (optionally with only an EXIF
// orientation tag, pixels stored rotated). Coordinates are continuous: pixel (i, j) covers [i, i+1) x [j, j+1).
import sharp from 'sharp';
import { Rng } from '../prng';
import type { RenderedSide } from '../render/side';
import { H as CARD_H, W as CARD_W } from '../shape';
import { cardInteriorSpans, renderBackground } from './background';
import { SensorNoise } from './noise';
import { apply, invert, mul, type Mat3 } from './homography';
import { lightingField, planPhoto, type ExifOrientation, type LightingField, type PhotoOptions, type PhotoPlan } from './plan';

export interface PhotoTags {
  glare: boolean;
  blur: boolean;
  steepPerspective: boolean;
  sleeve: boolean;
  exifRotated: boolean;
  /** In-plane rotation beyond ±45 degrees (sideways or upside down). */
  rotated: boolean;
  /** Card smaller than 35 % of the frame. */
  smallCard: boolean;
  /** glare || blur || steepPerspective. */
  hard: boolean;
}

export interface PhotoLabel {
  /** Display size (EXIF orientation applied). */
  widthPx: number;
  heightPx: number;
  /** The card's corners TL, TR, BR, BL (the card's own corners, as printed) in display pixels. */
  quadPx: [number, number][];
  rotationDeg: number;
  perspectiveDeg: number;
  cardFraction: number;
  pxPerMm: number;
  megapixels: number;
  background: string;
  blurSigmaPx: number;
  noiseSigma: number;
  jpegQuality: number;
  exifOrientation: ExifOrientation;
  sleeve: string;
  glare: { cx: number; cy: number; rx: number; ry: number; angleDeg: number; strength: number; overCard: boolean }[];
  lighting: { exposure: number; gradient: number; gradientDeg: number; vignette: number };
  tags: PhotoTags;
}

export interface Photo {
  jpeg: Buffer;
  label: PhotoLabel;
  plan: PhotoPlan;
}

/** x-range of a convex polygon within the horizontal band [y0, y1] (empty: lo > hi). */
export function spanInBand(poly: [number, number][], y0: number, y1: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    if (Math.max(a[1], b[1]) < y0 || Math.min(a[1], b[1]) > y1) continue;
    if (a[1] === b[1]) {
      lo = Math.min(lo, a[0], b[0]);
      hi = Math.max(hi, a[0], b[0]);
      continue;
    }
    let t0 = (y0 - a[1]) / (b[1] - a[1]);
    let t1 = (y1 - a[1]) / (b[1] - a[1]);
    if (t0 > t1) [t0, t1] = [t1, t0];
    t0 = Math.max(0, t0);
    t1 = Math.min(1, t1);
    const xa = a[0] + (b[0] - a[0]) * t0;
    const xb = a[0] + (b[0] - a[0]) * t1;
    lo = Math.min(lo, xa, xb);
    hi = Math.max(hi, xa, xb);
  }
  return [lo, hi];
}

/**
 * Warps the card (RGBA, straight alpha) onto the RGB frame through `h` (card mm -> display px), applying the
 * lighting gain to the card's colour on the way (the background got the same gain at low resolution).
 * The inverse mapping is evaluated exactly every WARP_SPAN pixels and linearly in between (the projective
 * curvature over 16 px is far below 0.01 px); interior pixels use 8-bit fixed-point bilinear sampling.
 */
const WARP_SPAN = 16;

export function warpCard(
  dst: Uint8Array,
  width: number,
  height: number,
  card: RenderedSide,
  h: Mat3,
  light?: LightingField,
  tint: [number, number, number] = [1, 1, 1],
  noise: SensorNoise | null = null,
): void {
  const kx = card.width / CARD_W;
  const ky = card.height / CARD_H;
  // Display px (continuous, pixel centres at +0.5) -> source pixel index space (centres at integers).
  const toSrc: Mat3 = mul([kx, 0, -0.5, 0, ky, -0.5, 0, 0, 1], mul(invert(h), [1, 0, 0.5, 0, 1, 0.5, 0, 0, 1]));
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = toSrc;
  const quad = [
    [0, 0],
    [CARD_W, 0],
    [CARD_W, CARD_H],
    [0, CARD_H],
  ].map(([x, y]) => apply(h, x!, y!));
  const ys = quad.map((p) => p[1]);
  const yStart = Math.max(0, Math.floor(Math.min(...ys)) - 1);
  const yEnd = Math.min(height - 1, Math.ceil(Math.max(...ys)) + 1);
  const sw = card.width;
  const sh = card.height;
  const src = card.rgba;
  const maxX = sw - 1;
  const maxY = sh - 1;
  const row = sw * 4;
  const [tr, tg, tb] = tint;
  const ax = light?.ax;
  const vx = light?.vx;
  // Writes go through a clamped view: rounding and clamping to 0..255 without branches.
  const out = new Uint8ClampedArray(dst.buffer, dst.byteOffset, dst.length);
  const nt = noise?.values;
  const nmask = noise?.mask ?? 0;
  for (let y = yStart; y <= yEnd; y++) {
    // Span of the (convex) quad within the row band, padded.
    const [lo, hi] = spanInBand(quad, y - 1, y + 2);
    if (lo > hi) continue;
    const xFirst = Math.max(0, Math.floor(lo) - 2);
    const xLast = Math.min(width - 1, Math.ceil(hi) + 2);
    const rowAdd = light ? light.rowAdd(y) : 1;
    const rowMul = light ? light.rowMul(y) : 1;
    const [nk0, nstep] = noise ? noise.row() : [0, 0];
    let nk = nk0;
    for (let xs = xFirst; xs <= xLast; xs += WARP_SPAN) {
      const xe = Math.min(xLast + 1, xs + WARP_SPAN);
      let w = m6 * xs + m7 * y + m8;
      const u0 = (m0 * xs + m1 * y + m2) / w;
      const v0 = (m3 * xs + m4 * y + m5) / w;
      w = m6 * xe + m7 * y + m8;
      const du = ((m0 * xe + m1 * y + m2) / w - u0) / (xe - xs);
      const dv = ((m3 * xe + m4 * y + m5) / w - v0) / (xe - xs);
      let u = u0;
      let v = v0;
      let o = (y * width + xs) * 3;
      for (let x = xs; x < xe; x++, u += du, v += dv, o += 3) {
        if (u <= -1 || v <= -1 || u >= sw || v >= sh) continue;
        let r = 0;
        let g = 0;
        let b = 0;
        let t = 1;
        let interior = false;
        if (u >= 0 && v >= 0 && u < maxX && v < maxY) {
          const U = (u * 256) | 0;
          const V = (v * 256) | 0;
          const fx = U & 255;
          const fy = V & 255;
          const i00 = (V >> 8) * row + ((U >> 8) << 2);
          const i01 = i00 + row;
          if ((src[i00 + 3]! & src[i00 + 7]! & src[i01 + 3]! & src[i01 + 7]!) === 255) {
            // Fully on the card: fixed-point bilinear.
            const gx = 256 - fx;
            const gy = 256 - fy;
            r = ((src[i00]! * gx + src[i00 + 4]! * fx) * gy + (src[i01]! * gx + src[i01 + 4]! * fx) * fy) * (1 / 65536);
            g = ((src[i00 + 1]! * gx + src[i00 + 5]! * fx) * gy + (src[i01 + 1]! * gx + src[i01 + 5]! * fx) * fy) * (1 / 65536);
            b = ((src[i00 + 2]! * gx + src[i00 + 6]! * fx) * gy + (src[i01 + 2]! * gx + src[i01 + 6]! * fx) * fy) * (1 / 65536);
            interior = true;
          }
        }
        if (!interior) {
          // Near the outline or the source border: coverage-weighted colour, clamped coordinates.
          const x0 = Math.floor(u);
          const y0 = Math.floor(v);
          const fx = u - x0;
          const fy = v - y0;
          const xa = x0 < 0 ? 0 : x0;
          const xb = x0 + 1 > maxX ? maxX : x0 + 1;
          const ya = y0 < 0 ? 0 : y0;
          const yb = y0 + 1 > maxY ? maxY : y0 + 1;
          const inX0 = x0 >= 0 ? 1 : 0;
          const inX1 = x0 + 1 <= maxX ? 1 : 0;
          const inY0 = y0 >= 0 ? 1 : 0;
          const inY1 = y0 + 1 <= maxY ? 1 : 0;
          const i00 = ya * row + xa * 4;
          const i10 = ya * row + xb * 4;
          const i01 = yb * row + xa * 4;
          const i11 = yb * row + xb * 4;
          const w00 = (1 - fx) * (1 - fy) * src[i00 + 3]! * inX0 * inY0;
          const w10 = fx * (1 - fy) * src[i10 + 3]! * inX1 * inY0;
          const w01 = (1 - fx) * fy * src[i01 + 3]! * inX0 * inY1;
          const w11 = fx * fy * src[i11 + 3]! * inX1 * inY1;
          const alpha = w00 + w10 + w01 + w11;
          if (alpha <= 0.5) continue;
          const inv = 1 / alpha;
          r = (src[i00]! * w00 + src[i10]! * w10 + src[i01]! * w01 + src[i11]! * w11) * inv;
          g = (src[i00 + 1]! * w00 + src[i10 + 1]! * w10 + src[i01 + 1]! * w01 + src[i11 + 1]! * w11) * inv;
          b = (src[i00 + 2]! * w00 + src[i10 + 2]! * w10 + src[i01 + 2]! * w01 + src[i11 + 2]! * w11) * inv;
          t = alpha / 255;
        }
        if (ax && vx) {
          const gain = (ax[x]! + rowAdd) * vx[x]! * rowMul;
          r *= gain * tr;
          g *= gain * tg;
          b *= gain * tb;
        }
        if (t !== 1) {
          // The background under it already carries its noise; blend the card's share only.
          const s = 1 - t;
          out[o] = r * t + out[o]! * s;
          out[o + 1] = g * t + out[o + 1]! * s;
          out[o + 2] = b * t + out[o + 2]! * s;
          continue;
        }
        if (nt) {
          const n = nt[nk]!;
          nk = (nk + nstep) & nmask;
          r += n;
          g += n;
          b += n;
        }
        out[o] = r;
        out[o + 1] = g;
        out[o + 2] = b;
      }
    }
  }
}

function applySleeve(buf: Uint8Array, width: number, height: number, plan: PhotoPlan): void {
  const s = plan.sleeve;
  if (!s) return;
  const [ml, mt, mr, mb] = s.margin;
  const x0mm = -ml;
  const y0mm = -mt;
  const x1mm = CARD_W + mr;
  const y1mm = CARD_H + mb;
  const corners = [
    apply(plan.homography, x0mm, y0mm),
    apply(plan.homography, x1mm, y0mm),
    apply(plan.homography, x1mm, y1mm),
    apply(plan.homography, x0mm, y1mm),
  ];
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const xa = Math.max(0, Math.floor(Math.min(...xs)));
  const xb = Math.min(width - 1, Math.ceil(Math.max(...xs)));
  const ya = Math.max(0, Math.floor(Math.min(...ys)));
  const yb = Math.min(height - 1, Math.ceil(Math.max(...ys)));
  const inv = mul(invert(plan.homography), [1, 0, 0.5, 0, 1, 0.5, 0, 0, 1]);
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = inv;
  const edgeMm = s.kind === 'toploader' ? 1.4 : 0.35;
  const band = s.band;
  const bc = band ? Math.cos((band.angleDeg * Math.PI) / 180) : 0;
  const bs = band ? Math.sin((band.angleDeg * Math.PI) / 180) : 0;
  const haze = s.haze;
  for (let y = ya; y <= yb; y++) {
    let nx = m0 * xa + m1 * y + m2;
    let ny = m3 * xa + m4 * y + m5;
    let nw = m6 * xa + m7 * y + m8;
    let o = (y * width + xa) * 3;
    for (let x = xa; x <= xb; x++, nx += m0, ny += m3, nw += m6, o += 3) {
      const X = nx / nw;
      const Y = ny / nw;
      if (X < x0mm || Y < y0mm || X > x1mm || Y > y1mm) continue;
      const edgeDist = Math.min(X - x0mm, x1mm - X, Y - y0mm, y1mm - Y);
      let lift = haze;
      if (edgeDist < edgeMm) lift += s.edgeOpacity * (s.kind === 'toploader' ? 0.35 : 0.5) * (1 - edgeDist / edgeMm);
      if (band) {
        const d = Math.abs((X - CARD_W / 2) * bc + (Y - CARD_H / 2) * bs - band.offset);
        const hw = band.width / 2;
        if (d < hw) {
          const t = d / hw;
          lift += band.strength * (1 - t * t);
        }
      }
      if (lift > 1) lift = 1;
      buf[o] = buf[o]! + (250 - buf[o]!) * lift;
      buf[o + 1] = buf[o + 1]! + (250 - buf[o + 1]!) * lift;
      buf[o + 2] = buf[o + 2]! + (252 - buf[o + 2]!) * lift;
    }
  }
}

const GLARE_LUT_SIZE = 1024;
const GLARE_R2_MAX = 4.8;
let glareLut: Float32Array | null = null;

/** Glare profile over r² (r = 1 on the spot's ellipse): saturated core, gaussian-like falloff. */
function glareProfile(): Float32Array {
  if (glareLut) return glareLut;
  const lut = new Float32Array(GLARE_LUT_SIZE + 1);
  for (let i = 0; i <= GLARE_LUT_SIZE; i++) {
    const r2 = (i / GLARE_LUT_SIZE) * GLARE_R2_MAX;
    lut[i] = Math.max(0, Math.min(1, 1.5 * Math.exp(-1.6 * r2)) - 0.0007);
  }
  glareLut = lut;
  return lut;
}

function applyGlare(buf: Uint8Array, width: number, height: number, plan: PhotoPlan): void {
  const lut = glareProfile();
  const lutScale = GLARE_LUT_SIZE / GLARE_R2_MAX;
  for (const g of plan.glare) {
    const ext = Math.sqrt(GLARE_R2_MAX) * Math.max(g.rx, g.ry);
    const xa = Math.max(0, Math.floor(g.cx - ext));
    const xb = Math.min(width - 1, Math.ceil(g.cx + ext));
    const ya = Math.max(0, Math.floor(g.cy - ext));
    const yb = Math.min(height - 1, Math.ceil(g.cy + ext));
    const a = (g.angleDeg * Math.PI) / 180;
    const ca = Math.cos(a) / g.rx;
    const sa = Math.sin(a) / g.rx;
    const cb = Math.cos(a) / g.ry;
    const sb = Math.sin(a) / g.ry;
    for (let y = ya; y <= yb; y++) {
      const dy = y + 0.5 - g.cy;
      let o = (y * width + xa) * 3;
      for (let x = xa; x <= xb; x++, o += 3) {
        const dx = x + 0.5 - g.cx;
        const u = dx * ca + dy * sa;
        const v = -dx * sb + dy * cb;
        const r2 = u * u + v * v;
        if (r2 >= GLARE_R2_MAX) continue;
        const k = lut[(r2 * lutScale) | 0]! * g.strength;
        buf[o] = buf[o]! + (255 - buf[o]!) * k;
        buf[o + 1] = buf[o + 1]! + (255 - buf[o + 1]!) * k;
        buf[o + 2] = buf[o + 2]! + (255 - buf[o + 2]!) * k;
      }
    }
  }
}

/** A JPEG APP1 segment holding only the EXIF orientation tag (little-endian TIFF, IFD0 with one entry). */
function exifOrientationSegment(orientation: number): Buffer {
  const seg = Buffer.alloc(2 + 2 + 6 + 8 + 2 + 12 + 4);
  let p = 0;
  seg.writeUInt16BE(0xffe1, p);
  p += 2;
  seg.writeUInt16BE(seg.length - 2, p);
  p += 2;
  seg.write('Exif\0\0', p, 'latin1');
  p += 6;
  seg.write('II', p, 'latin1');
  seg.writeUInt16LE(42, p + 2);
  seg.writeUInt32LE(8, p + 4);
  p += 8;
  seg.writeUInt16LE(1, p);
  p += 2;
  seg.writeUInt16LE(0x0112, p);
  seg.writeUInt16LE(3, p + 2);
  seg.writeUInt32LE(1, p + 4);
  seg.writeUInt16LE(orientation, p + 8);
  p += 12;
  seg.writeUInt32LE(0, p);
  return seg;
}

export function withExifOrientation(jpeg: Buffer, orientation: number): Buffer {
  if (orientation === 1) return jpeg;
  return Buffer.concat([jpeg.subarray(0, 2), exifOrientationSegment(orientation), jpeg.subarray(2)]);
}

/** Rotation (clockwise degrees) that turns the displayed image into the stored pixels for an orientation. */
const STORE_ROTATION: Record<ExifOrientation, number> = { 1: 0, 3: 180, 6: 270, 8: 90 };

function photoTags(plan: PhotoPlan): PhotoTags {
  const glare = plan.glare.some((g) => g.overCard && g.strength >= 0.35) || (plan.sleeve?.band?.strength ?? 0) >= 0.3;
  const blur = plan.blurSigmaPx / Math.sqrt(plan.megapixels / 12) >= 1.2;
  const steepPerspective = plan.perspectiveDeg > 20;
  const rot = Math.abs(plan.rotationDeg);
  return {
    glare,
    blur,
    steepPerspective,
    sleeve: plan.sleeve !== null,
    exifRotated: plan.exifOrientation !== 1,
    rotated: rot > 45,
    smallCard: plan.cardFraction < 0.35,
    hard: glare || blur || steepPerspective,
  };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

export function photoLabel(plan: PhotoPlan): PhotoLabel {
  return {
    widthPx: plan.width,
    heightPx: plan.height,
    quadPx: plan.quadPx.map(([x, y]) => [r2(x), r2(y)]),
    rotationDeg: r2(plan.rotationDeg),
    perspectiveDeg: r2(plan.perspectiveDeg),
    cardFraction: Math.round(plan.cardFraction * 1000) / 1000,
    pxPerMm: r2(plan.pxPerMm),
    megapixels: plan.megapixels,
    background: plan.background,
    blurSigmaPx: r2(plan.blurSigmaPx),
    noiseSigma: r2(plan.noiseSigma),
    jpegQuality: plan.jpegQuality,
    exifOrientation: plan.exifOrientation,
    sleeve: plan.sleeve?.kind ?? 'none',
    glare: plan.glare.map((g) => ({ cx: r2(g.cx), cy: r2(g.cy), rx: r2(g.rx), ry: r2(g.ry), angleDeg: r2(g.angleDeg), strength: r2(g.strength), overCard: g.overCard })),
    lighting: { exposure: r2(plan.lighting.exposure), gradient: r2(plan.lighting.gradient), gradientDeg: r2(plan.lighting.gradientDeg), vignette: r2(plan.lighting.vignette) },
    tags: photoTags(plan),
  };
}

/** Display-oriented RGB pixels of the photo (before JPEG), for tests and debugging. */
export async function photographRaw(card: RenderedSide, plan: PhotoPlan, noiseSeed: number): Promise<Uint8Array> {
  const { width, height } = plan;
  const noise = plan.noiseSigma > 0 ? new SensorNoise(plan.noiseSigma, noiseSeed) : null;
  // Without blur the noise is added inline (background upscale, card warp); with blur it comes after it.
  const inline = plan.blurSigmaPx > 0 ? null : noise;
  const buf = await renderBackground(plan);
  inline?.applyAll(buf, width, height, cardInteriorSpans(plan));
  warpCard(buf, width, height, card, plan.homography, lightingField(plan), plan.lighting.tint, inline);
  applySleeve(buf, width, height, plan);
  applyGlare(buf, width, height, plan);
  if (plan.blurSigmaPx > 0) {
    const blurred = await sharp(buf, { raw: { width, height, channels: 3 } }).blur(plan.blurSigmaPx).raw().toBuffer();
    const out = new Uint8Array(blurred.buffer, blurred.byteOffset, blurred.length);
    noise?.applyAll(out, width, height);
    return out;
  }
  return buf;
}

export async function encodePhoto(pixels: Uint8Array, plan: PhotoPlan): Promise<Buffer> {
  const rotate = STORE_ROTATION[plan.exifOrientation];
  let img = sharp(pixels, { raw: { width: plan.width, height: plan.height, channels: 3 } });
  if (rotate !== 0) img = img.rotate(rotate);
  const jpeg = await img.jpeg({ quality: plan.jpegQuality }).toBuffer();
  return withExifOrientation(jpeg, plan.exifOrientation);
}

/**
 * Photographs one rendered side. `options` is either a resolved PhotoPlan (as generateSample uses, so the
 * card can be rendered at the plan's scale) or PhotoOptions to draw one from `seed`.
 */
export async function photograph(card: RenderedSide, options: PhotoOptions | PhotoPlan = {}, seed = 0): Promise<Photo> {
  const plan = 'homography' in options ? options : planPhoto(new Rng(seed, 21), options);
  const pixels = await photographRaw(card, plan, seed ^ 0x5bd1e995);
  const jpeg = await encodePhoto(pixels, plan);
  return { jpeg, label: photoLabel(plan), plan };
}
