import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { RgbImage } from '../image/types';
import { mulberry32 } from '@cardlens/card-synth';
import { measureCondition } from './index';

const PPM = 10;
const W = 63 * PPM;
const H = 88 * PPM;

/** A clean rectified card: white border, a mid-grey art area (with some pixel noise, as a photo has). */
function card(seed: number): RgbImage {
  const rand = mulberry32(seed);
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const inArt = x >= 3 * PPM && x < W - 3 * PPM && y >= 3 * PPM && y < H - 3 * PPM;
      const level = (inArt ? 110 : 235) + Math.round((rand() - 0.5) * 4);
      data.fill(level, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return { width: W, height: H, data };
}

/** A bright antialiased stroke from (x0, y0) to (x1, y1) in mm, about 0.15 mm wide. */
function stroke(img: RgbImage, [x0, y0]: [number, number], [x1, y1]: [number, number], lift: number): void {
  const steps = Math.ceil(Math.hypot(x1 - x0, y1 - y0) * PPM * 3);
  const seen = new Set<number>();
  for (let i = 0; i <= steps; i++) {
    const x = (x0 + ((x1 - x0) * i) / steps) * PPM;
    const y = (y0 + ((y1 - y0) * i) / steps) * PPM;
    const p = Math.round(y) * W + Math.round(x);
    if (seen.has(p)) continue;
    seen.add(p);
    for (let k = 0; k < 3; k++) img.data[p * 3 + k] = Math.min(255, img.data[p * 3 + k]! + lift);
  }
}

const SCRATCH: [[number, number], [number, number]] = [[20, 30], [32, 38]];
const scratches = (img: RgbImage) => measureCondition(img).surface.filter((f) => f.kind === 'scratch').map((f) => ({ x: f.xMm, y: f.yMm, length: f.lengthMm }));

describe('scratches against the surface they cross', () => {
  it('a scratch across a calm surface is marked', () => {
    const img = card(1);
    stroke(img, ...SCRATCH, 30);
    expect(scratches(img).length).toBeGreaterThan(0);
  });

  it('the same line inside a field of short fragments (foil sparkle, busy art) is the field, not a scratch', () => {
    const img = card(1);
    stroke(img, ...SCRATCH, 30);
    // Sparkle: short bright fragments, about 0.4 per mm², at every angle, all around the line.
    const rand = mulberry32(7);
    for (let i = 0; i < 200; i++) {
      const cx = 14 + rand() * 24;
      const cy = 24 + rand() * 20;
      const a = rand() * Math.PI;
      const half = 0.5 + rand() * 0.4;
      stroke(img, [cx - half * Math.cos(a), cy - half * Math.sin(a)], [cx + half * Math.cos(a), cy + half * Math.sin(a)], 30);
    }
    expect(scratches(img)).toEqual([]);
  });
});

/** Darkens the print by `drop` on one side of the line through a and b (within `depthMm` of it): an edge in the art. */
function artEdge(img: RgbImage, [ax, ay]: [number, number], [bx, by]: [number, number], drop: number, depthMm = 4): void {
  const len = Math.hypot(bx - ax, by - ay);
  const [nx, ny] = [-(by - ay) / len, (bx - ax) / len];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const px = x / PPM - ax;
      const py = y / PPM - ay;
      const along = (px * (bx - ax) + py * (by - ay)) / len;
      const across = px * nx + py * ny;
      if (along < -1 || along > len + 1 || across < 0 || across > depthMm) continue;
      for (let k = 0; k < 3; k++) img.data[(y * W + x) * 3 + k] = Math.max(0, img.data[(y * W + x) * 3 + k]! - drop);
    }
  }
}

/**
 * A rectified card drawn as SVG (white border, grey print) with a fold from A to B drawn as the generator draws one
 * (a dark line, a bright line 0.22 mm beside it), optionally along the edge of a slightly darker region of the art.
 */
async function foldedCard(alongArtEdge: boolean, A: [number, number] = [18, 30], B: [number, number] = [27.2, 37.7]): Promise<RgbImage> {
  const len = Math.hypot(B[0] - A[0], B[1] - A[1]);
  const [nx, ny] = [-(B[1] - A[1]) / len, (B[0] - A[0]) / len];
  const line = (o: number) => `M ${A[0] + nx * o} ${A[1] + ny * o} L ${B[0] + nx * o} ${B[1] + ny * o}`;
  const art = `<polygon points="${A.join(',')} ${B.join(',')} ${B[0] + nx * 4},${B[1] + ny * 4} ${A[0] + nx * 4},${A[1] + ny * 4}" fill="#646464"/>`;
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880" viewBox="0 0 63 88">' +
    '<rect width="63" height="88" fill="#ebebeb"/><rect x="3" y="3" width="57" height="82" fill="#6e6e6e"/>' +
    (alongArtEdge ? art : '') +
    `<path d="${line(0.1)}" stroke="#000" stroke-opacity="0.24" stroke-width="0.22" fill="none"/>` +
    `<path d="${line(-0.12)}" stroke="#fff" stroke-opacity="0.22" stroke-width="0.16" fill="none"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // A photo's pixel noise (about 2 levels).
  const rand = mulberry32(3);
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i += 3) {
    const v = Math.round((rand() - 0.5) * 4);
    for (let k = 0; k < 3; k++) out[i + k] = Math.max(0, Math.min(255, out[i + k]! + v));
  }
  return { width: info.width, height: info.height, data: out };
}

const creases = (img: RgbImage) => measureCondition(img).surface.filter((f) => f.kind === 'crease');

describe('lines along an edge of the print are the design', () => {
  it('a bright highlight along the edge of a darker region of the art is not a scratch', () => {
    const img = card(1);
    artEdge(img, ...SCRATCH, 20);
    stroke(img, ...SCRATCH, 30);
    expect(scratches(img)).toEqual([]);
  });

  it('a print line across a calm surface is marked; the same line along the edge of a darker box is the box', () => {
    const printLines = (img: RgbImage) => measureCondition(img).surface.filter((f) => f.kind === 'print_line');
    const LINE: [[number, number], [number, number]] = [[14, 50], [40, 50]];
    const calm = card(4);
    stroke(calm, ...LINE, 60);
    expect(printLines(calm).length).toBeGreaterThan(0);
    const box = card(4);
    artEdge(box, ...LINE, 30);
    stroke(box, ...LINE, 60);
    expect(printLines(box)).toEqual([]);
  });

  it('printed rules come in sets with the same ends (a text box); a single line across the surface is a print line', () => {
    const printLines = (img: RgbImage) => measureCondition(img).surface.filter((f) => f.kind === 'print_line');
    const single = card(5);
    stroke(single, [14, 50], [40, 50], 60);
    expect(printLines(single).length).toBeGreaterThan(0);
    // The same line with a second one 6 mm below it, starting and ending where it does: two rules of a layout.
    const rules = card(5);
    stroke(rules, [14, 50], [40, 50], 60);
    stroke(rules, [14, 56], [40, 56], 60);
    expect(printLines(rules)).toEqual([]);
  });

  it('a 12 mm fold across a calm surface is a crease; the same lines parting two shades of the art are its outline', async () => {
    expect(creases(await foldedCard(false)).map((f) => Math.round(f.lengthMm ?? 0))).toEqual([12]);
    expect(creases(await foldedCard(true))).toEqual([]);
  });

  it('a 6 mm fold running in from near the card\'s edge is a crease; alone in the middle of the card it is taken for the art', async () => {
    // (Found over 5-6 mm of it: its ends fade into the print.)
    const lengths = async (a: [number, number], b: [number, number]) => creases(await foldedCard(false, a, b)).map((f) => f.lengthMm ?? 0);
    expect(await lengths([3.5, 40], [9, 42.5])).toEqual([expect.closeTo(5.5, 0)]);
    expect(await lengths([28, 40], [33.5, 42.5])).toEqual([]);
  });

  it('a ruler-straight dark line square to the card that stops short of its edges is a printed rule; a degree off the axis it is a fold', async () => {
    // The rule under a text box: 40 mm, exactly horizontal, ending 8 and 15 mm inside the card's edges (off-centre,
    // so not the layout's symmetric rule either).
    expect(creases(await foldedCard(false, [8, 60], [48, 60]))).toEqual([]);
    // The same line turned by 0.86 degrees: as straight, but no printing press lays a rule that far off square.
    expect(creases(await foldedCard(false, [8, 60.3], [48, 59.7])).map((f) => Math.round(f.lengthMm ?? 0))).toEqual([40]);
  });
});
