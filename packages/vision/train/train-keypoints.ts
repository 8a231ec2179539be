/**
 * Trains the corner (keypoint) model and writes packages/vision/models/corners/{model.json,weights.bin}.
 *
 *   npx tsx packages/vision/train/train-keypoints.ts [--train 3000] [--epochs 10] [--seed 1] ...
 *
 * Data: generator seeds 1..train (split 'train'), both photos of each; validation seeds 900_000.. (also
 * training-split seeds, never used for training); the benchmark's seeds (>= 1_000_000) are never touched.
 * See README.md for the architecture, the numbers and the reproducibility notes.
 */
import type * as TF from '@tensorflow/tfjs';
import type { Point } from '../src/image/types';
import { orderCardCorners } from '../src/geometry/quad';
import { decodeHeatmaps, KEYPOINT_GRID, KEYPOINT_INPUT, KEYPOINT_MODEL, KEYPOINT_STRIDE, orientationOf } from '../src/models/keypoints';
import { log, mean, parseArgs, percentile, rng, saveModel, shuffled, trainingRuntime, VALIDATION_SEED_START } from './common';
import { buildKeypointModel } from './keypoint-model';
import { keypointSet, KP_PHOTO_OPTIONS, type KeypointSet } from './keypoint-data';

const args = parseArgs({
  train: 3000,
  val: 150,
  full: 40,
  epochs: 4,
  batch: 32,
  lr: 0.002,
  seed: 1,
  sigma: 1.0,
  coordWeight: 0.05,
  orientWeight: 0.2,
  save: 1,
});
const S = KEYPOINT_INPUT;
const G = KEYPOINT_GRID;
const IMG = S * S * 3;

/** Labels in geometric order (what the heatmaps learn) and the orientation k (content TL = geometric k). */
function geometricLabels(set: KeypointSet): { geo: Point[][]; k: number[] } {
  const geo: Point[][] = [];
  const k: number[] = [];
  for (const it of set.items) {
    const content: Point[] = [0, 1, 2, 3].map((i) => [it.quadIn[i * 2]!, it.quadIn[i * 2 + 1]!]);
    const o = orientationOf(content);
    geo.push(o.geometric);
    k.push(o.k);
  }
  return { geo, k };
}
const labels = new Map<KeypointSet, ReturnType<typeof geometricLabels>>();
const labelsOf = (set: KeypointSet) => {
  let l = labels.get(set);
  if (!l) labels.set(set, (l = geometricLabels(set)));
  return l;
};

const t0 = performance.now();
const runtime = await trainingRuntime();
const tf = runtime.tf;

log('data', { train: args.train, val: args.val, full: args.full, photo: KP_PHOTO_OPTIONS });
const tData = performance.now();
const train = await keypointSet(1, args.train as number, 'small');
const val = await keypointSet(VALIDATION_SEED_START, args.val as number, 'small');
const full = (args.full as number) > 0 ? await keypointSet(VALIDATION_SEED_START, args.full as number, 'full') : null;
const dataSeconds = (performance.now() - tData) / 1000;
log('data ready', { trainImages: train.items.length, valImages: val.items.length, fullImages: full?.items.length ?? 0, seconds: Math.round(dataSeconds) });

const model = buildKeypointModel(tf, args.seed as number);
log('model', { params: model.countParams() });

/** Fills one batch: inputs (normalised, augmented) and per-corner target distributions + coordinates (cells). */
function makeBatch(set: KeypointSet, idx: ArrayLike<number>, augment: (() => number) | null) {
  const B = idx.length;
  const x = new Float32Array(B * IMG);
  const heat = new Float32Array(B * 4 * G * G);
  const coords = new Float32Array(B * 4 * 2);
  const orient = new Float32Array(B * 4);
  const orientMask = new Float32Array(B);
  const sigma = args.sigma as number;
  const { geo, k: kOf } = labelsOf(set);
  for (let b = 0; b < B; b++) {
    const k = idx[b]!;
    const img = set.images.subarray(k * IMG, (k + 1) * IMG);
    const flip = augment ? augment() < 0.5 : false;
    const gain = augment ? 0.75 + 0.5 * augment() : 1;
    const bias = augment ? (augment() - 0.5) * 0.3 : 0;
    const o = b * IMG;
    for (let y = 0; y < S; y++)
      for (let xx = 0; xx < S; xx++) {
        const src = (y * S + (flip ? S - 1 - xx : xx)) * 3;
        const dst = o + (y * S + xx) * 3;
        for (let c = 0; c < 3; c++) x[dst + c] = ((img[src + c]! - 127.5) / 127.5) * gain + bias;
      }
    // a mirrored card has no printed orientation: its orientation loss is masked out
    const q = flip ? orderCardCorners(geo[k]!.map(([x, y]) => [S - x, y] as Point)) : geo[k]!;
    if (!flip) {
      orient[b * 4 + kOf[k]!] = 1;
      orientMask[b] = 1;
    }
    for (let c = 0; c < 4; c++) {
      const [px, py] = q[c]!;
      const cx = px / KEYPOINT_STRIDE - 0.5;
      const cy = py / KEYPOINT_STRIDE - 0.5;
      coords[(b * 4 + c) * 2] = cx;
      coords[(b * 4 + c) * 2 + 1] = cy;
      const base = (b * 4 + c) * G * G;
      let sum = 0;
      for (let gy = 0; gy < G; gy++)
        for (let gx = 0; gx < G; gx++) {
          const v = Math.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * sigma * sigma));
          heat[base + gy * G + gx] = v;
          sum += v;
        }
      for (let i = 0; i < G * G; i++) heat[base + i]! /= sum || 1;
    }
  }
  return { x, heat, coords, orient, orientMask, B };
}

const gridX = tf.tensor1d(Array.from({ length: G * G }, (_, i) => i % G));
const gridY = tf.tensor1d(Array.from({ length: G * G }, (_, i) => Math.floor(i / G)));

function lossFn(outputs: TF.Tensor[], heat: TF.Tensor, coords: TF.Tensor, orient: TF.Tensor, mask: TF.Tensor, B: number): TF.Scalar {
  const [logits, orientLogits] = outputs as [TF.Tensor, TF.Tensor];
  return tf.tidy(() => {
    const l = logits.reshape([B, G * G, 4]).transpose([0, 2, 1]); // [B,4,G*G]
    const logp = tf.logSoftmax(l);
    const ce = heat.mul(logp).sum(-1).neg().mean();
    const p = tf.exp(logp);
    const ex = p.mul(gridX).sum(-1);
    const ey = p.mul(gridY).sum(-1);
    const pred = tf.stack([ex, ey], -1).reshape([B, 8]);
    const l1 = tf.abs(pred.sub(coords)).mean();
    const oce = orient.mul(tf.logSoftmax(orientLogits)).sum(-1).neg().mul(mask).sum().div(mask.sum().add(1e-6));
    return ce.add(l1.mul(args.coordWeight as number)).add(oce.mul(args.orientWeight as number)) as TF.Scalar;
  });
}

function predictLogits(set: KeypointSet, batch = 32): { heat: Float32Array; orient: Float32Array }[] {
  const out: { heat: Float32Array; orient: Float32Array }[] = [];
  for (let s = 0; s < set.items.length; s += batch) {
    const idx = Array.from({ length: Math.min(batch, set.items.length - s) }, (_, i) => s + i);
    const { x, B } = makeBatch(set, idx, null);
    const [h, o] = tf.tidy(() => model.predict(tf.tensor4d(x, [B, S, S, 3])) as TF.Tensor[]) as [TF.Tensor, TF.Tensor];
    const hd = h.dataSync() as Float32Array;
    const od = o.dataSync() as Float32Array;
    tf.dispose([h, o]);
    for (let b = 0; b < B; b++) out.push({ heat: hd.slice(b * G * G * 4, (b + 1) * G * G * 4), orient: od.slice(b * 4, (b + 1) * 4) });
  }
  return out;
}

/** Corner errors as % of the photo's longer side (= letterbox px / 128), plus per-image max. */
function evaluate(set: KeypointSet, name: string) {
  const logits = predictLogits(set);
  const cornerErr: number[] = [];
  const imageMax: number[] = [];
  const hard: number[] = [];
  const conf: number[] = [];
  let orientRight = 0;
  const { geo, k: kOf } = labelsOf(set);
  logits.forEach((lg, k) => {
    const { points: rawPoints, confidence } = decodeHeatmaps(lg.heat);
    const points = orderCardCorners(rawPoints);
    const o = Array.from(lg.orient);
    if (o.indexOf(Math.max(...o)) === kOf[k]) orientRight++;
    const q = geo[k]!.flat();
    let m = 0;
    for (let c = 0; c < 4; c++) {
      const e = (Math.hypot(points[c]![0] - q[c * 2]!, points[c]![1] - q[c * 2 + 1]!) / S) * 100;
      cornerErr.push(e);
      m = Math.max(m, e);
    }
    imageMax.push(m);
    conf.push(Math.min(...confidence));
    const tags = set.items[k]!.tags;
    if (tags.glare || tags.blur || tags.steepPerspective || tags.sleeve) hard.push(m);
  });
  const r = (v: number) => Math.round(v * 100) / 100;
  const metrics = {
    set: name,
    images: logits.length,
    cornerErrMeanPct: r(mean(cornerErr)),
    cornerErrP50Pct: r(percentile(cornerErr, 50)),
    cornerErrP95Pct: r(percentile(cornerErr, 95)),
    imageMaxErrP95Pct: r(percentile(imageMax, 95)),
    imagesWithin3Pct: r(imageMax.filter((e) => e <= 3).length / Math.max(1, imageMax.length)),
    imagesWithin2Pct: r(imageMax.filter((e) => e <= 2).length / Math.max(1, imageMax.length)),
    hardImages: hard.length,
    hardWithin3Pct: r(hard.filter((e) => e <= 3).length / Math.max(1, hard.length)),
    minConfidenceP05: r(percentile(conf, 5)),
    orientationAccuracy: r(orientRight / Math.max(1, logits.length)),
    rotatedImages: kOf.filter((v) => v !== 0).length,
  };
  log(`eval ${name}`, metrics);
  return metrics;
}

const epochs = args.epochs as number;
const B = args.batch as number;
const n = train.items.length;
const stepsPerEpoch = Math.floor(n / B);
const totalSteps = epochs * stepsPerEpoch;
const baseLr = args.lr as number;
const optimizer = tf.train.adam(baseLr);
const rand = rng((args.seed as number) * 7919 + 17);
const tTrain = performance.now();
let step = 0;
for (let epoch = 0; epoch < epochs; epoch++) {
  const order = shuffled(n, rand);
  let lossSum = 0;
  for (let s = 0; s < stepsPerEpoch; s++) {
    // linear warm-up (100 steps) then cosine decay to 5% of the base rate
    const lr = baseLr * Math.min(1, (step + 1) / 100) * (0.05 + 0.95 * 0.5 * (1 + Math.cos((Math.PI * step) / totalSteps)));
    (optimizer as unknown as { learningRate: number }).learningRate = lr;
    const { x, heat, coords, orient, orientMask } = makeBatch(train, order.subarray(s * B, (s + 1) * B), rand);
    const xt = tf.tensor4d(x, [B, S, S, 3]);
    const ht = tf.tensor3d(heat, [B, 4, G * G]);
    const ct = tf.tensor2d(coords, [B, 8]);
    const ot = tf.tensor2d(orient, [B, 4]);
    const mt = tf.tensor1d(orientMask);
    const loss = optimizer.minimize(() => lossFn(model.apply(xt, { training: true }) as TF.Tensor[], ht, ct, ot, mt, B), true);
    lossSum += loss!.dataSync()[0]!;
    tf.dispose([xt, ht, ct, ot, mt, loss!]);
    step++;
    if (step % 50 === 0) log(`step ${step}/${totalSteps}`, { loss: Math.round((lossSum / (s + 1)) * 1000) / 1000, seconds: Math.round((performance.now() - tTrain) / 1000) });
  }
  log(`epoch ${epoch + 1}/${epochs}`, {
    loss: Math.round((lossSum / stepsPerEpoch) * 1000) / 1000,
    seconds: Math.round((performance.now() - tTrain) / 1000),
    tensors: tf.memory().numTensors,
  });
  if (epoch < epochs - 1) evaluate(val, 'validation (0.3 MP photos)');
}
const trainSeconds = (performance.now() - tTrain) / 1000;

const metrics = { validation: evaluate(val, 'validation (0.3 MP photos)'), full: full ? evaluate(full, 'full-size photos (engine decode)') : null };

// inference latency (batch 1) on this backend
const probe = tf.zeros([1, S, S, 3]);
for (let i = 0; i < 3; i++) tf.dispose(model.predict(probe) as TF.Tensor[]);
const tInf = performance.now();
for (let i = 0; i < 20; i++) {
  const outs = model.predict(probe) as TF.Tensor[];
  outs.forEach((t) => t.dataSync());
  tf.dispose(outs);
}
const inferMs = (performance.now() - tInf) / 20;
probe.dispose();

const summary = {
  backend: runtime.backend,
  params: model.countParams(),
  trainImages: n,
  epochs,
  batch: B,
  dataSeconds: Math.round(dataSeconds),
  trainSeconds: Math.round(trainSeconds),
  totalSeconds: Math.round((performance.now() - t0) / 1000),
  inferMsBatch1: Math.round(inferMs * 10) / 10,
  metrics,
};
if (args.save) {
  const saved = await saveModel(tf, model, KEYPOINT_MODEL, {
    input: { size: S, channels: 3, layout: 'NHWC', normalise: '(v - 127.5) / 127.5', letterbox: 'centred, mid grey' },
    output: {
      heatmaps: { grid: G, stride: KEYPOINT_STRIDE, corners: ['TL', 'TR', 'BR', 'BL'], order: 'geometric (orderCardCorners)', decode: 'spatial softmax, peak window mean' },
      orientation: { classes: 4, meaning: 'k: printed top-left corner is geometric corner k (0 upright, 1 90 cw, 2 180, 3 90 ccw)' },
    },
    training: { seed: args.seed, trainSeeds: [1, args.train], validationSeeds: [VALIDATION_SEED_START, VALIDATION_SEED_START + (args.val as number) - 1], photo: KP_PHOTO_OPTIONS, ...summary },
  });
  log('saved', { dir: saved.dir, weightBytes: saved.bytes });
}
log('summary', summary);
