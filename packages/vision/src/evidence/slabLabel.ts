/**
 * The text of a graded slab's label. The grading company prints what it identified the card as (year, game and
 * set, number, name and variant) above the grade, so a slabbed card's label is the most legible identification
 * evidence in the photo; the catalog weighs it (services/valuation, read-evidence.ts).
 */
import { applyHomography, CANONICAL_PX_PER_MM, CARD_WIDTH_MM, multiplyHomography, warpPerspective, type Homography } from '../geometry/homography';
import type { SlabLabel } from '../geometry/holder';
import type { RgbImage } from '../image/types';
import type { OcrPool } from './ocr';
import { readLines } from './readLines';
import { findTextLines } from './textLines';

/** Beyond the card's width on each side, and beyond the label's found rows, that the crop also takes (mm). */
const MARGIN_MM = 3;
/** Lines read at most (a label has three to five). */
const MAX_LINES = 8;

/**
 * The label above the card (side `top`), rectified at the canonical 10 px/mm: the card's homography extended past
 * its top edge. null for a label beside a landscape card (not read yet).
 */
export function slabLabelImage(image: RgbImage, cardToImage: Homography, label: SlabLabel): RgbImage | null {
  if (label.side !== 'top') return null;
  const widthMm = CARD_WIDTH_MM + 2 * MARGIN_MM;
  const heightMm = label.toMm - label.fromMm + 2 * MARGIN_MM;
  // Output pixel (u, v) -> card mm (u / 10 - margin, v / 10 - toMm - margin) -> canonical card px.
  const shift = Float64Array.of(1, 0, -MARGIN_MM * CANONICAL_PX_PER_MM, 0, 1, -(label.toMm + MARGIN_MM) * CANONICAL_PX_PER_MM, 0, 0, 1);
  const toImage = multiplyHomography(cardToImage, shift);
  // Outside the photo on any corner: the crop would be partly fill, the label partly missing.
  const corners: [number, number][] = [[0, 0], [widthMm * CANONICAL_PX_PER_MM, 0], [0, heightMm * CANONICAL_PX_PER_MM], [widthMm * CANONICAL_PX_PER_MM, heightMm * CANONICAL_PX_PER_MM]];
  if (corners.some((c) => { const [x, y] = applyHomography(toImage, c); return x < 0 || y < 0 || x > image.width || y > image.height; })) return null;
  return warpPerspective(image, toImage, Math.round(widthMm * CANONICAL_PX_PER_MM), Math.round(heightMm * CANONICAL_PX_PER_MM), { fill: [255, 255, 255] });
}

/** The label's lines of text, top to bottom and left to right. */
export async function readSlabLabel(label: RgbImage, ocr: OcrPool): Promise<string[]> {
  const { lines } = findTextLines(label);
  const dark = lines.filter((l) => l.polarity === 'dark').sort((a, b) => b.glyphs - a.glyphs).slice(0, MAX_LINES);
  dark.sort((a, b) => (Math.abs(a.y0 - b.y0) > Math.min(a.glyphHeight, b.glyphHeight) / 2 ? a.y0 - b.y0 : a.x0 - b.x0));
  const reads = await readLines(label, dark, ocr);
  return reads.map((r) => r.text.trim()).filter((t) => t.length >= 2);
}
