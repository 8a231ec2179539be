/**
 * Colour models of the card's outer zone. Near the outline a pixel is explained as one of
 *   - a mix of border colour B and exposed card stock S (whitening; the mix fraction is the stock coverage),
 *   - a mix of background G and B or S (the outline itself, anti-aliased or blurred),
 *   - B or S darkened by a factor r (a bent/crushed corner tip, "ding"),
 *   - none of these (art, frame line, text): the residual is large.
 * Fitting all models and keeping the best gives sub-pixel coverages, so areas and depths are measured to a
 * fraction of a pixel on clean renders and degrade gracefully with blur and noise on photos.
 */
import type { Rgb } from './raster';

export interface PixelModel {
  /** Fraction of the pixel covered by background (off the card). */
  bg: number;
  /** Fraction covered by exposed stock (whitening). */
  stock: number;
  /** Darkening factor (1 = none) when the best model is a darkened B or S. */
  dark: number;
  /** Distance (RGB levels) between the pixel and the best model. */
  resid: number;
  /** Which model won. */
  model: 'BS' | 'GB' | 'GS' | 'dB' | 'dS';
}

function mix(cr: number, cg: number, cb: number, p: Rgb, q: Rgb): number {
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  const dz = q[2] - p[2];
  const n2 = dx * dx + dy * dy + dz * dz;
  const cx = cr - p[0];
  const cy = cg - p[1];
  const cz = cb - p[2];
  let t = n2 > 1e-6 ? (cx * dx + cy * dy + cz * dz) / n2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  mixT = t;
  return Math.sqrt((cx - t * dx) ** 2 + (cy - t * dy) ** 2 + (cz - t * dz) ** 2);
}

function scaled(cr: number, cg: number, cb: number, k: Rgb, lo: number): number {
  const n2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
  let r = n2 > 1e-6 ? (cr * k[0] + cg * k[1] + cb * k[2]) / n2 : 1;
  r = r < lo ? lo : r > 1 ? 1 : r;
  mixT = r;
  return Math.sqrt((cr - r * k[0]) ** 2 + (cg - r * k[1]) ** 2 + (cb - r * k[2]) ** 2);
}

let mixT = 0;

export interface ZoneColours {
  border: Rgb;
  stock: Rgb;
  background: Rgb;
}

/**
 * Best model of the pixel (r, g, b) given the local zone colours. `allowBg` enables the outline (background)
 * mixes, `allowDark` the ding models.
 */
export function fitPixel(
  r: number,
  g: number,
  b: number,
  z: ZoneColours,
  allowBg: boolean,
  allowDark: boolean,
  out: PixelModel,
  darkMargin = 3,
): PixelModel {
  const r1 = mix(r, g, b, z.border, z.stock);
  out.bg = 0;
  out.stock = mixT;
  out.dark = 1;
  out.resid = r1;
  out.model = 'BS';
  if (allowBg) {
    // Prefer the whitening explanation on ties: background mixes need a clearly better fit.
    const r2 = mix(r, g, b, z.background, z.border);
    if (r2 + 2 < out.resid) {
      out.bg = 1 - mixT;
      out.stock = 0;
      out.resid = r2;
      out.model = 'GB';
    }
    const r3 = mix(r, g, b, z.background, z.stock);
    if (r3 + 2 < out.resid) {
      out.bg = 1 - mixT;
      out.stock = mixT;
      out.resid = r3;
      out.model = 'GS';
    }
  }
  if (allowDark) {
    const r4 = scaled(r, g, b, z.border, 0.3);
    if (mixT < 0.85 && r4 + darkMargin < out.resid) {
      out.bg = 0;
      out.stock = 0;
      out.dark = mixT;
      out.resid = r4;
      out.model = 'dB';
    }
    const r5 = scaled(r, g, b, z.stock, 0.3);
    if (mixT < 0.85 && r5 + darkMargin < out.resid) {
      out.bg = 0;
      out.stock = 1;
      out.dark = mixT;
      out.resid = r5;
      out.model = 'dS';
    }
  }
  return out;
}

export function newPixelModel(): PixelModel {
  return { bg: 0, stock: 0, dark: 1, resid: 0, model: 'BS' };
}

export function lumOf(c: Rgb): number {
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
}

export function chromaOf(c: Rgb): number {
  return Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]);
}

/** Per-channel median of a list of colours. */
export function medianColour(cs: Rgb[]): Rgb {
  if (cs.length === 0) return [0, 0, 0];
  const ch = (k: 0 | 1 | 2) => {
    const a = cs.map((c) => c[k]).sort((x, y) => x - y);
    const n = a.length;
    return n % 2 ? a[(n - 1) >> 1]! : 0.5 * (a[n / 2 - 1]! + a[n / 2]!);
  };
  return [ch(0), ch(1), ch(2)];
}
