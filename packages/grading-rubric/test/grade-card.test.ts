import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import {
  gradeCard,
  gradeSides,
  mintCard,
  mintSide,
  quantizeHalf,
  DISCLAIMER,
  type CardMeasurements,
  type RubricResult,
  type SurfaceDefect,
} from '../src/index';
import { cardArb, sideArb, worsen, worseningArb } from './arbitraries';

/** Borders (mm, 6 mm total per axis) for left-right / top-bottom shares. */
const borders = (lrShare: number, tbShare = 50) => ({
  leftMm: (6 * lrShare) / 100,
  rightMm: 6 - (6 * lrShare) / 100,
  topMm: (6 * tbShare) / 100,
  bottomMm: 6 - (6 * tbShare) / 100,
});

const crease = (lengthMm: number, contrast = 0.5): SurfaceDefect => ({ kind: 'crease', lengthMm, contrast, xMm: 20, yMm: 40, wMm: lengthMm, hMm: 1 });

function allGrades(r: RubricResult): number[] {
  const s = r.sides;
  return [
    r.grade, ...(r.predictedGrade === null ? [] : [r.predictedGrade]), r.subGrades.centering, r.subGrades.corners, r.subGrades.edges, r.subGrades.surface,
    s.front.corners, s.front.edges, s.front.surface, s.front.centering,
    ...(s.back ? [s.back.corners, s.back.edges, s.back.surface, s.back.centering] : []),
  ];
}

describe('gradeCard: hand-built cases', () => {
  it('a mint card is a 10 with a predicted 10 and high confidence', () => {
    const r = gradeCard(mintCard());
    expect(r.grade).toBe(10);
    expect(r.predictedGrade).toBe(10);
    expect(r.gradeLabel).toBe('GEM-MT 10');
    expect(r.subGrades).toEqual({ centering: 10, corners: 10, edges: 10, surface: 10 });
    expect(r.defects).toEqual([]);
    expect(r.notAssessed).toEqual([]);
    expect(r.confidence).toBeGreaterThan(0.9);
    expect(r.centering.psaCap).toBe(10);
    expect(r.summary).toMatch(/^AI estimate Gem Mint 10 \(predicted professional grade 10\)/);
    expect(r.justification).toContain(DISCLAIMER);
    expect(r.gradeDistribution.find((p) => p.grade === 10)!.probability).toBeGreaterThan(0.8);
  });

  it('58/42 front centering: PSA caps at 9, BGS-like centering 9, the text names 58/42', () => {
    const m = mintCard();
    m.front.centering = borders(58);
    const r = gradeCard(m);
    expect(r.centering.front.leftRightDisplay).toBe('58/42');
    expect(r.centering.psaCap).toBe(9);
    expect(r.subGrades.centering).toBe(9);
    expect(r.grade).toBe(9.5); // one 9 with three 10s: the others average 1 above it, so lowest + 0.5
    expect(r.predictedGrade).toBe(9);
    expect(r.summary).toContain('front centering 58/42 left-right limits the grade');
    expect(r.justification).toContain("front centering 58/42 left-right limits the grade to 9 under PSA's table (10 needs 55/45 or better on the front)");
    expect(r.justification).toContain("PSA's centering table (front centering 58/42 left-right) allows the same");
    expect(r.limitingFactors.some((f) => f.target === 'predicted' && f.grade === 9)).toBe(true);
  });

  it.each([
    [62, 8], [68, 7], [75, 6], [84, 5], [88, 3],
  ])('front centering %p/.. caps the predicted grade at %p', (share, cap) => {
    const m = mintCard();
    m.front.centering = borders(100 - share, 50);
    const r = gradeCard(m);
    expect(r.centering.psaCap).toBe(cap);
    expect(r.predictedGrade).toBeLessThanOrEqual(cap);
    expect(r.justification).toContain(`${100 - share}/${share} left-right limits the grade to ${cap}`);
  });

  it('back centering uses the back table: 70/30 is fine for a PSA 10, 80/20 caps at 9', () => {
    const m = mintCard();
    m.back!.centering = borders(70);
    expect(gradeCard(m).centering.psaCap).toBe(10);
    m.back!.centering = borders(50, 80);
    const r = gradeCard(m);
    expect(r.centering.psaCap).toBe(9);
    expect(r.centering.psaCapSide).toBe('back');
    expect(r.predictedGrade).toBe(9);
    expect(r.justification).toContain('back centering 80/20 top-bottom limits the grade to 9');
  });

  it('a crease takes the surface to 5 or lower and the overall to 6 or lower, on either side', () => {
    for (const side of ['front', 'back'] as const) {
      for (const [len, contrast] of [[1, 0.05], [8, 0.3], [30, 0.6], [80, 1]] as const) {
        const m = mintCard();
        m[side]!.surface.push(crease(len, contrast));
        const r = gradeCard(m);
        expect(r.subGrades.surface).toBeLessThanOrEqual(5);
        expect(r.grade).toBeLessThanOrEqual(6);
        expect(r.predictedGrade).toBeLessThanOrEqual(6);
        expect(r.justification).toContain('any crease caps the surface at 5');
        expect(r.justification).toContain(`${len.toFixed(1)} mm crease`);
      }
    }
  });

  it('a 10 mm scratch takes the surface to 7 and names it', () => {
    const m = mintCard();
    m.front.surface.push({ kind: 'scratch', lengthMm: 10, contrast: 0.5, xMm: 5, yMm: 5, wMm: 10, hMm: 1 });
    const r = gradeCard(m);
    expect(r.subGrades.surface).toBe(7);
    expect(r.grade).toBe(8);
    expect(r.predictedGrade).toBe(8);
    expect(r.summary).toContain('a 10.0 mm scratch on the front limits the grade');
    expect(r.justification).toContain('a 10.0 mm scratch (contrast 0.50) on the front surface, upper-left area takes surface to 7');
    expect(r.defects).toEqual([
      expect.objectContaining({ kind: 'scratch', side: 'front', location: 'surface', gradeLevel: 7, xMm: 5, yMm: 5, wMm: 10, hMm: 1 }),
    ]);
  });

  it('whitening on corners is named with its numbers and location; back flaws count half a grade less', () => {
    const m = mintCard();
    m.front.corners.BL.whiteningAreaMm2 = 0.5;
    const r = gradeCard(m);
    expect(r.sides.front.corners).toBe(8.5);
    expect(r.subGrades.corners).toBe(8.5);
    expect(r.justification).toContain('whitening of 0.50 mm² on the front bottom-left corner takes corners to 8.5');
    expect(r.defects[0]).toMatchObject({ kind: 'corner_wear', side: 'front', location: 'bottom-left corner', xMm: 0, yMm: 82, wMm: 6, hMm: 6 });

    const b = mintCard();
    b.back!.corners.TL.whiteningAreaMm2 = 0.5;
    b.back!.corners.TR.whiteningAreaMm2 = 0.4;
    const rb = gradeCard(b);
    expect(rb.sides.back!.corners).toBe(8); // 8.5-level and 8.75-level corners: 1.5/9 + 0.3 x 1.25/9 -> 8.125
    expect(rb.subGrades.corners).toBe(8.5);
    expect(rb.summary).toContain('whitening on two back corners');
    expect(rb.justification).toContain('a back flaw counts 0.5 grade less than on the front');
  });

  it('a 2 mm extra rounding is a 6-level corner', () => {
    const m = mintCard();
    m.front.corners.TR.roundingRadiusMm = 2;
    const r = gradeCard(m);
    expect(r.subGrades.corners).toBe(6);
    expect(r.justification).toContain('extra rounding of 2.0 mm (radius 3.5 mm) on the front top-right corner takes corners to 6');
    expect(r.summary).toContain('heavy corner rounding on the front top-right corner');
  });

  it('edges: whitening fraction, depth and chips are named', () => {
    const m = mintCard();
    m.front.edges.left = { whitenedLengthMm: 19, maxDepthMm: 0.3, chipCount: 2 };
    const r = gradeCard(m);
    expect(r.subGrades.edges).toBeLessThan(8);
    expect(r.justification).toMatch(/whitening along 19\.0 mm \(25% of the 76 mm edge\)/);
    expect(r.justification).toContain('2 chips');
    expect(r.justification).toContain('front left edge');
  });

  it('is deterministic', () => {
    const m = mintCard();
    m.front.surface.push({ kind: 'stain', areaMm2: 4, contrast: 0.4, xMm: 30, yMm: 40, wMm: 2, hMm: 2 });
    expect(gradeCard(m)).toEqual(gradeCard(structuredClone(m)));
  });
});

describe('gradeCard: missing back', () => {
  it('uses the front only, lists what was not assessed and lowers the confidences', () => {
    const both = mintCard();
    both.front.corners.TL.whiteningAreaMm2 = 0.3;
    both.back!.corners.TL.whiteningAreaMm2 = 3; // would limit corners if the back were seen
    const front = { front: both.front };
    const rb = gradeCard(both);
    const rf = gradeCard(front);
    expect(rf.sides.back).toBeUndefined();
    expect(rf.centering.back).toBeUndefined();
    expect(rf.subGrades.corners).toBe(rf.sides.front.corners);
    expect(rf.subGrades.corners).toBe(9);
    expect(rb.subGrades.corners).toBe(6.5);
    expect(rf.notAssessed).toEqual(['back_centering', 'back_corners', 'back_edges', 'back_surface']);
    expect(rb.notAssessed).toEqual([]);
    const rm = gradeCard(mintCard());
    const rmf = gradeCard({ front: mintSide() });
    for (const k of ['centering', 'corners', 'edges', 'surface'] as const) {
      expect(rmf.subGradeConfidences[k]).toBeLessThan(rm.subGradeConfidences[k]);
    }
    expect(rmf.confidence).toBeLessThan(rm.confidence);
    expect(rf.summary).toContain('back not assessed');
    expect(rf.justification).toContain('The back was not photographed');
    expect(rf.defects.every((d) => d.side === 'front')).toBe(true);
  });
});

describe('gradeCard: aspects the photo cannot support', () => {
  const worn = (): CardMeasurements => {
    const card = mintCard();
    card.front.corners.TL.roundingRadiusMm = 2; // what a mis-read outline can look like
    card.front.surface.push(crease(30));
    card.front.centering = borders(88);
    return card;
  };
  const reasons = { corners: 'the card spans 4.1 px/mm in the photo; corners need 8', surface: 'a sleeve covers the surface', centering: 'no printed frame line was found on the left border' };

  it('grades them as nothing seen, lists them with their reasons and lowers their confidences', () => {
    const seen = gradeCard(worn());
    const limited = gradeCard(worn(), { quality: { front: { notAssessed: reasons } } });
    expect(seen.subGrades).toMatchObject({ corners: 6, surface: 3.5 });
    expect(limited.subGrades).toEqual({ centering: 10, corners: 10, edges: 10, surface: 10 });
    expect(limited.notAssessed).toEqual(['front_centering', 'front_corners', 'front_surface']);
    expect(limited.notAssessedReasons).toEqual([
      { item: 'front_centering', reason: reasons.centering },
      { item: 'front_corners', reason: reasons.corners },
      { item: 'front_surface', reason: reasons.surface },
    ]);
    expect(limited.defects).toEqual([]);
    const mint = gradeCard(mintCard());
    for (const k of ['centering', 'corners', 'surface'] as const) expect(limited.subGradeConfidences[k]).toBeLessThanOrEqual(0.3 * mint.subGradeConfidences[k] + 1e-9);
    expect(limited.subGradeConfidences.edges).toBe(mint.subGradeConfidences.edges);
    expect(limited.justification).toContain(`front corners (${reasons.corners})`);
    expect(limited.summary).toContain('front centering, front corners, front surface not assessed from the photo');
    // No placeholder reads as a measurement: the text names no ratio or grade for what was not assessed.
    expect(limited.justification).toMatch(/Centering [0-9.]+: back \d+\/\d+ left-right/);
    expect(limited.justification).not.toMatch(/front \d+\/\d+ left-right/);
    expect(limited.justification).toMatch(/Corners [0-9.]+ \(front not assessed, back [0-9.]+\)/);
  });

  it('predicts no professional grade where nothing at all was assessed, and says so without reading the bounds as measurements', () => {
    const all = { centering: 'no sure frame', corners: 'the card is cropped at its edge', edges: 'the card is cropped at its edge', surface: 'too few pixels per mm' };
    const frontOnly: CardMeasurements = { front: worn().front };
    const nothing = gradeCard(frontOnly, { quality: { front: { notAssessed: all } } });
    expect(nothing.predictedGrade).toBeNull();
    expect(nothing.predictedGradeLabel).toBeNull();
    expect(nothing.gradeDistribution).toEqual([]);
    expect(nothing.grade).toBe(10);
    expect(nothing.limitingFactors).toEqual([]);
    expect(nothing.confidence).toBeLessThan(0.3);
    expect(nothing.summary).toMatch(/^No grade: nothing could be assessed/);
    expect(nothing.summary).toContain('front centering, front corners, front edges, front surface');
    expect(nothing.justification).toContain('no grade is given and no professional grade is predicted');
    expect(nothing.justification).not.toMatch(/upper bound|\b10\b/);
    expect(nothing.justification).toContain(`front surface (${all.surface})`);
    expect(nothing.justification).not.toMatch(/Predicted professional grade|\d+\/\d+ left to right/);

    // Anything seen on either side is a reading: a grade is predicted from it.
    const withBack = gradeCard(worn(), { quality: { front: { notAssessed: all } } });
    expect(withBack.predictedGrade).toEqual(expect.any(Number));
    expect(withBack.gradeDistribution.reduce((a, g) => a + g.probability, 0)).toBeCloseTo(1, 3);
    const neitherSide = gradeCard(worn(), { quality: { front: { notAssessed: all }, back: { notAssessed: all } } });
    expect(neitherSide.predictedGrade).toBeNull();
    expect(neitherSide.summary).toContain('nothing could be assessed from the photos');
    const { surface: _seen, ...allButSurface } = all;
    const oneSeen = gradeCard(frontOnly, { quality: { front: { notAssessed: allButSurface } } });
    expect(oneSeen.predictedGrade).toEqual(expect.any(Number));
  });

  it('never lowers a grade: with any aspect unsupported every grade is at least the measured one', () => {
    fc.assert(
      fc.property(cardArb, fc.subarray(['centering', 'corners', 'edges', 'surface'] as const, { minLength: 1 }), fc.boolean(), (card, aspects, onBack) => {
        const side = onBack && card.back ? 'back' : 'front';
        const notAssessed = Object.fromEntries(aspects.map((a) => [a, 'not visible']));
        const measured = gradeCard(card);
        const limited = gradeCard(card, { quality: { [side]: { notAssessed } } });
        expect(limited.grade).toBeGreaterThanOrEqual(measured.grade);
        // Nothing predicted only where nothing at all was assessed (the whole front of a card without a back).
        const nothing = aspects.length === 4 && side === 'front' && !card.back;
        if (nothing) expect(limited.predictedGrade).toBeNull();
        else expect(limited.predictedGrade).toBeGreaterThanOrEqual(measured.predictedGrade!);
        for (const k of ['centering', 'corners', 'edges', 'surface'] as const) expect(limited.subGrades[k]).toBeGreaterThanOrEqual(measured.subGrades[k]);
        expect(limited.notAssessed).toEqual(expect.arrayContaining(aspects.map((a) => `${side}_${a}`)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('gradeCard: confidences', () => {
  it('drop with detection confidence and surface visibility and stay in [0, 1]', () => {
    const m = mintCard();
    const base = gradeCard(m);
    const low = gradeCard(m, { quality: { front: { detectionConfidence: 0.6 }, back: { surfaceVisibility: 0.5 } } });
    expect(low.subGradeConfidences.centering).toBeLessThan(base.subGradeConfidences.centering);
    expect(low.subGradeConfidences.surface).toBeLessThanOrEqual(0.3 + 1e-9);
  });

  it('are low when a measurement sits on a grade boundary and high when far from it', () => {
    const on = mintCard();
    on.front.corners.TL.whiteningAreaMm2 = 0.4; // continuous 8.75: the 8.5/9 boundary
    const off = mintCard();
    off.front.corners.TL.whiteningAreaMm2 = 0.3; // continuous 9.0: mid-interval
    expect(gradeCard(on).subGradeConfidences.corners).toBeLessThan(0.55);
    expect(gradeCard(off).subGradeConfidences.corners).toBeGreaterThan(gradeCard(on).subGradeConfidences.corners + 0.1);

    const c = mintCard();
    c.front.centering = borders(55.45);
    expect(gradeCard(c).subGradeConfidences.centering).toBeLessThan(0.7);
  });

  it('are in [0, 1] for random cards', () => {
    fc.assert(
      fc.property(cardArb, fc.boolean(), (m, withBack) => {
        const r = gradeCard(withBack ? m : { front: m.front });
        for (const v of [...Object.values(r.subGradeConfidences), r.confidence]) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        expect(r.gradeDistribution.reduce((a, b) => a + b.probability, 0)).toBeCloseTo(1, 6);
      }),
      { numRuns: 60 },
    );
  });
});

describe('gradeCard: properties', () => {
  it('more damage never raises any grade (front and back, every sub-grade, overall, predicted)', () => {
    fc.assert(
      fc.property(cardArb, worseningArb, worseningArb, fc.boolean(), (m, wf, wb, withBack) => {
        const before: CardMeasurements = withBack ? m : { front: m.front };
        const after: CardMeasurements = withBack ? { front: worsen(m.front, wf), back: worsen(m.back!, wb) } : { front: worsen(m.front, wf) };
        const a = allGrades(gradeCard(before));
        const b = allGrades(gradeCard(after));
        b.forEach((g, i) => expect(g).toBeLessThanOrEqual(a[i]!));
      }),
      { numRuns: 300 },
    );
  });

  it('grades are half points in [1, 10], the predicted grade an integer not above the overall or the PSA cap', () => {
    fc.assert(
      fc.property(cardArb, (m) => {
        const r = gradeCard(m);
        for (const g of allGrades(r)) {
          expect(g).toBeGreaterThanOrEqual(1);
          expect(g).toBeLessThanOrEqual(10);
          expect(g * 2).toBe(Math.round(g * 2));
        }
        expect(Number.isInteger(r.predictedGrade)).toBe(true);
        expect(r.predictedGrade).toBeLessThanOrEqual(r.grade);
        expect(r.predictedGrade).toBeLessThanOrEqual(r.centering.psaCap);
        const low = Math.min(...Object.values(r.subGrades));
        expect(r.grade).toBeGreaterThanOrEqual(low);
        expect(r.grade).toBeLessThanOrEqual(low + 1);
        expect(r.summary).toMatch(/^AI estimate /);
        expect(r.justification).toContain('AI estimate');
      }),
      { numRuns: 150 },
    );
  });

  it('a side grade is the half-point rounding of its unrounded grade', () => {
    fc.assert(
      fc.property(sideArb, (s) => {
        const { front } = gradeSides({ front: s });
        expect(front.corners).toBe(quantizeHalf(front.unrounded.corners));
        expect(front.edges).toBe(quantizeHalf(front.unrounded.edges));
        expect(front.surface).toBe(quantizeHalf(front.unrounded.surface));
      }),
      { numRuns: 100 },
    );
  });

  it('the justification names the limiting numbers of the lowest sub-grade', () => {
    fc.assert(
      fc.property(cardArb, (m) => {
        const r = gradeCard(m);
        for (const f of r.limitingFactors) expect(r.justification).toContain(f.text);
        const worstDefect = [...r.defects].sort((a, b) => b.severity - a.severity)[0];
        if (worstDefect && worstDefect.gradeLevel < 10) {
          expect(r.defects.every((d) => d.severity >= 0 && d.severity <= 1)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
