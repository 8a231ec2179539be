/** fast-check arbitraries for measurements and "more damage" (test helper). */
import fc from 'fast-check';
import type {
  CardMeasurements,
  CenteringMeasurement,
  CornerMeasurement,
  EdgeMeasurement,
  SideMeasurements,
  SurfaceDefect,
  SurfaceDefectKind,
} from '../src/index';

const KINDS: SurfaceDefectKind[] = ['scratch', 'crease', 'print_line', 'stain', 'scuff', 'dent'];

/** Mostly small values with a fair share of exact zeros, like real cards. */
const amount = (max: number) =>
  fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.double({ min: 0, max, noNaN: true }), weight: 3 });

export const cornerArb: fc.Arbitrary<CornerMeasurement> = fc.record({
  whiteningAreaMm2: amount(6),
  roundingRadiusMm: amount(4),
  dingAreaMm2: amount(5),
});

export const edgeArb: fc.Arbitrary<EdgeMeasurement> = fc.record({
  whitenedLengthMm: amount(60),
  maxDepthMm: amount(2.5),
  chipCount: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 })),
});

export const surfaceDefectArb: fc.Arbitrary<SurfaceDefect> = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    size: fc.double({ min: 0, max: 80, noNaN: true }),
    contrast: fc.double({ min: 0, max: 1, noNaN: true }),
    xMm: fc.double({ min: 0, max: 60, noNaN: true }),
    yMm: fc.double({ min: 0, max: 85, noNaN: true }),
  })
  .map(({ kind, size, contrast, xMm, yMm }) => {
    const isLength = kind === 'scratch' || kind === 'crease' || kind === 'print_line';
    return {
      kind,
      ...(isLength ? { lengthMm: size } : { areaMm2: size }),
      contrast,
      xMm,
      yMm,
      wMm: 3,
      hMm: 3,
    };
  });

export const centeringArb: fc.Arbitrary<CenteringMeasurement> = fc.record({
  leftMm: fc.double({ min: 0.5, max: 5, noNaN: true }),
  rightMm: fc.double({ min: 0.5, max: 5, noNaN: true }),
  topMm: fc.double({ min: 0.5, max: 5, noNaN: true }),
  bottomMm: fc.double({ min: 0.5, max: 5, noNaN: true }),
});

export const sideArb: fc.Arbitrary<SideMeasurements> = fc.record({
  corners: fc.record({ TL: cornerArb, TR: cornerArb, BR: cornerArb, BL: cornerArb }),
  edges: fc.record({ top: edgeArb, right: edgeArb, bottom: edgeArb, left: edgeArb }),
  surface: fc.array(surfaceDefectArb, { maxLength: 4 }),
  centering: centeringArb,
});

export const cardArb: fc.Arbitrary<CardMeasurements> = fc.record({ front: sideArb, back: sideArb });

/** Non-negative increments that only ever add damage to a side. */
export interface SideWorsening {
  corner: number[];
  edge: number[];
  surfaceGrow: number[];
  extraDefects: SurfaceDefect[];
  offCentre: number[];
}

export const worseningArb: fc.Arbitrary<SideWorsening> = fc.record({
  corner: fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 2, noNaN: true })), { minLength: 12, maxLength: 12 }),
  edge: fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5, noNaN: true })), { minLength: 12, maxLength: 12 }),
  surfaceGrow: fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.5, noNaN: true })), { minLength: 8, maxLength: 8 }),
  extraDefects: fc.array(surfaceDefectArb, { maxLength: 2 }),
  offCentre: fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 2, maxLength: 2 }),
});

const away = (a: number, b: number, d: number): [number, number] => (a >= b ? [a + d, Math.max(0, b - d)] : [Math.max(0, a - d), b + d]);

/** Apply a worsening: larger corner/edge values, longer/higher-contrast defects, extra defects, borders further off-centre. */
export function worsen(s: SideMeasurements, w: SideWorsening): SideMeasurements {
  const ids = ['TL', 'TR', 'BR', 'BL'] as const;
  const edges = ['top', 'right', 'bottom', 'left'] as const;
  const corners = { ...s.corners };
  ids.forEach((id, i) => {
    const c = s.corners[id];
    corners[id] = {
      whiteningAreaMm2: c.whiteningAreaMm2 + w.corner[3 * i]!,
      roundingRadiusMm: c.roundingRadiusMm + w.corner[3 * i + 1]!,
      dingAreaMm2: c.dingAreaMm2 + w.corner[3 * i + 2]!,
    };
  });
  const edgeOut = { ...s.edges };
  edges.forEach((id, i) => {
    const e = s.edges[id];
    edgeOut[id] = {
      whitenedLengthMm: e.whitenedLengthMm + 10 * w.edge[3 * i]!,
      maxDepthMm: e.maxDepthMm + w.edge[3 * i + 1]! / 2,
      chipCount: e.chipCount + Math.floor(w.edge[3 * i + 2]!),
    };
  });
  const surface = s.surface.map((d, i) => {
    const g = w.surfaceGrow[i % w.surfaceGrow.length]!;
    return {
      ...d,
      ...(d.lengthMm !== undefined ? { lengthMm: d.lengthMm * (1 + g) } : {}),
      ...(d.areaMm2 !== undefined ? { areaMm2: d.areaMm2 * (1 + g) } : {}),
      contrast: Math.min(1, d.contrast + g / 4),
    };
  });
  const [l, r] = away(s.centering.leftMm, s.centering.rightMm, w.offCentre[0]!);
  const [t, b] = away(s.centering.topMm, s.centering.bottomMm, w.offCentre[1]!);
  return {
    corners,
    edges: edgeOut,
    surface: [...surface, ...w.extraDefects],
    centering: { leftMm: l, rightMm: r, topMm: t, bottomMm: b },
  };
}
