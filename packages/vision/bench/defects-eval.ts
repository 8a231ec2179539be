/**
 * Condition measurements against the generator's truth: per-side corners / edges / surface sub-grades (via the
 * rubric) measured vs true, MAE per sub-grade, plus false findings on mint sides.
 *
 *   npx tsx packages/vision/bench/defects-eval.ts [--mode canonical|photo] [--from SEED] [--count N] [--verbose]
 *
 * canonical: renderCardSides (flat, exactly rectified, frame from the truth) isolates the condition measurement;
 * photo: generateSample -> the engine's analyzeSide (detection, rectification, centering) -> the same comparison.
 * Defaults: canonical, seeds from 1,000,000 (the evaluation split), 100 cards = 200 sides.
 */
import { EVAL_SEED_START, generateSample, renderCardSides } from '@cardlens/card-synth';
import { gradeSide, type Side, type SideMeasurements } from '@cardlens/grading-rubric';
import { measureCondition, sideMeasurements } from '../src/defects';
import { analyzeSide } from '../src/engine';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const mode = arg('mode', 'canonical');
const from = Number(arg('from', String(EVAL_SEED_START)));
const count = Number(arg('count', '100'));
const verbose = args.includes('--verbose');

const SUB = ['corners', 'edges', 'surface'] as const;
type Sub = (typeof SUB)[number];
const err: Record<Sub, number[]> = { corners: [], edges: [], surface: [] };
const errBy: Record<string, Record<Sub, number[]>> = {};
const ms: number[] = [];
let mintSides = 0;
let mintFalse = 0;
let failed = 0;

function record(tag: string, sub: Sub, e: number): void {
  errBy[tag] ??= { corners: [], edges: [], surface: [] };
  errBy[tag][sub].push(e);
}

function compare(seed: number, side: Side, truth: SideMeasurements, est: SideMeasurements, tags: string[]): void {
  const gt = gradeSide(side, truth);
  const ge = gradeSide(side, est);
  for (const sub of SUB) {
    err[sub].push(Math.abs(gt[sub] - ge[sub]));
    for (const t of tags) record(t, sub, Math.abs(gt[sub] - ge[sub]));
  }
  if (truth.surface.length === 0) {
    mintSides++;
    if (est.surface.length > 0) mintFalse++;
  }
  if (verbose && SUB.some((s) => Math.abs(gt[s] - ge[s]) >= 1)) {
    console.log(`seed ${seed} ${side} [${tags.join(',')}] true c/e/s ${gt.corners}/${gt.edges}/${gt.surface} measured ${ge.corners}/${ge.edges}/${ge.surface}`);
    for (const d of truth.surface) console.log(`   true ${d.kind} ${d.lengthMm ?? d.areaMm2} c=${d.contrast} @${d.xMm.toFixed(1)},${d.yMm.toFixed(1)}`);
    for (const d of est.surface) console.log(`   meas ${d.kind} ${d.lengthMm ?? d.areaMm2} c=${d.contrast} @${d.xMm.toFixed(1)},${d.yMm.toFixed(1)}`);
  }
}

for (let seed = from; seed < from + count; seed++) {
  if (mode === 'canonical') {
    const cs = await renderCardSides(null, null, seed);
    for (const side of ['front', 'back'] as const) {
      const truth = cs.measurements[side];
      const img = { width: cs[side].width, height: cs[side].height, data: cs[side].data };
      const t0 = performance.now();
      const a = measureCondition(img, { frame: truth.centering });
      ms.push(performance.now() - t0);
      compare(seed, side, truth, sideMeasurements(a, truth.centering), ['all', `finish:${cs.spec.finish}`]);
    }
  } else {
    const sample = await generateSample(seed);
    for (const side of ['front', 'back'] as const) {
      const truth = sample.label.measurements[side];
      const tags = ['all', `finish:${sample.label.card.finish}`];
      const st = sample.label.tags.sides[side];
      if (st.glare) tags.push('glare');
      if (st.blur) tags.push('blur');
      if (st.steepPerspective) tags.push('steep');
      try {
        const a = await analyzeSide(side === 'front' ? sample.frontJpeg : sample.backJpeg);
        ms.push(a.timingsMs.condition ?? 0);
        // centering comes from the geometry; compare condition sub-grades only
        compare(seed, side, truth, { ...a.measurements, centering: truth.centering }, tags);
      } catch (e) {
        failed++;
        if (verbose) console.log(`seed ${seed} ${side}: ${(e as Error).message}`);
      }
    }
  }
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const r3 = (x: number) => Math.round(x * 1000) / 1000;
ms.sort((a, b) => a - b);
console.log(`mode ${mode}, seeds ${from}..${from + count - 1}, sides ${err.corners.length}${failed ? `, failed ${failed}` : ''}`);
console.log('slice                 n   corners  edges  surface');
for (const [tag, e] of Object.entries(errBy).sort()) {
  console.log(`${tag.padEnd(20)} ${String(e.corners.length).padStart(4)}   ${mean(e.corners).toFixed(3)}   ${mean(e.edges).toFixed(3)}  ${mean(e.surface).toFixed(3)}`);
}
console.log(
  JSON.stringify({
    mode,
    n: err.corners.length,
    subgradeMae: { corners: r3(mean(err.corners)), edges: r3(mean(err.edges)), surface: r3(mean(err.surface)) },
    mintSurfaceFalseRate: r3(mintFalse / Math.max(1, mintSides)),
    conditionMsP50: r3(ms[Math.floor(ms.length / 2)] ?? NaN),
    conditionMsP95: r3(ms[Math.floor(ms.length * 0.95)] ?? NaN),
  }),
);
