/**
 * npm run bench:identify — identification against ground truth over the full catalog.
 *
 * Photographs catalog cards with @cardlens/card-synth (fixed seeds from BENCH_FIRST_SEED, default 1,000,000, the
 * generator's evaluation split; half Pokemon, half sports, each seed picks its card uniformly from that catalog),
 * runs the vision engine's evidence extraction (OCR, fingerprint, finish, border colour) on each pair, then
 * identifies the evidence against the whole imported catalog (both files, 167,687 cards).
 *   BENCH_N (default 1000), BENCH_FIRST_SEED, DATABASE_URL (Postgres; else an in-memory PGlite is loaded).
 * Evidence is cached per seed under .bench-cache/ (keyed by generator and engine version) because the OCR is
 * the slow part (~1-2 s a pair on this machine); the identification itself is always re-run.
 * top1: the catalog id is exactly right. top5: it is among the match and the runners-up. fieldsExact: each of the
 * eight identification fields equals the truth. searchMs: identifyCard only (retrieval + re-ranking), per call.
 * The LAST line is one JSON object.
 */
import { existsSync, mkdirSync, readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { generateSample, EVAL_SEED_START, GENERATOR_VERSION, type CardLabel } from '@cardlens/card-synth';
import { createCardEngine, ENGINE_VERSION } from '@cardlens/vision';
import { FingerprintIndex } from '../src/identification/fingerprint-index';
import { POKEMON_PRINTING_NAMES, pokemonStandardPrinting } from '../src/catalog/printings';
import { printedSubsetKey, type ChosenParallel } from '../src/identification/rank';
import type { Evidence } from '../src/identification/read-evidence';
import { catalogCardCount } from '../src/use-cases/import-catalog';
import { openCatalog } from './catalog';
import { evidenceOf } from './evidence';
import { COLUMNS, identificationOf, identifyCard, toCandidate, type CandidateRow, type Identification } from '../src/use-cases/identify-card';

const N = Number(process.env.BENCH_N ?? 1000);
const FIRST = Number(process.env.BENCH_FIRST_SEED ?? EVAL_SEED_START);
const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIELDS = ['name', 'subject', 'category', 'year', 'set', 'number', 'parallel', 'printRun'] as const;

interface Case {
  seed: number;
  card: CardLabel;
  evidence: Evidence;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  return s[Math.floor(i)]! + (s[Math.ceil(i)]! - s[Math.floor(i)]!) * (i - Math.floor(i));
};
const round = (x: number, d = 4): number => Math.round(x * 10 ** d) / 10 ** d;

async function collectEvidence(): Promise<Case[]> {
  const cacheDir = path.resolve(serviceDir, '.bench-cache');
  mkdirSync(cacheDir, { recursive: true });
  const cacheFile = path.join(cacheDir, `identify-${GENERATOR_VERSION}-${ENGINE_VERSION}.ndjson`);
  const cached = new Map<number, Case>();
  if (existsSync(cacheFile)) {
    for (const line of readFileSync(cacheFile, 'utf8').split('\n')) if (line) cached.set((JSON.parse(line) as Case).seed, JSON.parse(line) as Case);
  }
  const seeds = Array.from({ length: N }, (_, i) => FIRST + i);
  const missing = seeds.filter((s) => !cached.has(s));
  if (missing.length > 0) {
    const engine = await createCardEngine();
    await engine.warmUp();
    let done = 0;
    const t0 = performance.now();
    for (const seed of missing) {
      const sample = await generateSample(seed, { game: seed % 2 === 0 ? 'pokemon' : 'sports' });
      let evidence: Evidence = evidenceOf(undefined);
      try {
        evidence = evidenceOf(await engine.analyzeCard({ front: sample.frontJpeg, back: sample.backJpeg }, { evidence: true }));
      } catch {
        // No card found: identification gets empty evidence, as the service would.
      }
      const c: Case = { seed, card: sample.label.card, evidence };
      appendFileSync(cacheFile, `${JSON.stringify(c)}\n`);
      cached.set(seed, c);
      if (++done % 50 === 0) process.stderr.write(`evidence ${done}/${missing.length} (${Math.round((performance.now() - t0) / done)} ms/pair)\n`);
    }
    await engine.close();
  }
  return seeds.map((s) => cached.get(s)!);
}

function truthPrinting(card: CardLabel, row: ReturnType<typeof toCandidate>): ChosenParallel {
  if (card.game === 'pokemon') {
    const standard = pokemonStandardPrinting([...new Set(row.variants.map((v) => v.type))]);
    const type = card.parallel ?? 'normal';
    // The renderer prints a card without variants as a normal one ('' too).
    return { parallel: type === standard ? '' : (POKEMON_PRINTING_NAMES[type] ?? type), printRun: null };
  }
  return { parallel: card.parallel ?? '', printRun: card.serial ? card.printRun : null };
}

async function main(): Promise<void> {
  const cases = await collectEvidence();
  const { prisma, close, kind } = await openCatalog();
  const fingerprints = new FingerprintIndex();
  const catalogSize = await catalogCardCount(prisma);
  // Warm the connection and the plan cache.
  for (const c of cases.slice(0, 5)) await identifyCard({ prisma, fingerprints }, c.evidence);
  let top1 = 0;
  let top5 = 0;
  let notInCatalog = 0;
  let printIdentical = 0;
  const fieldHits = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<(typeof FIELDS)[number], number>;
  const ms: number[] = [];
  const byGame: Record<string, { n: number; top1: number }> = {};
  const misses: string[] = [];
  const parallelMisses: string[] = [];
  for (const [i, c] of cases.entries()) {
    if (i % 250 === 0) process.stderr.write(`identify ${i}/${cases.length}\n`);
    const t = performance.now();
    const result = await identifyCard({ prisma, fingerprints }, c.evidence);
    ms.push(performance.now() - t);
    const [row] = await prisma.$queryRawUnsafe<CandidateRow[]>(`SELECT ${COLUMNS} FROM valuation.catalog_cards WHERE id = $1`, c.card.catalogId);
    const truth: Identification = identificationOf(toCandidate(row!), truthPrinting(c.card, toCandidate(row!)));
    const hit = result.cardId === c.card.catalogId;
    // A different catalog card that prints exactly the same text (name, number, year, publisher, subset line,
    // denominator) cannot be told apart without a reference image: counted separately.
    if (!hit && result.cardId) {
      const [got] = await prisma.$queryRawUnsafe<CandidateRow[]>(`SELECT ${COLUMNS} FROM valuation.catalog_cards WHERE id = $1`, result.cardId);
      const a = toCandidate(got!);
      const b = toCandidate(row!);
      const printKey = (x: typeof a) => [x.nameKey, x.numberKey, x.year, x.brandKey, printedSubsetKey(x), x.setOfficialCount].join('|');
      if (printKey(a) === printKey(b)) printIdentical++;
    }
    const game = c.card.game === 'pokemon' ? 'pokemon' : 'sports';
    byGame[game] ??= { n: 0, top1: 0 };
    byGame[game].n++;
    if (hit) {
      top1++;
      byGame[game].top1++;
    } else if (misses.length < 100) {
      misses.push(`${c.seed} ${game} truth=${truth.name} #${truth.number} ${truth.year} | read title=${JSON.stringify(c.evidence.titleText)} number=${JSON.stringify(c.evidence.numberText)} copy=${JSON.stringify(c.evidence.copyrightText)} | got=${result.inCatalog ? `${result.identification.name} #${result.identification.number} ${result.identification.year} ${result.identification.set}` : `not in catalog (${result.reason})`}`);
    }
    if (hit && result.identification.parallel !== truth.parallel && parallelMisses.length < 25) {
      parallelMisses.push(`${c.seed} ${game} truth=${JSON.stringify(truth.parallel)} got=${JSON.stringify(result.identification.parallel)} serial=${JSON.stringify(c.evidence.serialText)} cues=${c.evidence.finishCues.join('+')} border=${c.evidence.borderColor} label=${c.card.finish}/${c.card.borderColor}`);
    }
    if (hit || result.candidates.some((x) => x.cardId === c.card.catalogId)) top5++;
    if (!result.inCatalog) notInCatalog++;
    for (const f of FIELDS) if (result.identification[f] === truth[f]) fieldHits[f]++;
  }
  await close();
  const n = cases.length;
  console.log(`identification over ${catalogSize} catalog cards (${kind}), ${n} photographed pairs, seeds ${FIRST}..${FIRST + n - 1}`);
  console.log(`top1 ${(100 * top1 / n).toFixed(1)}% (a print-identical twin: ${(100 * printIdentical / n).toFixed(1)}%)  top5 ${(100 * top5 / n).toFixed(1)}%  flagged not-in-catalog ${(100 * notInCatalog / n).toFixed(1)}%`);
  for (const [g, v] of Object.entries(byGame)) console.log(`  ${g.padEnd(8)} n=${v.n} top1 ${(100 * v.top1 / v.n).toFixed(1)}%`);
  console.log(`fields exact: ${FIELDS.map((f) => `${f} ${(100 * fieldHits[f] / n).toFixed(1)}%`).join('  ')}`);
  console.log(`search ms p50 ${quantile(ms, 0.5).toFixed(2)} p99 ${quantile(ms, 0.99).toFixed(2)}`);
  if (process.env.BENCH_SHOW_MISSES) {
    for (const m of misses) console.log(`miss ${m}`);
    for (const m of parallelMisses) console.log(`parallel ${m}`);
  }
  console.log(
    JSON.stringify({
      top1: round(top1 / n),
      top5: round(top5 / n),
      top1OrPrintIdentical: round((top1 + printIdentical) / n),
      fieldsExact: Object.fromEntries(FIELDS.map((f) => [f, round(fieldHits[f] / n)])),
      searchP50Ms: round(quantile(ms, 0.5), 2),
      searchP99Ms: round(quantile(ms, 0.99), 2),
      notInCatalogRate: round(notInCatalog / n),
      catalogSize,
      database: kind,
      n,
    }),
  );
}

await main();
