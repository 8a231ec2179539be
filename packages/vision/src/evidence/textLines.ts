// Finds printed text lines on a rectified card side without knowing its layout: grey-level top-hats pick out
// strokes thinner than a structuring element (dark ink on a light ground and light ink on a dark ground, each
// on its own), connected components of the thresholded top-hat are filtered to glyph-like sizes, and glyphs
// sharing a row are chained into lines. Each line also carries a polarity-normalised crop source (dark text on
// white) for OCR.
import { histogramQuantile } from '../defects/raster';
import type { RgbImage } from '../image/types';

export type Polarity = 'dark' | 'light';

export interface TextLine {
  /** Bounding box in the image, px (x1/y1 exclusive). */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  polarity: Polarity;
  /** Glyph height, px: the 80th percentile of the glyphs' heights (about the capital height). */
  glyphHeight: number;
  glyphs: number;
  /** Mean top-hat contrast of the glyph pixels (0-255). */
  contrast: number;
  /** Mean luma of the glyph pixels (0-255). */
  inkLuma: number;
  /** Horizontal extents [x0, x1) of the glyphs, left to right. */
  spans: [number, number][];
}

export interface TextMaps {
  width: number;
  height: number;
  /** Rows [y0, y1) of the image the maps cover. */
  y0: number;
  y1: number;
  luma: Uint8Array;
  dark: Uint8Array;
  light: Uint8Array;
}

export interface FindTextOptions {
  /** Row ranges to search, px ([y0, y1) each); default the whole image. */
  bands?: [number, number][];
  /** Top-hat threshold (0-255); default 36. */
  threshold?: number;
  /** Structuring element size, px (odd); strokes must be thinner than this. Default 15. */
  element?: number;
  /** Raise the threshold on grainy bands (GRAINY_GROUND_MEDIAN). Default false. */
  grainy?: boolean;
}

function lumaRows(img: RgbImage, y0: number, y1: number): Uint8Array {
  const w = img.width;
  const out = new Uint8Array(w * (y1 - y0));
  const d = img.data;
  for (let i = 0, j = y0 * w * 3; i < out.length; i++, j += 3) {
    out[i] = (77 * d[j]! + 150 * d[j + 1]! + 29 * d[j + 2]! + 128) >> 8;
  }
  return out;
}

/**
 * Running max (or min) over windows of k (odd) along each row, van Herk / Gil-Werman: 3 comparisons a pixel
 * whatever k is. Out-of-image samples are neutral (0 for max, 255 for min).
 */
function rowFilter(src: Uint8Array, w: number, h: number, k: number, max: boolean): Uint8Array {
  const out = new Uint8Array(src.length);
  const r = k >> 1;
  const m = Math.ceil((w + 2 * r) / k) * k;
  const p = new Uint8Array(m);
  const g = new Uint8Array(m);
  const hh = new Uint8Array(m);
  p.fill(max ? 0 : 255);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    p.set(src.subarray(row, row + w), r);
    for (let b = 0; b < m; b += k) {
      const e = b + k;
      let acc = p[b]!;
      g[b] = acc;
      if (max) {
        for (let i = b + 1; i < e; i++) {
          const v = p[i]!;
          if (v > acc) acc = v;
          g[i] = acc;
        }
        acc = p[e - 1]!;
        hh[e - 1] = acc;
        for (let i = e - 2; i >= b; i--) {
          const v = p[i]!;
          if (v > acc) acc = v;
          hh[i] = acc;
        }
      } else {
        for (let i = b + 1; i < e; i++) {
          const v = p[i]!;
          if (v < acc) acc = v;
          g[i] = acc;
        }
        acc = p[e - 1]!;
        hh[e - 1] = acc;
        for (let i = e - 2; i >= b; i--) {
          const v = p[i]!;
          if (v < acc) acc = v;
          hh[i] = acc;
        }
      }
    }
    const km1 = k - 1;
    if (max) {
      for (let x = 0; x < w; x++) {
        const a = hh[x]!;
        const c = g[x + km1]!;
        out[row + x] = a > c ? a : c;
      }
    } else {
      for (let x = 0; x < w; x++) {
        const a = hh[x]!;
        const c = g[x + km1]!;
        out[row + x] = a < c ? a : c;
      }
    }
  }
  return out;
}

function transpose(src: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(src.length);
  const B = 32;
  for (let y0 = 0; y0 < h; y0 += B) {
    const y1 = Math.min(h, y0 + B);
    for (let x0 = 0; x0 < w; x0 += B) {
      const x1 = Math.min(w, x0 + B);
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[x * h + y] = src[y * w + x]!;
    }
  }
  return out;
}

/**
 * Grey closing (dilate, then erode: `dilateFirst`) or opening (erode, then dilate) by a k x k square. Each filter is
 * a row pass and a column pass (on a transposed copy); filters of one kind along rows and along columns commute, so
 * the two column passes run back to back on one transposed copy: two transposes instead of four, the same result.
 */
function openClose(src: Uint8Array, w: number, h: number, k: number, dilateFirst: boolean): Uint8Array {
  const t = transpose(rowFilter(src, w, h, k, dilateFirst), w, h);
  const cols = rowFilter(rowFilter(t, h, w, k, dilateFirst), h, w, k, !dilateFirst);
  return rowFilter(transpose(cols, h, w), w, h, k, !dilateFirst);
}

/** Black and white top-hats of the luma of rows [y0, y1). */
export function textMaps(img: RgbImage, y0: number, y1: number, element = 15): TextMaps {
  const w = img.width;
  const h = y1 - y0;
  const y = lumaRows(img, y0, y1);
  const closing = openClose(y, w, h, element, true);
  const opening = openClose(y, w, h, element, false);
  const dark = new Uint8Array(w * h);
  const light = new Uint8Array(w * h);
  for (let i = 0; i < y.length; i++) {
    dark[i] = closing[i]! - y[i]!;
    light[i] = y[i]! - opening[i]!;
  }
  return { width: w, height: h, y0, y1, luma: y, dark, light };
}

interface Comp {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  area: number;
  sum: number;
  lumaSum: number;
}

function components(map: Uint8Array, luma: Uint8Array, w: number, h: number, t: number): Comp[] {
  const label = new Int32Array(w * h).fill(-1);
  const out: Comp[] = [];
  const stack = new Int32Array(w * h);
  for (let i = 0; i < map.length; i++) {
    if (map[i]! < t || label[i] !== -1) continue;
    const id = out.length;
    const c: Comp = { x0: w, y0: h, x1: 0, y1: 0, area: 0, sum: 0, lumaSum: 0 };
    let sp = 0;
    stack[sp++] = i;
    label[i] = id;
    while (sp > 0) {
      const p = stack[--sp]!;
      const px = p % w;
      const py = (p - px) / w;
      c.area++;
      c.sum += map[p]!;
      c.lumaSum += luma[p]!;
      if (px < c.x0) c.x0 = px;
      if (px + 1 > c.x1) c.x1 = px + 1;
      if (py < c.y0) c.y0 = py;
      if (py + 1 > c.y1) c.y1 = py + 1;
      // 8-connectivity
      for (let dy = -1; dy <= 1; dy++) {
        const ny = py + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = px + dx;
          if (nx < 0 || nx >= w || (dx === 0 && dy === 0)) continue;
          const q = ny * w + nx;
          if (label[q] === -1 && map[q]! >= t) {
            label[q] = id;
            stack[sp++] = q;
          }
        }
      }
    }
    out.push(c);
  }
  return out;
}

function glyphLike(c: Comp): boolean {
  const cw = c.x1 - c.x0;
  const ch = c.y1 - c.y0;
  if (ch < 6 || ch > 48) return false;
  if (cw > 14 * ch || cw > 420) return false;
  const fill = c.area / (cw * ch);
  // Solid blocks are not glyphs, except narrow stems (l, I, i, 1, |).
  if (fill < 0.1 || (fill > 0.92 && cw > 0.35 * ch)) return false;
  // Thin long rules (frame lines, underlines).
  if (ch <= 8 && cw > 6 * ch) return false;
  return true;
}

function chain(comps: Comp[], polarity: Polarity, yOffset: number): TextLine[] {
  const glyphs = comps.filter(glyphLike).sort((a, b) => a.x0 - b.x0);
  const n = glyphs.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (let i = 0; i < n; i++) {
    const a = glyphs[i]!;
    const ha = a.y1 - a.y0;
    for (let j = i + 1; j < n; j++) {
      const b = glyphs[j]!;
      const hb = b.y1 - b.y0;
      const hmax = Math.max(ha, hb);
      const gap = b.x0 - a.x1;
      if (gap > 1.6 * hmax) {
        // Sorted by x0: later ones start even further right only if a is the widest so far; keep scanning a bit.
        if (b.x0 - a.x1 > 4 * hmax) break;
        continue;
      }
      const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (overlap < 0.5 * Math.min(ha, hb)) continue;
      const ratio = ha / hb;
      if (ratio < 0.45 || ratio > 2.2) continue;
      parent[find(j)] = find(i);
    }
  }
  const groupMap = new Map<number, Comp[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const g = groupMap.get(r);
    if (g) g.push(glyphs[i]!);
    else groupMap.set(r, [glyphs[i]!]);
  }
  const lines: TextLine[] = [];
  for (const g of mergeGroups([...groupMap.values()])) {
    // Capital/ascender height: a high percentile of the glyph heights (lower-case x-height is lower), leaving
    // out outsized shapes printed in the line (symbols, rings).
    const all = g.map((c) => c.y1 - c.y0).sort((a, b) => a - b);
    const med = all[all.length >> 1]!;
    const hs = all.filter((v) => v <= 1.5 * med);
    const gh = hs[Math.min(hs.length - 1, Math.floor(hs.length * 0.8))]!;
    const x0 = Math.min(...g.map((c) => c.x0));
    const x1 = Math.max(...g.map((c) => c.x1));
    const y0 = Math.min(...g.map((c) => c.y0));
    const y1 = Math.max(...g.map((c) => c.y1));
    const area = g.reduce((s, c) => s + c.area, 0);
    const sum = g.reduce((s, c) => s + c.sum, 0);
    const lumaSum = g.reduce((s, c) => s + c.lumaSum, 0);
    // A lone component must look like a word (wide, not a filled box).
    if (g.length < 2 && (x1 - x0 < 1.4 * (y1 - y0) || area > 0.6 * (x1 - x0) * (y1 - y0))) continue;
    lines.push({
      x0,
      y0: y0 + yOffset,
      x1,
      y1: y1 + yOffset,
      polarity,
      glyphHeight: gh,
      glyphs: g.length,
      contrast: sum / area,
      inkLuma: lumaSum / area,
      spans: g.map((c): [number, number] => [c.x0, c.x1]).sort((a, b) => a[0] - b[0]),
    });
  }
  return lines;
}

/**
 * Joins pieces of one printed line that chaining left apart (a faint or blurred glyph missing between two
 * words): same row, similar size, a gap of at most 2.5 glyph heights.
 */
function mergeGroups(groups: Comp[][]): Comp[][] {
  const box = (g: Comp[]) => ({
    x0: Math.min(...g.map((c) => c.x0)),
    x1: Math.max(...g.map((c) => c.x1)),
    y0: Math.min(...g.map((c) => c.y0)),
    y1: Math.max(...g.map((c) => c.y1)),
  });
  let changed = true;
  let out = groups;
  while (changed) {
    changed = false;
    out.sort((a, b) => box(a).x0 - box(b).x0);
    for (let i = 0; i < out.length && !changed; i++) {
      const a = box(out[i]!);
      const ha = a.y1 - a.y0;
      for (let j = i + 1; j < out.length; j++) {
        const b = box(out[j]!);
        const hb = b.y1 - b.y0;
        const h = Math.max(ha, hb);
        const gap = Math.max(b.x0 - a.x1, a.x0 - b.x1);
        const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
        if (gap > 2.5 * h || overlap < 0.6 * Math.min(ha, hb) || ha / hb > 1.8 || hb / ha > 1.8) continue;
        out = [...out.slice(0, i), [...out[i]!, ...out[j]!], ...out.slice(i + 1, j), ...out.slice(j + 1)];
        changed = true;
        break;
      }
    }
  }
  return out;
}

function iou(a: TextLine, b: TextLine): number {
  const ix = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const iy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (ix <= 0 || iy <= 0) return 0;
  const inter = ix * iy;
  return inter / Math.min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
}

/** Median luma of a thin ring just outside the union of two boxes (the ground the text is printed on). */
export function ringMedian(img: RgbImage, a: TextLine, b: TextLine): number {
  const pad = Math.max(2, Math.round(0.25 * Math.max(a.glyphHeight, b.glyphHeight)));
  const x0 = Math.max(0, Math.min(a.x0, b.x0) - pad);
  const y0 = Math.max(0, Math.min(a.y0, b.y0) - pad);
  const x1 = Math.min(img.width, Math.max(a.x1, b.x1) + pad);
  const y1 = Math.min(img.height, Math.max(a.y1, b.y1) + pad);
  const hist = new Uint32Array(256);
  let n = 0;
  const d = img.data;
  const add = (x: number, y: number): void => {
    const j = (y * img.width + x) * 3;
    hist[(77 * d[j]! + 150 * d[j + 1]! + 29 * d[j + 2]! + 128) >> 8]!++;
    n++;
  };
  for (let x = x0; x < x1; x++) {
    add(x, y0);
    add(x, y1 - 1);
  }
  for (let y = y0 + 1; y < y1 - 1; y++) {
    add(x0, y);
    add(x1 - 1, y);
  }
  return histogramQuantile(hist, n, 0.5);
}

/**
 * On a grainy photo (sensor noise, a textured print ground) the top-hat of the plain ground between letters is
 * itself high: over the fixed threshold its speckle joins letters into blobs and strings of specks (the title of a
 * phone photo of a Wizards-era card, ground median 24, was lost so). With `grainy`, a band whose median top-hat
 * (the ground's level) reaches GRAINY_GROUND_MEDIAN is thresholded at GRAINY_THRESHOLD_FACTOR times that level.
 * Only on request (readSide's second look): raising it on every grainy band changed the text read on 178 of the
 * 475 real photos, holo grounds being grainy too, and lost a title that had read right.
 */
const GRAINY_GROUND_MEDIAN = 20;
const GRAINY_THRESHOLD_FACTOR = 3;

function medianOf(map: Uint8Array): number {
  const hist = new Uint32Array(256);
  for (let i = 0; i < map.length; i++) hist[map[i]!]!++;
  return histogramQuantile(hist, map.length, 0.5);
}

/** Whether any band's ground is grainy (its median top-hat reaches GRAINY_GROUND_MEDIAN, either polarity). */
export function hasGrainyBand(maps: TextMaps[]): boolean {
  return maps.some((m) => medianOf(m.dark) >= GRAINY_GROUND_MEDIAN || medianOf(m.light) >= GRAINY_GROUND_MEDIAN);
}

/** Text lines in the given row bands, de-duplicated across polarities, in reading order. */
export function findTextLines(img: RgbImage, options: FindTextOptions = {}): { lines: TextLine[]; maps: TextMaps[] } {
  const t = options.threshold ?? 36;
  const element = options.element ?? 15;
  const bands = options.bands ?? [[0, img.height]];
  const all: TextLine[] = [];
  const maps: TextMaps[] = [];
  for (const [b0, b1] of bands) {
    const y0 = Math.max(0, Math.floor(b0));
    const y1 = Math.min(img.height, Math.ceil(b1));
    if (y1 - y0 < 8) continue;
    const m = textMaps(img, y0, y1, element);
    maps.push(m);
    for (const pol of ['dark', 'light'] as const) {
      const map = pol === 'dark' ? m.dark : m.light;
      const ground = options.grainy ? medianOf(map) : 0;
      const threshold = ground >= GRAINY_GROUND_MEDIAN ? Math.max(t, GRAINY_THRESHOLD_FACTOR * ground) : t;
      all.push(...chain(components(map, m.luma, m.width, m.height, threshold), pol, y0));
    }
  }
  // A dark-ink line and the light ground between its letters (or the reverse) overlap. The ground is what
  // surrounds the line (the median luma of a ring around both boxes); ink differs from it, the "ground" side
  // of the wrong polarity does not.
  const keep: TextLine[] = [];
  const sorted = [...all].sort((a, b) => b.glyphs * b.contrast - a.glyphs * a.contrast);
  for (const l of sorted) {
    const clash = keep.findIndex((k) => iou(k, l) > 0.35);
    if (clash === -1) {
      keep.push(l);
      continue;
    }
    const k = keep[clash]!;
    if (k.polarity === l.polarity) continue;
    if (Math.min(k.glyphs, l.glyphs) === 1 && Math.max(k.glyphs, l.glyphs) >= 3) {
      if (l.glyphs > k.glyphs) keep[clash] = l;
      continue;
    }
    const ground = ringMedian(img, k, l);
    const dk = Math.abs(k.inkLuma - ground);
    const dl = Math.abs(l.inkLuma - ground);
    if (Math.min(dk, dl) > 0.6 * Math.max(dk, dl)) {
      // Both stand out from the ground: outlined lettering (a light fill inside a dark outline, or the reverse).
      // The fill is the letter shape, and it lies inside the outline.
      const area = (t: TextLine) => (t.x1 - t.x0) * (t.y1 - t.y0);
      if (area(l) < area(k)) keep[clash] = l;
    } else if (dl > dk) keep[clash] = l;
  }
  keep.sort((a, b) => (Math.abs(a.y0 - b.y0) < Math.min(a.glyphHeight, b.glyphHeight) * 0.6 ? a.x0 - b.x0 : a.y0 - b.y0));
  return { lines: keep, maps };
}
