import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { gradeCard } from '@cardlens/grading-rubric';
import { generateSample, prepareCard, splitOf } from '../src/sample';
import { planPhoto, type Lighting } from '../src/photo/plan';
import { photographRaw, encodePhoto } from '../src/photo/photograph';
import { renderBackground } from '../src/photo/background';
import { apply, fromQuad, invert } from '../src/photo/homography';
import { renderSide, type RenderedSide } from '../src/render/side';
import { Rng } from '../src/prng';

const NEUTRAL: Lighting = { exposure: 1, gradient: 0, gradientDeg: 0, vignette: 0, tint: [1, 1, 1] };
const CORNERS: [number, number][] = [
  [0, 0],
  [63, 0],
  [63, 88],
  [0, 88],
];

/** Bilinear sample of the rendered side at source pixel coordinates (centres at integers). */
function sampleSide(r: RenderedSide, u: number, v: number): [number, number, number, number] {
  const x0 = Math.max(0, Math.min(r.width - 2, Math.floor(u)));
  const y0 = Math.max(0, Math.min(r.height - 2, Math.floor(v)));
  const fx = Math.max(0, Math.min(1, u - x0));
  const fy = Math.max(0, Math.min(1, v - y0));
  const out: number[] = [];
  for (let c = 0; c < 4; c++) {
    const p = (x: number, y: number) => r.rgba[(y * r.width + x) * 4 + c]!;
    const top = p(x0, y0) + (p(x0 + 1, y0) - p(x0, y0)) * fx;
    const bot = p(x0, y0 + 1) + (p(x0 + 1, y0 + 1) - p(x0, y0 + 1)) * fx;
    out.push(top + (bot - top) * fy);
  }
  return out as [number, number, number, number];
}

describe('generateSample', () => {
  it('is deterministic: same seed, identical bytes and label', async () => {
    const opts = { photo: { megapixels: 2 } };
    const a = await generateSample(1000123, opts);
    const b = await generateSample(1000123, opts);
    expect(a.frontJpeg.equals(b.frontJpeg)).toBe(true);
    expect(a.backJpeg.equals(b.backJpeg)).toBe(true);
    expect(JSON.stringify(a.label)).toBe(JSON.stringify(b.label));
    const c = await generateSample(1000124, opts);
    expect(c.frontJpeg.equals(a.frontJpeg)).toBe(false);
    expect(a.label.split).toBe('eval');
    expect(splitOf(999_999)).toBe('train');
    expect(splitOf(1_000_000)).toBe('eval');
  });

  it('labels are consistent with the rubric and the decoded photos', async () => {
    for (const seed of [5, 1000010, 1000011]) {
      const { frontJpeg, backJpeg, label } = await generateSample(seed, { photo: { megapixels: 2 } });
      expect(label.truth).toEqual(gradeCard(label.measurements));
      expect(label.defects).toEqual(label.truth.defects);
      expect(label.centering.front.leftRight).toBeCloseTo(label.truth.centering.front.leftRight, 2);
      for (const [jpeg, photo] of [
        [frontJpeg, label.photo.front],
        [backJpeg, label.photo.back],
      ] as const) {
        const img = await sharp(jpeg).rotate().raw().toBuffer({ resolveWithObject: true });
        expect([img.info.width, img.info.height]).toEqual([photo.widthPx, photo.heightPx]);
        expect(photo.quadPx).toHaveLength(4);
        for (const [x, y] of photo.quadPx) {
          expect(x).toBeGreaterThan(0);
          expect(y).toBeGreaterThan(0);
          expect(x).toBeLessThan(photo.widthPx);
          expect(y).toBeLessThan(photo.heightPx);
        }
        expect(photo.tags.hard).toBe(photo.tags.glare || photo.tags.blur || photo.tags.steepPerspective);
      }
      for (const d of label.defects) {
        expect(d.xMm).toBeGreaterThanOrEqual(0);
        expect(d.yMm).toBeGreaterThanOrEqual(0);
        expect(d.xMm + d.wMm).toBeLessThanOrEqual(63 + 1e-6);
        expect(d.yMm + d.hMm).toBeLessThanOrEqual(88 + 1e-6);
      }
    }
  });

  it('honours EXIF orientation: stored pixels rotated, tag set, same picture once applied', async () => {
    const base = await generateSample(1000200, { photo: { megapixels: 2, exifOrientation: 1, jpegQuality: 92 } });
    const rotated = await generateSample(1000200, { photo: { megapixels: 2, exifOrientation: 6, jpegQuality: 92 } });
    expect(rotated.label.photo.front.exifOrientation).toBe(6);
    expect(rotated.label.tags.exifRotated).toBe(true);
    const meta = await sharp(rotated.frontJpeg).metadata();
    expect(meta.orientation).toBe(6);
    expect([meta.width, meta.height]).toEqual([base.label.photo.front.heightPx, base.label.photo.front.widthPx]);
    // Same picture up to JPEG block effects (compared at 1/8 scale).
    const w = Math.round(base.label.photo.front.widthPx / 8);
    const a = await sharp(base.frontJpeg).rotate().resize(w).raw().toBuffer();
    const b = await sharp(rotated.frontJpeg).rotate().resize(w).raw().toBuffer();
    expect(b.length).toBe(a.length);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(1.5);
  });
});

describe('the label quad is the card in the photo', () => {
  it('pixels inside the quad are the card, pixels outside are the background', async () => {
    for (const seed of [31, 32, 33, 1000040]) {
      const card = prepareCard(seed, { condition: { targetGrade: 9 } });
      const plan = planPhoto(new Rng(seed).fork('quad-test'), {
        megapixels: 3,
        noiseSigma: 0,
        blurSigmaPx: 0,
        glare: false,
        sleeve: 'none',
        lighting: NEUTRAL,
        shadowOpacity: 0,
        exifOrientation: 1,
      });
      const side = await renderSide(card.design, card.condition.front, plan.renderPxPerMm);
      const photo = await photographRaw(side, plan, 1);
      const bg = await renderBackground(plan);
      // Rebuild the mapping from the label's (rounded) quad only.
      const label = (await import('../src/photo/photograph')).photoLabel(plan);
      const h = fromQuad(CORNERS, label.quadPx as [number, number][]);
      const inv = invert(h);
      const k = side.width / 63;
      let inside = 0;
      let outside = 0;
      let worst = 0;
      const rng = new Rng(seed, 99);
      for (let n = 0; n < 4000; n++) {
        const x = Math.floor(rng.range(0, plan.width));
        const y = Math.floor(rng.range(0, plan.height));
        const [mx, my] = apply(inv, x + 0.5, y + 0.5);
        const o = (y * plan.width + x) * 3;
        const got = [photo[o]!, photo[o + 1]!, photo[o + 2]!];
        const margin = 0.25; // mm, about 1-2 photo pixels here
        const inCard = mx > 2 && mx < 61 && my > 2 && my < 86;
        const offCard = mx < -margin || mx > 63 + margin || my < -margin || my > 88 + margin;
        if (inCard) {
          const s = sampleSide(side, mx * k - 0.5, my * k - 0.5);
          const d = Math.max(...[0, 1, 2].map((c) => Math.abs(got[c]! - s[c]!)));
          worst = Math.max(worst, d);
          inside++;
        } else if (offCard) {
          expect(got).toEqual([bg[o], bg[o + 1], bg[o + 2]]);
          outside++;
        }
      }
      expect(inside).toBeGreaterThan(300);
      expect(outside).toBeGreaterThan(300);
      // Same source, same bilinear sampling; the label quad is rounded to 0.01 px.
      expect(worst).toBeLessThanOrEqual(6);
      // And through JPEG: the card interior stays close.
      const jpeg = await encodePhoto(photo, plan);
      const dec = await sharp(jpeg).raw().toBuffer();
      let sum = 0;
      let cnt = 0;
      for (let n = 0; n < 500; n++) {
        const [x, y] = apply(h, rng.range(8, 55), rng.range(10, 78)).map(Math.floor) as [number, number];
        const o = (y * plan.width + x) * 3;
        for (let c = 0; c < 3; c++) sum += Math.abs(dec[o + c]! - photo[o + c]!);
        cnt += 3;
      }
      expect(sum / cnt).toBeLessThan(12);
    }
  });
});

describe('condition distribution', () => {
  it('covers the grade range, with most cards on target', () => {
    const grades: number[] = [];
    let onTarget = 0;
    const n = 120;
    for (let s = 0; s < n; s++) {
      const card = prepareCard(1_000_000 + s);
      grades.push(card.truth.grade);
      if (Math.abs(card.truth.grade - card.choice.targetGrade) <= 0.5) onTarget++;
    }
    const hist = new Map<number, number>();
    for (const g of grades) hist.set(Math.floor(g), (hist.get(Math.floor(g)) ?? 0) + 1);
    console.log('grade histogram (floor):', [...hist].sort((a, b) => a[0] - b[0]).map(([g, c]) => `${g}:${c}`).join(' '));
    expect(Math.min(...grades)).toBeLessThanOrEqual(3);
    expect(Math.max(...grades)).toBeGreaterThanOrEqual(9.5);
    expect(grades.filter((g) => g >= 8).length / n).toBeGreaterThan(0.35);
    expect(grades.filter((g) => g <= 6).length / n).toBeGreaterThan(0.1);
    expect(onTarget / n).toBeGreaterThan(0.8);
  });
});
