/**
 * The overlay users see next to a grade: the rectified front and back side by side with the card outline, the
 * printed frame lines with the left/right and top/bottom ratios written on them, every defect boxed and
 * labelled by kind and severity, and below them a small thumbnail of each photo with the detected card outline.
 *
 * One raster canvas is assembled in memory (2x box-downscaled sides, nearest-neighbour thumbnails), the
 * annotations are one SVG composited on top by sharp, and the PNG is palette-quantised to stay small
 * (~100-250 KB for 700 x 680 px).
 */
import sharp from 'sharp';
import type { Quad, RgbImage } from '../image/types';

export interface OverlayDefect {
  kind: string;
  /** 0..1 */
  severity: number;
  /** Box in mm on the side's rectified image. */
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
}

export interface OverlayCentering {
  leftMm: number;
  rightMm: number;
  topMm: number;
  bottomMm: number;
}

export interface OverlaySide {
  /** Rectified side (any size with the card filling it; canonical 630 x 880). */
  rectified: RgbImage;
  centering?: OverlayCentering;
  defects?: OverlayDefect[];
  /** The photo (or a downscaled working copy) and the card quad found in it, in that image's pixels. */
  photo?: { image: RgbImage; quad: Quad };
  /** Regions where glare hid the surface (mm), drawn hatched. */
  glare?: { xMm: number; yMm: number; wMm: number; hMm: number }[];
}

export interface OverlayInput {
  front: OverlaySide;
  back?: OverlaySide;
  /** Header line, e.g. 'Grade 8.5 NM-MT+ · predicted PSA 8'. */
  title?: string;
}

export interface OverlayOptions {
  /** Displayed px per mm of the rectified sides. Default 5 (315 x 440 per side). */
  pxPerMm?: number;
  /** Thumbnail height in px. Default 150. */
  thumbHeight?: number;
}

const CARD_W_MM = 63;
const CARD_H_MM = 88;
const PAD = 12;
const HEADER = 30;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const f1 = (v: number) => (Math.round(v * 10) / 10).toString();

/** Area-average downscale of an RGB image into `dst` (RGB, width dw) at (ox, oy), to size tw x th. */
function blit(src: RgbImage, dst: Uint8Array, dw: number, ox: number, oy: number, tw: number, th: number): void {
  const sx = src.width / tw;
  const sy = src.height / th;
  const d = src.data;
  for (let y = 0; y < th; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.min(src.height, Math.floor((y + 1) * sy)));
    for (let x = 0; x < tw; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.min(src.width, Math.floor((x + 1) * sx)));
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      // at most a 3x3 sample grid per output pixel keeps thumbnails of big photos cheap
      const stepY = Math.max(1, Math.floor((y1 - y0) / 3));
      const stepX = Math.max(1, Math.floor((x1 - x0) / 3));
      for (let yy = y0; yy < y1; yy += stepY) {
        for (let xx = x0; xx < x1; xx += stepX) {
          const i = (yy * src.width + xx) * 3;
          r += d[i]!;
          g += d[i + 1]!;
          b += d[i + 2]!;
          n++;
        }
      }
      const o = ((oy + y) * dw + ox + x) * 3;
      dst[o] = r / n;
      dst[o + 1] = g / n;
      dst[o + 2] = b / n;
    }
  }
}

function severityColour(s: number): string {
  if (s >= 0.6) return '#e8202a';
  if (s >= 0.3) return '#ff8c1a';
  if (s >= 0.1) return '#ffd21f';
  return '#7fd6ff';
}

const KIND_LABEL: Record<string, string> = {
  corner_wear: 'corner',
  edge_wear: 'edge',
  print_line: 'print line',
};

function sideSvg(side: OverlaySide, ox: number, oy: number, k: number, label: string): string {
  const W = CARD_W_MM * k;
  const H = CARD_H_MM * k;
  const parts: string[] = [];
  parts.push(`<text x="${ox}" y="${oy - 8}" class="h">${esc(label)}</text>`);
  // card outline (rounded 1.5 mm)
  parts.push(`<rect x="${ox + 0.5}" y="${oy + 0.5}" width="${W - 1}" height="${H - 1}" rx="${1.5 * k}" class="outline"/>`);
  for (const g of side.glare ?? []) {
    parts.push(`<rect x="${f1(ox + g.xMm * k)}" y="${f1(oy + g.yMm * k)}" width="${f1(g.wMm * k)}" height="${f1(g.hMm * k)}" class="glare"/>`);
  }
  const c = side.centering;
  if (c) {
    const xl = ox + c.leftMm * k;
    const xr = ox + W - c.rightMm * k;
    const yt = oy + c.topMm * k;
    const yb = oy + H - c.bottomMm * k;
    parts.push(`<rect x="${f1(xl)}" y="${f1(yt)}" width="${f1(xr - xl)}" height="${f1(yb - yt)}" class="frame"/>`);
    const lr = c.leftMm + c.rightMm > 0 ? (100 * c.leftMm) / (c.leftMm + c.rightMm) : 50;
    const tb = c.topMm + c.bottomMm > 0 ? (100 * c.topMm) / (c.topMm + c.bottomMm) : 50;
    const lrText = `L/R ${Math.round(lr)}/${100 - Math.round(lr)}  (${f1(c.leftMm)} | ${f1(c.rightMm)} mm)`;
    const tbText = `T/B ${Math.round(tb)}/${100 - Math.round(tb)}  (${f1(c.topMm)} | ${f1(c.bottomMm)} mm)`;
    // L/R on the top frame line, T/B along the left frame line
    const ty = yt + 14;
    parts.push(`<rect x="${f1((xl + xr) / 2 - 92)}" y="${f1(ty - 11)}" width="184" height="15" rx="3" class="tag"/>`);
    parts.push(`<text x="${f1((xl + xr) / 2)}" y="${f1(ty)}" class="t" text-anchor="middle">${esc(lrText)}</text>`);
    const tx = xl + 14;
    const tyc = (yt + yb) / 2;
    parts.push(
      `<g transform="rotate(-90 ${f1(tx)} ${f1(tyc)})"><rect x="${f1(tx - 92)}" y="${f1(tyc - 11)}" width="184" height="15" rx="3" class="tag"/><text x="${f1(tx)}" y="${f1(tyc)}" class="t" text-anchor="middle">${esc(tbText)}</text></g>`,
    );
  }
  const defects = [...(side.defects ?? [])].sort((a, b) => a.severity - b.severity);
  for (const d of defects) {
    const col = severityColour(d.severity);
    const x = ox + Math.max(0, d.xMm) * k;
    const y = oy + Math.max(0, d.yMm) * k;
    const w = Math.max(4, Math.min(CARD_W_MM - d.xMm, d.wMm) * k);
    const h = Math.max(4, Math.min(CARD_H_MM - d.yMm, d.hMm) * k);
    parts.push(`<rect x="${f1(x - 1)}" y="${f1(y - 1)}" width="${f1(w + 2)}" height="${f1(h + 2)}" fill="none" stroke="${col}" stroke-width="2"/>`);
    const text = `${KIND_LABEL[d.kind] ?? d.kind.replace(/_/g, ' ')} ${d.severity.toFixed(2)}`;
    const tw = text.length * 5.6 + 6;
    // label above the box when there is room, else below
    let lx = Math.min(ox + W - tw, Math.max(ox, x - 1));
    let ly = y - 3;
    if (ly - 11 < oy) ly = y + h + 13;
    if (ly > oy + H) ly = y - 3;
    lx = Math.round(lx);
    parts.push(`<rect x="${lx}" y="${f1(ly - 10)}" width="${f1(tw)}" height="13" fill="${col}" rx="2"/>`);
    parts.push(`<text x="${lx + 3}" y="${f1(ly)}" class="d">${esc(text)}</text>`);
  }
  return parts.join('');
}

/** Renders the overlay PNG. */
export async function renderOverlay(input: OverlayInput, options: OverlayOptions = {}): Promise<Buffer> {
  const k = options.pxPerMm ?? 5;
  const thumbH = options.thumbHeight ?? 150;
  const sides: [OverlaySide, string][] = [[input.front, 'Front']];
  if (input.back) sides.push([input.back, 'Back']);
  const sw = Math.round(CARD_W_MM * k);
  const sh = Math.round(CARD_H_MM * k);
  const hasPhotos = sides.some(([s]) => s.photo);
  const width = Math.max(2 * sw + 3 * PAD, sides.length * sw + (sides.length + 1) * PAD);
  const photoTop = HEADER + PAD + 14 + sh + PAD + 14;
  const height = photoTop + (hasPhotos ? thumbH + PAD : 0);
  const canvas = new Uint8Array(width * height * 3).fill(34);
  const svg: string[] = [];
  sides.forEach(([side, label], i) => {
    const ox = PAD + i * (sw + PAD);
    const oy = HEADER + PAD + 14;
    blit(side.rectified, canvas, width, ox, oy, sw, sh);
    svg.push(sideSvg(side, ox, oy, k, label));
    if (side.photo) {
      const img = side.photo.image;
      const scale = Math.min(thumbH / img.height, (sw - 4) / img.width);
      const tw = Math.max(1, Math.round(img.width * scale));
      const th = Math.max(1, Math.round(img.height * scale));
      const tx = ox + Math.round((sw - tw) / 2);
      const ty = photoTop;
      blit(img, canvas, width, tx, ty, tw, th);
      const q = side.photo.quad.map(([x, y]) => `${f1(tx + x * scale)},${f1(ty + y * scale)}`).join(' ');
      svg.push(`<polygon points="${q}" class="quad"/>`);
      const [tl] = side.photo.quad;
      svg.push(`<circle cx="${f1(tx + tl[0] * scale)}" cy="${f1(ty + tl[1] * scale)}" r="3" fill="#2ee6a8"/>`);
      svg.push(`<text x="${tx}" y="${ty - 4}" class="s">${esc(label)} photo: detected card</text>`);
    }
  });
  if (input.title) svg.push(`<text x="${PAD}" y="${HEADER - 8}" class="title">${esc(input.title)}</text>`);
  const doc =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<style>` +
    `.title{font:bold 16px 'DejaVu Sans';fill:#ffffff}` +
    `.h{font:bold 13px 'DejaVu Sans';fill:#e6e6e6}` +
    `.s{font:10px 'DejaVu Sans';fill:#cfcfcf}` +
    `.t{font:bold 10px 'DejaVu Sans';fill:#ffffff}` +
    `.d{font:bold 10px 'DejaVu Sans Mono';fill:#111111}` +
    `.tag{fill:#8a2be2;fill-opacity:0.85}` +
    `.outline{fill:none;stroke:#2ee6a8;stroke-width:2}` +
    `.frame{fill:none;stroke:#d63cff;stroke-width:1.5;stroke-dasharray:6 3}` +
    `.glare{fill:#ffffff;fill-opacity:0.18;stroke:#ffffff;stroke-dasharray:3 3}` +
    `.quad{fill:none;stroke:#2ee6a8;stroke-width:2}` +
    `</style>${svg.join('')}</svg>`;
  // No dithering and light zlib: about a third less CPU than dither 0.5 and level 6, and a smaller file (the
  // palette's flat areas compress better undithered).
  return sharp(canvas, { raw: { width, height, channels: 3 } })
    .composite([{ input: Buffer.from(doc), left: 0, top: 0 }])
    .png({ palette: true, quality: 85, effort: 1, compressionLevel: 2, dither: 0 })
    .toBuffer();
}
