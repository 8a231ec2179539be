// Sensor noise: gaussian values from one shared table, walked with per-row random offsets and odd strides
// (no per-pixel random number generation). Luminance noise (one value per pixel, added to R, G and B), as a
// phone's denoised JPEG shows. Applied inline by the card warp and as a pass over the background.
import { Rng } from '../prng';

const TABLE_BITS = 16;
const MASK = (1 << TABLE_BITS) - 1;
let table: Float32Array | null = null;

function gaussTable(): Float32Array {
  if (table) return table;
  const rng = new Rng(1234567, 3);
  const t = new Float32Array(1 << TABLE_BITS);
  for (let i = 0; i < t.length; i++) t[i] = rng.normal();
  table = t;
  return t;
}

export class SensorNoise {
  /** Gaussian table pre-multiplied by sigma. */
  readonly values: Float32Array;
  readonly mask = MASK;
  private readonly rng: Rng;

  constructor(
    readonly sigma: number,
    seed: number,
  ) {
    const base = gaussTable();
    this.values = new Float32Array(base.length);
    for (let i = 0; i < base.length; i++) this.values[i] = base[i]! * sigma;
    this.rng = new Rng(seed, 11);
  }

  /** Start index and odd stride for one row (call once per row, in row order, for determinism). */
  row(): [number, number] {
    return [this.rng.nextUint32() & MASK, 1 + ((this.rng.nextUint32() & 0x3ff) << 1)];
  }

  /**
   * Adds noise to every pixel of an RGB frame, except per row the run [skip[2y], skip[2y+1]) when given
   * (pixels the opaque card will overwrite with its own noise).
   */
  applyAll(buf: Uint8Array, width: number, height: number, skip: Int32Array | null = null): void {
    if (this.sigma <= 0) return;
    const t = this.values;
    // Clamped view: rounding and clamping without branches.
    const out = new Uint8ClampedArray(buf.buffer, buf.byteOffset, buf.length);
    for (let y = 0; y < height; y++) {
      const [k0, step] = this.row();
      let k = k0;
      let o = y * width * 3;
      const s0 = skip ? skip[2 * y]! : -1;
      const s1 = skip ? skip[2 * y + 1]! : -1;
      for (let x = 0; x < width; x++, o += 3) {
        if (x === s0) {
          x = s1 - 1;
          o += (s1 - s0 - 1) * 3;
          continue;
        }
        const n = t[k]!;
        k = (k + step) & MASK;
        out[o] = out[o]! + n;
        out[o + 1] = out[o + 1]! + n;
        out[o + 2] = out[o + 2]! + n;
      }
    }
  }
}
