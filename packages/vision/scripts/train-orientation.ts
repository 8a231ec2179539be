// Trains the up/down orientation model (src/geometry/orientation.ts) and writes src/geometry/orientation-model.ts:
// on generated cards (pretraining), and with `--real` also on real photos of the sources the engine is tuned on
// (bench/real: manifest.split.tunedOn), whose hand labels (labels/labels-v1.json) say which way is up. The photos of
// held-out sources are never read here, so bench:real's held-out figures measure the model on photos it never saw.
// Deterministic: training seeds, augmentation and optimiser are all seeded.
//   npx tsx scripts/train-orientation.ts [count=1200] [firstSeed=1] [--real]
// --real needs the fetched photos (npm run real:fetch) and bench:real's per-photo table (bench/real/out/bench-real.tsv),
// which gives the engine's outline of each photo. Training seeds are in the generator's train split (1..999_999),
// never the eval seeds (>= 1_000_000).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderCardSides, Rng } from '@cardlens/card-synth';
import type { Quad, RgbImage } from '../src/image/types';
import { antisymmetric, orientationFeatures, orientationThumb, ORIENT_FEATURES, ORIENT_H, ORIENT_W } from '../src/geometry/orientation';
import { decodePhoto } from '../src/geometry/locate';
import { labelsById, loadLabels } from '../bench/real/labels';
import { loadRealSet, readRealImage, REAL_SET_DIR } from '../bench/real/real-set';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const count = Number(positional[0] ?? 1200);
const first = Number(positional[1] ?? 1);
const REAL = process.argv.includes('--real');
/** A real photo counts this many generated sides in the loss (they are few, and they are the truth). */
const REAL_WEIGHT = 2;
const REAL_AUGMENTATIONS = 3;
const rng = new Rng(20261121, 1);

function augment(src: Uint8Array, w: number, h: number): RgbImage {
  // uneven light (linear gain ramp in a random direction), haze, a glare blob, noise, +-1 px shift
  const out = new Uint8Array(w * h * 3);
  const ang = rng.range(0, Math.PI * 2);
  const amp = rng.chance(0.7) ? rng.range(0, 0.5) : 0;
  const haze = rng.chance(0.2) ? rng.range(0, 0.12) : 0;
  const glare = rng.chance(0.3) ? { x: rng.range(0, w), y: rng.range(0, h), r: rng.range(8, 40), s: rng.range(0.3, 1) } : null;
  const noise = rng.range(0, 6);
  const sx = rng.int(-1, 1);
  const sy = rng.int(-1, 1);
  const exposure = rng.range(0.8, 1.1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const xs = Math.min(w - 1, Math.max(0, x + sx));
      const ys = Math.min(h - 1, Math.max(0, y + sy));
      const u = ((x / w - 0.5) * Math.cos(ang) + (y / h - 0.5) * Math.sin(ang)) * amp;
      let g = exposure * (1 + u);
      let lift = haze;
      if (glare) {
        const d2 = ((x - glare.x) ** 2 + (y - glare.y) ** 2) / (glare.r * glare.r);
        lift += glare.s * Math.exp(-2 * d2);
      }
      for (let c = 0; c < 3; c++) {
        let v = src[(ys * w + xs) * 3 + c]! * g;
        v += (250 - v) * Math.min(1, lift);
        v += rng.normal() * noise;
        out[(y * w + x) * 3 + c] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
      g = 0;
    }
  }
  return { width: w, height: h, data: out };
}

const X: Float64Array[] = [];
for (let s = first; s < first + count; s++) {
  const sides = await renderCardSides(null, null, s, { pxPerMm: 2, background: [128, 128, 128] });
  for (const side of [sides.front, sides.back]) {
    if (side.width !== ORIENT_W || side.height !== ORIENT_H) throw new Error(`unexpected render size ${side.width}x${side.height}`);
    for (let a = 0; a < 2; a++) X.push(antisymmetric(orientationFeatures(augment(side.data, side.width, side.height))));
  }
  if ((s - first) % 100 === 0) console.log('rendered', s - first + 1, '/', count);
}
const weights: number[] = X.map(() => 1);
const realSources: string[] = [];
const realSource: string[] = X.map(() => 'generated');
if (REAL) {
  const manifest = JSON.parse(readFileSync(path.join(REAL_SET_DIR, 'manifest.json'), 'utf8')) as { split: { tunedOn: string[] } };
  const tunedOn = new Set(manifest.split.tunedOn);
  const labels = labelsById(loadLabels());
  const table = readFileSync(path.join(REAL_SET_DIR, 'out', 'bench-real.tsv'), 'utf8').trim().split('\n');
  const cols = table[0]!.split('\t');
  const at = (row: string[], name: string) => row[cols.indexOf(name)] ?? '';
  const byId = new Map(table.slice(1).map((line) => line.split('\t')).map((row) => [at(row, 'id'), row] as const));
  let used = 0;
  let skipped = 0;
  for (const card of loadRealSet()) {
    if (!tunedOn.has(card.front.repo)) continue;
    const label = labels.get(card.id);
    const row = byId.get(card.id);
    const bytes = readRealImage(card.front);
    if (!label || label.up === null || !row || !at(row, 'quadPx') || !bytes) continue;
    const engineUp = Number(at(row, 'engineUp'));
    const delta = (((label.up - engineUp) % 360) + 360) % 360;
    // The model decides up against upside down; a card read sideways (a horizontal card) says nothing about that.
    if (delta !== 0 && delta !== 180) {
      skipped++;
      continue;
    }
    const photo = await decodePhoto(bytes);
    const quadPx = JSON.parse(at(row, 'quadPx')) as Quad;
    const quad = quadPx.map(([x, y]) => [x / photo.scaleX, y / photo.scaleY]) as Quad;
    const thumb = orientationThumb(photo.work, quad);
    const sign = delta === 0 ? 1 : -1;
    for (let a = 0; a < REAL_AUGMENTATIONS; a++) {
      const d = antisymmetric(orientationFeatures(a === 0 ? thumb : augment(thumb.data, thumb.width, thumb.height)));
      X.push(d.map((x) => sign * x));
      weights.push(REAL_WEIGHT);
      realSource.push(card.front.repo);
    }
    used++;
  }
  realSources.push(...[...tunedOn].sort());
  console.log(`real photos: ${used} from the tuned-on sources (${skipped} read sideways, left out)`);
}

// logistic regression on d (label 1) and -d (label 0) <=> minimise sum log(1 + exp(-w.d)); L2 + Adam
const D = ORIENT_FEATURES;
const w = new Float64Array(D);
const m = new Float64Array(D);
const v = new Float64Array(D);
const lambda = 1e-3;
// The last 15 % of the generated sides are held out of the fit (a check on the generator's own data); real photos
// are all fitted (their held-out check is bench:real on the held-out sources).
const generated = realSource.filter((s) => s === 'generated').length;
const heldOutFrom = Math.floor(generated * 0.85);
const fitted = X.map((_, i) => i).filter((i) => i < heldOutFrom || i >= generated);
const totalWeight = fitted.reduce((a, i) => a + weights[i]!, 0);
for (let it = 1; it <= 600; it++) {
  const g = new Float64Array(D);
  for (const i of fitted) {
    const d = X[i]!;
    let z = 0;
    for (let k = 0; k < D; k++) z += w[k]! * d[k]!;
    const p = 1 / (1 + Math.exp(z)); // d loss / dz = -p
    for (let k = 0; k < D; k++) g[k]! -= (weights[i]! * p * d[k]!) / totalWeight;
  }
  for (let k = 0; k < D; k++) {
    const gk = g[k]! + lambda * w[k]!;
    m[k] = 0.9 * m[k]! + 0.1 * gk;
    v[k] = 0.999 * v[k]! + 0.001 * gk * gk;
    w[k]! -= (0.05 * (m[k]! / (1 - 0.9 ** it))) / (Math.sqrt(v[k]! / (1 - 0.999 ** it)) + 1e-8);
  }
  if (it % 100 === 0) {
    const acc = (from: number, to: number): number => {
      let ok = 0;
      for (let i = from; i < to; i++) {
        let z = 0;
        for (let k = 0; k < D; k++) z += w[k]! * X[i]![k]!;
        if (z > 0) ok++;
      }
      return ok / (to - from);
    };
    console.log(`iter ${it} generated: fitted acc ${acc(0, heldOutFrom).toFixed(4)}, held-out acc ${acc(heldOutFrom, generated).toFixed(4)}${X.length > generated ? `; real (fitted) acc ${acc(generated, X.length).toFixed(4)}` : ''}`);
  }
}
const realNote = REAL ? `, and the hand-labelled real photos of the tuned-on sources (${realSources.join(', ')}), ${REAL_AUGMENTATIONS} views each at weight ${REAL_WEIGHT}` : '';
const body = `// Generated by scripts/train-orientation.ts${REAL ? ' --real' : ''} (${count} cards from seed ${first}, both sides, 2 augmentations each${realNote}).
// Do not edit by hand; re-run the script to reproduce.
export const ORIENTATION_MODEL = {
  version: ${REAL ? 2 : 1},
  trainedOn: 'card-synth seeds ${first}..${first + count - 1}${REAL ? ' + real photos of the tuned-on sources (labels-v1)' : ''}',
  weights: [${Array.from(w, (x) => x.toFixed(5)).join(', ')}],
};
`;
writeFileSync(new URL('../src/geometry/orientation-model.ts', import.meta.url), body);
console.log('wrote src/geometry/orientation-model.ts');
