/**
 * Aspects the photos cannot support. The engine says which aspects of a side its photo cannot support and why
 * (too few pixels per mm, no printed frame found, a holder over the card); the rubric then grades each of them
 * as "nothing seen": no grade is ever lowered by what could not be seen. The aspect is listed in `notAssessed`
 * with its reason, its confidence is multiplied by NOT_ASSESSED_FACTOR, and the justification says so.
 */
import { CORNER_IDS, EDGE_IDS } from './geometry';
import type { CardMeasurements, GradeOptions, NotAssessedItem, NotAssessedReason, Side, SideMeasurements, SubGradeName } from './types';

export const BACK_NOT_ASSESSED: readonly NotAssessedItem[] = ['back_centering', 'back_corners', 'back_edges', 'back_surface'];

/** Confidence factor of a sub-grade with an aspect the photo could not support (front; the back's counts as a missing back's). */
export const NOT_ASSESSED_FACTOR = 0.3;

const ASPECTS: readonly SubGradeName[] = ['centering', 'corners', 'edges', 'surface'];
const BACK_MISSING_REASON = 'the back was not photographed';

/** The not-assessed aspects in a fixed order (side, then aspect), with their reasons. */
export function notAssessedReasons(m: CardMeasurements, options: GradeOptions = {}): NotAssessedReason[] {
  const out: NotAssessedReason[] = [];
  for (const side of ['front', 'back'] as const) {
    if (side === 'back' && !m.back) {
      for (const item of BACK_NOT_ASSESSED) out.push({ item, reason: BACK_MISSING_REASON });
      continue;
    }
    const limits = options.quality?.[side]?.notAssessed ?? {};
    for (const aspect of ASPECTS) {
      const reason = limits[aspect];
      if (reason) out.push({ item: `${side}_${aspect}`, reason });
    }
  }
  return out;
}

/** True where every aspect of every photographed side is among the not-assessed ones: nothing was measured. */
export function nothingAssessed(m: CardMeasurements, reasons: NotAssessedReason[]): boolean {
  const items = new Set(reasons.map((r) => r.item));
  const sides: Side[] = m.back ? ['front', 'back'] : ['front'];
  return sides.every((side) => ASPECTS.every((aspect) => items.has(`${side}_${aspect}`)));
}

function nothingSeen(s: SideMeasurements, aspects: Set<SubGradeName>): SideMeasurements {
  const out: SideMeasurements = { ...s };
  if (aspects.has('centering')) {
    // Equal borders: the side reads 50/50, the most it could be.
    const lr = (s.centering.leftMm + s.centering.rightMm) / 2;
    const tb = (s.centering.topMm + s.centering.bottomMm) / 2;
    out.centering = { leftMm: lr, rightMm: lr, topMm: tb, bottomMm: tb };
  }
  if (aspects.has('corners')) out.corners = Object.fromEntries(CORNER_IDS.map((id) => [id, { whiteningAreaMm2: 0, roundingRadiusMm: 0, dingAreaMm2: 0 }])) as SideMeasurements['corners'];
  if (aspects.has('edges')) out.edges = Object.fromEntries(EDGE_IDS.map((id) => [id, { whitenedLengthMm: 0, maxDepthMm: 0, chipCount: 0 }])) as SideMeasurements['edges'];
  if (aspects.has('surface')) out.surface = [];
  if (s.calibrated) {
    const cal = { ...s.calibrated };
    if (aspects.has('corners')) cal.corners = Object.fromEntries(CORNER_IDS.map((id) => [id, 0])) as typeof cal.corners;
    if (aspects.has('edges')) cal.edges = Object.fromEntries(EDGE_IDS.map((id) => [id, 0])) as typeof cal.edges;
    if (aspects.has('surface')) cal.surface = 0;
    out.calibrated = cal;
  }
  return out;
}

/** The measurements with every aspect the photos cannot support replaced by "nothing seen". */
export function withoutUnsupported(m: CardMeasurements, reasons: NotAssessedReason[]): CardMeasurements {
  const of = (side: Side) => new Set(reasons.filter((r) => r.item.startsWith(`${side}_`)).map((r) => r.item.slice(side.length + 1) as SubGradeName));
  const front = of('front');
  const back = of('back');
  return {
    front: front.size ? nothingSeen(m.front, front) : m.front,
    ...(m.back ? { back: back.size ? nothingSeen(m.back, back) : m.back } : {}),
  };
}
