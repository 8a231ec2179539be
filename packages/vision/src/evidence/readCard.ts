// OCR of one rectified side: find text lines in the top and bottom bands of the card (where every layout we
// know prints its identifying text), read them in one tesseract call, re-read number-like lines with a digit
// whitelist, and classify the result into fields.
import type { RgbImage } from '../image/types';
import { classifyLines, isTitleLike, type OcrFields } from './fields';
import type { OcrPool } from './ocr';
import { OcrAllowance } from './ocrWork';
import { readLineRestricted, readLines, type ReadLine } from './readLines';
import { findTextLines, hasGrainyBand, type TextLine, type TextMaps } from './textLines';

export interface SideText extends OcrFields {
  lines: ReadLine[];
  timingsMs: { find: number; ocr: number };
}

/** Bands searched for text, as fractions of the card height (top: name/number rows, bottom: plate/legal rows). */
export const TEXT_BANDS: [number, number][] = [
  [0.015, 0.19],
  [0.735, 0.995],
];

/**
 * The same bands for a side that may be upside down (the layout model may have turned the card): each band joined
 * with the other band turned over, 0.005-0.265 and 0.735-0.995. The surface step masks the text lines found there.
 */
export const TEXT_BANDS_EITHER_WAY_UP: [number, number][] = TEXT_BANDS.map(([a, b], i) => {
  const [c, d] = TEXT_BANDS[TEXT_BANDS.length - 1 - i]!;
  return [Math.min(a, 1 - d), Math.max(b, 1 - c)];
});

const MIN_GLYPH_PX = 8;
const MAX_LINES_PER_BAND = 6;
const NUMBER_WHITELIST = '0123456789/#';

/**
 * The lines to read, most telling first: each band's lines nearest the card's outer edge (top band: from the top;
 * bottom band: from the bottom), the bands taken in turn. Read in reading order (byReadingOrder).
 */
function pickLines(lines: TextLine[], height: number): TextLine[] {
  const bands = TEXT_BANDS.map(([a, b], i) => {
    const y0 = a * height;
    const y1 = b * height;
    const inBand = lines.filter((l) => l.glyphHeight >= MIN_GLYPH_PX && (l.y0 + l.y1) / 2 >= y0 && (l.y0 + l.y1) / 2 < y1);
    inBand.sort((p, q) => (i === 0 ? p.y0 - q.y0 : q.y1 - p.y1));
    return inBand.slice(0, MAX_LINES_PER_BAND);
  });
  const out: TextLine[] = [];
  for (let k = 0; k < MAX_LINES_PER_BAND; k++) for (const band of bands) if (band[k]) out.push(band[k]!);
  return out;
}

const byReadingOrder = (p: TextLine, q: TextLine) => p.y0 - q.y0 || p.x0 - q.x0;

/**
 * Reads a side's text. On a grainy photo whose title did not read (none, or a sentence), the lines are found again
 * with the grainy threshold (findTextLines' `grainy`) and that reading is taken where it gives a title, with the
 * first reading's number, serial and copyright where it has none (not once the OCR allowance has cut a reading).
 */
export async function readSide(img: RgbImage, ocr: OcrPool, allowance = new OcrAllowance()): Promise<SideText> {
  const first = await readOnce(img, ocr, false, allowance);
  if (isTitleLike(first.text.titleText) || !hasGrainyBand(first.maps) || allowance.capped) return first.text;
  const second = await readOnce(img, ocr, true, allowance);
  const timingsMs = { find: first.text.timingsMs.find + second.text.timingsMs.find, ocr: first.text.timingsMs.ocr + second.text.timingsMs.ocr };
  if (!isTitleLike(second.text.titleText)) return { ...first.text, timingsMs };
  const s = second.text;
  return {
    ...s,
    numberText: s.numberText || first.text.numberText,
    serialText: s.serialText || first.text.serialText,
    copyrightText: s.copyrightText || first.text.copyrightText,
    timingsMs,
  };
}

async function readOnce(img: RgbImage, ocr: OcrPool, grainy: boolean, allowance: OcrAllowance): Promise<{ text: SideText; maps: TextMaps[] }> {
  let t = performance.now();
  const h = img.height;
  const { lines, maps } = findTextLines(img, { bands: TEXT_BANDS.map(([a, b]) => [a * h, b * h]), grainy });
  // Within the analysis's OCR allowance (ocrWork.ts): a face packed with glyph-like marks is read only in part.
  const picked = allowance.take(pickLines(lines, h)).sort(byReadingOrder);
  const find = performance.now() - t;
  t = performance.now();
  const reads = await readLines(img, picked, ocr);
  // Number-like lines whose first reading is not clean: read again with digits, '/' and '#' only.
  const again = reads.filter((r) => /[#/]/.test(r.text) && /\d/.test(r.text) && r.text.length <= 12 && (r.confidence < 85 || /[^\d/#\s]/.test(r.text)) && !/[A-Za-z]{2,}|-/.test(r.text));
  const fixed = await Promise.all(again.map((r) => readLineRestricted(img, r.line, ocr, NUMBER_WHITELIST)));
  // (Tesseract reports no usable confidence under a whitelist; the re-read is taken when it is a clean number
  // and the first reading only differs by digit look-alikes or trailing marks.)
  fixed.forEach((f, i) => {
    const r = again[i]!;
    const clean = f.text.replace(/\s+/g, '');
    if (!/^#?\d{1,4}(\/\d{1,4})?$/.test(clean)) return;
    // The first reading without trailing marks (rarity symbols read as `@`, `®`...).
    const core = r.text.replace(/\s+[^\s]{1,2}$/, '').replace(/\s+/g, '');
    if (core.length !== clean.length) return;
    for (let k = 0; k < core.length; k++) {
      const a = core[k]!;
      const b = clean[k]!;
      if (a !== b && !(/\d/.test(b) && /[OoDQlI|i!LZzSsBgqGb\d]/.test(a))) return;
    }
    r.text = clean;
    r.confidence = Math.max(r.confidence, 60);
  });
  const ocrMs = performance.now() - t;
  const fields = classifyLines(reads, h);
  return { text: { ...fields, lines: reads, timingsMs: { find, ocr: ocrMs } }, maps };
}
