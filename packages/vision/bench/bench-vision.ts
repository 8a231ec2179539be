/**
 * npm run bench:vision — the engine against ground truth.
 *
 * Generates a fixed-seed evaluation set of photographed pairs with @cardlens/card-synth (seeds from
 * EVAL_SEED_START = 1,000,000; training uses seeds below it), runs the engine on each pair and compares with the
 * generator's exact labels. Prints a table and, as the LAST line, one JSON object.
 *   BENCH_N (default 500), BENCH_FIRST_SEED (default 1000000), BENCH_MEGAPIXELS (unset: the generator's 2-12 MP mix).
 * Generation time is excluded; msPerPair is the engine only (both sides, calibration, grading; no OCR, no overlay).
 * detectionFailureRate: pairs where a side's card was not found within 2 % of its diagonal (in either the printed
 * or the 180-degree turned corner order); orientationErrorRate: sides found exactly but read upside down.
 * cpuMsPerPairP50: the same engine-only call's process CPU time (all threads: sharp's, the OCR worker's, GC).
 *
 * BENCH_VARIANT=scan-call measures the scan's WHOLE inference call instead (what the inference service's engine
 * child does for a scan: analyzeCard with evidence (OCR on its worker) and overlay): BENCH_N pairs (default 8,
 * BENCH_MEGAPIXELS default 12), each run BENCH_REPEAT times (default 5) after one warm run; prints the medians of
 * process CPU (cpuMsPerScanCall, all threads) and wall time (wallMsPerScanCall) per call, the main thread's CPU
 * (mainThreadCpuMsPerScanCall), the engine's per-stage wall timings (medians), and the configuration. With
 * BENCH_INPUT=glyph-packed the pairs are card-synth's glyph-packed faces instead (glyphPackedVariants).
 */
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { generateSample, glyphPackedVariants, EVAL_SEED_START, type SampleLabel } from '@cardlens/card-synth';
import { AppError } from '@cardlens/errors';
import { createCardEngine, type CardAnalysis } from '../src/engine';

const N = Number(process.env.BENCH_N ?? 500);
const FIRST = Number(process.env.BENCH_FIRST_SEED ?? EVAL_SEED_START);
const MEGAPIXELS = process.env.BENCH_MEGAPIXELS ? Number(process.env.BENCH_MEGAPIXELS) : undefined;
const SUB = ['centering', 'corners', 'edges', 'surface'] as const;

interface Row {
  seed: number;
  hard: boolean;
  detected: boolean;
  /** Sides found exactly but turned by 180 degrees. */
  turnedSides: number;
  /** Sides where a slab label was found (none should be: no generated card is in a slab). */
  slabSides: number;
  ms: number;
  cpuMs: number;
  megapixels: number;
  centeringErrors: number[];
  subErrors: Record<(typeof SUB)[number], number>;
  gradeError: number;
}

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
};
const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Per side: 'ok' when every corner is within 2 % of the card diagonal of the truth in the printed order,
 * 'turned' when that holds only with the corners turned by 180 degrees (the card found exactly, its up read the
 * wrong way round: a centering ratio then reads mirrored, the grade is unaffected), 'failed' otherwise or when no
 * card was found.
 */
type SideDetection = 'ok' | 'turned' | 'failed';
function sideDetection(label: SampleLabel, analysis: CardAnalysis, side: 'front' | 'back'): SideDetection {
  const truth = label.photo[side].quadPx;
  const found = analysis.sides[side]?.quadPx;
  if (!found) return 'failed';
  const diag = Math.hypot(truth[2]![0] - truth[0]![0], truth[2]![1] - truth[0]![1]);
  const within = (k: number) => found.every(([x, y], i) => Math.hypot(x - truth[(i + k) % 4]![0], y - truth[(i + k) % 4]![1]) <= 0.02 * diag);
  return within(0) ? 'ok' : within(2) ? 'turned' : 'failed';
}

function summarise(rows: Row[]) {
  const ok = rows.filter((r) => r.detected);
  const centering = ok.flatMap((r) => r.centeringErrors);
  return {
    n: rows.length,
    detectionFailureRate: round(rows.filter((r) => !r.detected).length / Math.max(1, rows.length), 4),
    orientationErrorRate: round(rows.reduce((a, r) => a + r.turnedSides, 0) / Math.max(1, 2 * rows.length), 4),
    falseSlabRate: round(rows.reduce((a, r) => a + r.slabSides, 0) / Math.max(1, 2 * rows.length), 4),
    centeringMae: round(mean(centering)),
    centeringP95: round(quantile(centering, 0.95)),
    subgradeMae: Object.fromEntries(SUB.map((k) => [k, round(mean(ok.map((r) => r.subErrors[k])))])),
    overallExact: round(ok.filter((r) => r.gradeError === 0).length / Math.max(1, ok.length), 4),
    overallWithin1: round(ok.filter((r) => r.gradeError <= 1).length / Math.max(1, ok.length), 4),
  };
}

const cpuMsSince = (u: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(u);
  return (d.user + d.system) / 1000;
};
const threadCpu = (): NodeJS.CpuUsage | undefined => (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();

/** BENCH_VARIANT=scan-call: the scan's whole inference call (evidence + overlay), CPU and wall per call. */
async function scanCall(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 8);
  const repeat = Number(process.env.BENCH_REPEAT ?? 5);
  const megapixels = MEGAPIXELS ?? 12;
  const engine = await createCardEngine();
  await engine.warmUp();
  const glyphPacked = process.env.BENCH_INPUT === 'glyph-packed';
  const config = {
    variant: 'scan-call',
    input: glyphPacked ? 'glyph-packed' : 'generated',
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? '',
    node: process.version,
    backend: engine.backend,
    ...(glyphPacked ? {} : { megapixels, pairs: n }),
    repeat,
    options: { evidence: true, overlay: true },
  };
  process.stderr.write(`bench:vision scan-call: ${JSON.stringify(config)}\n`);
  // BENCH_INPUT=glyph-packed: card-synth's glyph-packed faces (the same photo as front and back), the worst inputs
  // known for the identification OCR, which its allowance bounds (src/evidence/ocrWork.ts).
  const inputs: { name: string; front: Uint8Array; back: Uint8Array }[] = [];
  if (glyphPacked) for (const { name, photo } of await glyphPackedVariants()) inputs.push({ name, front: photo, back: photo });
  else {
    for (let i = 0; i < n; i++) {
      const sample = await generateSample(FIRST + i, { photo: { megapixels } });
      inputs.push({ name: `seed ${FIRST + i}`, front: sample.frontJpeg, back: sample.backJpeg });
    }
  }
  const cpu: number[] = [];
  const wall: number[] = [];
  const main: number[] = [];
  const perPair: { input: string; cpuMs: number; wallMs: number }[] = [];
  const stages: Record<string, number[]> = {};
  for (const { name, front, back } of inputs) {
    const input = { front, back };
    const call = () => engine.analyzeCard(input, { evidence: true, overlay: true }).catch((error: unknown) => {
      if (!(error instanceof AppError)) throw error;
      return undefined;
    });
    await call();
    const pc: number[] = [];
    const pw: number[] = [];
    for (let r = 0; r < repeat; r++) {
      const u = process.cpuUsage();
      const tu = threadCpu();
      const t = performance.now();
      const analysis = await call();
      const w = performance.now() - t;
      const c = cpuMsSince(u);
      const tu2 = threadCpu();
      if (tu && tu2) main.push((tu2.user - tu.user + tu2.system - tu.system) / 1000);
      cpu.push(c);
      wall.push(w);
      pc.push(c);
      pw.push(w);
      for (const [k, v] of Object.entries(analysis?.timingsMs ?? {})) (stages[k] ??= []).push(v);
    }
    perPair.push({ input: name, cpuMs: round(quantile(pc, 0.5), 1), wallMs: round(quantile(pw, 0.5), 1) });
  }
  await engine.close();
  const result = {
    ...config,
    cpuMsPerScanCall: round(quantile(cpu, 0.5), 1),
    cpuMsPerScanCallP90: round(quantile(cpu, 0.9), 1),
    wallMsPerScanCall: round(quantile(wall, 0.5), 1),
    wallMsPerScanCallP90: round(quantile(wall, 0.9), 1),
    mainThreadCpuMsPerScanCall: main.length ? round(quantile(main, 0.5), 1) : null,
    perPair,
    stageWallMsP50: Object.fromEntries(Object.entries(stages).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, round(quantile(v, 0.5), 1)])),
  };
  process.stdout.write(`cpuMsPerScanCall p50 / p90   ${result.cpuMsPerScanCall} / ${result.cpuMsPerScanCallP90}\n`);
  process.stdout.write(`wallMsPerScanCall p50 / p90  ${result.wallMsPerScanCall} / ${result.wallMsPerScanCallP90}\n`);
  process.stdout.write(`mainThreadCpuMsPerScanCall   ${result.mainThreadCpuMsPerScanCall}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function main(): Promise<void> {
  const engine = await createCardEngine();
  await engine.warmUp();
  const rows: Row[] = [];
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
  process.stderr.write(`bench:vision: ${N} eval pairs from seed ${FIRST}, backend ${engine.backend}\n`);
  for (let i = 0; i < N; i++) {
    const seed = FIRST + i;
    const sample = await generateSample(seed, MEGAPIXELS ? { photo: { megapixels: MEGAPIXELS } } : {});
    const { label } = sample;
    const megapixels = label.photo.front.megapixels;
    const u = process.cpuUsage();
    const t = performance.now();
    let analysis: CardAnalysis | undefined;
    try {
      analysis = await engine.analyzeCard({ front: sample.frontJpeg, back: sample.backJpeg });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
    const ms = performance.now() - t;
    const cpuMs = cpuMsSince(u);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const row: Row = { seed, hard: label.tags.hard, detected: false, turnedSides: 0, slabSides: 0, ms, cpuMs, megapixels, centeringErrors: [], subErrors: { centering: 0, corners: 0, edges: 0, surface: 0 }, gradeError: 0 };
    const detections = analysis ? (['front', 'back'] as const).map((side) => sideDetection(label, analysis, side)) : ['failed', 'failed'];
    // No generated card is in a slab: every slab label found is a false one.
    for (const side of ['front', 'back'] as const) if (analysis?.sides[side]?.support.slab) row.slabSides++;
    if (row.slabSides > 0) process.stderr.write(`  seed ${seed}: a slab label found on ${row.slabSides} side(s) of a bare generated card\n`);
    if (analysis && !detections.includes('failed')) {
      row.detected = true;
      (['front', 'back'] as const).forEach((side, i) => {
        const turned = detections[i] === 'turned';
        if (turned) row.turnedSides++;
        const measured = analysis.sides[side]!.centering;
        // a side read turned by 180 degrees reports its ratios mirrored: compared with the mirrored truth
        const truth = label.centering[side];
        const lr = turned ? 100 - truth.leftRight : truth.leftRight;
        const tb = turned ? 100 - truth.topBottom : truth.topBottom;
        row.centeringErrors.push(Math.abs(measured.leftRight - lr), Math.abs(measured.topBottom - tb));
      });
      for (const k of SUB) row.subErrors[k] = Math.abs(analysis.grading.subGrades[k] - label.truth.subGrades[k]);
      row.gradeError = Math.abs(analysis.grading.grade - label.truth.grade);
    }
    rows.push(row);
    if ((i + 1) % 25 === 0) process.stderr.write(`  ${i + 1}/${N}  ${JSON.stringify(summarise(rows))}\n`);
  }
  clearInterval(sampler);
  await engine.close();

  const all = summarise(rows);
  const hard = summarise(rows.filter((r) => r.hard));
  const twelve = rows.filter((r) => r.megapixels >= 11);
  const times = rows.map((r) => r.ms);
  const result = {
    ...all,
    msPerPairP50: round(quantile(times, 0.5), 1),
    msPerPairP95: round(quantile(times, 0.95), 1),
    msPerPair12MpP50: round(quantile(twelve.map((r) => r.ms), 0.5), 1),
    msPerPair12MpP95: round(quantile(twelve.map((r) => r.ms), 0.95), 1),
    cpuMsPerPairP50: round(quantile(rows.map((r) => r.cpuMs), 0.5), 1),
    cpuMsPerPair12MpP50: round(quantile(twelve.map((r) => r.cpuMs), 0.5), 1),
    variant: 'engine-only',
    cores: availableParallelism(),
    node: process.version,
    n12Mp: twelve.length,
    peakRssMb: Math.round(peakRss / 2 ** 20),
    backend: engine.backend,
    hard,
  };

  const line = (k: string, v: unknown, h: unknown) => process.stdout.write(`${k.padEnd(24)} ${String(v).padStart(12)} ${String(h).padStart(12)}\n`);
  process.stdout.write(`\n${'metric'.padEnd(24)} ${'all'.padStart(12)} ${'hard slice'.padStart(12)}\n`);
  line('n', all.n, hard.n);
  line('detectionFailureRate', all.detectionFailureRate, hard.detectionFailureRate);
  line('orientationErrorRate', all.orientationErrorRate, hard.orientationErrorRate);
  line('centeringMae (points)', all.centeringMae, hard.centeringMae);
  line('centeringP95 (points)', all.centeringP95, hard.centeringP95);
  for (const k of SUB) line(`subgradeMae.${k}`, all.subgradeMae[k], hard.subgradeMae[k]);
  line('overallExact', all.overallExact, hard.overallExact);
  line('overallWithin1', all.overallWithin1, hard.overallWithin1);
  line('msPerPair p50 / p95', `${result.msPerPairP50} / ${result.msPerPairP95}`, '');
  line('12 MP pairs p50 / p95', `${result.msPerPair12MpP50} / ${result.msPerPair12MpP95}`, `n=${twelve.length}`);
  line('cpuMsPerPair p50 (12 MP)', `${result.cpuMsPerPairP50} (${result.cpuMsPerPair12MpP50})`, '');
  line('peakRssMb', result.peakRssMb, '');
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await (process.env.BENCH_VARIANT === 'scan-call' ? scanCall() : main());
