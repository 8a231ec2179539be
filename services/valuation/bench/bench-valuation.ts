// Valuation bench on CardLens's generated SAMPLE sales (npm run bench:valuation:sample; the real-data bench,
// npm run bench:valuation, is bench-market.ts): how close the raw estimate comes to the next sample sale.
//
//   npx tsx bench/bench-valuation.ts [--seed N] [--half-life DAYS]
//
// 1. CardProfiles from both catalogs (packages/catalog-data/catalog), subjectCardCount computed over the catalog.
// 2. Sample sales for the covered cards (pickCoveredCards, 15%), fixed seed, 365 days ending at NOW.
// 3. Per card + parallel with a raw sale, the latest raw sale is held out. The grade premium model is fitted on
//    every sale that is not held out.
// 4. Each held-out sale is estimated from that printing's sales strictly before it, with now = its date, and
//    scored by |estimate − price| / price. The held-out sale carries its own noise (and may be an outlier), so
//    this error is the estimator's plus the market's: it is what a user comparing the estimate with the next
//    sale would see.
// The last line printed is one JSON object (fractions, not percent): mdape (median APE over cases with ≥ 5 raw
// comps in the lookback), coverage (share of cases that got a raw estimate), n, p90ape, nAll, mdapeAll, ...

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CATALOG_DIR } from '@cardlens/catalog-data';
import { cardProfilesFromCatalog, type CatalogCardLike } from '../src/domain/card-profile';
import { DEFAULT_ESTIMATE_OPTIONS, estimateValue } from '../src/domain/estimate';
import { fitGradePremium } from '../src/domain/grade-premium';
import { TRUE_GRADER_FACTOR, TRUE_PREMIUM, generateSampleSales, pickCoveredCards } from '../src/domain/sales-generator';
import { median, quantile } from '../src/domain/stats';
import type { Sale } from '../src/domain/types';

const NOW = new Date('2025-06-30T00:00:00Z');
const seedArg = process.argv.indexOf('--seed');
const SEED = seedArg > 0 ? Number(process.argv[seedArg + 1]) : 20250630;
const halfLifeArg = process.argv.indexOf('--half-life');
const HALF_LIFE_DAYS = halfLifeArg > 0 ? Number(process.argv[halfLifeArg + 1]) : DEFAULT_ESTIMATE_OPTIONS.halfLifeDays;
const MIN_RAW_COMPS = 5;
const LOOKBACK_MS = DEFAULT_ESTIMATE_OPTIONS.lookbackDays * 86_400_000;

function catalogDir(): string {
  return process.env.CARD_CATALOG_DIR || CATALOG_DIR;
}

function readNdjsonGz(path: string): CatalogCardLike[] {
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  const records: CatalogCardLike[] = [];
  for (const line of text.split('\n')) if (line.trim()) records.push(JSON.parse(line) as CatalogCardLike);
  return records;
}

interface Case {
  game: string;
  heldOut: Sale;
  rawComps: number;
  estimateCents: number | null;
  derived: boolean;
  ape: number | null;
  /** Baselines on the same raw comps: the last raw sale's price, and the plain median of all raw comps. */
  lastSaleApe: number | null;
  plainMedianApe: number | null;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function summarise(label: string, cases: readonly Case[]): string {
  const errors = cases.flatMap((c) => (c.ape === null ? [] : [c.ape]));
  const cells = [
    label.padEnd(26),
    String(cases.length).padStart(7),
    (errors.length ? pct(median(errors)) : '-').padStart(9),
    (errors.length ? pct(quantile(errors, 0.9)) : '-').padStart(9),
    pct(cases.length ? errors.length / cases.length : 0).padStart(9),
  ];
  return cells.join(' ');
}

function main(): void {
  const started = performance.now();
  const dir = catalogDir();
  const records = [...readNdjsonGz(`${dir}/pokemon.ndjson.gz`), ...readNdjsonGz(`${dir}/sports.ndjson.gz`)];
  const profiles = cardProfilesFromCatalog(records);
  const covered = pickCoveredCards(profiles, { seed: SEED });
  const loaded = performance.now();

  const sales = generateSampleSales(covered, { seed: SEED, now: NOW });
  const generated = performance.now();

  // Sales are sorted by date, so each printing's list is too.
  const byPrinting = new Map<string, Sale[]>();
  for (const sale of sales) {
    const key = `${sale.cardId}\u0000${sale.parallel}`;
    const list = byPrinting.get(key);
    if (list) list.push(sale);
    else byPrinting.set(key, [sale]);
  }
  const gameOf = new Map(covered.map((card) => [card.id, card.game]));

  const heldOut = new Set<Sale>();
  for (const list of byPrinting.values()) {
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.grader === null) {
        heldOut.add(list[i]!);
        break;
      }
    }
  }
  const premium = fitGradePremium(sales.filter((s) => !heldOut.has(s)));
  const fitted = performance.now();

  const cases: Case[] = [];
  for (const list of byPrinting.values()) {
    const target = list.findLast((s) => heldOut.has(s));
    if (!target) continue;
    const before = list.filter((s) => s.soldAt.getTime() < target.soldAt.getTime());
    const estimate = estimateValue({ sales: before, now: target.soldAt, premium, options: { halfLifeDays: HALF_LIFE_DAYS } });
    const apeOf = (cents: number | null) => (cents === null ? null : Math.abs(cents - target.priceCents) / target.priceCents);
    const rawBefore = before.filter((s) => s.grader === null && target.soldAt.getTime() - s.soldAt.getTime() <= LOOKBACK_MS);
    cases.push({
      game: gameOf.get(target.cardId) === 'pokemon' ? 'pokemon' : 'sports',
      heldOut: target,
      rawComps: estimate.rawCompCount,
      estimateCents: estimate.rawEstimateCents,
      derived: estimate.rawEstimateCents !== null && estimate.rawCompCount === 0,
      ape: apeOf(estimate.rawEstimateCents),
      lastSaleApe: apeOf(rawBefore.at(-1)?.priceCents ?? null),
      plainMedianApe: apeOf(rawBefore.length ? Math.round(median(rawBefore.map((s) => s.priceCents))) : null),
    });
  }
  const estimated = performance.now();

  const scored = cases.filter((c) => c.rawComps >= MIN_RAW_COMPS);
  const scoredErrors = scored.flatMap((c) => (c.ape === null ? [] : [c.ape]));
  const allErrors = cases.flatMap((c) => (c.ape === null ? [] : [c.ape]));

  console.log(`valuation bench — seed ${SEED}, window 365 days to ${NOW.toISOString().slice(0, 10)}, half-life ${HALF_LIFE_DAYS} days`);
  console.log(`catalog ${profiles.length} cards, covered ${covered.length}, sample sales ${sales.length}, premium cells ${premium.cellCount}`);
  console.log('');
  console.log('APE = |raw estimate − held-out sale| / sale, in percent; mdape = its median; coverage = cases with an estimate');
  console.log(`${'cases'.padEnd(26)} ${'n'.padStart(7)} ${'mdape'.padStart(9)} ${'p90 ape'.padStart(9)} ${'coverage'.padStart(9)}`);
  const rows: [string, (c: Case) => boolean][] = [
    [`≥ ${MIN_RAW_COMPS} raw comps (target)`, (c) => c.rawComps >= MIN_RAW_COMPS],
    ['  pokemon', (c) => c.rawComps >= MIN_RAW_COMPS && c.game === 'pokemon'],
    ['  sports', (c) => c.rawComps >= MIN_RAW_COMPS && c.game === 'sports'],
    ['  base printing', (c) => c.rawComps >= MIN_RAW_COMPS && c.heldOut.parallel === ''],
    ['  parallel / variant', (c) => c.rawComps >= MIN_RAW_COMPS && c.heldOut.parallel !== ''],
    ['  held-out under $1', (c) => c.rawComps >= MIN_RAW_COMPS && c.heldOut.priceCents < 100],
    ['  held-out $1-$20', (c) => c.rawComps >= MIN_RAW_COMPS && c.heldOut.priceCents >= 100 && c.heldOut.priceCents < 2000],
    ['  held-out $20+', (c) => c.rawComps >= MIN_RAW_COMPS && c.heldOut.priceCents >= 2000],
    ['10+ raw comps', (c) => c.rawComps >= 10],
    ['1-4 raw comps', (c) => c.rawComps >= 1 && c.rawComps < MIN_RAW_COMPS],
    ['0 raw comps (from graded)', (c) => c.rawComps === 0 && c.estimateCents !== null],
    ['0 comps at all', (c) => c.estimateCents === null],
    ['all cases', () => true],
  ];
  for (const [label, filter] of rows) console.log(summarise(label, cases.filter(filter)));
  const baseline = (pick: (c: Case) => number | null) => {
    const errors = scored.flatMap((c) => (pick(c) === null ? [] : [pick(c)!]));
    return errors.length ? median(errors) : null;
  };
  const lastSaleMdape = baseline((c) => c.lastSaleApe);
  const plainMedianMdape = baseline((c) => c.plainMedianApe);
  console.log(`baselines on the ≥ ${MIN_RAW_COMPS} raw comps cases: last raw sale ${lastSaleMdape === null ? '-' : pct(lastSaleMdape)}, plain median of raw comps ${plainMedianMdape === null ? '-' : pct(plainMedianMdape)}`);
  console.log('');
  const psa = (g: number) => premium.multiplier(g).toFixed(2);
  const grades = [10, 9.5, 9, 8, 7, 5, 3, 1];
  const truth = (g: number) => TRUE_PREMIUM[(g - 1) * 2]!.toFixed(2);
  console.log(`fitted premium (PSA × raw): ${grades.map((g) => `${g} ${psa(g)}`).join(', ')}; ` +
    `grader factors ${['BGS', 'SGC', 'CGC'].map((g) => `${g} ×${Math.exp(premium.graderOffset(g)).toFixed(2)}`).join(', ')}`);
  console.log(`generator's curve (typical card): ${grades.map((g) => `${g} ${truth(g)}`).join(', ')}; ` +
    `grader factors ${['BGS', 'SGC', 'CGC'].map((g) => `${g} ×${TRUE_GRADER_FACTOR[g]!.toFixed(2)}`).join(', ')}`);
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  console.log(`time: catalog ${seconds(loaded - started)}s, generate ${seconds(generated - loaded)}s, fit ${seconds(fitted - generated)}s, estimate ${seconds(estimated - fitted)}s`);

  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  console.log(
    JSON.stringify({
      mdape: scoredErrors.length ? round(median(scoredErrors)) : null,
      coverage: round(cases.length ? allErrors.length / cases.length : 0),
      n: scoredErrors.length,
      p90ape: scoredErrors.length ? round(quantile(scoredErrors, 0.9)) : null,
      nAll: cases.length,
      mdapeAll: allErrors.length ? round(median(allErrors)) : null,
      baselineLastSaleMdape: lastSaleMdape === null ? null : round(lastSaleMdape),
      baselinePlainMedianMdape: plainMedianMdape === null ? null : round(plainMedianMdape),
      minRawComps: MIN_RAW_COMPS,
      seed: SEED,
      halfLifeDays: HALF_LIFE_DAYS,
      coveredCards: covered.length,
      sales: sales.length,
      seconds: round((performance.now() - started) / 1000),
    }),
  );
}

main();
