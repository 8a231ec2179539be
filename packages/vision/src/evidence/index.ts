// Identification evidence: OCR fields, art fingerprint, finish cues and border colour of a rectified card.
export { extractEvidence, rotate180, type IdentificationEvidence, type EvidenceResult, type ExtractOptions } from './extract';
export { createOcr, type OcrPool, type CreateOcrOptions, type OcrLine, type OcrRequest } from './ocr';
export { readSide, TEXT_BANDS, type SideText } from './readCard';
export { fingerprint, fingerprintSimilarity, FINGERPRINT_DIMS } from './fingerprint';
export { finishFeatures, type FinishFeatures } from './finish';
export { finishCues, type FinishCue } from './cues';
export { borderColour, nameColour, type BorderColour, type BorderColourResult } from './borderColour';
export { classifyLines, type OcrFields } from './fields';
export { findTextLines, type TextLine } from './textLines';
