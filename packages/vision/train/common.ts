/**
 * Shared training utilities: runtime set-up (wasm + fast conv gradients), seeded PRNG, data cache, model saving.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelRuntime, DEFAULT_MODELS_DIR, type ModelRuntime, type Tf } from '../src/models/runtime';
import { registerFastWasmConvGrads } from './wasm-conv-grads';

export const TRAIN_DIR = path.dirname(fileURLToPath(import.meta.url));
export const CACHE_DIR = process.env.CARDLENS_TRAIN_CACHE ?? path.join(TRAIN_DIR, '.cache');
export const MODELS_DIR = DEFAULT_MODELS_DIR;

/** Training seeds of the generator are < 1_000_000; our validation range is 900_000-999_999. */
export const VALIDATION_SEED_START = 900_000;

export function log(msg: string, obj?: Record<string, unknown>): void {
  const t = new Date().toISOString().slice(11, 19);
  console.log(`[${t}] ${msg}${obj ? ' ' + JSON.stringify(obj) : ''}`);
}

export async function trainingRuntime(): Promise<ModelRuntime> {
  const runtime = await createModelRuntime({
    logger: { info: (o, m) => log(m ?? '', o as Record<string, unknown>), warn: (o, m) => log(m ?? '', o as Record<string, unknown>) },
  });
  if (runtime.backend === 'wasm') registerFastWasmConvGrads(runtime.tf);
  return runtime;
}

/** The training scripts' seeded stream (mulberry32, shared with the generator package). */
export { mulberry32 as rng } from '@cardlens/card-synth';

export function shuffled(n: number, rand: () => number): Int32Array {
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = idx[i]!;
    idx[i] = idx[j]!;
    idx[j] = t;
  }
  return idx;
}

export function parseArgs(defaults: Record<string, number | string>): Record<string, number | string> {
  const out = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const [k, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    const v = inline ?? argv[++i] ?? '';
    if (!(k in defaults)) throw new Error(`unknown option --${k} (known: ${Object.keys(defaults).join(', ')})`);
    out[k] = typeof defaults[k] === 'number' ? Number(v) : v;
  }
  return out;
}

/** Runs `work(i)` for i in [0, n) with at most `concurrency` in flight; results in order. */
export async function mapLimit<T>(n: number, concurrency: number, work: (i: number) => Promise<T>, onProgress?: (done: number) => void): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await work(i);
      done++;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return out;
}

/** A cached binary blob + JSON sidecar, keyed by a name that encodes everything the data depends on. */
export async function cached<T>(key: string, make: () => Promise<{ meta: T; data: Uint8Array }>): Promise<{ meta: T; data: Uint8Array }> {
  await mkdir(CACHE_DIR, { recursive: true });
  const bin = path.join(CACHE_DIR, `${key}.bin`);
  const json = path.join(CACHE_DIR, `${key}.json`);
  if (existsSync(bin) && existsSync(json)) {
    const data = new Uint8Array(await readFile(bin));
    return { meta: JSON.parse(await readFile(json, 'utf8')) as T, data };
  }
  const made = await make();
  await writeFile(bin, made.data);
  await writeFile(json, JSON.stringify(made.meta));
  return made;
}

/** Saves a layers model as model.json + weights.bin (the tfjs file format) with metadata. */
export async function saveModel(tf: Tf, model: import('@tensorflow/tfjs').LayersModel, name: string, metadata: Record<string, unknown>): Promise<{ dir: string; bytes: number }> {
  const dir = path.join(MODELS_DIR, name);
  await mkdir(dir, { recursive: true });
  let bytes = 0;
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      const weightData = artifacts.weightData as ArrayBuffer;
      const json = {
        format: 'layers-model',
        generatedBy: `TensorFlow.js tfjs-layers v${tf.version_layers}`,
        convertedBy: null,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: artifacts.weightSpecs }],
        userDefinedMetadata: metadata,
      };
      await writeFile(path.join(dir, 'weights.bin'), Buffer.from(weightData));
      await writeFile(path.join(dir, 'model.json'), JSON.stringify(json));
      bytes = weightData.byteLength;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON', weightDataBytes: bytes } };
    }),
  );
  return { dir, bytes };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[idx]!;
}

export const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
