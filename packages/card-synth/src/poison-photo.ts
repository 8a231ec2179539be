import sharp from 'sharp';

/**
 * Not a card photo for the engine's ground truth but a stress input for its budgets (issue 16): a photo that
 * makes the engine work for many seconds: a plain card on a grey background whose face is packed
 * with glyph-sized marks (6 x 10 px on a 10 x 14 px grid). The card is found at once; the identification
 * evidence's OCR then has thousands of character candidates to try, ten or more times a normal card's work
 * (the class of photo behind issue 16's engine stalls). Deterministic: the same bytes every time.
 */
export async function glyphDensePhoto(): Promise<Buffer> {
  const width = 1200;
  const height = 1600;
  const pixels = Buffer.alloc(width * height, 90);
  for (let y = 200; y < 1456; y++) {
    for (let x = 150; x < 1050; x++) {
      const face = x > 190 && x < 1010 && y > 240 && y < 1416;
      const mark = x % 10 < 6 && y % 14 < 10 && ((x * 7 + y * 13) >> 2) % 2 === 0;
      pixels[y * width + x] = face && mark ? 0 : 245;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
}
