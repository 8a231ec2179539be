// @cardlens/vision: the grading engine, pure functions on image bytes.
export {
  analyzeSide,
  crossCheckSide,
  createCardEngine,
  gradeSides,
  ENGINE_VERSION,
  type AnalyzeOptions,
  type CardAnalysis,
  type CardEngine,
  type IdentificationEvidence,
  type SeverityCrossCheck,
  type SideAnalysis,
} from './engine';
export { IMAGE_LIMITS } from './image/decode';
export { PHOTO_SUPPORT_LIMITS, type PhotoSupport } from './photo-support';
export { renderOverlay, type OverlayInput } from './overlay';
export { FINGERPRINT_DIMS } from './evidence/fingerprint';
export { quadArea } from './geometry/quad';
