// The controlled condition of a card: centering, corner/edge wear and surface defects for both sides, as
// drawable shapes (mm) plus the exact physical measurements they produce (the rubric input).
//
// Sampling works in two steps so that the grade distribution can be controlled:
//   1. a TEMPLATE is drawn from the seed: where wear is, its shape and relative sizes (no absolute sizes);
//   2. `buildCondition(template, intensity)` scales the template by one intensity per category (centering,
//      corners, edges, surface) in [0, 1]. Every size grows monotonically with its intensity, so the rubric's
//      sub-grade falls monotonically and a bisection finds the intensity that gives the wanted sub-grade.
import {
  CORNER_REGION_MM,
  type CardMeasurements,
  type CenteringMeasurement,
  type CornerId,
  type EdgeId,
  type SideMeasurements,
  type Side,
  type SurfaceDefect,
  type SurfaceDefectKind,
} from '@cardlens/grading-rubric';
import type { Rng } from './prng';
import {
  FACTORY_RADIUS,
  H,
  MIRROR_CORNER,
  W,
  areaOnCard,
  bbox,
  cornerGeometry,
  mirrorChip,
  polygonArea,
  polylineLength,
  type Chip,
  type Outline,
  type P,
} from './shape';

export const CORNERS: readonly CornerId[] = ['TL', 'TR', 'BR', 'BL'];
export const EDGES: readonly EdgeId[] = ['top', 'right', 'bottom', 'left'];
export const SIDES: readonly Side[] = ['front', 'back'];

// ---------------------------------------------------------------------------------------------------------
// Drawable condition
// ---------------------------------------------------------------------------------------------------------

/** Corner whitening: a polygon hugging the corner (outer part lies outside the card and is clipped). */
export interface CornerWhitening {
  corner: CornerId;
  polygon: P[];
}

export interface EdgeWhitening {
  edge: EdgeId;
  polygon: P[];
}

/** A bent corner tip: the triangle beyond the fold line (legs along the two edges from the sharp corner). */
export interface Ding {
  corner: CornerId;
  triangle: [P, P, P];
  contrast: number;
}

export type SurfaceMark =
  | { kind: 'scratch'; points: P[]; widthMm: number; contrast: number }
  | { kind: 'crease'; points: P[]; contrast: number }
  | { kind: 'print_line'; points: [P, P]; widthMm: number; contrast: number; dark: boolean }
  | { kind: 'stain'; cx: number; cy: number; rx: number; ry: number; angleDeg: number; contrast: number; hue: number }
  | { kind: 'scuff'; cx: number; cy: number; rx: number; ry: number; angleDeg: number; contrast: number; hatch: P[][] }
  | { kind: 'dent'; cx: number; cy: number; r: number; lightDeg: number; contrast: number };

export interface SideCondition {
  side: Side;
  centering: CenteringMeasurement;
  outline: Outline;
  cornerWhitening: CornerWhitening[];
  edgeWhitening: EdgeWhitening[];
  dings: Ding[];
  surface: { mark: SurfaceMark; defect: SurfaceDefect }[];
  measurements: SideMeasurements;
}

export interface CardCondition {
  front: SideCondition;
  back: SideCondition;
  measurements: CardMeasurements & { back: SideMeasurements };
  /** Intensity per category used to build it (0 = mint). */
  intensity: Intensity;
}

export interface Intensity {
  centering: number;
  corners: number;
  edges: number;
  surface: number;
}

// ---------------------------------------------------------------------------------------------------------
// Templates (random structure, relative sizes)
// ---------------------------------------------------------------------------------------------------------

interface CornerShapeTemplate {
  /** Relative magnitude 0..1 (0: this side's corner never whitens). */
  m: number;
  /** Extents along the horizontal / vertical edges relative to the maximum. */
  aRel: number;
  bRel: number;
  /** Smooth jaggedness of the inner boundary. */
  noise: number[];
}

interface PhysicalCornerTemplate {
  /** Front corner id (the back's is the mirror). */
  corner: CornerId;
  whiten: Record<Side, CornerShapeTemplate>;
  round: number;
  ding: number;
  dingSkew: number;
  dingContrast: number;
}

interface SegmentTemplate {
  centre: number;
  lenRel: number;
  depthRel: number;
  noise: number[];
}

interface EdgeSideTemplate {
  m: number;
  segments: SegmentTemplate[];
}

interface ChipTemplate {
  /** Front edge and position along it. */
  edge: EdgeId;
  at: number;
  widthMm: number;
  depthMm: number;
  shape: 0 | 1;
  /** Present once the edge intensity exceeds this. */
  threshold: number;
}

interface SurfaceTemplate {
  side: Side;
  kind: SurfaceDefectKind;
  threshold: number;
  /** Unit-scale random numbers for the shape. */
  u: number[];
  contrast: number;
}

interface CenteringTemplate {
  /** Direction (+1 wider left/top, -1 narrower) and relative size per side per axis. */
  dir: Record<Side, [number, number]>;
  rel: Record<Side, [number, number]>;
  /** Base border width per side (mm). */
  base: Record<Side, [number, number]>;
  /** Tiny jitter around perfect centring present even at intensity 0 (share points). */
  jitter: Record<Side, [number, number]>;
}

export interface ConditionTemplate {
  centering: CenteringTemplate;
  corners: PhysicalCornerTemplate[];
  edges: Record<Side, Record<EdgeId, EdgeSideTemplate>>;
  chips: ChipTemplate[];
  surface: SurfaceTemplate[];
}

function noiseVector(rng: Rng, n: number): number[] {
  // Smoothed random walk in [-1, 1].
  const out: number[] = [];
  let v = rng.range(-1, 1);
  for (let i = 0; i < n; i++) {
    v = 0.6 * v + 0.4 * rng.range(-1, 1);
    out.push(v);
  }
  return out;
}

export interface BorderWidths {
  /** Nominal (perfectly centred) border widths, mm: [left/right, top/bottom], per side. */
  front: [number, number];
  back: [number, number];
}

export function sampleTemplate(rng: Rng, borders: BorderWidths): ConditionTemplate {
  const sign = () => (rng.chance(0.5) ? 1 : -1);
  // One side and one axis lead the off-centring; the other axis and side follow at a random fraction.
  const leadSide: Side = rng.chance(0.6) ? 'front' : 'back';
  const relFor = (side: Side): [number, number] => {
    const top = side === leadSide ? 1 : rng.range(0.1, 0.7);
    const other = top * rng.range(0.1, 1);
    return rng.chance(0.5) ? [top, other] : [other, top];
  };
  const centering: CenteringTemplate = {
    dir: { front: [sign(), sign()], back: [sign(), sign()] },
    rel: { front: relFor('front'), back: relFor('back') },
    base: { front: borders.front, back: borders.back },
    jitter: {
      front: [rng.normal(0, 0.8), rng.normal(0, 0.8)],
      back: [rng.normal(0, 1.2), rng.normal(0, 1.2)],
    },
  };
  // One corner usually leads; the others follow at a random fraction.
  const lead = rng.int(0, 3);
  const corners: PhysicalCornerTemplate[] = CORNERS.map((corner, i) => {
    const share = i === lead ? 1 : rng.chance(0.5) ? rng.range(0.05, 0.9) : 0;
    const shapeT = (): CornerShapeTemplate => ({
      m: share === 0 ? 0 : share * rng.range(0.5, 1),
      aRel: rng.range(0.3, 1),
      bRel: rng.range(0.3, 1),
      noise: noiseVector(rng, 48),
    });
    return {
      corner,
      whiten: { front: shapeT(), back: shapeT() },
      round: rng.chance(0.55) ? share * rng.range(0.3, 1) : 0,
      ding: rng.chance(0.25) ? share * rng.range(0.4, 1) : 0,
      dingSkew: rng.range(0.7, 1.4),
      dingContrast: rng.range(0.35, 0.8),
    };
  });
  const edgeLead: Record<Side, EdgeId> = { front: rng.pick(EDGES), back: rng.pick(EDGES) };
  const edges = {} as Record<Side, Record<EdgeId, EdgeSideTemplate>>;
  for (const side of SIDES) {
    edges[side] = {} as Record<EdgeId, EdgeSideTemplate>;
    for (const edge of EDGES) {
      const m = edge === edgeLead[side] ? 1 : rng.chance(0.6) ? rng.range(0.1, 0.9) : 0;
      const n = rng.int(1, 4);
      const segments: SegmentTemplate[] = [];
      for (let k = 0; k < n; k++) {
        segments.push({
          centre: rng.range(0.05, 0.95),
          lenRel: rng.range(0.3, 1),
          depthRel: k === 0 ? 1 : rng.range(0.3, 1),
          noise: noiseVector(rng, 64),
        });
      }
      edges[side][edge] = { m: side === 'back' ? m : m * rng.range(0.6, 1), segments };
    }
  }
  const chips: ChipTemplate[] = [];
  const chipCount = rng.weighted([
    [0, 3],
    [1, 3],
    [2, 2],
    [4, 1],
    [8, 0.6],
  ] as const);
  for (let i = 0; i < chipCount; i++) {
    const edge = rng.chance(0.5) ? edgeLead.front : rng.pick(EDGES);
    const len = edge === 'top' || edge === 'bottom' ? W : H;
    chips.push({
      edge,
      at: rng.range(CORNER_REGION_MM + 0.8, len - CORNER_REGION_MM - 0.8),
      widthMm: rng.range(0.35, 1.3),
      depthMm: rng.range(0.12, 0.6),
      shape: rng.chance(0.5) ? 0 : 1,
      threshold: rng.range(0.15, 0.95),
    });
  }
  const surface: SurfaceTemplate[] = [];
  const nSurface = rng.int(1, 6);
  for (let i = 0; i < nSurface; i++) {
    const kind = rng.weighted<SurfaceDefectKind>([
      ['scratch', 34],
      ['scuff', 14],
      ['print_line', 12],
      ['stain', 12],
      ['dent', 14],
      ['crease', 14],
    ]);
    const contrastRange: Record<SurfaceDefectKind, [number, number]> = {
      scratch: [0.3, 0.9],
      crease: [0.45, 0.9],
      print_line: [0.2, 0.6],
      stain: [0.25, 0.7],
      scuff: [0.15, 0.45],
      dent: [0.35, 0.8],
    };
    const [c0, c1] = contrastRange[kind];
    surface.push({
      side: rng.chance(0.55) ? 'front' : 'back',
      kind,
      threshold: i === 0 ? 0.02 : kind === 'crease' ? rng.range(0.45, 0.95) : rng.range(0.05, 0.9),
      u: Array.from({ length: 12 }, () => rng.next()),
      contrast: rng.range(c0, c1),
    });
  }
  return { centering, corners, edges, chips, surface };
}

// ---------------------------------------------------------------------------------------------------------
// Building the condition at given intensities
// ---------------------------------------------------------------------------------------------------------

/** Minimum depth of counted edge wear, mm (shallower is not visible at 10 px/mm). */
const MIN_EDGE_DEPTH = 0.15;

/** Largest deviation from 50 share points at intensity 1 (85/15). */
const MAX_SHARE_DEV = 35;

function buildCentering(t: CenteringTemplate, side: Side, intensity: number): CenteringMeasurement {
  const [baseLR, baseTB] = t.base[side];
  const share = (axis: 0 | 1) => {
    const dev = t.jitter[side][axis] + t.dir[side][axis] * intensity * t.rel[side][axis] * MAX_SHARE_DEV;
    return 50 + Math.max(-MAX_SHARE_DEV, Math.min(MAX_SHARE_DEV, dev));
  };
  const lr = share(0);
  const tb = share(1);
  const round3 = (v: number) => Math.round(v * 1000) / 1000;
  const leftMm = round3((2 * baseLR * lr) / 100);
  const topMm = round3((2 * baseTB * tb) / 100);
  return { leftMm, rightMm: round3(2 * baseLR - leftMm), topMm, bottomMm: round3(2 * baseTB - topMm) };
}

function sampleNoise(noise: number[], u: number): number {
  const x = Math.max(0, Math.min(1, u)) * (noise.length - 1);
  const i = Math.floor(x);
  const a = noise[i] ?? 0;
  const b = noise[Math.min(noise.length - 1, i + 1)] ?? a;
  return a + (b - a) * (x - i);
}

/**
 * Corner whitening polygon for one corner: the card outline from `a` mm along the horizontal edge, round the
 * arc, to `b` mm along the vertical edge, and back along an inner boundary at the depth profile. Returns the
 * polygon to draw (outer boundary pushed 0.4 mm outside the card) and its exact on-card area.
 */
function cornerWhiteningShape(
  corner: CornerId,
  radius: number,
  depth: number,
  a: number,
  b: number,
  noise: number[],
): { polygon: P[]; area: number } {
  const g = cornerGeometry(corner, radius);
  const outline: P[] = [];
  const normals: P[] = [];
  const us: number[] = [];
  const onArc: boolean[] = [];
  const arcLen = (Math.PI / 2) * radius;
  const total = a + arcLen + b;
  const step = 0.08;
  // Horizontal edge part: from distance a away from the arc end towards it.
  for (let t = a; t > 0; t -= step) {
    outline.push([g.cx - g.sx * t, g.cy + g.sy * radius]);
    normals.push([0, -g.sy]);
    us.push((a - t) / total);
    onArc.push(false);
  }
  const nArc = Math.max(8, Math.ceil(arcLen / 0.05));
  for (let i = 0; i <= nArc; i++) {
    const beta = (i / nArc) * (Math.PI / 2);
    const sx = Math.sin(beta);
    const cy = Math.cos(beta);
    outline.push([g.cx + g.sx * radius * sx, g.cy + g.sy * radius * cy]);
    normals.push([-g.sx * sx, -g.sy * cy]);
    us.push((a + (i / nArc) * arcLen) / total);
    onArc.push(true);
  }
  for (let t = step; t <= b + 1e-9; t += step) {
    outline.push([g.cx + g.sx * radius, g.cy - g.sy * t]);
    normals.push([-g.sx, 0]);
    us.push((a + arcLen + t) / total);
    onArc.push(false);
  }
  const tipU = (a + arcLen / 2) / total;
  const inner: P[] = [];
  const outer: P[] = [];
  for (let i = 0; i < outline.length; i++) {
    const u = us[i] as number;
    const [x, y] = outline[i] as P;
    const [nx, ny] = normals[i] as P;
    // Bump peaking at the tip, falling to 0 at both ends, with jaggedness.
    const side = u < tipU ? u / tipU : (1 - u) / (1 - tipU);
    const bump = Math.pow(Math.max(0, Math.min(1, side)), 0.6);
    let d = depth * bump * (0.7 + 0.3 * sampleNoise(noise, u));
    if (onArc[i]) d = Math.min(d, radius - 0.05);
    inner.push([x + nx * d, y + ny * d]);
    outer.push([x - nx * 0.4, y - ny * 0.4]);
  }
  const area = polygonArea([...outline, ...inner.slice().reverse()]);
  return { polygon: [...outer, ...inner.slice().reverse()], area };
}

function edgeLength(edge: EdgeId): number {
  return edge === 'top' || edge === 'bottom' ? W : H;
}

/** Point on an edge at `along` mm, pushed `depth` mm into the card. */
function edgePoint(edge: EdgeId, along: number, depth: number): P {
  switch (edge) {
    case 'top':
      return [along, depth];
    case 'bottom':
      return [along, H - depth];
    case 'left':
      return [depth, along];
    case 'right':
      return [W - depth, along];
  }
}

interface Interval {
  from: number;
  to: number;
}

function unionLength(intervals: Interval[]): number {
  const sorted = intervals.filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  let total = 0;
  let cur: Interval | null = null;
  for (const iv of sorted) {
    if (!cur || iv.from > cur.to) {
      if (cur) total += cur.to - cur.from;
      cur = { ...iv };
    } else cur.to = Math.max(cur.to, iv.to);
  }
  if (cur) total += cur.to - cur.from;
  return total;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

function buildSurfaceMark(t: SurfaceTemplate, s: number): { mark: SurfaceMark; defect: SurfaceDefect } | null {
  if (s <= t.threshold) return null;
  const u = (i: number) => t.u[i] ?? 0.5;
  // Growth beyond the threshold: 0 at the threshold, 1 at intensity 1.
  const g = Math.min(1, (s - t.threshold) / Math.max(0.05, 1 - t.threshold));
  const margin = 3.5;
  const cx = margin + u(0) * (W - 2 * margin);
  const cy = margin + u(1) * (H - 2 * margin);
  const clampPt = (p: P): P => [Math.max(2.6, Math.min(W - 2.6, p[0])), Math.max(2.6, Math.min(H - 2.6, p[1]))];
  // Lines keep their longest run inside the surface area (clamping would draw them along the margin).
  const clipLine = (pts: P[]): P[] => {
    const inside = (p: P) => p[0] >= 2.6 && p[0] <= W - 2.6 && p[1] >= 2.6 && p[1] <= H - 2.6;
    let best: P[] = [];
    let cur: P[] = [];
    for (const p of pts) {
      if (inside(p)) cur.push(p);
      else cur = [];
      if (cur.length > best.length) best = cur.slice();
    }
    return best.length >= 2 ? best : [clampPt(pts[0]!), clampPt(pts[pts.length - 1]!)];
  };
  switch (t.kind) {
    case 'scratch': {
      const len = 1.2 + g * (8 + u(2) * 40);
      const ang = u(3) * Math.PI;
      const bend = (u(4) - 0.5) * 0.25;
      const n = Math.max(4, Math.ceil(len / 1.5));
      const pts: P[] = [];
      for (let i = 0; i <= n; i++) {
        const f = i / n - 0.5;
        const a = ang + bend * f * 2;
        pts.push([cx + Math.cos(a) * f * len, cy + Math.sin(a) * f * len]);
      }
      const line = clipLine(pts);
      pts.length = 0;
      pts.push(...line);
      const contrast = r3(t.contrast * (0.6 + 0.4 * g));
      const lengthMm = r3(polylineLength(pts));
      return {
        mark: { kind: 'scratch', points: pts, widthMm: 0.1 + u(5) * 0.12, contrast },
        defect: { kind: 'scratch', lengthMm, contrast, ...roundBox(bbox(pts)) },
      };
    }
    case 'crease': {
      const len = 8 + g * (20 + u(2) * 70);
      const ang = u(3) * Math.PI;
      const n = Math.max(6, Math.ceil(len / 2));
      const pts: P[] = [];
      for (let i = 0; i <= n; i++) {
        const f = i / n - 0.5;
        const wob = Math.sin(i * 1.7 + u(4) * 6) * 0.25;
        pts.push([cx + Math.cos(ang) * f * len - Math.sin(ang) * wob, cy + Math.sin(ang) * f * len + Math.cos(ang) * wob]);
      }
      const dedup = clipLine(pts);
      const contrast = r3(t.contrast);
      return {
        mark: { kind: 'crease', points: dedup, contrast },
        defect: { kind: 'crease', lengthMm: r3(polylineLength(dedup)), contrast, ...roundBox(bbox(dedup)) },
      };
    }
    case 'print_line': {
      const len = 4 + g * (15 + u(2) * 60);
      const vertical = u(3) < 0.75;
      const a: P = vertical ? [cx, cy - len / 2] : [cx - len / 2, cy];
      const b: P = vertical ? [cx, cy + len / 2] : [cx + len / 2, cy];
      const pa = clampPt(a);
      const pb = clampPt(b);
      const contrast = r3(t.contrast * (0.7 + 0.3 * g));
      return {
        mark: { kind: 'print_line', points: [pa, pb], widthMm: 0.12 + u(4) * 0.15, contrast, dark: u(5) < 0.4 },
        defect: {
          kind: 'print_line',
          lengthMm: r3(Math.hypot(pb[0] - pa[0], pb[1] - pa[1])),
          contrast,
          ...roundBox(bbox([pa, pb])),
        },
      };
    }
    case 'stain':
    case 'scuff': {
      const isStain = t.kind === 'stain';
      const area = isStain ? 0.4 + g * (4 + u(2) * 90) : 2 + g * (10 + u(2) * 250);
      const aspect = 1 + u(3) * (isStain ? 1 : 2.5);
      // Half-contrast contour ellipse has semi-axes (ha, hb) with pi*ha*hb = area; the drawn ellipse is 1.25x.
      const ha = Math.sqrt((area * aspect) / Math.PI);
      const hb = ha / aspect;
      const angleDeg = u(4) * 180;
      const rad = (angleDeg * Math.PI) / 180;
      const hw = Math.sqrt((ha * Math.cos(rad)) ** 2 + (hb * Math.sin(rad)) ** 2);
      const hh = Math.sqrt((ha * Math.sin(rad)) ** 2 + (hb * Math.cos(rad)) ** 2);
      const ccx = Math.max(2.6 + hw, Math.min(W - 2.6 - hw, cx));
      const ccy = Math.max(2.6 + hh, Math.min(H - 2.6 - hh, cy));
      const contrast = r3(t.contrast * (0.7 + 0.3 * g));
      const box = roundBox({ xMm: ccx - hw, yMm: ccy - hh, wMm: 2 * hw, hMm: 2 * hh });
      const areaMm2 = r3(Math.PI * ha * hb);
      if (isStain) {
        return {
          mark: { kind: 'stain', cx: ccx, cy: ccy, rx: ha * 1.25, ry: hb * 1.25, angleDeg, contrast, hue: 25 + u(5) * 30 },
          defect: { kind: 'stain', areaMm2, contrast, ...box },
        };
      }
      const hatch: P[][] = [];
      const nLines = Math.min(60, Math.round(area / 3));
      for (let i = 0; i < nLines; i++) {
        const rr = Math.sqrt(((i * 0.618034) % 1) * 0.9);
        const th = i * 2.39996 + u(6) * 6;
        const px = rr * Math.cos(th) * ha;
        const py = rr * Math.sin(th) * hb;
        const la = u(7) * Math.PI + ((i % 5) - 2) * 0.08;
        const l = 0.6 + ((i * 0.37) % 1) * 1.6;
        const rot = (x: number, y: number): P => [
          ccx + x * Math.cos(rad) - y * Math.sin(rad),
          ccy + x * Math.sin(rad) + y * Math.cos(rad),
        ];
        hatch.push([rot(px - (Math.cos(la) * l) / 2, py - (Math.sin(la) * l) / 2), rot(px + (Math.cos(la) * l) / 2, py + (Math.sin(la) * l) / 2)]);
      }
      return {
        mark: { kind: 'scuff', cx: ccx, cy: ccy, rx: ha * 1.25, ry: hb * 1.25, angleDeg, contrast, hatch },
        defect: { kind: 'scuff', areaMm2, contrast, ...box },
      };
    }
    case 'dent': {
      const area = 0.2 + g * (1 + u(2) * 25);
      const r = Math.sqrt(area / Math.PI);
      const ccx = Math.max(2.6 + r, Math.min(W - 2.6 - r, cx));
      const ccy = Math.max(2.6 + r, Math.min(H - 2.6 - r, cy));
      const contrast = r3(t.contrast);
      return {
        mark: { kind: 'dent', cx: ccx, cy: ccy, r, lightDeg: u(3) * 360, contrast },
        defect: {
          kind: 'dent',
          areaMm2: r3(Math.PI * r * r),
          contrast,
          ...roundBox({ xMm: ccx - r, yMm: ccy - r, wMm: 2 * r, hMm: 2 * r }),
        },
      };
    }
  }
}

function roundBox(b: { xMm: number; yMm: number; wMm: number; hMm: number }) {
  return { xMm: r3(b.xMm), yMm: r3(b.yMm), wMm: r3(b.wMm), hMm: r3(b.hMm) };
}

/** Builds both sides at the given intensities. Pure and deterministic. */
export function buildCondition(t: ConditionTemplate, intensity: Intensity): CardCondition {
  // Physical outline (front ids), shared by both sides (mirrored on the back).
  const radiiFront = {} as Record<CornerId, number>;
  for (const c of t.corners) {
    const extra = Math.pow(intensity.corners * c.round, 1.4) * 4.2;
    radiiFront[c.corner] = FACTORY_RADIUS + (extra >= 0.05 ? r3(extra) : 0);
  }
  const chipsFront: Chip[] = t.chips
    .filter((c) => intensity.edges > c.threshold)
    .map((c) => ({ edge: c.edge, at: c.at, widthMm: c.widthMm, depthMm: c.depthMm, shape: c.shape }));
  const outlines: Record<Side, Outline> = {
    front: { radii: radiiFront, chips: chipsFront },
    back: {
      radii: {
        TL: radiiFront[MIRROR_CORNER.TL],
        TR: radiiFront[MIRROR_CORNER.TR],
        BR: radiiFront[MIRROR_CORNER.BR],
        BL: radiiFront[MIRROR_CORNER.BL],
      },
      chips: chipsFront.map(mirrorChip),
    },
  };

  const sides = {} as Record<Side, SideCondition>;
  for (const side of SIDES) {
    const outline = outlines[side];
    const m: SideMeasurements = {
      corners: {} as SideMeasurements['corners'],
      edges: {} as SideMeasurements['edges'],
      surface: [],
      centering: buildCentering(t.centering, side, intensity.centering),
    };
    const cornerWhitening: CornerWhitening[] = [];
    const dings: Ding[] = [];
    for (const pc of t.corners) {
      const corner = side === 'front' ? pc.corner : MIRROR_CORNER[pc.corner];
      const radius = outline.radii[corner];
      const shapeT = pc.whiten[side];
      const k = intensity.corners * shapeT.m;
      let whiteningAreaMm2 = 0;
      const depth = k * 2.1;
      if (depth >= 0.12) {
        const room = CORNER_REGION_MM - radius - 0.15;
        const a = Math.max(0.3, room * Math.min(1, (0.25 + 0.75 * k) * (0.5 + shapeT.aRel * 0.5)));
        const b = Math.max(0.3, room * Math.min(1, (0.25 + 0.75 * k) * (0.5 + shapeT.bRel * 0.5)));
        const shape = cornerWhiteningShape(corner, radius, Math.min(depth, 2.2), a, b, shapeT.noise);
        whiteningAreaMm2 = r3(shape.area);
        cornerWhitening.push({ corner, polygon: shape.polygon });
      }
      // Ding: triangle beyond a fold line; legs grow with the intensity.
      let dingAreaMm2 = 0;
      const leg = intensity.corners * pc.ding * 4.5;
      const minReach = radius * (2 - Math.SQRT2) + 0.35;
      if (pc.ding > 0 && leg > minReach) {
        const g = cornerGeometry(corner, 0);
        const px = g.cx;
        const py = g.cy;
        const legX = leg * pc.dingSkew;
        const legY = leg / pc.dingSkew;
        const tri: [P, P, P] = [
          [px, py],
          [px - g.sx * legX, py],
          [px, py - g.sy * legY],
        ];
        const area = areaOnCard(tri, outline, 0.04);
        if (area >= 0.05) {
          dingAreaMm2 = r3(area);
          dings.push({ corner, triangle: tri, contrast: pc.dingContrast });
        }
      }
      m.corners[corner] = {
        whiteningAreaMm2,
        roundingRadiusMm: r3(radius - FACTORY_RADIUS),
        dingAreaMm2,
      };
    }

    const edgeWhitening: EdgeWhitening[] = [];
    for (const edge of EDGES) {
      const et = t.edges[side][edge];
      const k = intensity.edges * et.m;
      const len = edgeLength(edge);
      const lo = CORNER_REGION_MM + 0.2;
      const hi = len - CORNER_REGION_MM - 0.2;
      const span = hi - lo;
      const intervals: Interval[] = [];
      let maxDepth = 0;
      // Wear shallower than ~0.15 mm would be invisible at 10 px/mm; every counted millimetre is at least that deep.
      const maxD = Math.min(2.2, 0.2 + k * 2.0);
      for (const seg of et.segments) {
        const segLen = k * seg.lenRel * span * 0.9;
        if (segLen < 0.8) continue;
        const centre = lo + seg.centre * span;
        const from = Math.max(lo, centre - segLen / 2);
        const to = Math.min(hi, centre + segLen / 2);
        if (to - from < 0.8) continue;
        const peak = maxD * seg.depthRel;
        const inner: P[] = [];
        const outer: P[] = [];
        const n = Math.max(4, Math.ceil((to - from) / 0.1));
        let segMax = 0;
        for (let i = 0; i <= n; i++) {
          const along = from + ((to - from) * i) / n;
          const endDist = Math.min(along - from, to - along);
          const ramp = Math.max(0, Math.min(1, endDist / 0.08));
          const fine = sampleNoise(seg.noise, ((along * 1.7) % 1 + 1) % 1);
          const d = Math.max(MIN_EDGE_DEPTH, peak * (0.45 + 0.35 * Math.abs(sampleNoise(seg.noise, i / n)) + 0.2 * Math.abs(fine))) * Math.sqrt(ramp);
          segMax = Math.max(segMax, d);
          inner.push(edgePoint(edge, along, d));
          outer.push(edgePoint(edge, along, -0.4));
        }
        maxDepth = Math.max(maxDepth, segMax);
        intervals.push({ from, to });
        edgeWhitening.push({ edge, polygon: [...outer, ...inner.reverse()] });
      }
      let chipCount = 0;
      for (const chip of outline.chips) {
        if (chip.edge !== edge) continue;
        chipCount++;
        maxDepth = Math.max(maxDepth, chip.depthMm);
        intervals.push({ from: chip.at - chip.widthMm / 2, to: chip.at + chip.widthMm / 2 });
      }
      m.edges[edge] = { whitenedLengthMm: r3(unionLength(intervals)), maxDepthMm: r3(maxDepth), chipCount };
    }

    const surface: { mark: SurfaceMark; defect: SurfaceDefect }[] = [];
    for (const st of t.surface) {
      if (st.side !== side) continue;
      const built = buildSurfaceMark(st, intensity.surface);
      if (built) surface.push(built);
    }
    m.surface = surface.map((s) => s.defect);
    sides[side] = { side, centering: m.centering, outline, cornerWhitening, edgeWhitening, dings, surface, measurements: m };
  }
  return {
    front: sides.front,
    back: sides.back,
    measurements: { front: sides.front.measurements, back: sides.back.measurements },
    intensity: { ...intensity },
  };
}
