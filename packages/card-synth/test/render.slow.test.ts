// The canonical renders carry exactly what the labels say: centering shares measured on the printed frame
// edge, corner whitening areas and edge whitening lengths measured on the pixels.
import { describe, expect, it } from '@jest/globals';
import type { CornerId, EdgeId, Side } from '@cardlens/grading-rubric';
import { prepareCard, renderCardSides } from '../src/sample';
import { renderSide, whiteningColour, type RenderedSide } from '../src/render/side';
import type { Rgb } from '../src/card';

const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

function pixel(data: Uint8Array, width: number, x: number, y: number, channels: number): [number, number, number] {
  const i = (y * width + x) * channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

/**
 * Border width (mm) along a profile of RGB pixels starting at the outer edge: walk inward from the border
 * colour until the colour is half way to the frame line's colour, with linear sub-pixel interpolation.
 */
function borderWidthMm(profile: Uint8Array, lineRgb: Rgb, k: number): number {
  const n = profile.length / 3;
  const at = (i: number) => [profile[i * 3]!, profile[i * 3 + 1]!, profile[i * 3 + 2]!];
  const start = Math.round(0.4 * k);
  const border = at(start);
  const full = dist(border, lineRgb);
  let prev = 0;
  for (let i = start; i < n / 2; i++) {
    const d = dist(at(i), border) / full;
    if (d >= 0.5) {
      const xc = i - 1 + (0.5 - prev) / (d - prev);
      return (xc + 0.5) / k;
    }
    prev = d;
  }
  return NaN;
}

/** RGB profile along a row or column of a canonical side, optionally reversed (from the far edge). */
function profile(data: Uint8Array, width: number, height: number, index: number, vertical: boolean, reverse: boolean): Uint8Array {
  const n = vertical ? height : width;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const j = reverse ? n - 1 - i : i;
    const p = vertical ? pixel(data, width, index, j, 3) : pixel(data, width, j, index, 3);
    out.set(p, i * 3);
  }
  return out;
}

function median(values: number[]): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

describe('centering on the canonical render', () => {
  it('the printed frame edge gives the labelled shares (both sides, both games)', async () => {
    // Includes holo (1000026), reverse holo (1000008) and refractor (1000055) finishes.
    const seeds = [11, 12, 13, 14, 1000001, 1000004, 1000008, 1000026, 1000055];
    for (const seed of seeds) {
      const prepared = prepareCard(seed, { condition: { targetGrade: 9, dominant: 'centering' } });
      const sides = await renderCardSides(null, null, seed, { conditionRequest: { targetGrade: 9, dominant: 'centering' } });
      for (const side of ['front', 'back'] as Side[]) {
        const c = sides[side];
        const k = c.pxPerMm;
        const line = prepared.design.frameLineRgb[side];
        const lr: number[] = [];
        for (let ymm = 16; ymm <= 72; ymm += 0.5) {
          const y = Math.round(ymm * k);
          const l = borderWidthMm(profile(c.data, c.width, c.height, y, false, false), line, k);
          const r = borderWidthMm(profile(c.data, c.width, c.height, y, false, true), line, k);
          lr.push((100 * l) / (l + r));
        }
        const truth = sides.truth.centering[side]!;
        expect(Math.abs(median(lr) - truth.leftRight)).toBeLessThan(0.6);
        const tb: number[] = [];
        for (let xmm = 14; xmm <= 49; xmm += 0.5) {
          const x = Math.round(xmm * k);
          const t = borderWidthMm(profile(c.data, c.width, c.height, x, true, false), line, k);
          const b = borderWidthMm(profile(c.data, c.width, c.height, x, true, true), line, k);
          tb.push((100 * t) / (t + b));
        }
        expect(Math.abs(median(tb) - truth.topBottom)).toBeLessThan(0.6);
      }
    }
  });
});

function isWhitening(r: RenderedSide, x: number, y: number, white: Rgb, border: Rgb): boolean {
  const i = (y * r.width + x) * 4;
  if (r.rgba[i + 3]! < 128) return false;
  const p = [r.rgba[i]!, r.rgba[i + 1]!, r.rgba[i + 2]!];
  return dist(p, white) < 12 && dist(p, white) < dist(p, border);
}

function hexRgb(hex: string): Rgb {
  return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
}

describe('wear on the render matches the measurements', () => {
  it('corner whitening area and edge whitening length', async () => {
    let checkedCorners = 0;
    let checkedEdges = 0;
    for (const seed of [21, 22, 23, 24, 25, 26]) {
      const card = prepareCard(seed, { condition: { targetGrade: 4.5, dominant: seed % 2 ? 'corners' : 'edges' } });
      for (const side of ['front', 'back'] as Side[]) {
        const cond = card.condition[side];
        const k = 20;
        const r = await renderSide(card.design, cond, k);
        const border = card.design.borderRgb[side];
        const white = hexRgb(whiteningColour(border));
        const m = cond.measurements;
        for (const corner of ['TL', 'TR', 'BR', 'BL'] as CornerId[]) {
          const cm = m.corners[corner];
          if (cm.whiteningAreaMm2 < 0.3 || cm.dingAreaMm2 > 0) continue;
          const x0 = corner === 'TR' || corner === 'BR' ? r.width - 6 * k : 0;
          const y0 = corner === 'BR' || corner === 'BL' ? r.height - 6 * k : 0;
          let count = 0;
          for (let y = y0; y < y0 + 6 * k; y++) for (let x = x0; x < x0 + 6 * k; x++) if (isWhitening(r, x, y, white, border)) count++;
          const area = count / (k * k);
          expect(Math.abs(area - cm.whiteningAreaMm2)).toBeLessThan(0.1 + 0.12 * cm.whiteningAreaMm2);
          checkedCorners++;
        }
        for (const edge of ['top', 'right', 'bottom', 'left'] as EdgeId[]) {
          const em = m.edges[edge];
          if (em.whitenedLengthMm < 1) continue;
          const horizontal = edge === 'top' || edge === 'bottom';
          const len = horizontal ? 63 : 88;
          let worn = 0;
          for (let a = Math.round(6 * k); a < Math.round((len - 6) * k); a++) {
            // One pixel in from the edge: whitened, or cut away by a chip.
            const x = horizontal ? a : edge === 'left' ? 1 : r.width - 2;
            const y = horizontal ? (edge === 'top' ? 1 : r.height - 2) : a;
            const alpha = r.rgba[(y * r.width + x) * 4 + 3]!;
            if (alpha < 128 || isWhitening(r, x, y, white, border)) worn++;
          }
          const measured = worn / k;
          if (Math.abs(measured - em.whitenedLengthMm) >= 0.6 + 0.08 * em.whitenedLengthMm) {
            console.log('edge mismatch', { seed, side, edge, measured, em, border, white });
          }
          expect(Math.abs(measured - em.whitenedLengthMm)).toBeLessThan(0.6 + 0.08 * em.whitenedLengthMm);
          checkedEdges++;
        }
      }
    }
    expect(checkedCorners).toBeGreaterThan(3);
    expect(checkedEdges).toBeGreaterThan(3);
  });

  it('canonical sides are 630 x 880 RGB with transparent rounded corners', async () => {
    const sides = await renderCardSides(null, null, 1000000, { background: [0, 255, 0] });
    for (const side of ['front', 'back'] as Side[]) {
      const s = sides[side];
      expect([s.width, s.height, s.data.length, s.alpha.length]).toEqual([630, 880, 630 * 880 * 3, 630 * 880]);
      expect(s.alpha[0]).toBe(0);
      expect(pixel(s.data, 630, 0, 0, 3)).toEqual([0, 255, 0]);
      expect(s.alpha[440 * 630 + 315]).toBe(255);
    }
    expect(sides.truth.grade).toBeGreaterThanOrEqual(1);
  });
});
