import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { apply, fromQuad, invert, mul } from '../src/photo/homography';
import { withExifOrientation } from '../src/photo/photograph';
import { planPhoto } from '../src/photo/plan';
import { Rng } from '../src/prng';
import { areaOnCard, insideCard, outlinePath, polygonArea, type Outline } from '../src/shape';
import { catalogSize, pickRecord, recordAt } from '../src/catalog';
import { cardSpecFromRecord } from '../src/card';

describe('Rng', () => {
  it('is deterministic per seed and fork label, and forks are independent of draws', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    expect(Array.from({ length: 5 }, () => a.nextUint32())).toEqual(Array.from({ length: 5 }, () => b.nextUint32()));
    const c = new Rng(42);
    const forkBefore = c.fork('x').next();
    c.next();
    c.next();
    expect(c.fork('x').next()).toBe(forkBefore);
    expect(new Rng(42).fork('x').next()).not.toBe(new Rng(42).fork('y').next());
    expect(new Rng(1).next()).not.toBe(new Rng(2).next());
  });

  it('draws uniform numbers in range', () => {
    const r = new Rng(7);
    let sum = 0;
    for (let i = 0; i < 10000; i++) {
      const v = r.next();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      sum += v;
    }
    expect(sum / 10000).toBeCloseTo(0.5, 1);
  });
});

describe('homography', () => {
  it('maps a quad exactly and inverts', () => {
    const src: [number, number][] = [
      [0, 0],
      [63, 0],
      [63, 88],
      [0, 88],
    ];
    const dst: [number, number][] = [
      [100.5, 220.25],
      [900, 180],
      [980.75, 1300],
      [60, 1250.5],
    ];
    const h = fromQuad(src, dst);
    src.forEach((p, i) => {
      const q = apply(h, p[0], p[1]);
      expect(q[0]).toBeCloseTo(dst[i]![0], 6);
      expect(q[1]).toBeCloseTo(dst[i]![1], 6);
    });
    const id = mul(h, invert(h));
    const p = apply(id, 12.5, 33.25);
    expect(p[0]).toBeCloseTo(12.5, 6);
    expect(p[1]).toBeCloseTo(33.25, 6);
  });

  it('planned quads are the projected card corners and lie inside the frame', () => {
    for (let s = 0; s < 40; s++) {
      const plan = planPhoto(new Rng(s));
      const corners: [number, number][] = [
        [0, 0],
        [63, 0],
        [63, 88],
        [0, 88],
      ];
      corners.forEach(([x, y], i) => {
        const [u, v] = apply(plan.homography, x, y);
        expect(u).toBeCloseTo(plan.quadPx[i]![0], 6);
        expect(v).toBeCloseTo(plan.quadPx[i]![1], 6);
        expect(u).toBeGreaterThan(0);
        expect(v).toBeGreaterThan(0);
        expect(u).toBeLessThan(plan.width);
        expect(v).toBeLessThan(plan.height);
      });
      expect(plan.cardFraction).toBeGreaterThan(0.05);
      expect(plan.cardFraction).toBeLessThanOrEqual(0.9 + 1e-9);
      expect(plan.perspectiveDeg).toBeLessThanOrEqual(30);
      expect(plan.width * plan.height).toBeGreaterThan(1.9e6);
      expect(plan.width * plan.height).toBeLessThan(12.1e6);
    }
  });
});

describe('card outline', () => {
  const outline: Outline = {
    radii: { TL: 1.5, TR: 3, BR: 1.5, BL: 1.5 },
    chips: [{ edge: 'top', at: 30, widthMm: 1, depthMm: 0.5, shape: 0 }],
  };

  it('excludes rounded corners and chips', () => {
    expect(insideCard(0.1, 0.1, outline)).toBe(false);
    expect(insideCard(1.5, 1.5, outline)).toBe(true);
    expect(insideCard(62.2, 0.6, outline)).toBe(false);
    expect(insideCard(30, 0.3, outline)).toBe(false);
    expect(insideCard(30, 0.6, outline)).toBe(true);
    expect(outlinePath(outline)).toMatch(/^M 1.5 0 /);
  });

  it('measures areas on the card', () => {
    // The corner cut of radius r removes r² (1 - pi/4) from a square at the corner.
    const square: [number, number][] = [
      [0, 0],
      [4, 0],
      [4, 4],
      [0, 4],
    ];
    expect(polygonArea(square)).toBeCloseTo(16, 9);
    expect(areaOnCard(square, outline, 0.01)).toBeCloseTo(16 - 1.5 * 1.5 * (1 - Math.PI / 4), 1);
  });
});

describe('catalog', () => {
  it('loads both catalogs and picks records deterministically', () => {
    expect(catalogSize('pokemon')).toBeGreaterThan(20000);
    expect(catalogSize('sports')).toBeGreaterThan(140000);
    const a = pickRecord(new Rng(5));
    const b = pickRecord(new Rng(5));
    expect(a).toEqual(b);
    expect(recordAt('pokemon', 0).game).toBe('pokemon');
  });

  it('prints Pokemon numbers as n/total and sports numbers as #n, with serials for numbered parallels', () => {
    const poke = cardSpecFromRecord(recordAt('pokemon', 0), new Rng(1));
    expect(poke.printedNumber).toMatch(/^\w+\/\d+$/);
    expect(poke.copyright).toMatch(/^©\d{4} /);
    let numbered = 0;
    for (let i = 0; i < 3000 && numbered < 3; i++) {
      const rec = recordAt('sports', i * 47);
      const spec = cardSpecFromRecord(rec, new Rng(i));
      expect(spec.printedNumber).toBe(`#${rec.number}`);
      if (spec.printRun) {
        numbered++;
        const [n, total] = spec.serial!.split('/');
        expect(Number(total)).toBe(spec.printRun);
        expect(n!.length).toBe(String(spec.printRun).length);
        expect(Number(n)).toBeGreaterThanOrEqual(1);
        expect(Number(n)).toBeLessThanOrEqual(spec.printRun);
      }
    }
    expect(numbered).toBeGreaterThan(0);
  });
});

describe('EXIF', () => {
  it('writes an orientation-only EXIF segment that decoders honour', async () => {
    const raw = Buffer.alloc(40 * 30 * 3, 90);
    const jpeg = await sharp(raw, { raw: { width: 40, height: 30, channels: 3 } }).jpeg().toBuffer();
    const tagged = withExifOrientation(jpeg, 6);
    const meta = await sharp(tagged).metadata();
    expect(meta.orientation).toBe(6);
    expect(meta.icc).toBeUndefined();
    const upright = await sharp(tagged).rotate().raw().toBuffer({ resolveWithObject: true });
    expect([upright.info.width, upright.info.height]).toEqual([30, 40]);
  });
});
