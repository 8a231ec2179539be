// Backgrounds: built at a quarter of the photo resolution in JS (texture) + SVG (clutter, the card's soft
// shadow), then upscaled by sharp. Texture noise comes from one tileable fractal field built once per process.
import sharp from 'sharp';
import { Rng, hsl, rgbHex } from '../prng';
import type { Rgb } from '../card';
import { lightingField, type PhotoPlan } from './plan';
import { apply } from './homography';
import { H as CARD_H, W as CARD_W } from '../shape';

const FIELD = 256;
let field: Float32Array | null = null;

function noiseField(): Float32Array {
  if (field) return field;
  const rng = new Rng(424242, 9);
  const out = new Float32Array(FIELD * FIELD);
  for (const [cells, weight] of [
    [4, 0.45],
    [8, 0.25],
    [16, 0.15],
    [32, 0.1],
    [64, 0.05],
  ] as const) {
    const grid = new Float32Array(cells * cells);
    for (let i = 0; i < grid.length; i++) grid[i] = rng.next() * 2 - 1;
    const step = FIELD / cells;
    for (let y = 0; y < FIELD; y++) {
      const gy = y / step;
      const iy = Math.floor(gy);
      const fy = gy - iy;
      const sy = fy * fy * (3 - 2 * fy);
      const y0 = iy % cells;
      const y1 = (iy + 1) % cells;
      for (let x = 0; x < FIELD; x++) {
        const gx = x / step;
        const ix = Math.floor(gx);
        const fx = gx - ix;
        const sx = fx * fx * (3 - 2 * fx);
        const x0 = ix % cells;
        const x1 = (ix + 1) % cells;
        const a = grid[y0 * cells + x0]!;
        const b = grid[y0 * cells + x1]!;
        const c = grid[y1 * cells + x0]!;
        const d = grid[y1 * cells + x1]!;
        out[y * FIELD + x] = out[y * FIELD + x]! + weight * (a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy);
      }
    }
  }
  field = out;
  return out;
}

/** Tileable noise in about [-1, 1], bilinear, coordinates in field cells (FIELD is a power of two). */
function sample(f: Float32Array, x: number, y: number): number {
  const xf = Math.floor(x);
  const yf = Math.floor(y);
  const fx = x - xf;
  const fy = y - yf;
  const x0 = xf & (FIELD - 1);
  const y0 = yf & (FIELD - 1);
  const x1 = (x0 + 1) & (FIELD - 1);
  const r0 = y0 * FIELD;
  const r1 = ((y0 + 1) & (FIELD - 1)) * FIELD;
  const a = f[r0 + x0]!;
  const b = f[r0 + x1]!;
  const c = f[r1 + x0]!;
  const d = f[r1 + x1]!;
  return a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
}

const PLAIN_COLOURS: Rgb[] = [
  [236, 234, 228],
  [200, 200, 196],
  [128, 128, 126],
  [62, 62, 66],
  [28, 28, 30],
  [214, 198, 168],
  [70, 92, 124],
  [44, 92, 64],
  [150, 40, 40],
];

/** The background at full resolution (lighting and the card's shadow applied; no sensor noise). */
export async function renderBackground(plan: PhotoPlan): Promise<Uint8Array> {
  const rng = new Rng(plan.backgroundSeed, 5);
  const f = noiseField();
  // Backgrounds are smooth: build them at 1/4 (up to 6 MP) or 1/6 of the resolution.
  const scale = plan.width * plan.height > 6e6 ? 6 : 4;
  const lw = Math.ceil(plan.width / scale);
  const lh = Math.ceil(plan.height / scale);
  const low = Buffer.alloc(lw * lh * 3);
  const kind = plan.background;
  const wood = kind === 'wood' || (kind === 'clutter' && rng.chance(0.4));
  const base: Rgb = wood
    ? hsl(rng.range(18, 38), rng.range(0.35, 0.6), rng.range(0.22, 0.55))
    : kind === 'cloth'
      ? hsl(rng.range(0, 360), rng.range(0.1, 0.5), rng.range(0.2, 0.7))
      : rng.pick(PLAIN_COLOURS);
  const grainDeg = rng.range(0, 180);
  const ga = (grainDeg * Math.PI) / 180;
  const ca = Math.cos(ga);
  const sa = Math.sin(ga);
  const freq = rng.range(0.04, 0.12);
  const plank = rng.range(60, 140);
  const ox = rng.range(0, FIELD);
  const oy = rng.range(0, FIELD);
  const lowFreq = 40 / Math.max(lw, lh);
  for (let y = 0; y < lh; y++) {
    for (let x = 0; x < lw; x++) {
      let g: number;
      if (wood) {
        const u = x * ca + y * sa;
        const v = -x * sa + y * ca;
        const warp = sample(f, ox + u * 0.02, oy + v * 0.3) * 6;
        g = 0.86 + 0.1 * Math.sin(v * freq + warp) + 0.06 * sample(f, ox + u * 0.5, oy + v * 0.05);
        const pv = ((v % plank) + plank) % plank;
        if (pv < 1.2) g *= 0.55;
      } else if (kind === 'cloth') {
        const weave = ((x + y) & 1) === 0 ? 0.012 : -0.012;
        g = 0.9 + 0.12 * sample(f, ox + x * lowFreq * 2, oy + y * lowFreq * 2) + weave + 0.04 * sample(f, ox + x * 0.7, oy + y * 0.7);
      } else {
        g = 0.96 + 0.06 * sample(f, ox + x * lowFreq, oy + y * lowFreq);
      }
      const i = (y * lw + x) * 3;
      low[i] = Math.max(0, Math.min(255, base[0] * g));
      low[i + 1] = Math.max(0, Math.min(255, base[1] * g));
      low[i + 2] = Math.max(0, Math.min(255, base[2] * g));
    }
  }
  // Clutter and the card's shadow, drawn in low-res pixel units.
  const parts: string[] = [];
  if (kind === 'clutter') {
    const count = rng.int(3, 9);
    for (let i = 0; i < count; i++) {
      const type = rng.weighted([['paper', 3], ['phone', 1], ['coin', 2], ['pen', 2], ['book', 1.5], ['mug', 1]] as const);
      const cx = rng.range(-0.1, 1.1) * lw;
      const cy = rng.range(-0.1, 1.1) * lh;
      const rot = rng.range(0, 180);
      const unit = Math.min(lw, lh);
      const col = rgbHex(hsl(rng.range(0, 360), rng.range(0, 0.7), rng.range(0.15, 0.9)));
      const tr = `transform="rotate(${rot.toFixed(1)} ${cx.toFixed(1)} ${cy.toFixed(1)})"`;
      if (type === 'paper' || type === 'book') {
        const w = unit * rng.range(0.3, 0.7);
        const h = w * (type === 'paper' ? 1.41 : rng.range(1.2, 1.6));
        const fill = type === 'paper' ? '#f3f2ee' : col;
        parts.push(`<rect x="${(cx - w / 2).toFixed(1)}" y="${(cy - h / 2).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}" ${tr}/>`);
        if (type === 'paper') {
          for (let k = 0; k < 12; k++) {
            const ly = cy - h / 2 + h * (0.1 + k * 0.065);
            parts.push(`<rect x="${(cx - w * 0.4).toFixed(1)}" y="${ly.toFixed(1)}" width="${(w * rng.range(0.5, 0.8)).toFixed(1)}" height="${Math.max(0.6, h * 0.012).toFixed(1)}" fill="#9a9aa2" ${tr}/>`);
          }
        }
      } else if (type === 'phone') {
        const w = unit * rng.range(0.18, 0.26);
        const h = w * rng.range(2.0, 2.2);
        parts.push(`<rect x="${(cx - w / 2).toFixed(1)}" y="${(cy - h / 2).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" rx="${(w * 0.12).toFixed(1)}" fill="#16161a" ${tr}/>`);
      } else if (type === 'coin' || type === 'mug') {
        const r = unit * (type === 'coin' ? rng.range(0.03, 0.06) : rng.range(0.1, 0.16));
        const fill = type === 'coin' ? rgbHex(hsl(rng.range(30, 50), 0.4, rng.range(0.4, 0.7))) : col;
        parts.push(`<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r.toFixed(1)}" fill="${fill}" stroke="#000" stroke-opacity="0.25" stroke-width="${(r * 0.08).toFixed(1)}"/>`);
      } else {
        const len = unit * rng.range(0.3, 0.5);
        parts.push(`<rect x="${(cx - len / 2).toFixed(1)}" y="${(cy - unit * 0.012).toFixed(1)}" width="${len.toFixed(1)}" height="${(unit * 0.024).toFixed(1)}" rx="${(unit * 0.012).toFixed(1)}" fill="${col}" ${tr}/>`);
      }
    }
  }
  let lowImage = sharp(low, { raw: { width: lw, height: lh, channels: 3 } });
  if (parts.length > 0) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${lw}" height="${lh}">${parts.join('')}</svg>`;
    lowImage = lowImage.composite([{ input: Buffer.from(svg), left: 0, top: 0 }]);
  }
  const composed = await lowImage.removeAlpha().raw().toBuffer();
  const lowPx = new Uint8Array(composed.buffer, composed.byteOffset, composed.length);
  applyShadow(lowPx, lw, lh, scale, plan);
  applyLightingLowRes(lowPx, lw, lh, scale, plan);
  // Nearest-neighbour enlargement + a gaussian (sigma 0.6 x scale) is smooth and much cheaper in libvips than
  // its bilinear enlargement or a JS loop.
  const full = await sharp(lowPx, { raw: { width: lw, height: lh, channels: 3 } })
    .resize(lw * scale, lh * scale, { kernel: 'nearest', fit: 'fill' })
    .extract({ left: 0, top: 0, width: plan.width, height: plan.height })
    .blur(0.6 * scale)
    .raw()
    .toBuffer();
  return new Uint8Array(full.buffer, full.byteOffset, full.length);
}

/**
 * Per display row, the run of pixels certainly covered by opaque card (inside an octagon inset from the card
 * outline by more than any chip and cut at the corners beyond any rounding): the background need not be
 * computed there. [start, end) pairs, -1 when none.
 */
export function cardInteriorSpans(plan: PhotoPlan): Int32Array {
  const r = 7;
  const e = 1;
  const oct: [number, number][] = [
    [r, e],
    [CARD_W - r, e],
    [CARD_W - e, r],
    [CARD_W - e, CARD_H - r],
    [CARD_W - r, CARD_H - e],
    [r, CARD_H - e],
    [e, CARD_H - r],
    [e, r],
  ].map(([x, y]) => apply(plan.homography, x!, y!));
  const spans = new Int32Array(plan.height * 2).fill(-1);
  for (let y = 0; y < plan.height; y++) {
    const [a0, b0] = spanAtLine(oct, y);
    const [a1, b1] = spanAtLine(oct, y + 1);
    const lo = Math.ceil(Math.max(a0, a1)) + 1;
    const hi = Math.floor(Math.min(b0, b1)) - 1;
    if (hi - lo > 4) {
      spans[2 * y] = Math.max(0, lo);
      spans[2 * y + 1] = Math.min(plan.width, hi);
    }
  }
  return spans;
}

/** x-range where a horizontal line crosses a convex polygon (lo > hi when it misses). */
function spanAtLine(poly: [number, number][], y: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    if ((a[1] <= y && b[1] >= y) || (b[1] <= y && a[1] >= y)) {
      const x = a[1] === b[1] ? a[0] : a[0] + ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]);
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
  }
  return [lo, hi];
}

/** The card's soft shadow on the background: offset quad, smooth falloff over `blur` px (low-res buffer). */
function applyShadow(buf: Uint8Array, lw: number, lh: number, scale: number, plan: PhotoPlan): void {
  const sh = plan.shadow;
  if (sh.opacity <= 0) return;
  const q = plan.quadPx.map(([x, y]) => [(x + sh.dx) / scale, (y + sh.dy) / scale] as [number, number]);
  const blur = Math.max(0.5, sh.blur / scale);
  // Edge half-planes of the (convex) quad, oriented so that inside is negative.
  let area = 0;
  for (let i = 0; i < 4; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    area += a[0] * b[1] - b[0] * a[1];
  }
  const orient = area > 0 ? 1 : -1;
  const edges = q.map((a, i) => {
    const b = q[(i + 1) % 4]!;
    const nx = (b[1] - a[1]) * orient;
    const ny = -(b[0] - a[0]) * orient;
    const len = Math.hypot(nx, ny) || 1;
    return [nx / len, ny / len, -(nx * a[0] + ny * a[1]) / len] as const;
  });
  const xs = q.map((p) => p[0]);
  const ys = q.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - 3 * blur));
  const x1 = Math.min(lw - 1, Math.ceil(Math.max(...xs) + 3 * blur));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) - 3 * blur));
  const y1 = Math.min(lh - 1, Math.ceil(Math.max(...ys) + 3 * blur));
  const e = Float64Array.from(edges.flat());
  for (let y = y0; y <= y1; y++) {
    const yc = y + 0.5;
    for (let x = x0; x <= x1; x++) {
      const xc = x + 0.5;
      const d = Math.max(
        e[0]! * xc + e[1]! * yc + e[2]!,
        e[3]! * xc + e[4]! * yc + e[5]!,
        e[6]! * xc + e[7]! * yc + e[8]!,
        e[9]! * xc + e[10]! * yc + e[11]!,
      );
      // d < 0 inside; smooth step from inside (full) to 2*blur outside (none).
      const t = Math.min(1, Math.max(0, (d + blur) / (3 * blur)));
      const k = 1 - sh.opacity * (1 - t * t * (3 - 2 * t));
      if (k >= 1) continue;
      const o = (y * lw + x) * 3;
      buf[o] = buf[o]! * k;
      buf[o + 1] = buf[o + 1]! * k;
      buf[o + 2] = buf[o + 2]! * k;
    }
  }
}

function applyLightingLowRes(buf: Uint8Array, lw: number, lh: number, scale: number, plan: PhotoPlan): void {
  const light = lightingField(plan);
  const [tr, tg, tb] = plan.lighting.tint;
  for (let y = 0; y < lh; y++) {
    const fy = Math.min(plan.height - 1, y * scale + scale / 2);
    for (let x = 0; x < lw; x++) {
      const fx = Math.min(plan.width - 1, x * scale + scale / 2);
      const g = light.gain(fx, fy);
      const o = (y * lw + x) * 3;
      buf[o] = Math.min(255, buf[o]! * g * tr);
      buf[o + 1] = Math.min(255, buf[o + 1]! * g * tg);
      buf[o + 2] = Math.min(255, buf[o + 2]! * g * tb);
    }
  }
}
