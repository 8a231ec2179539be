// Border colour family of a rectified side: the per-channel median of a ring just inside the outer edge
// (corners left out; wear and chips are a small minority of it), named by hue, saturation and brightness
// relative to the brightest paper on the card (so a white border under dim light stays white, and silver,
// grey and white are told apart by how they compare with the card's own white).
import { histogramQuantile } from '../defects/raster';
import type { RgbImage } from '../image/types';
import { BORDER_RING_MM, CARD_H_MM, CARD_W_MM } from './regions';

export type BorderColour =
  | 'white'
  | 'silver'
  | 'grey'
  | 'black'
  | 'yellow'
  | 'gold'
  | 'orange'
  | 'red'
  | 'pink'
  | 'purple'
  | 'blue'
  | 'aqua'
  | 'green';

export interface BorderColourResult {
  colour: BorderColour;
  /** Median RGB of the border ring. */
  rgb: [number, number, number];
  /** Border luma / the card's paper-white luma. */
  relativeLightness: number;
}

export function borderColour(img: RgbImage): BorderColourResult {
  const sx = img.width / CARD_W_MM;
  const sy = img.height / CARD_H_MM;
  const inX0 = Math.round(BORDER_RING_MM.inner * sx);
  const outX = Math.round(BORDER_RING_MM.outer * sx);
  const inY0 = Math.round(BORDER_RING_MM.inner * sy);
  const outY = Math.round(BORDER_RING_MM.outer * sy);
  const skipX = Math.round(BORDER_RING_MM.cornerSkip * sx);
  const skipY = Math.round(BORDER_RING_MM.cornerSkip * sy);
  const w = img.width;
  const h = img.height;
  const hr = new Uint32Array(256);
  const hg = new Uint32Array(256);
  const hb = new Uint32Array(256);
  let n = 0;
  const d = img.data;
  const add = (x: number, y: number): void => {
    const j = (y * w + x) * 3;
    hr[d[j]!]!++;
    hg[d[j + 1]!]!++;
    hb[d[j + 2]!]!++;
    n++;
  };
  for (let y = skipY; y < h - skipY; y++) {
    for (let x = inX0; x < outX; x++) {
      add(x, y);
      add(w - 1 - x, y);
    }
  }
  for (let x = skipX; x < w - skipX; x++) {
    for (let y = inY0; y < outY; y++) {
      add(x, y);
      add(x, h - 1 - y);
    }
  }
  const rgb: [number, number, number] = [histogramQuantile(hr, n, 0.5), histogramQuantile(hg, n, 0.5), histogramQuantile(hb, n, 0.5)];

  // Paper white: a high percentile of the luma over the whole card (bright print, white text, the border).
  const hl = new Uint32Array(256);
  for (let i = 0; i < w * h; i += 3) {
    const j = i * 3;
    hl[Math.round((d[j]! + d[j + 1]! + d[j + 2]!) / 3)]!++;
  }
  const white = Math.max(120, histogramQuantile(hl, Math.ceil((w * h) / 3), 0.995));
  const [r, g, b] = rgb;
  const mx = Math.max(r, g, b);
  const mn = Math.min(r, g, b);
  const lum = (r + g + b) / 3;
  const rel = Math.min(1.2, lum / white);
  const sat = mx > 0 ? (mx - mn) / mx : 0;
  let hue = 0;
  if (mx > mn) {
    if (mx === r) hue = (60 * ((g - b) / (mx - mn)) + 360) % 360;
    else if (mx === g) hue = 60 * ((b - r) / (mx - mn)) + 120;
    else hue = 60 * ((r - g) / (mx - mn)) + 240;
  }
  return { colour: nameColour(hue, sat, mx, rel, b / Math.max(1, r)), rgb, relativeLightness: Math.round(rel * 1000) / 1000 };
}

/**
 * Colour family from hue (deg), saturation (0-1), max channel (0-255), lightness relative to paper white and the
 * blue/red ratio. White and silver are both near-grey: white is brighter in absolute terms and as bright as the
 * card's own paper; silver foil is darker and slightly blue.
 */
export function nameColour(hue: number, sat: number, max: number, rel: number, blueRed = 1): BorderColour {
  if (max < 60 || (sat < 0.3 && rel < 0.3)) return 'black';
  if (sat < 0.17) {
    if (max >= 232) return 'white';
    if (max >= 150 && rel >= 0.9) return blueRed >= 1.03 ? 'silver' : 'white';
    if (rel >= 0.7 || max >= 150) return 'silver';
    if (rel >= 0.4) return 'grey';
    return 'black';
  }
  if (sat < 0.3 && rel >= 0.88 && (hue < 70 || hue > 300)) return 'white';
  if (hue < 14 || hue >= 345) return 'red';
  if (hue < 36) return sat > 0.5 && rel > 0.45 ? 'orange' : hue < 25 ? 'red' : 'gold';
  // Yellow print is more saturated and a little greener than gold foil.
  if (hue < 66) return hue >= 44.5 || sat >= 0.8 ? 'yellow' : 'gold';
  if (hue < 165) return 'green';
  if (hue < 200) return 'aqua';
  if (hue < 255) return 'blue';
  if (hue < 290) return 'purple';
  return 'pink';
}
