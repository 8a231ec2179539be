/**
 * Trains the three defect-severity models and writes packages/vision/models/severity-{corner,edge,surface}/.
 *
 *   npx tsx packages/vision/train/train-severity.ts [--cards 1200] [--val 60] [--only corner|edge|surface] ...
 *
 * Data (train/severity-data.ts): canonical renders of generator seeds 1..cards, degraded like photos; validation
 * on seeds 900_000.. photographed by the generator and rectified with the true quad (the engine's view when
 * detection is right). Benchmark seeds (>= 1_000_000) are never used.
 */
import type * as TF from '@tensorflow/tfjs';
import { combineComponents } from '@cardlens/grading-rubric';
import { CORNER_INPUT, EDGE_INPUT, SEVERITY_MODELS, SURFACE_GRID, SURFACE_INPUT } from '../src/models/severity';
import { log, mean, parseArgs, rng, saveModel, shuffled, trainingRuntime, VALIDATION_SEED_START } from './common';
import { CORNER_BYTES, EDGE_BYTES, SIDE_BYTES, severitySet, TILE_COUNT, type SeveritySet } from './severity-data';
import { buildCornerModel, buildEdgeModel, buildSurfaceModel } from './severity-models';

const args = parseArgs({ cards: 1200, val: 60, epochs: 2, batch: 32, lr: 0.002, seed: 1, only: 'all', save: 1, surfaceEpochs: 3 });

type Task = 'corner' | 'edge' | 'surface';
interface TaskSpec {
  shape: [number, number, number];
  outputs: number;
  /** examples per side */
  perSide: number;
  bytes: number;
  offset: (i: number) => number;
  target: (set: SeveritySet, item: number, i: number) => number[];
  build: (tf: typeof TF, seed: number) => TF.LayersModel;
  /** geometric augmentation valid for the patch (and its targets) */
  augment: (x: Float32Array, y: number[], o: number, rand: () => number) => void;
}

const flipRows = (x: Float32Array, o: number, h: number, w: number) => {
  for (let r = 0; r < h; r++)
    for (let c = 0; c < w / 2; c++)
      for (let k = 0; k < 3; k++) {
        const a = o + (r * w + c) * 3 + k;
        const b = o + (r * w + (w - 1 - c)) * 3 + k;
        const t = x[a]!;
        x[a] = x[b]!;
        x[b] = t;
      }
};

const SPECS: Record<Task, TaskSpec> = {
  corner: {
    shape: [CORNER_INPUT, CORNER_INPUT, 3],
    outputs: 3,
    perSide: 4,
    bytes: CORNER_BYTES,
    offset: (i) => i * CORNER_BYTES,
    target: (set, item, i) => set.items[item]!.corner.slice(i * 3, i * 3 + 3),
    build: buildCornerModel,
    augment: (x, _y, o, rand) => {
      // mirror about the diagonal: a top-left corner stays a top-left corner
      if (rand() < 0.5) return;
      const n = CORNER_INPUT;
      for (let r = 0; r < n; r++)
        for (let c = r + 1; c < n; c++)
          for (let k = 0; k < 3; k++) {
            const a = o + (r * n + c) * 3 + k;
            const b = o + (c * n + r) * 3 + k;
            const t = x[a]!;
            x[a] = x[b]!;
            x[b] = t;
          }
    },
  },
  edge: {
    shape: [EDGE_INPUT.depth, EDGE_INPUT.along, 3],
    outputs: 3,
    perSide: 4,
    bytes: EDGE_BYTES,
    offset: (i) => 4 * CORNER_BYTES + i * EDGE_BYTES,
    target: (set, item, i) => set.items[item]!.edge.slice(i * 3, i * 3 + 3),
    build: buildEdgeModel,
    augment: (x, _y, o, rand) => {
      if (rand() < 0.5) flipRows(x, o, EDGE_INPUT.depth, EDGE_INPUT.along);
    },
  },
  surface: {
    shape: [SURFACE_INPUT.height, SURFACE_INPUT.width, 3],
    outputs: TILE_COUNT,
    perSide: 1,
    bytes: SURFACE_INPUT.width * SURFACE_INPUT.height * 3,
    offset: () => 4 * CORNER_BYTES + 4 * EDGE_BYTES,
    target: (set, item) => set.items[item]!.tiles.slice(),
    build: buildSurfaceModel,
    augment: (x, y, o, rand) => {
      if (rand() < 0.5) {
        flipRows(x, o, SURFACE_INPUT.height, SURFACE_INPUT.width);
        for (let r = 0; r < SURFACE_GRID.rows; r++) y.splice(r * SURFACE_GRID.cols, SURFACE_GRID.cols, ...y.slice(r * SURFACE_GRID.cols, (r + 1) * SURFACE_GRID.cols).reverse());
      }
    },
  },
};

const t0 = performance.now();
const runtime = await trainingRuntime();
const tf = runtime.tf;
const tData = performance.now();
const train = await severitySet(1, args.cards as number, 'render');
const val = await severitySet(VALIDATION_SEED_START, args.val as number, 'photo');
const dataSeconds = (performance.now() - tData) / 1000;
log('data ready', { trainSides: train.items.length, valSides: val.items.length, seconds: Math.round(dataSeconds) });

function batch(spec: TaskSpec, set: SeveritySet, examples: ArrayLike<number>, rand: (() => number) | null) {
  const [h, w, c] = spec.shape;
  const size = h * w * c;
  const B = examples.length;
  const x = new Float32Array(B * size);
  const y = new Float32Array(B * spec.outputs);
  for (let b = 0; b < B; b++) {
    const e = examples[b]!;
    const item = Math.floor(e / spec.perSide);
    const i = e % spec.perSide;
    const src = set.data.subarray(item * SIDE_BYTES + spec.offset(i), item * SIDE_BYTES + spec.offset(i) + spec.bytes);
    const gain = rand ? 0.85 + 0.3 * rand() : 1;
    const bias = rand ? (rand() - 0.5) * 0.2 : 0;
    for (let k = 0; k < size; k++) x[b * size + k] = ((src[k]! - 127.5) / 127.5) * gain + bias;
    const t = spec.target(set, item, i);
    if (rand) spec.augment(x, t, b * size, rand);
    y.set(t, b * spec.outputs);
  }
  return { x, y, B };
}

function predictAll(model: TF.LayersModel, spec: TaskSpec, set: SeveritySet): { pred: Float32Array; truth: Float32Array } {
  const n = set.items.length * spec.perSide;
  const pred = new Float32Array(n * spec.outputs);
  const truth = new Float32Array(n * spec.outputs);
  for (let s = 0; s < n; s += 32) {
    const ex = Array.from({ length: Math.min(32, n - s) }, (_, i) => s + i);
    const { x, y, B } = batch(spec, set, ex, null);
    const out = tf.tidy(() => (model.predict(tf.tensor4d(x, [B, ...spec.shape])) as TF.Tensor).reshape([B, spec.outputs]));
    pred.set(out.dataSync(), s * spec.outputs);
    out.dispose();
    truth.set(y, s * spec.outputs);
  }
  return { pred, truth };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
function pearson(a: number[], b: number[]): number {
  const ma = mean(a);
  const mb = mean(b);
  let num = 0;
  let da = 0;
  let db = 0;
  a.forEach((v, i) => {
    num += (v - ma) * (b[i]! - mb);
    da += (v - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  });
  return num / Math.sqrt(da * db || 1);
}

function evaluate(task: Task, model: TF.LayersModel, set: SeveritySet, trainMean: number[]) {
  const spec = SPECS[task];
  const { pred, truth } = predictAll(model, spec, set);
  const n = pred.length / spec.outputs;
  if (task === 'surface') {
    const err: number[] = [];
    const base: number[] = [];
    const sideMaxP: number[] = [];
    const sideMaxT: number[] = [];
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (let s = 0; s < n; s++) {
      let mp = 0;
      let mt = 0;
      for (let k = 0; k < spec.outputs; k++) {
        const p = pred[s * spec.outputs + k]!;
        const t = truth[s * spec.outputs + k]!;
        err.push(Math.abs(p - t));
        base.push(Math.abs(trainMean[k]! - t));
        mp = Math.max(mp, p);
        mt = Math.max(mt, t);
        if (t >= 0.2 && p >= 0.2) tp++;
        else if (t < 0.2 && p >= 0.2) fp++;
        else if (t >= 0.2 && p < 0.2) fn++;
      }
      sideMaxP.push(mp);
      sideMaxT.push(mt);
    }
    return {
      task,
      sides: n,
      tileMae: r3(mean(err)),
      tileMaeBaseline: r3(mean(base)),
      tileRecallAt02: r3(tp / Math.max(1, tp + fn)),
      tilePrecisionAt02: r3(tp / Math.max(1, tp + fp)),
      sideMaxMae: r3(mean(sideMaxP.map((p, i) => Math.abs(p - sideMaxT[i]!)))),
      sideMaxPearson: r3(pearson(sideMaxP, sideMaxT)),
    };
  }
  const comp: number[][] = [[], [], []];
  const compBase: number[][] = [[], [], []];
  const elemP: number[] = [];
  const elemT: number[] = [];
  for (let e = 0; e < n; e++) {
    const p = Array.from(pred.subarray(e * 3, e * 3 + 3));
    const t = Array.from(truth.subarray(e * 3, e * 3 + 3));
    p.forEach((v, k) => {
      comp[k]!.push(Math.abs(v - t[k]!));
      compBase[k]!.push(Math.abs(trainMean[k]! - t[k]!));
    });
    elemP.push(combineComponents(p));
    elemT.push(combineComponents(t));
  }
  const elemBase = combineComponents(trainMean);
  return {
    task,
    examples: n,
    componentMae: comp.map((c) => r3(mean(c))),
    componentMaeBaseline: compBase.map((c) => r3(mean(c))),
    elementMae: r3(mean(elemP.map((p, i) => Math.abs(p - elemT[i]!)))),
    elementMaeBaseline: r3(mean(elemT.map((t) => Math.abs(elemBase - t)))),
    elementPearson: r3(pearson(elemP, elemT)),
    elementWithin01: r3(elemP.filter((p, i) => Math.abs(p - elemT[i]!) <= 0.1).length / n),
  };
}

const tasks: Task[] = args.only === 'all' ? ['corner', 'edge', 'surface'] : [args.only as Task];
const results: Record<string, unknown> = {};
for (const task of tasks) {
  const spec = SPECS[task];
  const tTask = performance.now();
  const model = spec.build(tf, args.seed as number);
  const n = train.items.length * spec.perSide;
  // mean target (baseline for the metrics)
  const trainMean = new Array<number>(spec.outputs).fill(0);
  for (let e = 0; e < n; e++) spec.target(train, Math.floor(e / spec.perSide), e % spec.perSide).forEach((v, k) => (trainMean[k]! += v / n));
  const B = args.batch as number;
  const epochs = task === 'surface' ? (args.surfaceEpochs as number) : (args.epochs as number);
  const steps = Math.floor(n / B);
  const total = epochs * steps;
  const baseLr = args.lr as number;
  const optimizer = tf.train.adam(baseLr);
  const rand = rng((args.seed as number) * 104729 + task.length);
  log(`train ${task}`, { params: model.countParams(), examples: n, epochs, steps });
  let step = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    const order = shuffled(n, rand);
    let lossSum = 0;
    for (let s = 0; s < steps; s++) {
      (optimizer as unknown as { learningRate: number }).learningRate =
        baseLr * Math.min(1, (step + 1) / 50) * (0.05 + 0.95 * 0.5 * (1 + Math.cos((Math.PI * step) / total)));
      const { x, y } = batch(spec, train, order.subarray(s * B, (s + 1) * B), rand);
      const xt = tf.tensor4d(x, [B, ...spec.shape]);
      const yt = tf.tensor2d(y, [B, spec.outputs]);
      const loss = optimizer.minimize(
        () => tf.losses.meanSquaredError(yt, (model.apply(xt, { training: true }) as TF.Tensor).reshape([B, spec.outputs])) as TF.Scalar,
        true,
      );
      lossSum += loss!.dataSync()[0]!;
      tf.dispose([xt, yt, loss!]);
      step++;
    }
    log(`${task} epoch ${epoch + 1}/${epochs}`, { loss: Math.round((lossSum / steps) * 10000) / 10000, seconds: Math.round((performance.now() - tTask) / 1000) });
  }
  const trainSeconds = (performance.now() - tTask) / 1000;
  const metrics = evaluate(task, model, val, trainMean);
  log(`eval ${task} (photographed + rectified validation sides)`, metrics);
  // latency for one side's worth (batch 4 for corner/edge, 1 for surface)
  const probe = tf.zeros([spec.perSide, ...spec.shape]);
  for (let i = 0; i < 3; i++) tf.dispose(model.predict(probe) as TF.Tensor);
  const tInf = performance.now();
  for (let i = 0; i < 10; i++) (model.predict(probe) as TF.Tensor).dataSync();
  const inferMs = Math.round(((performance.now() - tInf) / 10) * 10) / 10;
  probe.dispose();
  const summary = { backend: runtime.backend, params: model.countParams(), examples: n, epochs, trainSeconds: Math.round(trainSeconds), inferMsPerSide: inferMs, metrics };
  results[task] = summary;
  if (args.save) {
    const saved = await saveModel(tf, model, SEVERITY_MODELS[task], {
      input: { shape: spec.shape, layout: 'NHWC', normalise: '(v - 127.5) / 127.5', crop: 'src/models/severity.ts' },
      output: task === 'surface' ? { grid: SURFACE_GRID, meaning: 'worst surface-defect severity touching each tile' } : { components: task === 'corner' ? ['whitening', 'rounding', 'ding'] : ['whitening', 'depth', 'chips'] },
      training: { seed: args.seed, trainSeeds: [1, args.cards], validationSeeds: [VALIDATION_SEED_START, VALIDATION_SEED_START + (args.val as number) - 1], trainMean: trainMean.map(r3), ...summary },
    });
    log('saved', { dir: saved.dir, weightBytes: saved.bytes });
  }
  model.dispose();
}
log('summary', { dataSeconds: Math.round(dataSeconds), totalSeconds: Math.round((performance.now() - t0) / 1000), results });
