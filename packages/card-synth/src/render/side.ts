// Renders one side: design + condition (wear and defects) clipped to the physical outline, as RGBA at any
// px/mm (the SVG is in mm). Pixel (i, j) covers [i, i+1) x [j, j+1) px, i.e. mm [i/k, (i+1)/k).
import sharp from 'sharp';
import type { Side } from '@cardlens/grading-rubric';
import type { Rgb } from '../card';
import type { SideCondition, SurfaceMark } from '../condition';
import { hsl, rgbHex } from '../prng';
import { H, W, insideCard, polygonPath, polylinePath, type Outline, type P } from '../shape';
import { ensureAssets } from './assets';
import { designSvg, type CardDesign, type Rect, type TextBox } from './design';

export interface RenderedSide {
  side: Side;
  width: number;
  height: number;
  pxPerMm: number;
  /** RGBA, straight alpha; alpha is 0 off the card (rounded corners, chips). */
  rgba: Uint8Array;
  texts: TextBox[];
  frame: Rect;
}

const n = (v: number) => (Math.round(v * 1000) / 1000).toString();

/** Colour that wear exposes: white card stock, shown greyish on light borders so it stays visible. */
export function whiteningColour(border: Rgb): string {
  return Math.min(border[0], border[1], border[2]) > 185 ? '#c4bfb0' : '#f4f3ee';
}

export function frameRect(cond: SideCondition): Rect {
  const c = cond.centering;
  return { x: c.leftMm, y: c.topMm, w: W - c.leftMm - c.rightMm, h: H - c.topMm - c.bottomMm };
}

function offsetPolyline(points: P[], d: number): P[] {
  return points.map((p, i) => {
    const a = points[Math.max(0, i - 1)] as P;
    const b = points[Math.min(points.length - 1, i + 1)] as P;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const len = Math.hypot(dx, dy) || 1;
    return [p[0] - (dy / len) * d, p[1] + (dx / len) * d];
  });
}

function surfaceSvg(mark: SurfaceMark, id: string, defs: string[]): string {
  switch (mark.kind) {
    case 'scratch':
      return `<path d="${polylinePath(mark.points)}" fill="none" stroke="#ffffff" stroke-opacity="${n(mark.contrast)}" stroke-width="${n(mark.widthMm)}" stroke-linecap="round" stroke-linejoin="round"/>`;
    case 'crease': {
      const dark = polylinePath(offsetPolyline(mark.points, 0.1));
      const light = polylinePath(offsetPolyline(mark.points, -0.12));
      return (
        `<path d="${dark}" fill="none" stroke="#000000" stroke-opacity="${n(mark.contrast * 0.8)}" stroke-width="0.22" stroke-linecap="round" stroke-linejoin="round"/>` +
        `<path d="${light}" fill="none" stroke="#ffffff" stroke-opacity="${n(mark.contrast * 0.75)}" stroke-width="0.16" stroke-linecap="round" stroke-linejoin="round"/>`
      );
    }
    case 'print_line':
      return `<path d="${polylinePath(mark.points)}" fill="none" stroke="${mark.dark ? '#202028' : '#ffffff'}" stroke-opacity="${n(mark.contrast)}" stroke-width="${n(mark.widthMm)}"/>`;
    case 'stain':
    case 'scuff': {
      const colour = mark.kind === 'stain' ? rgbHex(hsl(mark.hue, 0.55, 0.33)) : '#ffffff';
      const peak = mark.kind === 'stain' ? mark.contrast : mark.contrast * 0.85;
      // Opacity `peak` out to 60 % of the drawn radius, fading to 0 at 100 %: the half-contrast contour is at
      // 80 % = the labelled ellipse (drawn radius = 1.25 x labelled).
      defs.push(
        `<radialGradient id="${id}"><stop offset="0" stop-color="${colour}" stop-opacity="${n(peak)}"/><stop offset="0.6" stop-color="${colour}" stop-opacity="${n(peak)}"/><stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`,
      );
      let s = `<ellipse cx="${n(mark.cx)}" cy="${n(mark.cy)}" rx="${n(mark.rx)}" ry="${n(mark.ry)}" fill="url(#${id})" transform="rotate(${n(mark.angleDeg)} ${n(mark.cx)} ${n(mark.cy)})"/>`;
      if (mark.kind === 'scuff' && mark.hatch.length > 0) {
        const d = mark.hatch.map((l) => polylinePath(l)).join(' ');
        s += `<path d="${d}" fill="none" stroke="#ffffff" stroke-opacity="${n(Math.min(1, mark.contrast * 1.2))}" stroke-width="0.08" stroke-linecap="round"/>`;
      }
      return s;
    }
    case 'dent': {
      const rad = (mark.lightDeg * Math.PI) / 180;
      const dx = Math.cos(rad) / 2;
      const dy = Math.sin(rad) / 2;
      defs.push(
        `<linearGradient id="${id}" x1="${n(0.5 - dx)}" y1="${n(0.5 - dy)}" x2="${n(0.5 + dx)}" y2="${n(0.5 + dy)}"><stop offset="0" stop-color="#ffffff" stop-opacity="${n(mark.contrast)}"/><stop offset="0.42" stop-color="#ffffff" stop-opacity="0"/><stop offset="0.58" stop-color="#000000" stop-opacity="0"/><stop offset="1" stop-color="#000000" stop-opacity="${n(mark.contrast)}"/></linearGradient>`,
      );
      return (
        `<circle cx="${n(mark.cx)}" cy="${n(mark.cy)}" r="${n(mark.r)}" fill="url(#${id})"/>` +
        `<circle cx="${n(mark.cx)}" cy="${n(mark.cy)}" r="${n(mark.r)}" fill="none" stroke="#000000" stroke-opacity="${n(mark.contrast * 0.35)}" stroke-width="0.08"/>`
      );
    }
  }
}

/** The full SVG document of one side at `pxPerMm`. */
export function sideSvg(design: CardDesign, cond: SideCondition, pxPerMm: number): { svg: string; texts: TextBox[]; frame: Rect } {
  const side = cond.side;
  const frame = frameRect(cond);
  const d = designSvg(design, side, frame);
  const defs = [...d.defs];
  const wear: string[] = [];
  const white = whiteningColour(design.borderRgb[side]);
  for (const cw of cond.cornerWhitening) wear.push(`<path d="${polygonPath(cw.polygon)}" fill="${white}"/>`);
  for (const ew of cond.edgeWhitening) wear.push(`<path d="${polygonPath(ew.polygon)}" fill="${white}"/>`);
  for (const ding of cond.dings) {
    const [a, b, c2] = ding.triangle;
    wear.push(`<path d="${polygonPath([a, b, c2])}" fill="#000000" fill-opacity="${n(0.12 + ding.contrast * 0.3)}"/>`);
    wear.push(`<path d="${polylinePath([b, c2])}" stroke="#ffffff" stroke-opacity="${n(0.4 + ding.contrast * 0.5)}" stroke-width="0.14" fill="none"/>`);
  }
  cond.surface.forEach((s, i) => wear.push(surfaceSvg(s.mark, `sd${i}`, defs)));
  const width = Math.round(W * pxPerMm);
  const height = Math.round(H * pxPerMm);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">` +
    `<defs>${defs.join('')}</defs>${d.body.join('')}${wear.join('')}</svg>`;
  return { svg, texts: d.texts, frame };
}

export async function renderSide(design: CardDesign, cond: SideCondition, pxPerMm: number): Promise<RenderedSide> {
  await ensureAssets();
  const { svg, texts, frame } = sideSvg(design, cond, pxPerMm);
  const { data, info } = await sharp(Buffer.from(svg), { limitInputPixels: false })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgba = new Uint8Array(data.buffer, data.byteOffset, data.length);
  applyOutlineAlpha(rgba, info.width, info.height, cond.outline);
  return {
    side: cond.side,
    width: info.width,
    height: info.height,
    pxPerMm: info.width / W,
    rgba,
    texts,
    frame,
  };
}

/**
 * Sets the alpha channel to the card outline's coverage (4 x 4 supersampling near the rounded corners and the
 * chips; everything else is fully on the card). Cheaper than an SVG clip path, and the colour under partly
 * covered pixels stays the border colour, so resampling never drags in a dark fringe.
 */
export function applyOutlineAlpha(rgba: Uint8Array, width: number, height: number, outline: Outline): void {
  const sx = width / W;
  const sy = height / H;
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  const boxes: [number, number, number, number][] = [];
  for (const corner of ['TL', 'TR', 'BR', 'BL'] as const) {
    const r = outline.radii[corner] + 0.05;
    const right = corner === 'TR' || corner === 'BR';
    const bottom = corner === 'BR' || corner === 'BL';
    boxes.push([right ? W - r : 0, bottom ? H - r : 0, r, r]);
  }
  for (const chip of outline.chips) {
    const a = chip.at - chip.widthMm / 2 - 0.05;
    const len = chip.widthMm + 0.1;
    const d = chip.depthMm + 0.05;
    if (chip.edge === 'top') boxes.push([a, 0, len, d]);
    else if (chip.edge === 'bottom') boxes.push([a, H - d, len, d]);
    else if (chip.edge === 'left') boxes.push([0, a, d, len]);
    else boxes.push([W - d, a, d, len]);
  }
  const SS = 4;
  for (const [bx, by, bw, bh] of boxes) {
    const x0 = Math.max(0, Math.floor(bx * sx));
    const y0 = Math.max(0, Math.floor(by * sy));
    const x1 = Math.min(width, Math.ceil((bx + bw) * sx));
    const y1 = Math.min(height, Math.ceil((by + bh) * sy));
    for (let py = y0; py < y1; py++) {
      for (let px = x0; px < x1; px++) {
        let hits = 0;
        for (let j = 0; j < SS; j++) {
          const y = (py + (j + 0.5) / SS) / sy;
          for (let i = 0; i < SS; i++) if (insideCard((px + (i + 0.5) / SS) / sx, y, outline)) hits++;
        }
        const idx = (py * width + px) * 4 + 3;
        const a = Math.round((hits * 255) / (SS * SS));
        if (a < (rgba[idx] as number)) rgba[idx] = a;
      }
    }
  }
}

/** RGB copy of a rendered side with the off-card pixels composited over `background`. */
export function toRgb(side: RenderedSide, background: Rgb = [0, 0, 0]): Uint8Array {
  const px = side.width * side.height;
  const out = new Uint8Array(px * 3);
  const src = side.rgba;
  const [br, bg, bb] = background;
  for (let i = 0, j = 0; i < px * 4; i += 4, j += 3) {
    const a = src[i + 3] as number;
    if (a === 255) {
      out[j] = src[i] as number;
      out[j + 1] = src[i + 1] as number;
      out[j + 2] = src[i + 2] as number;
    } else {
      const f = a / 255;
      out[j] = Math.round((src[i] as number) * f + br * (1 - f));
      out[j + 1] = Math.round((src[i + 1] as number) * f + bg * (1 - f));
      out[j + 2] = Math.round((src[i + 2] as number) * f + bb * (1 - f));
    }
  }
  return out;
}
