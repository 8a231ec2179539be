// Messages between the inference service and its engine processes (advanced serialization: structured clone).
import type { AnalyzeOptions, CardAnalysis, SideAnalysis } from '@cardlens/vision';

export interface EngineRequest {
  id: number;
  input: { front: Uint8Array; back?: Uint8Array };
  options: AnalyzeOptions;
}

/** The part of a side's analysis the service answers with. */
export type SideSummary = Pick<SideAnalysis, 'quadPx' | 'imageSize' | 'detectionConfidence' | 'detector' | 'centering'>;

export interface AnalysisSummary {
  sides: { front: SideSummary; back?: SideSummary };
  grading: CardAnalysis['grading'];
  evidence?: CardAnalysis['evidence'];
  ocrWork?: CardAnalysis['ocrWork'];
  overlayPng?: Uint8Array;
}

export type EngineReply =
  | { type: 'ready'; backend: string; version: string; warmUpMs: number }
  | { type: 'result'; id: number; analysis: AnalysisSummary }
  | { type: 'error'; id: number; error: { code: string; detail: string } | { message: string } };
