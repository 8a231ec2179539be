// Finish cues and border colour, measured on the rectified side.
//
// Foil finishes print a rainbow: the hue turns steadily along the card (a linear sweep for holo foil, rings
// for refractor/prizm-like parallels). On a 2 px/mm opponent-chroma map z = (R-G) + i*((R+G)/2-B), a rainbow
// makes z rotate between neighbouring samples, i.e. sum z(p+d) * conj(z(p)) gets a large imaginary part,
// while printed art (even with colour gradients) keeps neighbouring chroma nearly in phase. The rotation
// score is measured per 8 mm tile; where it is strong tells the finish:
//   holo         - the art window turns, the rest of the frame does not (or, on full-bleed sports designs,
//                  the whole frame turns in ONE direction);
//   reverse_holo - the frame around the art turns, the art does not;
//   refractor    - rings: the whole card turns, the direction changing from tile to tile, even on the border,
//                  plus star-shaped sparkles.
import type { RgbImage } from '../image/types';
import { ART_MM, BODY_MM, BORDER_RING_MM, CARD_H_MM, CARD_W_MM, SIDE_STRIPS_MM, type RectMm } from './regions';

const PX_PER_MM = 2;
const TILE_MM = 8;
const STEP_MM = 2;
const DIRECTIONS = 8;

interface ChromaMap {
  width: number;
  height: number;
  /** Opponent chroma, and luma, per 0.5 mm sample. */
  a: Float32Array;
  b: Float32Array;
  l: Float32Array;
}

function chromaMap(img: RgbImage): ChromaMap {
  const width = Math.round(CARD_W_MM * PX_PER_MM);
  const height = Math.round(CARD_H_MM * PX_PER_MM);
  const a = new Float32Array(width * height);
  const b = new Float32Array(width * height);
  const l = new Float32Array(width * height);
  const n = new Float32Array(width * height);
  const sx = width / img.width;
  const sy = height / img.height;
  const d = img.data;
  for (let y = 0; y < img.height; y++) {
    const gy = Math.min(height - 1, Math.floor(y * sy));
    let j = y * img.width * 3;
    for (let x = 0; x < img.width; x++, j += 3) {
      const k = gy * width + Math.min(width - 1, Math.floor(x * sx));
      const R = d[j]!;
      const G = d[j + 1]!;
      const B = d[j + 2]!;
      a[k]! += R - G;
      b[k]! += ((R + G) / 2 - B) * 1.1547;
      l[k]! += (R + G + B) / 3;
      n[k]! += 1;
    }
  }
  for (let k = 0; k < n.length; k++) {
    const inv = 1 / (n[k] || 1);
    a[k] = a[k]! * inv;
    b[k] = b[k]! * inv;
    l[k] = l[k]! * inv;
  }
  return { width, height, a, b, l };
}

interface TileRotation {
  /** |Im| of the normalised neighbour correlation, best direction (0-1). */
  score: number;
  /** Phase-gradient vector (direction the hue turns towards), weighted by score. */
  gx: number;
  gy: number;
  /** RMS chroma variation in the tile. */
  energy: number;
  cx: number;
  cy: number;
}

const DIRS = Array.from({ length: DIRECTIONS }, (_, k) => {
  const t = (k * Math.PI) / DIRECTIONS;
  return [Math.cos(t), Math.sin(t)] as const;
});

function tileRotation(m: ChromaMap, x0: number, y0: number, x1: number, y1: number): TileRotation | null {
  const { width, a, b } = m;
  if (x1 - x0 < 2 || y1 - y0 < 2) return null;
  let ma = 0;
  let mb = 0;
  let cnt = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      ma += a[y * width + x]!;
      mb += b[y * width + x]!;
      cnt++;
    }
  }
  ma /= cnt;
  mb /= cnt;
  let energy = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) energy += (a[y * width + x]! - ma) ** 2 + (b[y * width + x]! - mb) ** 2;
  }
  energy = Math.sqrt(energy / cnt);
  const step = STEP_MM * PX_PER_MM;
  let best = 0;
  let gx = 0;
  let gy = 0;
  for (const [c, s] of DIRS) {
    const dx = Math.round(c * step);
    const dy = Math.round(s * step);
    let im = 0;
    let e = 0;
    for (let y = y0; y < y1; y++) {
      const yy = y + dy;
      if (yy < y0 || yy >= y1) continue;
      for (let x = x0; x < x1; x++) {
        const xx = x + dx;
        if (xx < x0 || xx >= x1) continue;
        const p = y * width + x;
        const q = yy * width + xx;
        const pa = a[p]! - ma;
        const pb = b[p]! - mb;
        const qa = a[q]! - ma;
        const qb = b[q]! - mb;
        // z(q) * conj(z(p))
        im += qb * pa - qa * pb;
        e += Math.hypot(pa, pb) * Math.hypot(qa, qb);
      }
    }
    const r = e > 0 ? im / e : 0;
    gx += r * c;
    gy += r * s;
    if (Math.abs(r) > best) best = Math.abs(r);
  }
  return { score: best, gx, gy, energy, cx: (x0 + x1) / 2, cy: (y0 + y1) / 2 };
}

function tilesIn(m: ChromaMap, r: RectMm): TileRotation[] {
  const size = TILE_MM * PX_PER_MM;
  const out: TileRotation[] = [];
  const x0 = Math.round(r.x * PX_PER_MM);
  const y0 = Math.round(r.y * PX_PER_MM);
  const x1 = Math.round((r.x + r.w) * PX_PER_MM);
  const y1 = Math.round((r.y + r.h) * PX_PER_MM);
  const nx = Math.max(1, Math.round((x1 - x0) / size));
  const ny = Math.max(1, Math.round((y1 - y0) / size));
  const sw = (x1 - x0) / nx;
  const sh = (y1 - y0) / ny;
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const tx = Math.round(x0 + i * sw);
      const ty = Math.round(y0 + j * sh);
      const t = tileRotationBox(m, tx, ty, Math.round(tx + sw), Math.round(ty + sh));
      if (t) out.push(t);
    }
  }
  return out;
}

function tileRotationBox(m: ChromaMap, x0: number, y0: number, x1: number, y1: number): TileRotation | null {
  return tileRotation(m, Math.max(0, x0), Math.max(0, y0), Math.min(m.width, x1), Math.min(m.height, y1));
}

export interface FinishFeatures {
  /** Mean rotation score of the art window's tiles, and of the frame around it. */
  artRotation: number;
  bodyRotation: number;
  /** Rotation on the border ring (refractor foil covers the border too). */
  borderRotation: number;
  /** Consistency of the turning direction over all frame tiles (1: one linear sweep; ~0: rings). */
  directionConsistency: number;
  /** Star sparkles per 100 mm^2 of the frame interior. */
  sparkleDensity: number;
}

function meanScore(tiles: TileRotation[], minEnergy = 6): number {
  if (tiles.length === 0) return 0;
  let s = 0;
  for (const t of tiles) s += t.energy >= minEnergy ? t.score : 0;
  return s / tiles.length;
}

function borderTiles(m: ChromaMap): TileRotation[] {
  const inner = BORDER_RING_MM.inner;
  const thick = BORDER_RING_MM.outer - inner;
  const skip = BORDER_RING_MM.cornerSkip;
  const out: TileRotation[] = [];
  const strips: RectMm[] = [];
  for (let y = skip; y + TILE_MM <= CARD_H_MM - skip; y += TILE_MM) {
    strips.push({ x: inner, y, w: thick, h: TILE_MM });
    strips.push({ x: CARD_W_MM - inner - thick, y, w: thick, h: TILE_MM });
  }
  for (let x = skip; x + TILE_MM <= CARD_W_MM - skip; x += TILE_MM) {
    strips.push({ x, y: inner, w: TILE_MM, h: thick });
    strips.push({ x, y: CARD_H_MM - inner - thick, w: TILE_MM, h: thick });
  }
  for (const s of strips) {
    const t = tileRotationBox(
      m,
      Math.round(s.x * PX_PER_MM),
      Math.round(s.y * PX_PER_MM),
      Math.round((s.x + s.w) * PX_PER_MM),
      Math.round((s.y + s.h) * PX_PER_MM),
    );
    if (t) out.push(t);
  }
  return out;
}

/** Small bright star-shaped spots: luma above the 5 x 5 neighbourhood's ring by a margin, few pixels each. */
/** The ring of samples at distance R = 4 around a sparkle candidate, [dx, dy]. */
const SPARKLE_RING: readonly (readonly [number, number])[] = [
  [4, 0], [-4, 0], [0, 4], [0, -4], [4, 4], [-4, -4], [4, -4], [-4, 4],
  [4, 2], [4, -2], [-4, 2], [-4, -2], [2, 4], [-2, 4], [2, -4], [-2, -4],
];

function sparkleDensity(img: RgbImage, r: RectMm): number {
  const sx = img.width / CARD_W_MM;
  const sy = img.height / CARD_H_MM;
  const x0 = Math.round(r.x * sx);
  const y0 = Math.round(r.y * sy);
  const x1 = Math.round((r.x + r.w) * sx);
  const y1 = Math.round((r.y + r.h) * sy);
  const w = img.width;
  const d = img.data;
  const R = 4;
  // The mean of R, G and B over the window (and R px around it), computed once: each pixel is read by up to 25 tests.
  const ax = Math.max(0, x0);
  const ay = Math.max(0, y0);
  const bx = Math.min(w, x1);
  const by = Math.min(img.height, y1);
  const lw = Math.max(0, bx - ax);
  const lum = new Float64Array(lw * Math.max(0, by - ay));
  for (let y = ay; y < by; y++) {
    for (let x = ax, j = (y * w + ax) * 3, k = (y - ay) * lw; x < bx; x++, j += 3, k++) lum[k] = (d[j]! + d[j + 1]! + d[j + 2]!) / 3;
  }
  const ring = SPARKLE_RING.map(([dx, dy]) => dy * lw + dx);
  let count = 0;
  for (let y = y0 + R; y < y1 - R; y += 1) {
    for (let x = x0 + R; x < x1 - R; x += 1) {
      const k = (y - ay) * lw + (x - ax);
      const c = lum[k]!;
      if (c < 150) continue;
      // Local maximum in 3 x 3.
      if (lum[k - lw - 1]! > c || lum[k - lw]! > c || lum[k - lw + 1]! > c || lum[k - 1]! > c || lum[k + 1]! > c || lum[k + lw - 1]! > c || lum[k + lw]! > c || lum[k + lw + 1]! > c) continue;
      // The ring at distance R must be clearly darker on most of its samples (a spot, not an edge or a line).
      let darker = 0;
      for (let q = 0; q < ring.length; q++) if (c - lum[k + ring[q]!]! > 28) darker++;
      if (darker >= 15) count++;
    }
  }
  const areaMm2 = (x1 - x0) / sx * ((y1 - y0) / sy);
  return (count / areaMm2) * 100;
}

export function finishFeatures(img: RgbImage): FinishFeatures {
  const m = chromaMap(img);
  const art = tilesIn(m, ART_MM);
  const body = [...tilesIn(m, BODY_MM), ...SIDE_STRIPS_MM.flatMap((s) => tilesIn(m, s))];
  const border = borderTiles(m);
  const all = [...art, ...body].filter((t) => t.energy >= 6 && t.score > 0.35);
  let sx = 0;
  let sy = 0;
  let sn = 0;
  for (const t of all) {
    sx += t.gx;
    sy += t.gy;
    sn += Math.hypot(t.gx, t.gy);
  }
  return {
    artRotation: meanScore(art),
    bodyRotation: meanScore(body),
    borderRotation: meanScore(border, 3),
    directionConsistency: sn > 0 ? Math.hypot(sx, sy) / sn : 0,
    sparkleDensity: sparkleDensity(img, { x: 6, y: 12, w: 51, h: 56 }),
  };
}
