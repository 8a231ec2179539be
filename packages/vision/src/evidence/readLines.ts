// Reads the text lines found by findTextLines with ONE tesseract call: every line is cropped, normalised to
// dark ink on a white ground (whatever its colours and polarity), upscaled to a common glyph height and
// stacked into a composite page; tesseract's output lines are mapped back to their source by position.
import type { RgbImage } from '../image/types';
import type { OcrLine, OcrPool } from './ocr';
import { PSM } from './ocr';
import { ringMedian, type TextLine } from './textLines';

export interface ReadLine {
  text: string;
  /** 0-100. */
  confidence: number;
  line: TextLine;
}

/** Glyph height the crops are scaled to (tesseract reads best with capitals of ~20-40 px). */
const TARGET_GLYPH_PX = 30;
const GAP_PX = 36;
const MARGIN_PX = 16;

export interface Crop {
  width: number;
  height: number;
  /** 8-bit grey, dark ink on white. */
  data: Uint8Array;
}

/** Polarity-free crop of one line: ground -> 255, ink -> 0, scaled so glyphs are `glyphPx` tall. */
export function lineCrop(img: RgbImage, line: TextLine, glyphPx = TARGET_GLYPH_PX): Crop {
  const gh = Math.max(4, line.glyphHeight);
  const padX = Math.round(0.5 * gh);
  const padY = Math.round(0.3 * gh);
  const x0 = Math.max(0, line.x0 - padX);
  const y0 = Math.max(0, line.y0 - padY);
  const x1 = Math.min(img.width, line.x1 + padX);
  const y1 = Math.min(img.height, line.y1 + padY);
  const ground = ringMedian(img, line, line);
  const ink = line.inkLuma;
  const span = ground - ink;
  const inv = 1 / (Math.abs(span) < 8 ? (span < 0 ? -8 : 8) : span);
  const s = Math.min(4, Math.max(1, glyphPx / gh));
  const sw = x1 - x0;
  const sh = y1 - y0;
  const width = Math.max(1, Math.round(sw * s));
  const height = Math.max(1, Math.round(sh * s));
  const src = new Float32Array(sw * sh).fill(255);
  const d = img.data;
  // Only near the glyphs: columns within half a glyph height of one, rows from a little above the line (dots,
  // accents) to just below it. Frame lines, underlines and bits of neighbouring lines stay out.
  const near = new Uint8Array(sw);
  const reach = Math.round(0.45 * gh);
  for (const [a, b] of line.spans) {
    for (let x = Math.max(x0, a - reach); x < Math.min(x1, b + reach); x++) near[x - x0] = 1;
  }
  const rowLo = Math.max(y0, line.y0 - Math.round(0.28 * gh)) - y0;
  const rowHi = Math.min(y1, line.y1 + Math.round(0.1 * gh)) - y0;
  for (let y = rowLo; y < rowHi; y++) {
    for (let x = 0; x < sw; x++) {
      if (!near[x]) continue;
      const j = ((y0 + y) * img.width + x0 + x) * 3;
      const l = 0.299 * d[j]! + 0.587 * d[j + 1]! + 0.114 * d[j + 2]!;
      // Ink -> 0, ground (and anything beyond it, away from the ink) -> 255.
      const v = (l - ink) * inv;
      src[y * sw + x] = v < 0 ? 0 : v > 1 ? 255 : v * 255;
    }
  }
  // Bilinear upscale (pixel centres aligned).
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(sh - 1, Math.max(0, (y + 0.5) / s - 0.5));
    const iy = Math.min(sh - 2, Math.floor(fy));
    const ty = sh === 1 ? 0 : fy - Math.max(0, iy);
    const r0 = Math.max(0, iy) * sw;
    const r1 = Math.min(sh - 1, Math.max(0, iy) + 1) * sw;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(sw - 1, Math.max(0, (x + 0.5) / s - 0.5));
      const ix = Math.min(sw - 2, Math.floor(fx));
      const cx = Math.max(0, ix);
      const tx = sw === 1 ? 0 : fx - cx;
      const cx1 = Math.min(sw - 1, cx + 1);
      const a = src[r0 + cx]! + (src[r0 + cx1]! - src[r0 + cx]!) * tx;
      const b = src[r1 + cx]! + (src[r1 + cx1]! - src[r1 + cx]!) * tx;
      out[y * width + x] = Math.round(a + (b - a) * ty);
    }
  }
  return { width, height, data: out };
}

/** Binary PGM (P5): tesseract's image reader takes it as is, no compression work. */
export function pgm(width: number, height: number, data: Uint8Array): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii');
  return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

export interface Composite {
  image: Buffer;
  width: number;
  height: number;
  /** Vertical slot [y0, y1) of each crop in the composite. */
  slots: [number, number][];
}

export function composite(crops: Crop[]): Composite {
  const width = Math.max(64, ...crops.map((c) => c.width)) + 2 * MARGIN_PX;
  let height = MARGIN_PX;
  const slots: [number, number][] = [];
  for (const c of crops) {
    slots.push([height, height + c.height]);
    height += c.height + GAP_PX;
  }
  height += MARGIN_PX - GAP_PX;
  height = Math.max(height, 2 * MARGIN_PX);
  const data = new Uint8Array(width * height).fill(255);
  crops.forEach((c, i) => {
    const top = slots[i]![0];
    for (let y = 0; y < c.height; y++) data.set(c.data.subarray(y * c.width, (y + 1) * c.width), (top + y) * width + MARGIN_PX);
  });
  return { image: pgm(width, height, data), width, height, slots };
}

function assign(lines: OcrLine[], slots: [number, number][]): OcrLine[][] {
  const out: OcrLine[][] = slots.map(() => []);
  for (const l of lines) {
    const cy = (l.bbox.y0 + l.bbox.y1) / 2;
    let best = -1;
    let bestD = Infinity;
    slots.forEach(([a, b], i) => {
      const d = cy < a ? a - cy : cy > b ? cy - b : 0;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    if (best >= 0 && bestD <= GAP_PX / 2) out[best]!.push(l);
  }
  return out;
}

/** OCR of many lines in one recognise call (PSM 6: one block of lines; crops share a glyph height). */
export async function readLines(img: RgbImage, lines: TextLine[], ocr: OcrPool, psm: PSM = PSM.SINGLE_BLOCK): Promise<ReadLine[]> {
  if (lines.length === 0) return [];
  const crops = lines.map((l) => lineCrop(img, l));
  const comp = composite(crops);
  const res = await ocr.recognize({ image: comp.image, psm });
  const perSlot = assign(res, comp.slots);
  return lines.map((line, i) => {
    const got = perSlot[i]!.sort((a, b) => a.bbox.x0 - b.bbox.x0);
    const text = got.map((g) => g.text).join(' ').replace(/\s+/g, ' ').trim();
    const conf = got.length > 0 ? got.reduce((s, g) => s + g.confidence, 0) / got.length : 0;
    return { text, confidence: conf, line };
  });
}

/** OCR of one line on its own, optionally with a character whitelist (PSM 7: a single text line). */
export async function readLineRestricted(img: RgbImage, line: TextLine, ocr: OcrPool, whitelist: string): Promise<ReadLine> {
  const c = lineCrop(img, line);
  const comp = composite([c]);
  const res = await ocr.recognize({ image: comp.image, psm: PSM.SINGLE_LINE, whitelist });
  const text = res.map((r) => r.text).join(' ').replace(/\s+/g, ' ').trim();
  const conf = res.length > 0 ? res.reduce((s, g) => s + g.confidence, 0) / res.length : 0;
  return { text, confidence: conf, line };
}
