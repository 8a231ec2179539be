/**
 * Output types of the condition measurements (corners, edges, surface, glare/finish).
 * The physical measurements themselves use the rubric's types (SideMeasurements etc.); these add where each
 * finding is, how sure the engine is, and a per-region feature vector for learned refinements.
 */
import type { CornerId, EdgeId, SurfaceDefectKind } from '@cardlens/grading-rubric';

export type FindingKind =
  | 'corner_whitening'
  | 'corner_rounding'
  | 'corner_ding'
  | 'edge_whitening'
  | 'edge_chip'
  | SurfaceDefectKind;

/** One measured finding with its place (mm on the rectified side, origin top-left) and physical size. */
export interface Finding {
  kind: FindingKind;
  /** 'top-left corner', 'bottom edge' or 'surface'. */
  location: string;
  region: 'corner' | 'edge' | 'surface';
  corner?: CornerId;
  edge?: EdgeId;
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
  lengthMm?: number;
  areaMm2?: number;
  depthMm?: number;
  radiusMm?: number;
  contrast?: number;
  /** 0..1: how sure the engine is that this is real damage (glare, texture and fit quality lower it). */
  confidence: number;
}

/** A bright, low-saturation, smooth region (light reflection), in mm. */
export interface GlareRegion {
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
  areaMm2: number;
}

export interface FinishCues {
  /** 0..1: strength of a foil/holo texture (colourful, high-frequency, oriented) inside the frame. */
  holo: number;
  /** 0..1: rainbow colour variation across the whole side, border included (refractor/prizm). */
  refractor: number;
  /** Fraction of the surface covered by oriented periodic texture that was excluded from line detection. */
  textureFraction: number;
}

/** Per-region features for a learned severity model (fixed order, see FEATURE_NAMES). */
export interface RegionFeatures {
  region: 'corner' | 'edge' | 'surface';
  id: CornerId | EdgeId | 'surface';
  values: number[];
}
