import { commonV1 } from '@cardlens/contracts';
import type { RubricResult } from '@cardlens/grading-rubric';

const defectKinds: Record<string, commonV1.DefectKind> = {
  corner_wear: commonV1.DefectKind.CORNER_WEAR,
  edge_wear: commonV1.DefectKind.EDGE_WEAR,
  scratch: commonV1.DefectKind.SURFACE_SCRATCH,
  scuff: commonV1.DefectKind.SURFACE_SCRATCH,
  dent: commonV1.DefectKind.SURFACE_DENT,
  crease: commonV1.DefectKind.CREASE,
  stain: commonV1.DefectKind.STAIN,
  print_line: commonV1.DefectKind.PRINT_DEFECT,
};

const MM_TO_PX = 10;

type Shares = { leftRight: number; topBottom: number };

/**
 * The rubric's result in the shared proto shape (cardlens.common.v1.Grading). Centering is the engine's
 * directional measurement (leftRight > 50: the wider border is on the left), as the contract defines it.
 */
export function gradingToProto(result: RubricResult, measured: { front: Shares; back?: Shares }, overlayAvailable: boolean, engineVersion: string): commonV1.Grading {
  const side = (s: RubricResult['sides']['front'] | undefined): commonV1.SideSubGrades | undefined =>
    s ? { corners: s.corners, edges: s.edges, surface: s.surface, centering: s.centering } : undefined;
  const centering = (c: { leftRight: number; topBottom: number } | undefined): commonV1.CenteringRatios | undefined =>
    c ? { leftRight: c.leftRight, topBottom: c.topBottom } : undefined;
  const assessed = (item: string) => !result.notAssessed.includes(item as RubricResult['notAssessed'][number]);
  return {
    grade: result.grade,
    // Absent where nothing was assessed: no professional grade is predicted.
    ...(result.predictedGrade === null ? {} : { predictedGrade: result.predictedGrade }),
    subGrades: { ...result.subGrades },
    summary: result.summary,
    justification: result.justification,
    front: side(result.sides.front),
    back: side(result.sides.back),
    // A side's centering shares only where its centering was assessed: a share measured on a frame the engine does
    // not trust (or on a slab's compartment) is no reading of the card.
    frontCentering: assessed('front_centering') ? centering(measured.front) : undefined,
    backCentering: assessed('back_centering') ? centering(measured.back) : undefined,
    confidence: result.confidence,
    subGradeConfidences: { ...result.subGradeConfidences },
    defects: result.defects.map((d) => ({
      kind: defectKinds[d.kind] ?? commonV1.DefectKind.OTHER,
      side: d.side === 'back' ? commonV1.Side.BACK : commonV1.Side.FRONT,
      location: d.location,
      severity: d.severity,
      // Regions in pixels of the side's rectified image (10 px/mm).
      region: { x: d.xMm * MM_TO_PX, y: d.yMm * MM_TO_PX, width: d.wMm * MM_TO_PX, height: d.hMm * MM_TO_PX },
      description: d.description,
    })),
    notAssessed: [...result.notAssessed],
    notAssessedReasons: result.notAssessedReasons.map((r) => ({ item: r.item, reason: r.reason })),
    gradeDistribution: result.gradeDistribution.map((g) => ({ grade: g.grade, probability: g.probability })),
    overlayAvailable,
    engineVersion,
    rubricVersion: result.rubricVersion,
  };
}
