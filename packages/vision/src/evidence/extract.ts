// Identification evidence of a card from its rectified sides: OCR fields, art fingerprint, finish cues and
// border colour (cardlens.common.v1.IdentificationEvidence, plus borderColor). Matching against the catalog
// is the catalog's job; this only reports what the card shows.
import type { RgbImage } from '../image/types';
import { borderColour } from './borderColour';
import { finishCues, type FinishCue } from './cues';
import { finishFeatures, type FinishFeatures } from './finish';
import { fingerprint } from './fingerprint';
import { looksLikeTcgCard, readNumberRow } from './numberRow';
import type { OcrPool } from './ocr';
import { readSide, type SideText } from './readCard';
import { readSlabLabel } from './slabLabel';

export interface IdentificationEvidence {
  /** OCR of the card title / name. */
  titleText: string;
  /** OCR of the card number, e.g. `4/102` or `#810`. */
  numberText: string;
  /** Other readings of the number, where the bottom strip read differently under another page layout (numberRow.ts). */
  numberAlternatives: string[];
  /** OCR of a serial numbering stamp, e.g. `023/199`. */
  serialText: string;
  /** OCR of the copyright / set line, e.g. `©1999 Wizards`. */
  copyrightText: string;
  /** Visual embedding of the front's art (FINGERPRINT_DIMS floats, L2-normalised; compare by dot product). */
  fingerprint: number[];
  /** Finish cues seen on the front: `holo`, `reverse_holo`, `refractor` (none for a plain card). */
  finishCues: FinishCue[];
  /** Other OCR text, reading order (front, then back). */
  otherText: string[];
  /** Border colour family of the front: white, yellow, silver, gold, red, blue, green, black, ... */
  borderColor: string;
  /** OCR of a graded slab's label (year, set, number, name, grade), top to bottom; empty when not in a slab. */
  holderLabelText: string[];
}

export interface EvidenceResult extends IdentificationEvidence {
  /** The front was read upside down (its text reads correctly after turning it by 180 degrees). */
  frontUpsideDown: boolean;
  backUpsideDown: boolean;
  finish: FinishFeatures;
  timingsMs: { ocrFront: number; ocrBack: number; fingerprint: number; finish: number; total: number };
}

export interface ExtractOptions {
  /** Read the back too when the front leaves the title, number or copyright empty (default true). */
  useBack?: boolean;
  /** Try the side turned by 180 degrees when its text reads poorly (default true). */
  tryUpsideDown?: boolean;
  /** The front's slab label, rectified (SideAnalysis.slabLabel), read as holderLabelText. */
  slabLabel?: RgbImage | null;
}

export function rotate180(img: RgbImage): RgbImage {
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  const d = img.data;
  for (let i = 0, j = (n - 1) * 3; i < n * 3; i += 3, j -= 3) {
    out[j] = d[i]!;
    out[j + 1] = d[i + 1]!;
    out[j + 2] = d[i + 2]!;
  }
  return { width: img.width, height: img.height, data: out };
}

/** How well a side read: found fields first, then the confidence of its lines. */
function quality(t: SideText): number {
  const fields = Number(t.titleText.length >= 3) + Number(t.numberText.length >= 2) + Number(t.copyrightText.length >= 5);
  const conf = t.lines.length > 0 ? t.lines.reduce((s, l) => s + l.confidence, 0) / t.lines.length : 0;
  return fields + conf / 100;
}

async function readOriented(img: RgbImage, ocr: OcrPool, tryUpsideDown: boolean): Promise<{ text: SideText; upsideDown: boolean; image: RgbImage }> {
  const upright = await readSide(img, ocr);
  const q = quality(upright);
  // Two fields found: the text reads; only a side that reads poorly is tried the other way round.
  if (!tryUpsideDown || q >= 2) return { text: upright, upsideDown: false, image: img };
  const turned = rotate180(img);
  const other = await readSide(turned, ocr);
  return quality(other) > q + 0.15 ? { text: other, upsideDown: true, image: turned } : { text: upright, upsideDown: false, image: img };
}

/**
 * Evidence from the rectified front (and back, when given). `ocr` is a warm pool from createOcr(); with null
 * the text fields stay empty and only the visual evidence is computed.
 */
export async function extractEvidence(
  rectifiedFront: RgbImage,
  rectifiedBack: RgbImage | null | undefined,
  ocr: OcrPool | null,
  options: ExtractOptions = {},
): Promise<EvidenceResult> {
  const t0 = performance.now();
  const tryUpsideDown = options.tryUpsideDown ?? true;
  let front = rectifiedFront;
  let frontUpsideDown = false;
  let backUpsideDown = false;
  let ocrFront = 0;
  let ocrBack = 0;
  const fields = { titleText: '', numberText: '', numberAlternatives: [] as string[], serialText: '', copyrightText: '', otherText: [] as string[], holderLabelText: [] as string[] };
  // The label is read on the OCR pool's other workers while the front is.
  const labelReading = ocr && options.slabLabel ? readSlabLabel(options.slabLabel, ocr) : Promise.resolve([]);
  labelReading.catch(() => undefined);
  if (ocr) {
    let t = performance.now();
    const f = await readOriented(rectifiedFront, ocr, tryUpsideDown);
    ocrFront = performance.now() - t;
    const text = f.text;
    front = f.image;
    frontUpsideDown = f.upsideDown;
    fields.titleText = text.titleText;
    fields.numberText = text.numberText;
    fields.serialText = text.serialText;
    fields.copyrightText = text.copyrightText;
    fields.otherText.push(...text.otherText);
    const missing = !fields.titleText || !fields.numberText || !fields.copyrightText;
    if (rectifiedBack && missing && (options.useBack ?? true)) {
      t = performance.now();
      const b = await readOriented(rectifiedBack, ocr, tryUpsideDown);
      ocrBack = performance.now() - t;
      backUpsideDown = b.upsideDown;
      if (!fields.titleText) fields.titleText = b.text.titleText;
      if (!fields.numberText) fields.numberText = b.text.numberText;
      if (!fields.copyrightText) fields.copyrightText = b.text.copyrightText;
      if (!fields.serialText) fields.serialText = b.text.serialText;
      fields.otherText.push(...b.text.otherText);
    }
    // A card game card's number the lines did not give: its bottom strip, read with tesseract's own layout.
    if (!fields.numberText && looksLikeTcgCard([fields.titleText, fields.copyrightText, ...text.lines.map((l) => l.text)])) {
      t = performance.now();
      const [first, ...others] = await readNumberRow(front, ocr);
      ocrFront += performance.now() - t;
      fields.numberText = first ?? '';
      fields.numberAlternatives = others;
    }
  }
  fields.holderLabelText = await labelReading;
  let t = performance.now();
  const fp = fingerprint(front);
  const fingerprintMs = performance.now() - t;
  t = performance.now();
  const finish = finishFeatures(front);
  const cues = finishCues(finish);
  const border = borderColour(front);
  const finishMs = performance.now() - t;
  return {
    ...fields,
    fingerprint: fp,
    finishCues: cues,
    borderColor: border.colour,
    frontUpsideDown,
    backUpsideDown,
    finish,
    timingsMs: { ocrFront, ocrBack, fingerprint: fingerprintMs, finish: finishMs, total: performance.now() - t0 },
  };
}
