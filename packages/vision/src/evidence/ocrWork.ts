// The identification OCR's work, bounded per analysis, deterministically: the same photo reads the same text on any
// machine and under any load. Tesseract's work on an image grows with two things we can count before calling it:
// the width of its text lines in glyph heights (ems: its LSTM reads every line scaled to a fixed height, column by
// column) and the ink blobs it must lay out and classify. A card's identifying text is a few short lines; a face
// packed with glyph-like marks (issue 49's poison photos) filled every searched line slot with full-width "text",
// was read again for each orientation and threshold, and had its number row read in eight ways, holding an engine
// process for ten to ninety seconds. The limits below lie well above what any real photo's reading takes, so they
// only ever cut such faces short; once one has, no other orientation or threshold of the side is tried.
import { components } from '../defects/raster';
import type { OcrLine, OcrPool, OcrRequest } from './ocr';
import type { TextLine } from './textLines';

/**
 * Ems of text lines the side readings may read in one analysis, front and back and every retry together. On the
 * real-photo set (`npm run bench:real`'s `ocrWork`: the 598 photos whose card is found) an analysis read a median
 * of 105 ems, 322 at the 99th percentile and 438 at most; card-synth's glyph-packed face asked for 856 ems a
 * reading, four readings: 3,426 ems and 10 s of tesseract on a two-core machine.
 */
export const OCR_WORK_LIMIT_EMS = 600;
/**
 * Ems one side reading (one tesseract call over a side's picked lines) may read. Real photos: a median of 56 in an
 * analysis's largest reading, 144 at the 99th percentile, 216 at most (a sports card's back).
 */
export const OCR_READING_LIMIT_EMS = 320;
/**
 * Ink blobs one tesseract call may be given. On the real-photo set: a median of 89 in an analysis's largest call,
 * 708 at the 99th percentile, 964 at most (a slab's number row). Glyph-packed faces with smaller marks gave 4,366
 * a call (6 s of tesseract), and 21,562 in a 12 MP photo (21 s a call, 95 s in all).
 */
export const OCR_BLOBS_PER_CALL = 1_500;
/**
 * Ink blobs all the tesseract calls of one analysis may be given together. Real photos: a median of 171, 2,450 at
 * the 99th percentile, 6,586 at most (a slab scan whose number row was read all eight ways).
 */
export const OCR_BLOBS_PER_ANALYSIS = 10_000;

/** What one analysis's identification OCR read (EvidenceResult.ocrWork). */
export interface OcrWork {
  ems: number;
  largestReadingEms: number;
  blobs: number;
  largestCallBlobs: number;
  capped: boolean;
}

/** A text line's width in glyph heights: what tesseract's work on it grows with. */
export function lineEms(line: TextLine): number {
  return (line.x1 - line.x0) / Math.max(4, line.glyphHeight);
}

/** What is left of one analysis's OCR allowance; shared by every reading of its sides. */
export class OcrAllowance {
  spentEms = 0;
  /** Ems of the largest side reading taken. */
  largestReadingEms = 0;
  spentBlobs = 0;
  /** Blobs of the largest call given to tesseract. */
  largestCallBlobs = 0;
  /** Some text was left unread for want of allowance. */
  capped = false;

  constructor(
    readonly limits = { ems: OCR_WORK_LIMIT_EMS, emsPerReading: OCR_READING_LIMIT_EMS, blobsPerCall: OCR_BLOBS_PER_CALL, blobs: OCR_BLOBS_PER_ANALYSIS },
  ) {}

  /**
   * The lines of one reading, taken in the order given (most telling first) while their ems fit in the reading's
   * limit and in what is left of the analysis's; the rest are left unread. Charges what it takes.
   */
  take(lines: TextLine[]): TextLine[] {
    const out: TextLine[] = [];
    let reading = 0;
    for (const line of lines) {
      const ems = lineEms(line);
      if (reading + ems > this.limits.emsPerReading || this.spentEms + ems > this.limits.ems) {
        this.capped = true;
        continue;
      }
      this.spentEms += ems;
      reading += ems;
      out.push(line);
    }
    this.largestReadingEms = Math.max(this.largestReadingEms, reading);
    return out;
  }

  /** What was read so far. */
  get work(): OcrWork {
    return { ems: this.spentEms, largestReadingEms: this.largestReadingEms, blobs: this.spentBlobs, largestCallBlobs: this.largestCallBlobs, capped: this.capped };
  }

  /**
   * The pool as this analysis may use it: a call whose image holds more ink blobs than one call may, or than are
   * left, is not made (it reads nothing); the others are charged their blobs.
   */
  bound(ocr: OcrPool): OcrPool {
    return {
      size: ocr.size,
      terminate: () => ocr.terminate(),
      recognize: async (req: OcrRequest): Promise<OcrLine[]> => {
        const blobs = inkBlobsOfPgm(req.image);
        if (blobs > this.limits.blobsPerCall || this.spentBlobs + blobs > this.limits.blobs) {
          this.capped = true;
          return [];
        }
        this.spentBlobs += blobs;
        this.largestCallBlobs = Math.max(this.largestCallBlobs, blobs);
        return ocr.recognize(req);
      },
    };
  }
}

/**
 * Ink blobs of a binary PGM (P5, 8-bit: what every reading here hands tesseract): 8-connected groups of pixels
 * darker than the image's Otsu threshold, as tesseract binarises it. Any other image counts as none.
 */
export function inkBlobsOfPgm(image: Buffer): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(image.subarray(0, 40).toString('latin1'));
  if (!header) return 0;
  const width = Number(header[1]);
  const height = Number(header[2]);
  const offset = header[0].length;
  if (image.length < offset + width * height) return 0;
  return inkBlobs(image.subarray(offset, offset + width * height), width, height);
}

/** 8-connected blobs of pixels below the image's Otsu threshold. */
export function inkBlobs(grey: Uint8Array, width: number, height: number): number {
  const threshold = otsu(grey);
  const ink = new Uint8Array(grey.length);
  for (let i = 0; i < grey.length; i++) ink[i] = grey[i]! < threshold ? 1 : 0;
  return components(ink, width, height).length;
}

/** Otsu's threshold of an 8-bit image: pixels below it are ink. */
function otsu(grey: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let i = 0; i < grey.length; i++) histogram[grey[i]!]!++;
  const total = grey.length;
  let sum = 0;
  for (let v = 0; v < 256; v++) sum += v * histogram[v]!;
  let sumBelow = 0;
  let below = 0;
  let best = 0;
  let threshold = 128;
  for (let v = 0; v < 256; v++) {
    below += histogram[v]!;
    if (below === 0) continue;
    const rest = total - below;
    if (rest === 0) break;
    sumBelow += v * histogram[v]!;
    const meanBelow = sumBelow / below;
    const meanRest = (sum - sumBelow) / rest;
    const between = below * rest * (meanBelow - meanRest) ** 2;
    if (between > best) {
      best = between;
      threshold = v + 1;
    }
  }
  return threshold;
}
