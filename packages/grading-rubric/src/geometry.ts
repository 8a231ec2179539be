/**
 * Canonical card geometry shared by the generator, the engine and the rubric (see GRADING.md).
 * All lengths in millimetres; rectified images are 10 px/mm with the origin at the top-left.
 */
import type { CardMeasurements, CornerId, EdgeId, SideMeasurements, CenteringMeasurement } from './types';

export const CARD_WIDTH_MM = 63;
export const CARD_HEIGHT_MM = 88;
export const PX_PER_MM = 10;
/** Every card has this factory corner radius; CornerMeasurement.roundingRadiusMm is the extra beyond it. */
export const FACTORY_CORNER_RADIUS_MM = 1.5;
/** Corner regions: squares of this size at each card corner. */
export const CORNER_REGION_MM = 6;
/** Edge regions: bands of this width along each edge, excluding the corner squares. */
export const EDGE_BAND_MM = 2.5;

export const CORNER_IDS: readonly CornerId[] = ['TL', 'TR', 'BR', 'BL'];
export const EDGE_IDS: readonly EdgeId[] = ['top', 'right', 'bottom', 'left'];

const CORNER_NAMES: Record<CornerId, string> = {
  TL: 'top-left corner',
  TR: 'top-right corner',
  BR: 'bottom-right corner',
  BL: 'bottom-left corner',
};

/** 'top-left corner' etc. */
export function cornerLocation(corner: CornerId): string {
  return CORNER_NAMES[corner];
}

/** 'top edge' etc. */
export function edgeLocation(edge: EdgeId): string {
  return `${edge} edge`;
}

/** Length of an edge region (the edge minus the two corner squares): 51 mm for top/bottom, 76 mm for left/right. */
export function edgeLengthMm(edge: EdgeId): number {
  const full = edge === 'top' || edge === 'bottom' ? CARD_WIDTH_MM : CARD_HEIGHT_MM;
  return full - 2 * CORNER_REGION_MM;
}

/** Bounding box (mm) of a corner region on the rectified side. */
export function cornerBox(corner: CornerId): { xMm: number; yMm: number; wMm: number; hMm: number } {
  const right = corner === 'TR' || corner === 'BR';
  const bottom = corner === 'BR' || corner === 'BL';
  return {
    xMm: right ? CARD_WIDTH_MM - CORNER_REGION_MM : 0,
    yMm: bottom ? CARD_HEIGHT_MM - CORNER_REGION_MM : 0,
    wMm: CORNER_REGION_MM,
    hMm: CORNER_REGION_MM,
  };
}

/** Bounding box (mm) of an edge region (band without the corner squares). */
export function edgeBox(edge: EdgeId): { xMm: number; yMm: number; wMm: number; hMm: number } {
  switch (edge) {
    case 'top':
      return { xMm: CORNER_REGION_MM, yMm: 0, wMm: edgeLengthMm('top'), hMm: EDGE_BAND_MM };
    case 'bottom':
      return { xMm: CORNER_REGION_MM, yMm: CARD_HEIGHT_MM - EDGE_BAND_MM, wMm: edgeLengthMm('bottom'), hMm: EDGE_BAND_MM };
    case 'left':
      return { xMm: 0, yMm: CORNER_REGION_MM, wMm: EDGE_BAND_MM, hMm: edgeLengthMm('left') };
    case 'right':
      return { xMm: CARD_WIDTH_MM - EDGE_BAND_MM, yMm: CORNER_REGION_MM, wMm: EDGE_BAND_MM, hMm: edgeLengthMm('right') };
  }
}

/**
 * A side with no wear at all and the given borders (default: perfectly centred 3 mm borders).
 * Handy for the generator (start from mint, add damage) and for tests.
 */
export function mintSide(centering: CenteringMeasurement = { leftMm: 3, rightMm: 3, topMm: 3, bottomMm: 3 }): SideMeasurements {
  const corner = () => ({ whiteningAreaMm2: 0, roundingRadiusMm: 0, dingAreaMm2: 0 });
  const edge = () => ({ whitenedLengthMm: 0, maxDepthMm: 0, chipCount: 0 });
  return {
    corners: { TL: corner(), TR: corner(), BR: corner(), BL: corner() },
    edges: { top: edge(), right: edge(), bottom: edge(), left: edge() },
    surface: [],
    centering: { ...centering },
  };
}

/** A mint card (front and back). */
export function mintCard(): CardMeasurements {
  return { front: mintSide(), back: mintSide() };
}
