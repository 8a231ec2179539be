import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import {
  aggregateSeverities,
  assessCorner,
  assessEdge,
  assessSurfaceDefect,
  combineComponents,
  cornerSeverity,
  edgeSeverity,
  gradeFromAnchors,
  gradeFromSeverityHalf,
  quantizeHalf,
  surfaceDefectSeverity,
  SURFACE_RULES,
  CORNER_WHITENING_ANCHORS,
  CORNER_ROUNDING_ANCHORS,
  CORNER_DING_ANCHORS,
  EDGE_WHITENING_FRACTION_ANCHORS,
  EDGE_DEPTH_ANCHORS,
  EDGE_CHIP_ANCHORS,
  type SurfaceDefect,
  type SurfaceDefectKind,
} from '../src/index';
import { cornerArb, edgeArb } from './arbitraries';

const corner = (w = 0, r = 0, d = 0) => ({ whiteningAreaMm2: w, roundingRadiusMm: r, dingAreaMm2: d });
const defect = (kind: SurfaceDefectKind, size: number, contrast = 0.5): SurfaceDefect => ({
  kind,
  ...(SURFACE_RULES[kind].measure === 'length' ? { lengthMm: size } : { areaMm2: size }),
  contrast,
  xMm: 10,
  yMm: 10,
  wMm: 5,
  hMm: 5,
});

describe('curves', () => {
  it('interpolates anchors, is 10 at zero and within the tolerance, and holds the last grade beyond', () => {
    expect(gradeFromAnchors(0, CORNER_WHITENING_ANCHORS)).toBe(10);
    expect(gradeFromAnchors(0.05, CORNER_WHITENING_ANCHORS)).toBe(10);
    expect(gradeFromAnchors(0.3, CORNER_WHITENING_ANCHORS)).toBe(9);
    expect(gradeFromAnchors(0.5, CORNER_WHITENING_ANCHORS)).toBeCloseTo(8.5, 10);
    expect(gradeFromAnchors(1e6, CORNER_WHITENING_ANCHORS)).toBe(1);
    expect(gradeFromAnchors(Infinity, CORNER_WHITENING_ANCHORS)).toBe(1);
    expect(gradeFromAnchors(NaN, CORNER_WHITENING_ANCHORS)).toBe(10);
  });

  it('quantises to the nearest half point, exact ties down, within [1, 10]', () => {
    expect(quantizeHalf(9.76)).toBe(10);
    expect(quantizeHalf(9.75)).toBe(9.5);
    expect(quantizeHalf(9.26)).toBe(9.5);
    expect(quantizeHalf(9.25)).toBe(9);
    expect(quantizeHalf(8.999999)).toBe(9);
    expect(quantizeHalf(0.2)).toBe(1);
    expect(quantizeHalf(12)).toBe(10);
    expect(gradeFromSeverityHalf(0)).toBe(10);
    expect(gradeFromSeverityHalf(1)).toBe(1);
  });

  it('every anchor table is increasing in value and non-increasing in grade', () => {
    const tables = [
      CORNER_WHITENING_ANCHORS, CORNER_ROUNDING_ANCHORS, CORNER_DING_ANCHORS,
      EDGE_WHITENING_FRACTION_ANCHORS, EDGE_DEPTH_ANCHORS, EDGE_CHIP_ANCHORS,
      ...Object.values(SURFACE_RULES).map((r) => r.anchors),
    ];
    for (const t of tables) {
      for (let i = 1; i < t.length; i++) {
        expect(t[i]![0]).toBeGreaterThan(t[i - 1]![0]);
        expect(t[i]![1]).toBeLessThanOrEqual(t[i - 1]![1]);
      }
    }
  });

  it('aggregation never decreases when a severity grows or a defect is added', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
        fc.nat(7),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sev, i, add) => {
          const base = aggregateSeverities(sev);
          expect(base).toBeGreaterThanOrEqual(Math.max(0, ...sev) - 1e-12);
          expect(aggregateSeverities([...sev, add])).toBeGreaterThanOrEqual(base - 1e-12);
          if (sev.length > 0) {
            const j = i % sev.length;
            const bigger = sev.slice();
            bigger[j] = Math.min(1, bigger[j]! + add);
            expect(aggregateSeverities(bigger)).toBeGreaterThanOrEqual(base - 1e-12);
            expect(combineComponents(bigger)).toBeGreaterThanOrEqual(combineComponents(sev) - 1e-12);
          }
        },
      ),
    );
  });
});

describe('corner severity', () => {
  it('matches the grading-practice anchors', () => {
    expect(cornerSeverity(corner())).toBe(0);
    expect(quantizeHalf(assessCorner(corner(0.3)).grade)).toBe(9);
    expect(quantizeHalf(assessCorner(corner(0, 2)).grade)).toBe(6);
    expect(quantizeHalf(assessCorner(corner(1.5)).grade)).toBe(7);
    expect(assessCorner(corner(0.3, 0, 0)).dominant.component).toBe('whitening');
    expect(assessCorner(corner(0.3, 2, 0)).dominant.component).toBe('rounding');
  });

  it('adds a quarter of the other components to the worst one', () => {
    const a = assessCorner(corner(0.3, 0.3, 0));
    expect(a.severity).toBeCloseTo(1 / 9 + 0.25 / 9, 10);
  });

  it('is monotone in every component', () => {
    fc.assert(
      fc.property(cornerArb, fc.nat(2), fc.double({ min: 0, max: 10, noNaN: true }), (c, k, d) => {
        const key = (['whiteningAreaMm2', 'roundingRadiusMm', 'dingAreaMm2'] as const)[k]!;
        const s = cornerSeverity(c);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(cornerSeverity({ ...c, [key]: c[key] + d })).toBeGreaterThanOrEqual(s);
      }),
    );
  });
});

describe('edge severity', () => {
  it('uses the whitened fraction of the edge region (51 mm top/bottom, 76 mm left/right)', () => {
    const e = { whitenedLengthMm: 0.05 * 51, maxDepthMm: 0, chipCount: 0 };
    expect(assessEdge(e, 'top').grade).toBeCloseTo(9, 10);
    expect(assessEdge(e, 'left').grade).toBeGreaterThan(9);
    expect(quantizeHalf(assessEdge({ whitenedLengthMm: 76, maxDepthMm: 0, chipCount: 0 }, 'left').grade)).toBe(4);
    expect(quantizeHalf(assessEdge({ whitenedLengthMm: 0, maxDepthMm: 0, chipCount: 1 }, 'top').grade)).toBe(8.5);
    expect(edgeSeverity({ whitenedLengthMm: 0, maxDepthMm: 0, chipCount: 0 }, 'bottom')).toBe(0);
  });

  it('is monotone in every component', () => {
    fc.assert(
      fc.property(edgeArb, fc.nat(2), fc.double({ min: 0, max: 30, noNaN: true }), fc.constantFrom('top', 'right', 'bottom', 'left' as const), (e, k, d, id) => {
        const key = (['whitenedLengthMm', 'maxDepthMm', 'chipCount'] as const)[k]!;
        expect(edgeSeverity({ ...e, [key]: e[key] + d }, id)).toBeGreaterThanOrEqual(edgeSeverity(e, id));
      }),
    );
  });
});

describe('surface defect severity', () => {
  it('a 10 mm scratch of ordinary contrast is a 7', () => {
    expect(quantizeHalf(assessSurfaceDefect(defect('scratch', 10)).grade)).toBe(7);
  });

  it('any crease is at most a 5, longer creases lower', () => {
    expect(assessSurfaceDefect(defect('crease', 0.5, 0.1)).grade).toBe(5);
    expect(assessSurfaceDefect(defect('crease', 0)).grade).toBe(5);
    expect(quantizeHalf(assessSurfaceDefect(defect('crease', 63, 0.5)).grade)).toBeLessThanOrEqual(3);
  });

  it('a visible stain rules out a 10; print lines are lenient', () => {
    expect(quantizeHalf(assessSurfaceDefect(defect('stain', 0.5)).grade)).toBe(9);
    expect(quantizeHalf(assessSurfaceDefect(defect('print_line', 8)).grade)).toBe(9);
  });

  it('falls back to the box size when the size is missing', () => {
    const d: SurfaceDefect = { kind: 'scratch', contrast: 0.5, xMm: 0, yMm: 0, wMm: 6, hMm: 8 };
    expect(assessSurfaceDefect(d).size).toBeCloseTo(10, 10);
  });

  it('is monotone in size and contrast for every kind', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<SurfaceDefectKind>('scratch', 'crease', 'print_line', 'stain', 'scuff', 'dent'),
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (kind, size, contrast, dSize, dContrast) => {
          const s = surfaceDefectSeverity(defect(kind, size, contrast));
          expect(surfaceDefectSeverity(defect(kind, size + dSize, contrast))).toBeGreaterThanOrEqual(s);
          expect(surfaceDefectSeverity(defect(kind, size, Math.min(1, contrast + dContrast)))).toBeGreaterThanOrEqual(s);
        },
      ),
    );
  });
});
