/**
 * Severity-model data. Per generator seed, both sides of the card:
 * - 'render': the canonical 10 px/mm render (renderCardSides) composited over a random background through its
 *   alpha (off-card pixels beyond rounded corners and chips), then degraded like a rectified photo would be
 *   (blur, uneven light, tint, glare spots, noise, JPEG), all drawn from the seed;
 * - 'photo': the card photographed by the generator (3 MP) and rectified with the TRUE quad through the engine's
 *   own rectify(), i.e. what the engine sees when detection is perfect (used for validation).
 * Patches (corner x4, edge x4, surface x1) are cut with the same code as inference (src/models/severity.ts),
 * with a small random misregistration (+-1 px) to mimic detection error. Targets come from the rubric applied
 * to the generator's exact measurements.
 */
import sharp from 'sharp';
import { photograph, renderCardSides, type CanonicalSide } from '@cardlens/card-synth';
import { assessCorner, assessEdge, surfaceDefectSeverity, type SideMeasurements } from '@cardlens/grading-rubric';
import { decodeScaled, probeImage } from '../src/image/decode';
import { rectify } from '../src/geometry/homography';
import type { Quad, RgbImage } from '../src/image/types';
import {
  CARD_PX,
  CORNER_IDS,
  CORNER_INPUT,
  cornerPatch,
  EDGE_IDS,
  EDGE_INPUT,
  edgePatch,
  SURFACE_GRID,
  SURFACE_INPUT,
  surfacePatch,
  surfaceTileMm,
  type CardFrame,
} from '../src/models/severity';
import { cached, log, mapLimit, rng } from './common';

const CHUNK = 50;
export const CORNER_BYTES = CORNER_INPUT * CORNER_INPUT * 3;
export const EDGE_BYTES = EDGE_INPUT.along * EDGE_INPUT.depth * 3;
export const SURFACE_BYTES = SURFACE_INPUT.width * SURFACE_INPUT.height * 3;
export const SIDE_BYTES = 4 * CORNER_BYTES + 4 * EDGE_BYTES + SURFACE_BYTES;
export const TILE_COUNT = SURFACE_GRID.cols * SURFACE_GRID.rows;
const PAD = 8;

export interface SeverityItem {
  seed: number;
  side: 'front' | 'back';
  /** 4 corners x [whitening, rounding, ding] severities. */
  corner: number[];
  /** 4 edges x [whitening, depth, chips] severities. */
  edge: number[];
  /** rows x cols tile targets. */
  tiles: number[];
  tags: Record<string, boolean>;
}

export interface SeveritySet {
  items: SeverityItem[];
  /** items.length x SIDE_BYTES: corners, edges, surface. */
  data: Uint8Array;
}

export function targetsOf(m: SideMeasurements): Pick<SeverityItem, 'corner' | 'edge' | 'tiles'> {
  const corner = CORNER_IDS.flatMap((c) => assessCorner(m.corners[c]).components.map((x) => x.severity));
  const edge = EDGE_IDS.flatMap((e) => assessEdge(m.edges[e], e).components.map((x) => x.severity));
  const tiles = new Array<number>(TILE_COUNT).fill(0);
  for (const d of m.surface) {
    const sev = surfaceDefectSeverity(d);
    for (let r = 0; r < SURFACE_GRID.rows; r++)
      for (let c = 0; c < SURFACE_GRID.cols; c++) {
        const [x, y, w, h] = surfaceTileMm(c, r);
        const m0 = 0.3; // a defect touching a tile within 0.3 mm counts for it
        if (d.xMm - m0 < x + w && d.xMm + d.wMm + m0 > x && d.yMm - m0 < y + h && d.yMm + d.hMm + m0 > y) {
          tiles[r * SURFACE_GRID.cols + c] = Math.max(tiles[r * SURFACE_GRID.cols + c]!, sev);
        }
      }
  }
  return { corner, edge, tiles };
}

/** Canonical render -> padded, composited and degraded RGB image. */
async function degradedRender(side: CanonicalSide, rand: () => number): Promise<{ img: RgbImage; tags: Record<string, boolean> }> {
  const W = CARD_PX.width + 2 * PAD;
  const H = CARD_PX.height + 2 * PAD;
  const bg = [rand() * 255, rand() * 255, rand() * 255];
  const out = new Uint8Array(W * H * 3);
  for (let i = 0; i < W * H; i++) {
    out[i * 3] = bg[0]!;
    out[i * 3 + 1] = bg[1]!;
    out[i * 3 + 2] = bg[2]!;
  }
  const rendered = side.rendered;
  for (let y = 0; y < CARD_PX.height; y++)
    for (let x = 0; x < CARD_PX.width; x++) {
      const s = y * CARD_PX.width + x;
      const a = rendered.rgba[s * 4 + 3]! / 255;
      const o = ((y + PAD) * W + x + PAD) * 3;
      for (let c = 0; c < 3; c++) out[o + c] = rendered.rgba[s * 4 + c]! * a + out[o + c]! * (1 - a);
    }
  const tags: Record<string, boolean> = { clean: false, blur: false, glare: false, jpeg: false };
  let img: Uint8Array = out;
  if (rand() < 0.2) {
    tags.clean = true;
    return { img: { width: W, height: H, data: img }, tags };
  }
  // blur
  if (rand() < 0.75) {
    const sigma = 0.4 + rand() * 1.4;
    const b = await sharp(img, { raw: { width: W, height: H, channels: 3 } }).blur(sigma).raw().toBuffer();
    img = new Uint8Array(b.buffer, b.byteOffset, b.length);
    tags.blur = sigma > 1.2;
  }
  // light: exposure, tint, linear gradient, glare spots, noise
  const gain = 0.75 + rand() * 0.4;
  const tint = [0.92 + rand() * 0.16, 0.92 + rand() * 0.16, 0.92 + rand() * 0.16];
  const ga = rand() * Math.PI * 2;
  const gs = (rand() - 0.5) * 0.3;
  const gx = (Math.cos(ga) * gs) / W;
  const gy = (Math.sin(ga) * gs) / H;
  const spots: { cx: number; cy: number; rx: number; ry: number; k: number }[] = [];
  if (rand() < 0.25) {
    tags.glare = true;
    const n = 1 + Math.floor(rand() * 2);
    for (let i = 0; i < n; i++) spots.push({ cx: rand() * W, cy: rand() * H, rx: 30 + rand() * 150, ry: 30 + rand() * 150, k: 0.3 + rand() * 0.7 });
  }
  const noise = rand() < 0.8 ? rand() * 5 : 0;
  const nr = rng(Math.floor(rand() * 2 ** 31));
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const g = gain * (1 + gx * (x - W / 2) + gy * (y - H / 2));
      let glare = 0;
      for (const s of spots) {
        const d = ((x - s.cx) / s.rx) ** 2 + ((y - s.cy) / s.ry) ** 2;
        if (d < 4) glare = Math.max(glare, s.k * Math.exp(-d));
      }
      const o = (y * W + x) * 3;
      // Box-Muller-free cheap noise: sum of two uniforms (triangular), scaled to ~sigma
      const nz = noise ? (nr() + nr() - 1) * noise * 2.45 : 0;
      for (let c = 0; c < 3; c++) {
        const v = img[o + c]! * g * tint[c]!;
        img[o + c] = Math.max(0, Math.min(255, v + (255 - v) * glare + nz));
      }
    }
  if (rand() < 0.5) {
    tags.jpeg = true;
    const q = 55 + Math.floor(rand() * 40);
    const j = await sharp(img, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: q }).toBuffer();
    const d = await sharp(j).raw().toBuffer();
    img = new Uint8Array(d.buffer, d.byteOffset, d.length);
  }
  return { img: { width: W, height: H, data: img }, tags };
}

/** The generator's photograph of the side, rectified with the true quad (engine code). */
async function photoRectified(side: CanonicalSide, seed: number): Promise<{ img: RgbImage; tags: Record<string, boolean> }> {
  const ph = await photograph(side.rendered, { megapixels: 3 }, seed);
  const info = await probeImage(ph.jpeg);
  const dec = await decodeScaled(ph.jpeg, info, 1);
  const img = rectify(dec.image, ph.label.quadPx as unknown as Quad);
  return { img, tags: { ...(ph.label.tags as unknown as Record<string, boolean>) } };
}

function patches(img: RgbImage, frame: CardFrame, rand: () => number): Uint8Array {
  const out = new Uint8Array(SIDE_BYTES);
  let o = 0;
  const jitter = () => Math.round((rand() - 0.5) * 3);
  for (const c of CORNER_IDS) {
    out.set(cornerPatch(img, c, frame, [jitter(), jitter()]), o);
    o += CORNER_BYTES;
  }
  for (const e of EDGE_IDS) {
    out.set(edgePatch(img, e, frame, jitter()), o);
    o += EDGE_BYTES;
  }
  out.set(surfacePatch(img, frame), o);
  return out;
}

async function makeSeed(seed: number, mode: 'render' | 'photo'): Promise<{ items: SeverityItem[]; data: Uint8Array[] }> {
  const card = await renderCardSides(null, null, seed);
  const rand = rng(seed * 31 + (mode === 'render' ? 1 : 2));
  const items: SeverityItem[] = [];
  const data: Uint8Array[] = [];
  for (const sideName of ['front', 'back'] as const) {
    const side = card[sideName];
    const m = card.measurements[sideName];
    const { img, tags } = mode === 'render' ? await degradedRender(side, rand) : await photoRectified(side, seed * 2 + (sideName === 'back' ? 1 : 0));
    const frame: CardFrame = mode === 'render' ? { ox: PAD, oy: PAD, scale: 1 } : { ox: 0, oy: 0, scale: 1 };
    data.push(patches(img, frame, mode === 'render' ? rand : () => 0.5));
    items.push({ seed, side: sideName, ...targetsOf(m), tags });
  }
  return { items, data };
}

export async function severitySet(from: number, count: number, mode: 'render' | 'photo', concurrency = 2): Promise<SeveritySet> {
  const items: SeverityItem[] = [];
  const parts: Uint8Array[] = [];
  const t0 = performance.now();
  for (let c = from; c < from + count; c += CHUNK) {
    const n = Math.min(CHUNK, from + count - c);
    const key = `sev-${mode}-v1-${c}-${n}`;
    const chunk = await cached<SeverityItem[]>(key, async () => {
      const made = await mapLimit(n, concurrency, (i) => makeSeed(c + i, mode));
      const data = new Uint8Array(made.reduce((s, m) => s + m.data.length, 0) * SIDE_BYTES);
      let o = 0;
      for (const m of made)
        for (const d of m.data) {
          data.set(d, o);
          o += SIDE_BYTES;
        }
      log(`generated ${key}`, { seconds: Math.round((performance.now() - t0) / 1000) });
      return { meta: made.flatMap((m) => m.items), data };
    });
    items.push(...chunk.meta);
    parts.push(chunk.data);
  }
  const data = new Uint8Array(items.length * SIDE_BYTES);
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  return { items, data };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [from, count, mode] = process.argv.slice(2);
  const t = performance.now();
  const set = await severitySet(Number(from ?? 1), Number(count ?? 50), (mode as 'render' | 'photo') ?? 'render');
  log('done', { sides: set.items.length, seconds: Math.round((performance.now() - t) / 1000) });
}
