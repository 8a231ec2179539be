/**
 * Trains the three severity-calibration models (src/models/calibration.ts) and writes
 * packages/vision/models/calibration-{corner,edge,surface}/.
 *
 *   npx tsx packages/vision/train/calibration-data.ts --from 100000 --count 1100 --out /tmp/cal.jsonl
 *   npx tsx packages/vision/train/train-calibration.ts --data /tmp/cal.jsonl [--seed 1] [--epochs 80] [--regions surface]
 *
 * `--regions` trains and saves only those models (comma-separated; default all three). The committed corner and
 * edge models come from the first training (commit f8b19c6); the monotone surface model was trained alone on data
 * from `cardlens-vision-7` (GRADING.md, sections 15 and 16).
 *
 * Rows come from generator training-split photos run through the engine; the last `--holdout` share of the
 * seeds is kept out of fitting and reported as validation. Deterministic: seeded initialisers, one seeded
 * shuffle, no shuffling inside fit.
 */
import { readFileSync } from 'node:fs';
import type * as TF from '@tensorflow/tfjs';
import { aggregateSeverities, gradeFromSeverity } from '@cardlens/grading-rubric';
import { CALIBRATION_MODELS, calibrationInput, calibrationInputNames, type CalibratedRegion, type CalibrationRow } from '../src/models/calibration';
import { log, mean, parseArgs, rng, saveModel, shuffled, trainingRuntime } from './common';

const args = parseArgs({ data: '/tmp/cal.jsonl', seed: 1, epochs: 80, batch: 64, lr: 0.003, holdout: 0.15, save: 1, regions: 'corner,edge,surface' });
const REGIONS = (['corner', 'edge', 'surface'] as const).filter((r) => String(args.regions).split(',').includes(r));
const rows: CalibrationRow[] = String(args.data)
  .split(',')
  .flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as CalibrationRow));
const seeds = [...new Set(rows.map((r) => r.seed))].sort((a, b) => a - b);
const cut = seeds[Math.floor(seeds.length * (1 - Number(args.holdout)))]!;
const trainRows = rows.filter((r) => r.seed < cut);
const valRows = rows.filter((r) => r.seed >= cut);
log('data', { sides: rows.length, trainSides: trainRows.length, valSides: valRows.length, seeds: [seeds[0], seeds.at(-1)], holdoutFromSeed: cut });

const runtime = await trainingRuntime();
const tf = runtime.tf as typeof TF;

interface Fitted {
  predict(inputs: number[][]): number[];
  model: TF.LayersModel;
  normalisation: { mean: number[]; std: number[] };
}

function examples(set: CalibrationRow[], region: CalibratedRegion) {
  const x: number[][] = [];
  const y: number[] = [];
  for (const r of set) for (const g of r.regions) if (g.region === region) {
    x.push(calibrationInput(region, g.values, g.measured, r.context));
    y.push(g.truth);
  }
  return { x, y };
}

async function fit(region: CalibratedRegion, seed: number): Promise<Fitted> {
  const { x, y } = examples(trainRows, region);
  const width = x[0]!.length;
  const mu = Array.from({ length: width }, (_, i) => mean(x.map((r) => r[i]!)));
  const sd = Array.from({ length: width }, (_, i) => Math.sqrt(mean(x.map((r) => (r[i]! - mu[i]!) ** 2))) || 1);
  const norm = (rs: number[][]) => rs.map((r) => r.map((v, i) => (v - mu[i]!) / sd[i]!));
  const order = Array.from(shuffled(x.length, rng(seed * 7 + region.length)));
  const xs = tf.tensor2d(norm(order.map((i) => x[i]!)));
  const ys = tf.tensor2d(order.map((i) => [y[i]!]));
  const init = (s: number) => tf.initializers.glorotUniform({ seed: seed * 100 + s });
  // The surface model: non-negative kernels and rising activations, monotone in every input (src/models/calibration.ts
  // says why); the corner and edge models are unconstrained.
  const monotone = region === 'surface';
  const rising = monotone ? { kernelConstraint: tf.constraints.nonNeg() } : {};
  const hidden = monotone ? 'tanh' : 'relu';
  const model = tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [width], units: 32, activation: hidden, kernelInitializer: init(1), ...rising }),
      tf.layers.dense({ units: 16, activation: hidden, kernelInitializer: init(2), ...rising }),
      tf.layers.dense({ units: 1, activation: 'sigmoid', kernelInitializer: init(3), ...rising }),
    ],
  });
  model.compile({ optimizer: tf.train.adam(Number(args.lr)), loss: 'meanSquaredError' });
  // tfjs-layers does not apply kernel constraints inside fit (the optimizer writes the variables directly), so for
  // the monotone model each batch ends with the projection onto non-negative kernels (projected gradient descent).
  const project = () => {
    for (const layer of model.layers) {
      const [kernel, bias] = layer.getWeights();
      const projected = tf.relu(kernel!);
      layer.setWeights([projected, bias!]);
      projected.dispose();
    }
  };
  await model.fit(xs, ys, { epochs: Number(args.epochs), batchSize: Number(args.batch), shuffle: false, verbose: 0, ...(monotone ? { callbacks: { onBatchEnd: async () => project() } } : {}) });
  tf.dispose([xs, ys]);
  return {
    model,
    normalisation: { mean: mu, std: sd },
    predict: (inputs) => {
      const t = tf.tensor2d(norm(inputs));
      const out = model.predict(t) as TF.Tensor;
      const v = Array.from(out.dataSync());
      tf.dispose([t, out]);
      return v;
    },
  };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const fitted = {} as Record<CalibratedRegion, Fitted>;
const metrics: Record<string, unknown> = {};
for (const region of REGIONS) {
  const t0 = performance.now();
  fitted[region] = await fit(region, Number(args.seed));
  const { x, y } = examples(valRows, region);
  const measured = valRows.flatMap((r) => r.regions.filter((g) => g.region === region).map((g) => g.measured));
  const pred = fitted[region].predict(x);
  metrics[region] = {
    examples: x.length,
    severityMae: r3(mean(pred.map((p, i) => Math.abs(p - y[i]!)))),
    severityMaeMeasured: r3(mean(measured.map((m, i) => Math.abs(m - y[i]!)))),
    trainSeconds: Math.round((performance.now() - t0) / 1000),
  };
  log(region, metrics[region] as Record<string, unknown>);
}

// Side sub-grades on the held-out sides: the rubric's aggregation of calibrated vs measured severities.
const subgrade = { corner: 'corners', edge: 'edges', surface: 'surface' } as const;
const sideErr: Record<string, { calibrated: number[]; measured: number[] }> = {};
for (const r of valRows) {
  for (const region of REGIONS) {
    const gs = r.regions.filter((g) => g.region === region);
    const cal = fitted[region].predict(gs.map((g) => calibrationInput(region, g.values, g.measured, r.context)));
    const grade = (sev: number[]) => gradeFromSeverity(aggregateSeverities(sev));
    const truth = grade(gs.map((g) => g.truth));
    (sideErr[subgrade[region]] ??= { calibrated: [], measured: [] }).calibrated.push(Math.abs(grade(cal) - truth));
    sideErr[subgrade[region]]!.measured.push(Math.abs(grade(gs.map((g) => g.measured)) - truth));
  }
}
metrics.sideSubgradeMae = Object.fromEntries(Object.entries(sideErr).map(([k, v]) => [k, { calibrated: r3(mean(v.calibrated)), measured: r3(mean(v.measured)) }]));
log('held-out side sub-grade MAE (unrounded)', metrics.sideSubgradeMae as Record<string, unknown>);

if (Number(args.save)) {
  for (const region of REGIONS) {
    const f = fitted[region];
    const saved = await saveModel(tf, f.model, CALIBRATION_MODELS[region], {
      input: { features: calibrationInputNames(region), ...(region === 'surface' ? { monotone: 'non-decreasing in every input' } : {}), crop: 'src/models/calibration.ts' },
      output: { severity: 'calibrated severity 0..1 of the element (surface: of the side)' },
      normalisation: f.normalisation,
      training: {
        seed: args.seed,
        data: 'train/calibration-data.ts on generator training-split seeds',
        seeds: [seeds[0], seeds.at(-1)],
        holdoutFromSeed: cut,
        epochs: args.epochs,
        backend: runtime.backend,
        metrics: { ...(metrics[region] as object), sideSubgradeMae: (metrics.sideSubgradeMae as Record<string, unknown>)[subgrade[region]] },
      },
    });
    log('saved', { dir: saved.dir, bytes: saved.bytes });
  }
}
