// Reusable raster assets built once per process: grey value-noise tiles embedded in the card SVG as PNG data
// URIs (librsvg's feTurbulence is 6x slower than the whole rest of a card). Deterministic (fixed seeds).
import sharp from 'sharp';
import { Rng } from '../prng';

export const NOISE_TILE_COUNT = 6;
const TILE = 96;

let tiles: string[] | null = null;
let pending: Promise<string[]> | null = null;

function valueNoise(seed: number, size: number, cells: number): Uint8Array {
  const rng = new Rng(seed, 77);
  const grid = new Float32Array((cells + 1) * (cells + 1));
  for (let i = 0; i < grid.length; i++) grid[i] = rng.next();
  // Wrap the last row/column so the tile repeats seamlessly.
  for (let i = 0; i <= cells; i++) {
    grid[i * (cells + 1) + cells] = grid[i * (cells + 1)] as number;
    grid[cells * (cells + 1) + i] = grid[i] as number;
  }
  const out = new Float32Array(size * size);
  for (let y = 0; y < size; y++) {
    const gy = (y / size) * cells;
    const iy = Math.floor(gy);
    const fy = gy - iy;
    const sy = fy * fy * (3 - 2 * fy);
    for (let x = 0; x < size; x++) {
      const gx = (x / size) * cells;
      const ix = Math.floor(gx);
      const fx = gx - ix;
      const sx = fx * fx * (3 - 2 * fx);
      const a = grid[iy * (cells + 1) + ix] as number;
      const b = grid[iy * (cells + 1) + ix + 1] as number;
      const c = grid[(iy + 1) * (cells + 1) + ix] as number;
      const d = grid[(iy + 1) * (cells + 1) + ix + 1] as number;
      out[y * size + x] = a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy;
    }
  }
  return Uint8Array.from(out, (v) => Math.round(v * 255));
}

function fractalTile(seed: number): Uint8Array {
  const octaves = [
    [4, 0.5],
    [8, 0.27],
    [16, 0.15],
    [32, 0.08],
  ] as const;
  const acc = new Float32Array(TILE * TILE);
  octaves.forEach(([cells, w], i) => {
    const layer = valueNoise(seed * 31 + i, TILE, cells);
    for (let k = 0; k < acc.length; k++) acc[k] = (acc[k] as number) + (layer[k] as number) * w;
  });
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of acc) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return Uint8Array.from(acc, (v) => Math.round(((v - lo) / (hi - lo || 1)) * 255));
}

/** Loads the tiles (once). Call before rendering. */
export async function ensureAssets(): Promise<string[]> {
  if (tiles) return tiles;
  if (!pending) {
    pending = Promise.all(
      Array.from({ length: NOISE_TILE_COUNT }, async (_, i) => {
        const png = await sharp(Buffer.from(fractalTile(i + 1)), { raw: { width: TILE, height: TILE, channels: 1 } })
          .png()
          .toBuffer();
        return `data:image/png;base64,${png.toString('base64')}`;
      }),
    ).then((t) => (tiles = t));
  }
  return pending;
}

export function noiseTile(index: number): string {
  if (!tiles) throw new Error('call ensureAssets() before rendering');
  return tiles[((index % tiles.length) + tiles.length) % tiles.length] as string;
}
