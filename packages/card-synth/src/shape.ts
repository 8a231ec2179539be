// The physical outline of a card side (rounded corners with per-corner radius, chips cut into the edges) and
// small polygon helpers. All coordinates in mm on the side as seen, origin top-left, x right, y down.
import {
  CARD_HEIGHT_MM,
  CARD_WIDTH_MM,
  FACTORY_CORNER_RADIUS_MM,
  type CornerId,
  type EdgeId,
} from '@cardlens/grading-rubric';

export type P = [number, number];

export const W = CARD_WIDTH_MM;
export const H = CARD_HEIGHT_MM;
export const FACTORY_RADIUS = FACTORY_CORNER_RADIUS_MM;

/** A notch (material missing) cut into an edge. `at` is the centre along the edge (x for top/bottom, y for
 *  left/right), in that side's coordinates. */
export interface Chip {
  edge: EdgeId;
  at: number;
  widthMm: number;
  depthMm: number;
  /** 0 = triangular notch, 1 = rounded bite. */
  shape: 0 | 1;
}

export interface Outline {
  /** Total corner radius (factory 1.5 mm + extra rounding). */
  radii: Record<CornerId, number>;
  chips: Chip[];
}

/** Corner centre of the rounding arc and the direction pointing out of the card at that corner. */
export function cornerGeometry(corner: CornerId, r: number): { cx: number; cy: number; sx: number; sy: number } {
  const right = corner === 'TR' || corner === 'BR';
  const bottom = corner === 'BR' || corner === 'BL';
  return {
    cx: right ? W - r : r,
    cy: bottom ? H - r : r,
    sx: right ? 1 : -1,
    sy: bottom ? 1 : -1,
  };
}

/** Is (x, y) on the card material (inside the rounded rectangle and not in a chip)? */
export function insideCard(x: number, y: number, outline: Outline): boolean {
  if (x < 0 || y < 0 || x > W || y > H) return false;
  for (const corner of ['TL', 'TR', 'BR', 'BL'] as const) {
    const r = outline.radii[corner];
    const g = cornerGeometry(corner, r);
    const dx = (x - g.cx) * g.sx;
    const dy = (y - g.cy) * g.sy;
    if (dx > 0 && dy > 0 && dx * dx + dy * dy > r * r) return false;
  }
  for (const chip of outline.chips) if (insideChip(x, y, chip)) return false;
  return true;
}

function chipDepthAt(chip: Chip, along: number): number {
  const u = Math.abs(along - chip.at) / (chip.widthMm / 2);
  if (u >= 1) return 0;
  return chip.shape === 0 ? chip.depthMm * (1 - u) : chip.depthMm * Math.sqrt(1 - u * u);
}

function insideChip(x: number, y: number, chip: Chip): boolean {
  switch (chip.edge) {
    case 'top':
      return y < chipDepthAt(chip, x);
    case 'bottom':
      return H - y < chipDepthAt(chip, x);
    case 'left':
      return x < chipDepthAt(chip, y);
    case 'right':
      return W - x < chipDepthAt(chip, y);
  }
}

/** Points of the chip's notch, in order along the edge's clockwise direction. */
function chipPoints(chip: Chip): P[] {
  const n = chip.shape === 0 ? 2 : 10;
  const pts: P[] = [];
  // Clockwise: top goes +x, right goes +y, bottom goes -x, left goes -y.
  const dir = chip.edge === 'top' || chip.edge === 'right' ? 1 : -1;
  for (let i = 0; i <= n; i++) {
    const along = chip.at - dir * (chip.widthMm / 2) + (dir * chip.widthMm * i) / n;
    const d = chipDepthAt(chip, along);
    switch (chip.edge) {
      case 'top':
        pts.push([along, d]);
        break;
      case 'bottom':
        pts.push([along, H - d]);
        break;
      case 'left':
        pts.push([d, along]);
        break;
      case 'right':
        pts.push([W - d, along]);
        break;
    }
  }
  return pts;
}

const f = (v: number) => (Math.round(v * 1000) / 1000).toString();

/** SVG path (mm) of the card outline: clockwise from the top-left arc end, arcs and chip notches included. */
export function outlinePath(outline: Outline): string {
  const r = outline.radii;
  const chipsOn = (edge: EdgeId) => {
    const list = outline.chips.filter((c) => c.edge === edge);
    const asc = edge === 'top' || edge === 'right';
    return list.sort((a, b) => (asc ? a.at - b.at : b.at - a.at));
  };
  const parts: string[] = [`M ${f(r.TL)} 0`];
  for (const c of chipsOn('top')) for (const p of chipPoints(c)) parts.push(`L ${f(p[0])} ${f(p[1])}`);
  parts.push(`L ${f(W - r.TR)} 0`, `A ${f(r.TR)} ${f(r.TR)} 0 0 1 ${f(W)} ${f(r.TR)}`);
  for (const c of chipsOn('right')) for (const p of chipPoints(c)) parts.push(`L ${f(p[0])} ${f(p[1])}`);
  parts.push(`L ${f(W)} ${f(H - r.BR)}`, `A ${f(r.BR)} ${f(r.BR)} 0 0 1 ${f(W - r.BR)} ${f(H)}`);
  for (const c of chipsOn('bottom')) for (const p of chipPoints(c)) parts.push(`L ${f(p[0])} ${f(p[1])}`);
  parts.push(`L ${f(r.BL)} ${f(H)}`, `A ${f(r.BL)} ${f(r.BL)} 0 0 1 0 ${f(H - r.BL)}`);
  for (const c of chipsOn('left')) for (const p of chipPoints(c)) parts.push(`L ${f(p[0])} ${f(p[1])}`);
  parts.push(`L 0 ${f(r.TL)}`, `A ${f(r.TL)} ${f(r.TL)} 0 0 1 ${f(r.TL)} 0`, 'Z');
  return parts.join(' ');
}

export function polygonPath(points: readonly P[]): string {
  if (points.length === 0) return '';
  return `M ${points.map((p) => `${f(p[0])} ${f(p[1])}`).join(' L ')} Z`;
}

export function polylinePath(points: readonly P[]): string {
  if (points.length === 0) return '';
  return `M ${points.map((p) => `${f(p[0])} ${f(p[1])}`).join(' L ')}`;
}

/** Shoelace area (absolute). */
export function polygonArea(points: readonly P[]): number {
  let s = 0;
  for (let i = 0; i < points.length; i++) {
    const a = points[i] as P;
    const b = points[(i + 1) % points.length] as P;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(s) / 2;
}

export function polylineLength(points: readonly P[]): number {
  let s = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as P;
    const b = points[i] as P;
    s += Math.hypot(b[0] - a[0], b[1] - a[1]);
  }
  return s;
}

export function bbox(points: readonly P[]): { xMm: number; yMm: number; wMm: number; hMm: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return { xMm: x0, yMm: y0, wMm: x1 - x0, hMm: y1 - y0 };
}

export function pointInPolygon(x: number, y: number, poly: readonly P[]): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i] as P;
    const [xj, yj] = poly[j] as P;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * Area (mm²) of the part of `poly` that lies on the card material, by sampling a `step` mm grid (cell centres).
 * Used where shapes overlap the rounded corner or chips; 0.02 mm steps give well under 1 % error.
 */
export function areaOnCard(poly: readonly P[], outline: Outline, step = 0.02): number {
  const b = bbox(poly);
  let count = 0;
  const x0 = Math.max(0, b.xMm);
  const y0 = Math.max(0, b.yMm);
  const x1 = Math.min(W, b.xMm + b.wMm);
  const y1 = Math.min(H, b.yMm + b.hMm);
  for (let y = y0 + step / 2; y < y1; y += step) {
    // Scanline crossings of the polygon on this row.
    const xs: number[] = [];
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i] as P;
      const [xj, yj] = poly[j] as P;
      if (yi > y !== yj > y) xs.push(((xj - xi) * (y - yi)) / (yj - yi) + xi);
    }
    xs.sort((a, c) => a - c);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const a = Math.max(x0, xs[k] as number);
      const c = Math.min(x1, xs[k + 1] as number);
      const start = Math.ceil((a - x0) / step - 0.5);
      for (let ix = start; x0 + (ix + 0.5) * step < c; ix++) {
        if (insideCard(x0 + (ix + 0.5) * step, y, outline)) count++;
      }
    }
  }
  return count * step * step;
}

/** Mirror helpers between front and back (the back is seen flipped left-right). */
export const MIRROR_CORNER: Record<CornerId, CornerId> = { TL: 'TR', TR: 'TL', BR: 'BL', BL: 'BR' };
export const MIRROR_EDGE: Record<EdgeId, EdgeId> = { top: 'top', bottom: 'bottom', left: 'right', right: 'left' };

export function mirrorChip(chip: Chip): Chip {
  const edge = MIRROR_EDGE[chip.edge];
  const at = chip.edge === 'top' || chip.edge === 'bottom' ? W - chip.at : chip.at;
  return { ...chip, edge, at };
}
