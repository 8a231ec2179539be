/**
 * Corner-model data: generator photos -> engine-style decode (EXIF applied) -> 128 x 128 letterbox + the true
 * quad in letterbox pixels. Cached per chunk of 50 seeds under train/.cache (git-ignored).
 *
 * Training photos are generated small (0.3 MP, card rendered at <= 5 px/mm) because a full 2-12 MP photo costs
 * ~6 s to generate here and the model only ever sees a 128 px letterbox; evaluation ('full') uses the
 * generator's default 2-12 MP photos decoded the way the engine does (to a ~512 px detection image).
 */
import { generateSample } from '@cardlens/card-synth';
import { decodeScaled, probeImage } from '../src/image/decode';
import { KEYPOINT_INPUT } from '../src/models/keypoints';
import { letterbox } from '../src/models/prep';
import type { Quad } from '../src/image/types';
import { cached, log, mapLimit } from './common';

export const KP_PHOTO_OPTIONS = { megapixels: 0.3, maxRenderPxPerMm: 5 } as const;
const CHUNK = 50;
const IMG_BYTES = KEYPOINT_INPUT * KEYPOINT_INPUT * 3;

export interface KeypointItem {
  seed: number;
  side: 'front' | 'back';
  /** True corners TL,TR,BR,BL in letterbox input px. */
  quadIn: number[];
  /** True corners in the original photo px, and its size (for error in % of the image). */
  quadPx: number[];
  widthPx: number;
  heightPx: number;
  tags: Record<string, boolean>;
}

export interface KeypointSet {
  items: KeypointItem[];
  images: Uint8Array; // items.length x 128 x 128 x 3
}

async function makeItems(seed: number, mode: 'small' | 'full'): Promise<{ items: KeypointItem[]; images: Uint8Array[] }> {
  const sample = await generateSample(seed, mode === 'small' ? { photo: KP_PHOTO_OPTIONS } : {});
  const items: KeypointItem[] = [];
  const images: Uint8Array[] = [];
  for (const side of ['front', 'back'] as const) {
    const bytes = side === 'front' ? sample.frontJpeg : sample.backJpeg;
    const info = await probeImage(bytes);
    // the engine's detection image: ~512 px long side
    const shrink = Math.max(1, Math.max(info.width, info.height) / 512);
    const dec = await decodeScaled(bytes, info, shrink);
    const lb = letterbox(dec.image, KEYPOINT_INPUT);
    const photo = sample.label.photo[side];
    const quad = photo.quadPx as unknown as Quad;
    const quadIn = quad.flatMap(([x, y]) => [(x / dec.scaleX) * lb.scaleX + lb.offX, (y / dec.scaleY) * lb.scaleY + lb.offY]);
    items.push({
      seed,
      side,
      quadIn,
      quadPx: quad.flat(),
      widthPx: info.width,
      heightPx: info.height,
      tags: { ...(photo.tags as unknown as Record<string, boolean>) },
    });
    images.push(lb.data);
  }
  return { items, images };
}

export async function keypointSet(from: number, count: number, mode: 'small' | 'full', concurrency = 2): Promise<KeypointSet> {
  const items: KeypointItem[] = [];
  const parts: Uint8Array[] = [];
  const t0 = performance.now();
  for (let c = from; c < from + count; c += CHUNK) {
    const n = Math.min(CHUNK, from + count - c);
    const key = `kp-${mode}-v1-${c}-${n}`;
    const chunk = await cached<KeypointItem[]>(key, async () => {
      const made = await mapLimit(n, concurrency, (i) => makeItems(c + i, mode));
      const data = new Uint8Array(made.reduce((s, m) => s + m.images.length, 0) * IMG_BYTES);
      let o = 0;
      for (const m of made)
        for (const img of m.images) {
          data.set(img, o);
          o += IMG_BYTES;
        }
      log(`generated ${key}`, { seconds: Math.round((performance.now() - t0) / 1000) });
      return { meta: made.flatMap((m) => m.items), data };
    });
    items.push(...chunk.meta);
    parts.push(chunk.data);
  }
  const images = new Uint8Array(items.length * IMG_BYTES);
  let o = 0;
  for (const p of parts) {
    images.set(p, o);
    o += p.length;
  }
  return { items, images };
}

// `tsx train/keypoint-data.ts <from> <count> <small|full>` pre-generates (and caches) a range.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [from, count, mode] = process.argv.slice(2);
  const t = performance.now();
  const set = await keypointSet(Number(from ?? 1), Number(count ?? 100), (mode as 'small' | 'full') ?? 'small');
  log('done', { images: set.items.length, seconds: Math.round((performance.now() - t) / 1000) });
}
