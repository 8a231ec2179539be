/**
 * The defect list: every measured flaw with its side, location, severity, the grade it allows on its own,
 * its box on the rectified side (mm) and a description with the numbers.
 */
import { quantizeHalf } from './curves';
import { CORNER_IDS, EDGE_IDS, cornerBox, cornerLocation, edgeBox, edgeLengthMm, edgeLocation } from './geometry';
import {
  type ComponentAssessment,
  type CornerComponent,
  type EdgeComponent,
  type ElementAssessment,
  assessCorner,
  assessEdge,
  assessSurfaceDefect,
} from './severity';
import type { CornerId, EdgeId, RubricDefect, Side, SideMeasurements, SurfaceDefect } from './types';

/** Rubric-internal detail kept next to each defect for the text. */
export type DefectDetail =
  | { type: 'corner'; id: CornerId; assessment: ElementAssessment<CornerComponent> }
  | { type: 'edge'; id: EdgeId; assessment: ElementAssessment<EdgeComponent>; whitenedLengthMm: number }
  | { type: 'surface'; index: number; input: SurfaceDefect; grade: number; size: number; unit: 'mm' | 'mm²' };

export interface DetailedDefect {
  defect: RubricDefect;
  detail: DefectDetail;
}

/** One decimal (two below 1, so a small value never reads as 0.0). */
export const fmt1 = (x: number): string => (x > 0 && x < 1 ? x.toFixed(2) : x.toFixed(1));
export const fmt2 = (x: number): string => x.toFixed(2);
const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** 'whitening of 0.40 mm²' etc. for one corner component. */
export function cornerComponentText(c: ComponentAssessment<CornerComponent>): string {
  switch (c.component) {
    case 'whitening':
      return `whitening of ${fmt2(c.value)} mm²`;
    case 'rounding':
      return `extra rounding of ${fmt1(c.value)} mm (radius ${fmt1(c.value + 1.5)} mm)`;
    case 'ding':
      return `a ding of ${fmt2(c.value)} mm²`;
  }
}

/** 'whitening along 12.0 mm (24% of the edge)' etc. for one edge component. */
export function edgeComponentText(c: ComponentAssessment<EdgeComponent>, edge: EdgeId, whitenedLengthMm: number): string {
  switch (c.component) {
    case 'whitening':
      return `whitening along ${fmt1(whitenedLengthMm)} mm (${Math.round(c.value * 100)}% of the ${edgeLengthMm(edge)} mm edge)`;
    case 'depth':
      return `wear reaching ${fmt2(c.value)} mm into the card`;
    case 'chips':
      return c.value === 1 ? '1 chip' : `${Number.isInteger(c.value) ? c.value : fmt1(c.value)} chips`;
  }
}

const KIND_NAMES: Record<SurfaceDefect['kind'], string> = {
  scratch: 'scratch',
  crease: 'crease',
  print_line: 'print line',
  stain: 'stain',
  scuff: 'scuff',
  dent: 'dent',
};

export function surfaceKindName(kind: SurfaceDefect['kind']): string {
  return KIND_NAMES[kind];
}

/** 'upper-left area', 'centre', ... from the defect box centre. */
export function surfaceArea(d: SurfaceDefect): string {
  const cx = d.xMm + d.wMm / 2;
  const cy = d.yMm + d.hMm / 2;
  const col = cx < 21 ? 'left' : cx > 42 ? 'right' : '';
  const row = cy < 29.33 ? 'upper' : cy > 58.67 ? 'lower' : '';
  if (!col && !row) return 'centre';
  return `${[row, col].filter(Boolean).join('-')} area`;
}

/** 'a' or 'an' before a number written in digits ('an 8.0 mm', 'an 11.0 mm', 'a 12.0 mm'). */
export function articleFor(numberText: string): string {
  return /^(8|11(?!\d)|18(?!\d))/.test(numberText) ? 'an' : 'a';
}

/** 'a 12.0 mm scratch (contrast 0.50)' / 'a 4.00 mm² stain (contrast 0.30)'. */
export function surfaceDefectText(d: SurfaceDefect, size: number, unit: 'mm' | 'mm²'): string {
  const n = unit === 'mm' ? fmt1(size) : fmt2(size);
  return `${articleFor(n)} ${n} ${unit} ${surfaceKindName(d.kind)} (contrast ${fmt2(Number.isNaN(d.contrast) ? 0.5 : d.contrast)})`;
}

function componentList<C extends string>(a: ElementAssessment<C>, text: (c: ComponentAssessment<C>) => string): string {
  const parts = [a.dominant, ...a.components.filter((c) => c !== a.dominant && c.severity > 0)];
  return parts.map(text).join(', ');
}

/** All defects of one side with severity > 0, in the order corners, edges, surface. */
export function sideDefects(side: Side, m: SideMeasurements): DetailedDefect[] {
  const out: DetailedDefect[] = [];
  for (const id of CORNER_IDS) {
    const a = assessCorner(m.corners[id]);
    if (a.severity <= 0) continue;
    out.push({
      defect: {
        kind: 'corner_wear', side, location: cornerLocation(id), severity: round4(a.severity),
        gradeLevel: quantizeHalf(a.grade), ...cornerBox(id),
        description: `${componentList(a, cornerComponentText)} on the ${side} ${cornerLocation(id)}`,
      },
      detail: { type: 'corner', id, assessment: a },
    });
  }
  for (const id of EDGE_IDS) {
    const e = m.edges[id];
    const a = assessEdge(e, id);
    if (a.severity <= 0) continue;
    out.push({
      defect: {
        kind: 'edge_wear', side, location: edgeLocation(id), severity: round4(a.severity),
        gradeLevel: quantizeHalf(a.grade), ...edgeBox(id),
        description: `${componentList(a, (c) => edgeComponentText(c, id, e.whitenedLengthMm))} on the ${side} ${edgeLocation(id)}`,
      },
      detail: { type: 'edge', id, assessment: a, whitenedLengthMm: e.whitenedLengthMm },
    });
  }
  m.surface.forEach((d, index) => {
    const a = assessSurfaceDefect(d);
    if (a.severity <= 0) return;
    out.push({
      defect: {
        kind: d.kind, side, location: 'surface', severity: round4(a.severity), gradeLevel: quantizeHalf(a.grade),
        xMm: d.xMm, yMm: d.yMm, wMm: d.wMm, hMm: d.hMm,
        description: `${surfaceDefectText(d, a.size, a.unit)} on the ${side} surface, ${surfaceArea(d)}`,
      },
      detail: { type: 'surface', index, input: d, grade: a.grade, size: a.size, unit: a.unit },
    });
  });
  return out;
}
