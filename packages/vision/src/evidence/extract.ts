// Identification evidence of a card from its rectified sides: OCR fields, art fingerprint, finish cues and
// border colour (cardlens.common.v1.IdentificationEvidence, plus borderColor). Matching against the catalog
// is the catalog's job; this only reports what the card shows.
import type { Quad, RgbImage } from '../image/types';
import { borderColour } from './borderColour';
import { finishCues, type FinishCue } from './cues';
import { finishFeatures, type FinishFeatures } from './finish';
import { fingerprint } from './fingerprint';
import { looksLikeTcgCard, readNumberRow, readNumberRowBeyondOutline } from './numberRow';
import type { OcrPool } from './ocr';
import { OcrAllowance, type OcrWork } from './ocrWork';
import { readSide, type SideText } from './readCard';
import { readSlabLabel } from './slabLabel';

export interface IdentificationEvidence {
  /** OCR of the card title / name. */
  titleText: string;
  /** Other lines of the side that could be its title, most title-like first. */
  titleAlternatives: string[];
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
  /** How the front was turned to read it (its text reads correctly after turning it so). */
  frontTurn: Turn;
  backTurn: Turn;
  finish: FinishFeatures;
  timingsMs: { ocrFront: number; ocrBack: number; fingerprint: number; finish: number };
  /**
   * The identification OCR's work (ocrWork.ts): ems of the side readings' text lines, ink blobs given to tesseract
   * in all and in its largest call, and whether the allowance left some text unread.
   */
  ocrWork: OcrWork;
}

export interface ExtractOptions {
  /** Read the back too when the front leaves the title, number or copyright empty (default true). */
  useBack?: boolean;
  /** Try the side turned by 180 degrees when its text reads poorly (default true). */
  tryUpsideDown?: boolean;
  /**
   * Sides whose outline does not have a card's proportions, so that the card may lie sideways in the rectified
   * image: these are tried by a quarter turn each way too, when they read poorly (default none).
   */
  mayLieSideways?: { front?: boolean; back?: boolean };
  /** The front's slab label, rectified (SideAnalysis.slabLabel), read as holderLabelText. */
  slabLabel?: RgbImage | null;
  /**
   * The photo the front was rectified from and its outline in it (SideAnalysis.photo): the number row is read
   * beyond the outline where the outline stops short of it.
   */
  frontPhoto?: { image: RgbImage; quad: Quad };
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

/** The image turned by a quarter turn, clockwise or not. */
export function rotateQuarter(img: RgbImage, clockwise: boolean): RgbImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const j = clockwise ? (x * h + (h - 1 - y)) * 3 : ((w - 1 - x) * h + y) * 3;
      const i = (y * w + x) * 3;
      out[j] = data[i]!;
      out[j + 1] = data[i + 1]!;
      out[j + 2] = data[i + 2]!;
    }
  }
  return { width: h, height: w, data: out };
}

/**
 * How well a side read: found fields first, then the confidence of its lines, each weighed by its letters, so that
 * one long line read cleanly (a title across a sideways card) outweighs many fragments of noise.
 */
function quality(t: SideText): number {
  const fields = Number(t.titleText.length >= 3) + Number(t.numberText.length >= 2) + Number(t.copyrightText.length >= 5);
  const letters = t.lines.map((l) => Math.max(1, (l.text.match(/\p{L}/gu) ?? []).length));
  const total = letters.reduce((a, b) => a + b, 0);
  const conf = total > 0 ? t.lines.reduce((s, l, i) => s + l.confidence * letters[i]!, 0) / total : 0;
  return fields + conf / 100;
}

/** How a side was read: as given, turned by 180 degrees, or by a quarter turn (then its text lies across the image). */
export type Turn = 'none' | 'half' | 'quarter';

async function readOriented(img: RgbImage, ocr: OcrPool, tryUpsideDown: boolean, tryQuarterTurns: boolean, allowance: OcrAllowance): Promise<{ text: SideText; turn: Turn; image: RgbImage }> {
  let best = { text: await readSide(img, ocr, allowance), turn: 'none' as Turn, image: img };
  // Two fields found: the text reads; only a side that reads poorly is tried the other way round.
  if (!tryUpsideDown || quality(best.text) >= 2) return best;
  const tries: [Turn, () => RgbImage][] = [['half', () => rotate180(img)]];
  // A card outlined with other proportions than a card's may lie sideways in its rectified outline.
  if (tryQuarterTurns) tries.push(['quarter', () => rotateQuarter(img, true)], ['quarter', () => rotateQuarter(img, false)]);
  for (const [turn, turned] of tries) {
    // A side already read only in part is not text a card is identified by: no other way round is tried.
    if (allowance.capped) break;
    const image = turned();
    const text = await readSide(image, ocr, allowance);
    if (quality(text) > quality(best.text) + 0.15) best = { text, turn, image };
    if (quality(best.text) >= 2) break;
  }
  return best;
}

/**
 * Evidence from the rectified front (and back, when given). `ocr` is a warm pool from createOcr(); with null
 * the text fields stay empty and only the visual evidence is computed.
 */
export async function extractEvidence(
  rectifiedFront: RgbImage,
  rectifiedBack: RgbImage | null | undefined,
  pool: OcrPool | null,
  options: ExtractOptions = {},
): Promise<EvidenceResult> {
  const tryUpsideDown = options.tryUpsideDown ?? true;
  let front = rectifiedFront;
  let frontTurn: Turn = 'none';
  let backTurn: Turn = 'none';
  let ocrFront = 0;
  let ocrBack = 0;
  const fields = { titleText: '', titleAlternatives: [] as string[], numberText: '', numberAlternatives: [] as string[], serialText: '', copyrightText: '', otherText: [] as string[], holderLabelText: [] as string[] };
  // Every reading within the analysis's OCR allowance (ocrWork.ts).
  const allowance = new OcrAllowance();
  const ocr = pool ? allowance.bound(pool) : null;
  // The label is read on the OCR pool's other workers while the front is.
  const labelReading = ocr && options.slabLabel ? readSlabLabel(options.slabLabel, ocr) : Promise.resolve([]);
  labelReading.catch(() => undefined);
  if (ocr) {
    let t = performance.now();
    const f = await readOriented(rectifiedFront, ocr, tryUpsideDown, options.mayLieSideways?.front ?? false, allowance);
    ocrFront = performance.now() - t;
    const text = f.text;
    front = f.image;
    frontTurn = f.turn;
    fields.titleText = text.titleText;
    fields.titleAlternatives = text.titleAlternatives;
    fields.numberText = text.numberText;
    fields.serialText = text.serialText;
    fields.copyrightText = text.copyrightText;
    fields.otherText.push(...text.otherText);
    const missing = !fields.titleText || !fields.numberText || !fields.copyrightText;
    if (rectifiedBack && missing && (options.useBack ?? true)) {
      t = performance.now();
      const b = await readOriented(rectifiedBack, ocr, tryUpsideDown, options.mayLieSideways?.back ?? false, allowance);
      ocrBack = performance.now() - t;
      backTurn = b.turn;
      if (!fields.titleText) [fields.titleText, fields.titleAlternatives] = [b.text.titleText, b.text.titleAlternatives];
      if (!fields.numberText) fields.numberText = b.text.numberText;
      if (!fields.copyrightText) fields.copyrightText = b.text.copyrightText;
      if (!fields.serialText) fields.serialText = b.text.serialText;
      fields.otherText.push(...b.text.otherText);
    }
    // A card game card's number the lines did not give: its bottom strip, read with tesseract's own layout, and
    // where that gives none, the strip continued beyond the outline (not for a quarter-turned side: its outline's
    // bottom is not the card's).
    if (!fields.numberText && looksLikeTcgCard([fields.titleText, fields.copyrightText, ...text.lines.map((l) => l.text)])) {
      t = performance.now();
      let readings = await readNumberRow(front, ocr);
      if (readings.length === 0 && options.frontPhoto && frontTurn !== 'quarter') readings = await readNumberRowBeyondOutline(options.frontPhoto.image, options.frontPhoto.quad, frontTurn === 'half', ocr);
      const [first, ...others] = readings;
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
    frontTurn,
    backTurn,
    finish,
    timingsMs: { ocrFront, ocrBack, fingerprint: fingerprintMs, finish: finishMs },
    ocrWork: allowance.work,
  };
}
