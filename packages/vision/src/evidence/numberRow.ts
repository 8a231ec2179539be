/**
 * The card's bottom strip read with tesseract's own page layout, for a trading card game card whose collector
 * number the line finder did not give. Recent Pokemon cards print the number between a regulation-mark box and a
 * set-code box (`G [PAL EN] 132/193 ◆`); the line finder joins the three into one line whose boxes, in the other
 * polarity, spoil its crop. Tesseract's layout analysis separates them, but two layouts (a block of lines, sparse
 * text) each misread some rows the other reads, so both readings are returned and the catalog keeps the one that
 * agrees with it (services/valuation, read-evidence.ts).
 */
import sharp from 'sharp';
import type { RgbImage } from '../image/types';
import { PSM, type OcrPool } from './ocr';
import { pgm } from './readLines';

/** The strip read, as fractions of the card height: every layout we know prints its number in it. */
export const NUMBER_ROW_BAND: [number, number] = [0.9, 0.995];
/** Upscale of the strip: the rectified card's 10 px per mm gives 1.5 mm print about 12 px, tesseract reads ~35. */
const SCALE = 3;
/** A collector number with its set total (`132/193`, `TG05/TG30`, `SV049/SV094`). */
const FRACTION = /(?<![A-Za-z0-9])([A-Z]{0,4}\d{1,4}[a-z]?)\s?\/\s?([A-Z]{0,4}\d{2,4})(?![A-Za-z0-9])/g;

/** The text of a side that says it is a trading card game card (whose layouts print a number on the bottom row). */
const TCG_WORDS = /\bHP\b|\d{2,3}\s?HP|pok[eé]mon|nintendo|creatures|game freak|weakness|resistance|retreat|illus\b/i;

export function looksLikeTcgCard(lines: readonly string[]): boolean {
  return lines.some((l) => TCG_WORDS.test(l));
}

/** Fractions read in the card's bottom strip, distinct, the block reading's first. */
export async function readNumberRow(card: RgbImage, ocr: OcrPool): Promise<string[]> {
  const top = Math.round(card.height * NUMBER_ROW_BAND[0]);
  const height = Math.round(card.height * NUMBER_ROW_BAND[1]) - top;
  const { data, info } = await sharp(Buffer.from(card.data.buffer, card.data.byteOffset, card.data.byteLength), { raw: { width: card.width, height: card.height, channels: 3 } })
    .extract({ left: 0, top, width: card.width, height })
    .resize({ width: card.width * SCALE, height: height * SCALE, kernel: 'cubic' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const image = pgm(info.width, info.height, new Uint8Array(data.buffer, data.byteOffset, info.width * info.height));
  const readings = await Promise.all([PSM.SINGLE_BLOCK, PSM.SPARSE_TEXT].map((psm) => ocr.recognize({ image, psm })));
  const out: string[] = [];
  for (const lines of readings) {
    for (const line of lines) {
      for (const m of line.text.matchAll(FRACTION)) {
        const text = `${m[1]}/${m[2]}`;
        if (!out.includes(text)) out.push(text);
      }
    }
  }
  return out;
}
