/**
 * TensorFlow.js model runtime: picks the fastest backend that loads, once per process, and loads the committed
 * layers models from packages/vision/models/<name>/ without any network access.
 *
 * Backend order: @tensorflow/tfjs-node-gpu (GPU image) -> @tensorflow/tfjs-node -> @tensorflow/tfjs + wasm
 * (XNNPACK, SIMD; what runs on the 2-core dev/CI machines) -> @tensorflow/tfjs pure-JS cpu (last resort, ~30x
 * slower than wasm). The native packages are optional: they are imported dynamically and a failed import (not
 * installed, or libtensorflow missing) falls through to the next one.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TF from '@tensorflow/tfjs';

export type Tf = typeof TF;
export type BackendName = 'tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'cpu';
export type LayersModel = TF.LayersModel;

/** The part of a pino logger the runtime uses. */
export interface RuntimeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ModelRuntime {
  backend: BackendName;
  tf: Tf;
  /** Loads (once, then cached) the layers model committed in packages/vision/models/<name>/model.json. */
  loadModel(name: string): Promise<LayersModel>;
  /** The userDefinedMetadata saved with a model (preprocessing parameters, training provenance). */
  modelMetadata(name: string): Promise<Record<string, unknown>>;
}

export interface RuntimeOptions {
  logger?: RuntimeLogger;
  /**
   * Backends to try, in order. Default: tfjs-node-gpu, tfjs-node, wasm, cpu. The env var CARDLENS_TF_BACKEND
   * (one of the names) forces a single backend, falling back to cpu when it cannot load.
   */
  prefer?: readonly BackendName[];
  /** Directory holding <name>/model.json. Default: packages/vision/models. */
  modelsDir?: string;
}

export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../models/', import.meta.url));
const DEFAULT_ORDER: readonly BackendName[] = ['tfjs-node-gpu', 'tfjs-node', 'wasm', 'cpu'];

interface Selected {
  backend: BackendName;
  tf: Tf;
  reasons: Record<string, string>;
}

let selection: Promise<Selected> | null = null;

/** Imports a module by a computed name so that bundlers and tsc do not require optional packages. */
async function importOptional(specifier: string): Promise<unknown> {
  return import(/* webpackIgnore: true */ specifier);
}

/** Directory of tfjs-backend-wasm.wasm (with a trailing separator), resolved from node_modules. */
export function wasmBinaryDir(): string {
  const require = createRequire(import.meta.url);
  const wasmFile = require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm');
  return path.dirname(wasmFile) + path.sep;
}

async function tryBackend(name: BackendName): Promise<Tf> {
  switch (name) {
    case 'tfjs-node-gpu':
    case 'tfjs-node': {
      // The native packages re-export the whole @tensorflow/tfjs API and register the 'tensorflow' backend.
      const mod = (await importOptional(`@tensorflow/${name}`)) as Partial<Tf> & { default?: Tf };
      const tf = (typeof mod.setBackend === 'function' ? mod : mod.default) as Tf;
      if (!(await tf.setBackend('tensorflow'))) throw new Error('tensorflow backend did not initialise');
      await tf.ready();
      return tf;
    }
    case 'wasm': {
      const tf = await import('@tensorflow/tfjs');
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      wasm.setWasmPaths(wasmBinaryDir());
      if (!(await tf.setBackend('wasm'))) throw new Error('wasm backend did not initialise');
      await tf.ready();
      return tf;
    }
    case 'cpu': {
      const tf = await import('@tensorflow/tfjs');
      if (!(await tf.setBackend('cpu'))) throw new Error('cpu backend did not initialise');
      await tf.ready();
      return tf;
    }
  }
}

function isBackendName(v: string | undefined): v is BackendName {
  return v !== undefined && (DEFAULT_ORDER as readonly string[]).includes(v);
}

async function select(order: readonly BackendName[]): Promise<Selected> {
  const reasons: Record<string, string> = {};
  for (const name of order) {
    try {
      const tf = await tryBackend(name);
      return { backend: name, tf, reasons };
    } catch (err) {
      reasons[name] = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
    }
  }
  throw new Error(`no TensorFlow.js backend could be initialised: ${JSON.stringify(reasons)}`);
}

/**
 * The backend is chosen once per process (TensorFlow.js keeps one global engine); later calls reuse it, so the
 * first caller's `prefer` wins.
 */
export async function createModelRuntime(options: RuntimeOptions = {}): Promise<ModelRuntime> {
  let fresh = false;
  if (!selection) {
    fresh = true;
    const forced = process.env.CARDLENS_TF_BACKEND;
    const order = isBackendName(forced) ? [forced, 'cpu' as const] : (options.prefer ?? DEFAULT_ORDER);
    selection = select(order);
    selection.catch(() => {
      selection = null;
    });
  }
  const { backend, tf, reasons } = await selection;
  if (fresh) {
    options.logger?.info({ backend, tfVersion: tf.version?.['tfjs-core'], skipped: reasons }, `tfjs backend: ${backend}`);
    if (backend === 'cpu') options.logger?.warn({ backend }, 'tfjs is running on the pure-JS cpu backend (slow)');
  }

  const modelsDir = options.modelsDir ?? DEFAULT_MODELS_DIR;
  const models = new Map<string, Promise<{ model: LayersModel; meta: Record<string, unknown> }>>();
  const load = (name: string) => {
    let p = models.get(name);
    if (!p) {
      p = loadLayersModelFromDir(tf, path.join(modelsDir, name));
      models.set(name, p);
      p.catch(() => models.delete(name));
    }
    return p;
  };
  return {
    backend,
    tf,
    loadModel: async (name) => (await load(name)).model,
    modelMetadata: async (name) => (await load(name)).meta,
  };
}

interface ModelJson {
  modelTopology: object;
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
  weightsManifest: { paths: string[]; weights: TF.io.WeightsManifestEntry[] }[];
  userDefinedMetadata?: Record<string, unknown>;
}

/** Reads model.json and its weight files from a directory (no fetch, no network) and builds the layers model. */
export async function loadLayersModelFromDir(
  tf: Tf,
  dir: string,
): Promise<{ model: LayersModel; meta: Record<string, unknown> }> {
  const json = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as ModelJson;
  const weightSpecs: TF.io.WeightsManifestEntry[] = [];
  const buffers: Buffer[] = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) buffers.push(await readFile(path.join(dir, p)));
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  const handler = tf.io.fromMemory({
    modelTopology: json.modelTopology,
    weightSpecs,
    weightData,
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy ?? null,
    userDefinedMetadata: json.userDefinedMetadata,
  });
  const model = await tf.loadLayersModel(handler);
  return { model, meta: json.userDefinedMetadata ?? {} };
}

/** Test hook: forget the chosen backend (the tfjs engine itself stays initialised). */
export function resetModelRuntimeForTests(): void {
  selection = null;
}
