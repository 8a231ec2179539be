import sharp from 'sharp';

/** How a glyph-packed face is drawn: the photo's size and the marks' grid (px). */
export interface GlyphPackedOptions {
  width: number;
  height: number;
  /** Grid cell and the mark in it (px); every other mark is left out, pseudo-randomly. */
  cell: [number, number];
  mark: [number, number];
}

const DEFAULT: GlyphPackedOptions = { width: 1200, height: 1600, cell: [10, 14], mark: [6, 10] };

/**
 * Not a card photo for the engine's ground truth but a stress input for its budgets (issues 16 and 49): a plain card
 * on a grey background whose face is packed with glyph-sized marks (by default 6 x 10 px on a 10 x 14 px grid in a
 * 1200 x 1600 photo). The card is found at once; the identification evidence's OCR then has thousands of character
 * candidates to try, ten or more times a normal card's work. Other grids and photo sizes make the marks smaller
 * after rectification, which costs tesseract more per line (glyphPackedVariants). Deterministic: the same bytes
 * every time.
 */
export async function glyphDensePhoto(options: Partial<GlyphPackedOptions> = {}): Promise<Buffer> {
  const { width, height, cell, mark } = { ...DEFAULT, ...options };
  const pixels = Buffer.alloc(width * height, 90);
  // The card and its face, in the default photo's proportions (150..1050 x 200..1456 of 1200 x 1600).
  const [cx0, cx1, cy0, cy1] = [0.125 * width, 0.875 * width, 0.125 * height, 0.91 * height];
  const [fx0, fx1, fy0, fy1] = [cx0 + width / 30, cx1 - width / 30, cy0 + height / 40, cy1 - height / 40];
  for (let y = Math.round(cy0); y < Math.round(cy1); y++) {
    for (let x = Math.round(cx0); x < Math.round(cx1); x++) {
      const face = x > fx0 && x < fx1 && y > fy0 && y < fy1;
      const marked = x % cell[0] < mark[0] && y % cell[1] < mark[1] && ((x * 7 + y * 13) >> 2) % 2 === 0;
      pixels[y * width + x] = face && marked ? 0 : 245;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
}

/**
 * The glyph-packed faces the engine's OCR allowance is tested on, each a different way of making tesseract work:
 * the default (wide lines of glyph-sized marks), small marks (many more blobs per line), and the default grid in a
 * 3000 x 4000 photo (marks of a pixel or two once the card is rectified: ninety seconds of tesseract unbounded).
 */
export async function glyphPackedVariants(): Promise<{ name: string; photo: Buffer }[]> {
  return [
    { name: 'glyph-sized marks', photo: await glyphDensePhoto() },
    { name: 'small marks', photo: await glyphDensePhoto({ cell: [6, 9], mark: [4, 7] }) },
    { name: 'marks in a 12 MP photo', photo: await glyphDensePhoto({ width: 3000, height: 4000 }) },
  ];
}
