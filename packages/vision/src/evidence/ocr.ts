// Offline OCR: a small pool of long-lived tesseract.js workers (LSTM only, English data from
// @tesseract.js-data/eng on the local disk, never a CDN). Created once at warm-up, reused for every card.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/** The English traineddata package (CommonJS; it ships no types): its directory on the local disk. */
const eng = createRequire(import.meta.url)('@tesseract.js-data/eng') as { code: string; gzip: boolean; langPath: string };

export { PSM };

export interface OcrWord {
  text: string;
  /** 0-100 (tesseract's word confidence). */
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrLine {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
  words: OcrWord[];
}

export interface OcrRequest {
  /** PNG (or JPEG) bytes of the image to read. */
  image: Buffer;
  /** Tesseract page segmentation mode; default SINGLE_BLOCK. */
  psm?: PSM;
  /** Restrict recognised characters (e.g. digits, '/' and '#' for numbers). */
  whitelist?: string;
}

export interface OcrPool {
  /** Number of workers in the pool. */
  readonly size: number;
  /** Reads the text lines of one image (queued until a worker is free). */
  recognize(req: OcrRequest): Promise<OcrLine[]>;
  terminate(): Promise<void>;
}

export interface CreateOcrOptions {
  /** Workers in the pool: 1 or 2 (default: 2 when the machine has 2+ cores, else 1). */
  workers?: number;
  /** Traineddata directory (default: @tesseract.js-data/eng's). */
  langPath?: string;
}

interface PageLike {
  text?: string;
  confidence?: number;
  blocks?: { paragraphs: { lines: OcrLine[] }[] }[] | null;
}

function linesOf(page: PageLike): OcrLine[] {
  const out: OcrLine[] = [];
  for (const b of page.blocks ?? []) {
    for (const p of b.paragraphs) {
      for (const l of p.lines) {
        out.push({
          text: l.text.trim(),
          confidence: l.confidence,
          bbox: l.bbox,
          words: l.words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: w.bbox })),
        });
      }
    }
  }
  return out.filter((l) => l.text.length > 0);
}

// A tiny white image with a word: the first recognise call of a worker pays a one-off set-up cost
// (about 0.3-0.5 s), so warm-up does it instead of the first card.
const WARMUP_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60"><rect width="240" height="60" fill="#fff"/>' +
    '<text x="10" y="42" font-family="DejaVu Sans" font-size="30">Warm 4/102</text></svg>',
);

export async function createOcr(options: CreateOcrOptions = {}): Promise<OcrPool> {
  const size = Math.max(1, Math.min(2, options.workers ?? (availableParallelism() >= 2 ? 2 : 1)));
  const langPath = options.langPath ?? eng.langPath;
  const workers: Worker[] = await Promise.all(
    Array.from({ length: size }, () =>
      createWorker(eng.code, OEM.LSTM_ONLY, { langPath, gzip: eng.gzip, cacheMethod: 'none' }),
    ),
  );
  const { default: sharp } = await import('sharp');
  const warm = await sharp(WARMUP_SVG).png().toBuffer();
  await Promise.all(workers.map((w) => w.recognize(warm)));

  const idle: Worker[] = [...workers];
  const waiting: ((w: Worker) => void)[] = [];
  let closed = false;

  const acquire = (): Promise<Worker> => {
    const w = idle.pop();
    if (w) return Promise.resolve(w);
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (w: Worker): void => {
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };

  return {
    size,
    async recognize(req: OcrRequest): Promise<OcrLine[]> {
      if (closed) throw new Error('OCR pool terminated');
      const w = await acquire();
      try {
        // Parameters given per call are set for this call only and restored afterwards by tesseract.js.
        const params: Record<string, string> = {
          tessedit_pageseg_mode: req.psm ?? PSM.SINGLE_BLOCK,
          tessedit_char_whitelist: req.whitelist ?? '',
          // Composite pages carry no resolution; glyphs are scaled to ~30 px, i.e. ~10 pt at 300 dpi.
          user_defined_dpi: '300',
        };
        const r = await w.recognize(req.image, params as never, { text: false, blocks: true });
        return linesOf(r.data as PageLike);
      } finally {
        release(w);
      }
    },
    async terminate(): Promise<void> {
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
