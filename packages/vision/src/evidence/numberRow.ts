/**
 * The card's bottom strip read with tesseract's own page layout, for a trading card game card whose collector
 * number the line finder did not give. Recent Pokemon cards print the number between a regulation-mark box and a
 * set-code box (`G [PAL EN] 132/193 ◆`); the line finder joins the three into one line whose boxes, in the other
 * polarity, spoil its crop. Tesseract's layout analysis separates them, but two layouts (a block of lines, sparse
 * text) each misread some rows the other reads, so both readings are returned and the catalog keeps the one that
 * agrees with it (services/valuation, read-evidence.ts). Where the strip gives none, it is read in its brightest
 * channel (readFractions), and then continued beyond an outline that may have cut it (readNumberRowBeyondOutline).
 */
import sharp from 'sharp';
import { CANONICAL_HEIGHT, CANONICAL_WIDTH, homographyFromCanonical, multiplyHomography, warpPerspective } from '../geometry/homography';
import type { Quad, RgbImage } from '../image/types';
import { PSM, type OcrPool } from './ocr';
import { pgm } from './readLines';

/** The strip read, as fractions of the card height: every layout we know prints its number in it. */
export const NUMBER_ROW_BAND: [number, number] = [0.9, 0.995];
/**
 * How far below the outline's bottom edge (fractions of its height) the strip is read again where the outline's
 * own strip gives no number: on silver-bordered cards the outline can stop at the inner frame or at the rule above
 * the weakness row (a Sprigatito held in the hand was outlined to 0.86 of its height, a Skiploom to the middle of its
 * number row), and the number row lies beyond it. Down to 0.16 of the outline reaches the row of such a card and
 * only the table or the top of a neighbouring card's art beyond a whole one.
 */
export const BEYOND_OUTLINE_BAND: [number, number] = [0.9, 1.16];
/** Upscale of the strip: the rectified card's 10 px per mm gives 1.5 mm print about 12 px, tesseract reads ~35. */
const SCALE = 3;
/** A collector number with its set total (`132/193`, `TG05/TG30`, `SV049/SV094`). */
const FRACTION = /(?<![A-Za-z0-9])([A-Z]{0,4}\d{1,4}[a-z]?)\s?\/\s?([A-Z]{0,4}\d{2,4})(?![A-Za-z0-9])/g;
/**
 * A three-digit number and set total whose slash was read as a 7 or a 1 (`0127193` for a Sprigatito's `012/193`): the
 * small italic slash of recent Pokemon cards is read so in the sparse layout. Only the catalog can tell such a reading
 * from a number, so it is passed on after the clean readings.
 */
const SLASH_READ_AS_DIGIT = /(?<![A-Za-z0-9])(\d{3})[71](\d{3})(?![A-Za-z0-9])/g;

/** The text of a side that says it is a trading card game card (whose layouts print a number on the bottom row). */
const TCG_WORDS = /\bHP\b|\d{2,3}\s?HP|pok[eé]mon|nintendo|creatures|game freak|weakness|resistance|retreat|\b\S?llus\b|\b(?:deck|damage|energy|opponent|your hand)\b/i;

export function looksLikeTcgCard(lines: readonly string[]): boolean {
  return lines.some((l) => TCG_WORDS.test(l));
}

/** Fractions read in the card's bottom strip, distinct, the block reading's first. */
export async function readNumberRow(card: RgbImage, ocr: OcrPool): Promise<string[]> {
  const top = Math.round(card.height * NUMBER_ROW_BAND[0]);
  const height = Math.round(card.height * NUMBER_ROW_BAND[1]) - top;
  return readFractions(card, { left: 0, top, width: card.width, height }, ocr);
}

/**
 * The card's bottom strip continued beyond its outline (BEYOND_OUTLINE_BAND), warped from the photo the outline was
 * found in (`quad`: TL, TR, BR, BL of the outline as read, in `photo`'s pixels; `upsideDown`: the card was read
 * turned, so its bottom is the outline's top). Fractions read in it, as readNumberRow.
 */
export async function readNumberRowBeyondOutline(photo: RgbImage, quad: Quad, upsideDown: boolean, ocr: OcrPool): Promise<string[]> {
  const [from, to] = BEYOND_OUTLINE_BAND;
  const height = Math.round((to - from) * CANONICAL_HEIGHT);
  // Canonical rows `from`..`to` of the outline (or, upside down, `1 - to`..`1 - from` turned by 180 degrees).
  const y0 = (upsideDown ? 1 - to : from) * CANONICAL_HEIGHT;
  const shift = upsideDown
    ? Float64Array.of(-1, 0, CANONICAL_WIDTH, 0, -1, y0 + height, 0, 0, 1)
    : Float64Array.of(1, 0, 0, 0, 1, y0, 0, 0, 1);
  const strip = warpPerspective(photo, multiplyHomography(homographyFromCanonical(quad), shift), CANONICAL_WIDTH, height, { fill: [128, 128, 128] });
  return readFractions(strip, { left: 0, top: 0, width: strip.width, height }, ocr);
}

/**
 * Fractions read in a region of `card`, scaled ×SCALE: in its luminance first, and where that gives none, in each
 * pixel's brightest channel, which makes a coloured ground as light as a white one so that dark print on it stands
 * out (the Glaceon's dark `054/167` on the light blue of its water-type frame reads only so).
 */
async function readFractions(card: RgbImage, region: { left: number; top: number; width: number; height: number }, ocr: OcrPool): Promise<string[]> {
  const scaled = sharp(Buffer.from(card.data.buffer, card.data.byteOffset, card.data.byteLength), { raw: { width: card.width, height: card.height, channels: 3 } })
    .extract(region)
    .resize({ width: region.width * SCALE, height: region.height * SCALE, kernel: 'cubic' });
  const luma = await scaled.clone().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  const { width, height } = luma.info;
  const found = await fractionsIn(pgm(width, height, new Uint8Array(luma.data.buffer, luma.data.byteOffset, width * height)), ocr);
  if (found.length > 0) return found;
  const rgb = await scaled.clone().raw().toBuffer();
  const brightest = new Uint8Array(width * height);
  for (let i = 0; i < brightest.length; i++) brightest[i] = Math.max(rgb[3 * i]!, rgb[3 * i + 1]!, rgb[3 * i + 2]!);
  return fractionsIn(pgm(width, height, brightest), ocr);
}

/** Fractions read in a grey image under both page layouts, distinct, the block reading's first. */
async function fractionsIn(image: Buffer, ocr: OcrPool): Promise<string[]> {
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
  // Readings whose slash was read as a digit come after every clean one.
  for (const line of readings.flat()) {
    for (const m of line.text.matchAll(SLASH_READ_AS_DIGIT)) {
      const text = `${m[1]}/${m[2]}`;
      if (!out.includes(text)) out.push(text);
    }
  }
  return out;
}
