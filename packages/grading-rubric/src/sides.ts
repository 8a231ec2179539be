/**
 * Side sub-grades: element severities -> aggregated severity -> half-point grade, and the combined
 * (front + back) sub-grades. See GRADING.md, "Sub-grades".
 */
import { aggregateSeverities, gradeFromSeverity, quantizeHalf } from './curves';
import { CORNER_IDS, EDGE_IDS } from './geometry';
import { assessCorner, assessEdge, assessSurfaceDefect } from './severity';
import { bgsSideGrade, centeringShares } from './centering';
import { combineSides } from './overall';
import type { CardMeasurements, CornerId, EdgeId, Side, SideCalibration, SideGrades, SideMeasurements, SubGradeSet } from './types';

/**
 * The calibrated severities of a side, each no higher than its measurement's: the calibration explains photo
 * artefacts away (glare read as whitening, a sleeve's outline as edge wear, foil as scratches) but never adds
 * damage the measurements did not see (GRADING.md, "Learned components").
 */
export function boundedCalibration(m: SideMeasurements): SideCalibration | undefined {
  const cal = m.calibrated;
  if (!cal) return undefined;
  const corners = {} as Record<CornerId, number>;
  for (const id of CORNER_IDS) corners[id] = Math.min(cal.corners[id], assessCorner(m.corners[id]).severity);
  const edges = {} as Record<EdgeId, number>;
  for (const id of EDGE_IDS) edges[id] = Math.min(cal.edges[id], assessEdge(m.edges[id], id).severity);
  const surface = Math.min(cal.surface, aggregateSeverities(m.surface.map((d) => assessSurfaceDefect(d).severity)));
  return { ...cal, corners, edges, surface };
}

/** Grade the corners, edges and surface of one side (centering uses the BGS-like side table). */
export function gradeSide(side: Side, m: SideMeasurements): SideGrades {
  const corners = {} as Record<CornerId, number>;
  for (const id of CORNER_IDS) corners[id] = assessCorner(m.corners[id]).severity;
  const edges = {} as Record<EdgeId, number>;
  for (const id of EDGE_IDS) edges[id] = assessEdge(m.edges[id], id).severity;
  const surface = m.surface.map((d) => assessSurfaceDefect(d).severity);

  const measuredAggregates = { corners: aggregateSeverities(Object.values(corners)), edges: aggregateSeverities(Object.values(edges)), surface: aggregateSeverities(surface) };
  const cal = boundedCalibration(m);
  const cornersAggregate = cal ? aggregateSeverities(Object.values(cal.corners)) : measuredAggregates.corners;
  const edgesAggregate = cal ? aggregateSeverities(Object.values(cal.edges)) : measuredAggregates.edges;
  const surfaceAggregate = cal ? cal.surface : measuredAggregates.surface;
  const unrounded = {
    corners: gradeFromSeverity(cornersAggregate),
    edges: gradeFromSeverity(edgesAggregate),
    surface: gradeFromSeverity(surfaceAggregate),
  };
  const measured = cal
    ? {
        corners: quantizeHalf(gradeFromSeverity(measuredAggregates.corners)),
        edges: quantizeHalf(gradeFromSeverity(measuredAggregates.edges)),
        surface: quantizeHalf(gradeFromSeverity(measuredAggregates.surface)),
        conditions: cal.conditions,
      }
    : undefined;
  return {
    centering: bgsSideGrade(side, centeringShares(m.centering)),
    corners: quantizeHalf(unrounded.corners),
    edges: quantizeHalf(unrounded.edges),
    surface: quantizeHalf(unrounded.surface),
    unrounded,
    ...(measured ? { measured } : {}),
    // element severities stay the measurements' (the defect list and its text describe those)
    severities: { corners, edges, surface, cornersAggregate, edgesAggregate, surfaceAggregate },
  };
}

/** Grade of the worst crease on a side (the structural cap a back crease puts on the combined surface). */
export function creaseCap(m: SideMeasurements): number | undefined {
  let cap: number | undefined;
  for (const d of m.surface) {
    if (d.kind !== 'crease') continue;
    const g = quantizeHalf(assessSurfaceDefect(d).grade);
    cap = cap === undefined ? g : Math.min(cap, g);
  }
  return cap;
}

export interface CombinedGrades {
  front: SideGrades;
  back?: SideGrades;
  subGrades: SubGradeSet;
}

/** Side grades and the combined sub-grades (centering = min of the sides; others min(front, back + 0.5)). */
export function gradeSides(m: CardMeasurements): CombinedGrades {
  const front = gradeSide('front', m.front);
  const back = m.back ? gradeSide('back', m.back) : undefined;
  const subGrades: SubGradeSet = {
    centering: back ? Math.min(front.centering, back.centering) : front.centering,
    corners: combineSides(front.corners, back?.corners),
    edges: combineSides(front.edges, back?.edges),
    surface: combineSides(front.surface, back?.surface, m.back ? creaseCap(m.back) : undefined),
  };
  return back ? { front, back, subGrades } : { front, subGrades };
}
