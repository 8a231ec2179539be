// Valuation bench on real market data (npm run bench:valuation): the data the repository ships
// (packages/catalog-data: TCGplayer daily market prices 2025-09-21..2025-10-26 via tcgcsv.com, PriceCharting
// graded values) and the estimators the service uses on it.
//
//   npx tsx bench/bench-market.ts            (DATABASE_URL set: the import timings run on that Postgres, in a
//                                             database of their own created and dropped here; else PGlite)
//
// 1. Coverage: share of the Pokemon catalog's cards whose standard printing gets a raw estimate (a market price
//    within 14 days of the feed's last day), chosen exactly as the service chooses (product, then printing).
// 2. Backtest: every covered card with ≥ 20 days of market prices and a price on the last day: the last day's
//    market price is estimated from the days before it (rawFromSeries with the day before as "today"), and
//    scored by |estimate − actual| / actual. Beside it, the naive baseline (yesterday's market price, where
//    yesterday has one) and smoothed alternatives (median of 3 / 7 days, EWMA). Medians per price band.
// 3. Graded: the graded tables' cards with a raw market price are split by a hash of the card id (30 % held
//    out, never seen by the fit). The graded-price model is fitted on the rest; its PSA 9 and PSA 10 values
//    for the held-out cards are scored against the table's, beside the demo's sample model (the grade-premium
//    curve fitted on CardLens's generated sample sales, as `npm start` fits it) applied to the same raw price.
// 4. Import speed: one day in tcgcsv's own format (`<day>/3/<group>/prices`, written from the snapshot's last
//    day) through the CLI's import path, and the whole snapshot, into a fresh database.
// The last line printed is one JSON object with every figure.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CATALOG_DIR, PRICES_DIR } from '@cardlens/catalog-data';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import pg from 'pg';
import { marketPrintingsFor, marketProductsFor, type MarketVariant } from '../src/catalog/printings';
import { PrismaClient } from '../src/db';
import { cardProfilesFromCatalog, type CatalogCardLike } from '../src/domain/card-profile';
import { fitGradePremium } from '../src/domain/grade-premium';
import { GradedPriceModel } from '../src/domain/graded-prices';
import { parseGradedTable, parseMarketSnapshot } from '../src/domain/price-files';
import { dayNumber, dayString, rawFromSeries, SERIES_ESTIMATORS, type DailyPrice } from '../src/domain/price-series';
import { csvRecords } from '../src/domain/sales-file';
import { generateSampleSales, pickCoveredCards } from '../src/domain/sales-generator';
import { median } from '../src/domain/stats';
import { importCatalogFile } from '../src/use-cases/import-catalog';
import { importMarketSnapshot, importTcgcsvDay } from '../src/use-cases/import-prices';
import { valuationServiceDir } from '../src/service';

const SNAPSHOT = path.join(PRICES_DIR, 'tcgplayer-pokemon-daily.csv.gz');
const GRADED = path.join(PRICES_DIR, 'graded-pricecharting.csv');
const MIN_DAYS = 20;
const HELD_OUT_SHARE = 0.3;
const started = performance.now();
const log = (line: string) => console.log(line);

type PokemonVariant = { type: string; subtype?: string | null; stamp?: string[] | null; thirdParty?: { tcgplayer?: number } };
type PokemonRecord = Omit<CatalogCardLike, 'variants'> & { id: string; variants?: PokemonVariant[] | null; thirdParty?: { tcgplayer?: number } };

function readNdjsonGz(file: string): PokemonRecord[] {
  return gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter((l) => l.length > 2).map((l) => JSON.parse(l) as PokemonRecord);
}

// ---------------------------------------------------------------------------------------------- data
const pokemon = readNdjsonGz(path.join(CATALOG_DIR, 'pokemon.ndjson.gz'));
const snapshotText = gunzipSync(readFileSync(SNAPSHOT)).toString('utf8');
const snapshot = parseMarketSnapshot(snapshotText);
const lastDay = [...snapshot.days].sort().at(-1)!;
const seriesOf = new Map<string, DailyPrice[]>();
for (const o of snapshot.observations) {
  const key = `${o.productId}\u0000${o.printing}`;
  const list = seriesOf.get(key) ?? [];
  list.push({ day: o.day, marketCents: o.marketCents, lowCents: o.lowCents, midCents: o.midCents, highCents: o.highCents });
  seriesOf.set(key, list);
}
for (const list of seriesOf.values()) list.sort((a, b) => a.day.localeCompare(b.day));

/** The series the service would price a card's standard printing from. */
function standardSeries(card: PokemonRecord): DailyPrice[] | null {
  const variants: MarketVariant[] = (card.variants ?? []).map((v) => ({ type: v.type, subtype: v.subtype ?? null, stamp: v.stamp ?? [], ...(v.thirdParty?.tcgplayer ? { tcgplayer: v.thirdParty.tcgplayer } : {}) }));
  const products = [...new Set([...variants.map((v) => v.tcgplayer), card.thirdParty?.tcgplayer].filter((p): p is number => typeof p === 'number'))];
  const wanted = marketPrintingsFor('', [...new Set(variants.map((v) => v.type))]);
  for (const product of marketProductsFor('', variants, products)) {
    for (const printing of wanted) {
      const series = seriesOf.get(`${product}\u0000${printing}`);
      if (series) return series;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------- 1. coverage
const rawOf = new Map<string, { cents: number; series: DailyPrice[] }>();
for (const card of pokemon) {
  const series = standardSeries(card);
  const raw = series ? rawFromSeries(series, lastDay) : null;
  if (raw && series) rawOf.set(card.id, { cents: raw.estimateCents, series });
}
const coverage = rawOf.size / pokemon.length;

// ---------------------------------------------------------------------------------------------- 2. backtest
const BANDS = [
  { name: 'under $1', max: 100 },
  { name: '$1-10', max: 1000 },
  { name: '$10-100', max: 10_000 },
  { name: 'over $100', max: Infinity },
];
interface BacktestCase { actual: number; service: number; naive: number | null; alternatives: Record<string, number> }
const cases: BacktestCase[] = [];
const previousDay = dayString(dayNumber(lastDay) - 1);
for (const { series } of rawOf.values()) {
  const withPrice = series.filter((d) => d.marketCents !== null && d.marketCents > 0);
  const last = withPrice.at(-1);
  if (withPrice.length < MIN_DAYS || !last || last.day !== lastDay) continue;
  const prior = series.filter((d) => d.day < lastDay);
  const service = rawFromSeries(prior, previousDay);
  if (!service) continue;
  const priorCents = prior.filter((d) => d.marketCents !== null && d.marketCents > 0).map((d) => d.marketCents!);
  const yesterday = prior.find((d) => d.day === previousDay)?.marketCents ?? null;
  cases.push({
    actual: last.marketCents!,
    service: service.estimateCents,
    naive: yesterday,
    alternatives: Object.fromEntries(Object.entries(SERIES_ESTIMATORS).map(([name, f]) => [name, f(priorCents)])),
  });
}
const ape = (estimate: number, actual: number) => Math.abs(estimate - actual) / actual;
const mdape = (list: readonly BacktestCase[], pick: (c: BacktestCase) => number | null): number | null => {
  const errors = list.map((c) => [pick(c), c.actual] as const).filter(([e]) => e !== null).map(([e, a]) => ape(e!, a));
  return errors.length > 0 ? median(errors) : null;
};
const p90ape = (list: readonly BacktestCase[], pick: (c: BacktestCase) => number | null): number | null => {
  const errors = list.map((c) => [pick(c), c.actual] as const).filter(([e]) => e !== null).map(([e, a]) => ape(e!, a)).sort((a, b) => a - b);
  return errors.length > 0 ? errors[Math.min(errors.length - 1, Math.floor(0.9 * errors.length))]! : null;
};
const byBand = BANDS.map((band, i) => {
  const min = i === 0 ? 0 : BANDS[i - 1]!.max;
  const inBand = cases.filter((c) => c.actual >= min && c.actual < band.max);
  return {
    band: band.name,
    n: inBand.length,
    mdape: mdape(inBand, (c) => c.service),
    naiveN: inBand.filter((c) => c.naive !== null).length,
    naiveMdape: mdape(inBand, (c) => c.naive),
    share10: inBand.length > 0 ? inBand.filter((c) => ape(c.service, c.actual) <= 0.1).length / inBand.length : null,
    p90: p90ape(inBand, (c) => c.service),
    naiveP90: p90ape(inBand, (c) => c.naive),
  };
});
const alternatives = Object.fromEntries(Object.keys(SERIES_ESTIMATORS).map((name) => [name, mdape(cases, (c) => c.alternatives[name]!)]));

// ---------------------------------------------------------------------------------------------- 3. graded
const table = parseGradedTable(readFileSync(GRADED, 'utf8'));
const hashShare = (id: string): number => {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
};
const pairs = table.rows
  .filter((r) => r.grader === 'PSA' && rawOf.has(r.cardId))
  .map((r) => ({ cardId: r.cardId, rawCents: rawOf.get(r.cardId)!.cents, grade: r.grade, gradedCents: r.priceCents }));
const heldOut = (id: string) => hashShare(id) < HELD_OUT_SHARE;
const model = GradedPriceModel.fit(pairs.filter((p) => !heldOut(p.cardId)));
const sampleStarted = performance.now();
const profiles = cardProfilesFromCatalog([...(pokemon as CatalogCardLike[]), ...(readNdjsonGz(path.join(CATALOG_DIR, 'sports.ndjson.gz')) as CatalogCardLike[])]);
const sampleSeed = 20261124;
const sampleSales = generateSampleSales(pickCoveredCards(profiles, { seed: sampleSeed, share: 0.05 }), { seed: sampleSeed, now: new Date(`${lastDay}T00:00:00Z`) });
const sampleModel = fitGradePremium(sampleSales);
const sampleMs = performance.now() - sampleStarted;
const graded = [9, 10].map((grade) => {
  const test = pairs.filter((p) => heldOut(p.cardId) && p.grade === grade);
  const errors = test.map((p) => ape(model.predict(p.rawCents, grade).valueCents, p.gradedCents));
  const sampleErrors = test.map((p) => ape(Math.round(p.rawCents * sampleModel.multiplier(grade)), p.gradedCents));
  return { grade, n: test.length, mdape: errors.length ? median(errors) : null, sampleModelMdape: sampleErrors.length ? median(sampleErrors) : null };
});

// ---------------------------------------------------------------------------------------------- 4. import speed
async function importSpeed(): Promise<{ database: string; dayRows: number; dayMs: number; dayRepeatMs: number; snapshotRows: number; snapshotMs: number }> {
  const logger = { info() {}, warn() {}, error() {}, debug() {} } as never;
  let database: Database | { kind: 'postgres'; url: string };
  let drop: (() => Promise<void>) | null = null;
  if (process.env.DATABASE_URL) {
    const name = `cardlens_bench_market_${process.pid}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    database = { kind: 'postgres', url: Object.assign(new URL(process.env.DATABASE_URL), { pathname: `/${name}` }).toString() };
    drop = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  } else {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'cardlens-bench-market-'));
  try {
    await migrate({ ...serviceLayout(valuationServiceDir), database, logger });
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      await importCatalogFile(prisma, path.join(CATALOG_DIR, 'pokemon.ndjson.gz'));
      // The snapshot's last day as tcgcsv publishes it: <day>/3/<groupId>/prices.
      const groups = new Map<string, object[]>();
      const records = csvRecords(snapshotText);
      const header = records.next().value!.fields;
      const lastColumn = header.indexOf(lastDay);
      let dayRows = 0;
      for (const { fields } of records) {
        const dollars = (cents: string) => (cents === '' ? null : Number(cents) / 100);
        if (fields[lastColumn] === '' && fields[3] === '' && fields[4] === '') continue;
        const list = groups.get(fields[2]!) ?? [];
        list.push({ productId: Number(fields[0]), lowPrice: dollars(fields[3]!), midPrice: dollars(fields[4]!), highPrice: dollars(fields[5]!), marketPrice: dollars(fields[lastColumn]!), directLowPrice: dollars(fields[6]!), subTypeName: fields[1] });
        groups.set(fields[2]!, list);
        dayRows++;
      }
      for (const [group, results] of groups) {
        mkdirSync(path.join(dir, lastDay, '3', group), { recursive: true });
        writeFileSync(path.join(dir, lastDay, '3', group, 'prices'), JSON.stringify({ success: true, errors: [], results }));
      }
      const day = await importTcgcsvDay(prisma, path.join(dir, lastDay));
      const repeat = await importTcgcsvDay(prisma, path.join(dir, lastDay));
      if (repeat.inserted + repeat.updated !== 0) throw new Error('re-importing the same day wrote rows: the import is not idempotent');
      const whole = await importMarketSnapshot(prisma, SNAPSHOT);
      return { database: database.kind, dayRows, dayMs: day.ms, dayRepeatMs: repeat.ms, snapshotRows: whole.read, snapshotMs: whole.ms };
    } finally {
      await close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await drop?.();
  }
}

const speed = await importSpeed();

// ---------------------------------------------------------------------------------------------- report
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
log(`valuation bench on real data: TCGplayer daily market prices ${snapshot.days[0]}..${lastDay} (${snapshot.days.length} days, ${seriesOf.size} product printings), PriceCharting graded values (${table.rows.length} rows)`);
log(`config: estimator = latest market price within 14 days; backtest cards need >= ${MIN_DAYS} days; graded held-out share ${HELD_OUT_SHARE} by card-id hash; sample model = grade-premium curve fitted on ${sampleSales.length} generated sample sales (seed ${sampleSeed}, ${Math.round(sampleMs)} ms)`);
log('');
const withIds = pokemon.filter((c) => c.thirdParty?.tcgplayer || (c.variants ?? []).some((v) => v.thirdParty?.tcgplayer)).length;
log(`1. coverage: ${rawOf.size} of ${pokemon.length} Pokemon catalog cards get a real raw estimate (${pct(coverage)}); ${withIds} cards carry a TCGplayer id (${pct(withIds / pokemon.length)}): the feed can reach no others`);
log('');
log(`2. backtest (last day ${lastDay} from the days before): ${cases.length} cards`);
log('APE = |estimate − last day\'s market price| / that price; mdape its median, p90 its 90th percentile; naive = yesterday\'s market price');
log(`${'band'.padEnd(10)} ${'n'.padStart(6)} ${'mdape'.padStart(8)} ${'p90'.padStart(8)} ${'<=10%'.padStart(7)} ${'naive n'.padStart(8)} ${'naive'.padStart(8)} ${'naive p90'.padStart(10)}`);
for (const b of byBand) log(`${b.band.padEnd(10)} ${String(b.n).padStart(6)} ${pct(b.mdape).padStart(8)} ${pct(b.p90).padStart(8)} ${pct(b.share10).padStart(7)} ${String(b.naiveN).padStart(8)} ${pct(b.naiveMdape).padStart(8)} ${pct(b.naiveP90).padStart(10)}`);
log(`all        ${String(cases.length).padStart(6)} ${pct(mdape(cases, (c) => c.service)).padStart(8)} ${pct(p90ape(cases, (c) => c.service)).padStart(8)}         ${String(cases.filter((c) => c.naive !== null).length).padStart(8)} ${pct(mdape(cases, (c) => c.naive)).padStart(8)} ${pct(p90ape(cases, (c) => c.naive)).padStart(10)}`);
log(`alternatives (mdape / p90, all cases): ${Object.keys(SERIES_ESTIMATORS).map((k) => `${k} ${pct(alternatives[k]!)} / ${pct(p90ape(cases, (c) => c.alternatives[k]!))}`).join(', ')}`);
log('');
log(`3. graded (held-out table cards; model lines fitted on ${new Set(pairs.filter((p) => !heldOut(p.cardId)).map((p) => p.cardId)).size} cards):`);
for (const g of graded) log(`   PSA ${g.grade}: n ${g.n}, mdape ${pct(g.mdape)}; sample model ${pct(g.sampleModelMdape)}`);
log('');
log(`4. import (${speed.database}): one tcgcsv day (${speed.dayRows} rows) ${speed.dayMs} ms, again (unchanged) ${speed.dayRepeatMs} ms; whole snapshot (${speed.snapshotRows} observations) ${speed.snapshotMs} ms`);
log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(
  JSON.stringify({
    data: { firstDay: snapshot.days[0], lastDay, days: snapshot.days.length, productPrintings: seriesOf.size, gradedRows: table.rows.length },
    coverage: { cards: rawOf.size, catalog: pokemon.length, share: Math.round(coverage * 1000) / 1000, cardsWithTcgplayerId: withIds },
    backtest: { n: cases.length, mdape: mdape(cases, (c) => c.service), p90: p90ape(cases, (c) => c.service), naiveP90: p90ape(cases, (c) => c.naive), naiveN: cases.filter((c) => c.naive !== null).length, naiveMdape: mdape(cases, (c) => c.naive), bands: byBand, alternatives },
    graded,
    import: speed,
  }),
);
