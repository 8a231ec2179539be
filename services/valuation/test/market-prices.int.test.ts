// Real market data through the valuation service, on PGlite (embedded) and on Postgres (CI): the price snapshot
// and graded table loaded on first start, a tcgcsv day imported on top (idempotent, unmatched and bad rows
// counted), and estimates that name their source, date and printing.
// Fixtures: test/fixtures/prices holds the real TCGplayer rows (2025-09-21..10-25 as a snapshot, 2025-10-26 as a
// tcgcsv day folder, plus one unknown product and one bad row) and PriceCharting rows of the fixture catalog's
// cards, cut from packages/catalog-data/prices.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { InProcessBus, type Bus } from '@cardlens/bus';
import { valuationV1 } from '@cardlens/contracts';
import { createDatabase, openPrisma, type Database } from '@cardlens/db';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { loadValuationConfig } from '../src/config';
import { PrismaClient } from '../src/db';
import { importTcgcsvDay } from '../src/use-cases/import-prices';
import { forgetDatasetLastDay } from '../src/use-cases/market-data';
import { startValuationService, type RunningService } from '../src/service';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const dayFolder = path.join(fixtures, 'prices', 'tcgcsv', '2025-10-26');
const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });

function suite(mode: 'pglite' | 'postgres') {
  let testDb: TestDatabase | undefined;
  let database: Database;
  let bus: Bus;
  let service: RunningService;
  let client: valuationV1.ValuationServiceClient;
  const value = async (cardId: string, parallel: string, predictedGrade?: number) =>
    (await callUnary(client, 'valueCard', { cardId, parallel, ...(predictedGrade !== undefined ? { predictedGrade } : {}), gradeDistribution: [] }, { deadlineMs: 10_000 })).value!;

  beforeAll(async () => {
    if (mode === 'postgres') {
      testDb = await createTestDatabase({ label: 'valuation_prices' });
      database = await createDatabase({ kind: 'postgres', url: testDb.url });
    } else {
      database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    }
    bus = new InProcessBus({ logger });
    service = await startValuationService({
      config: loadValuationConfig({
        VALUATION_GRPC_PORT: '0',
        CATALOG_DIR: path.join(fixtures, 'catalog'),
        CATALOG_AUTOLOAD: 'true',
        PRICES_DIR: path.join(fixtures, 'prices'),
        PRICES_AUTOLOAD: 'true',
        SAMPLE_SALES: 'false',
      }),
      database,
      bus,
      logger,
    });
    await bus.start();
    client = createClient(valuationV1.ValuationServiceClient, `127.0.0.1:${service.grpcPort}`);
  });
  afterAll(async () => {
    client?.close();
    await service?.stop();
    await bus?.stop();
    await database?.close();
    await testDb?.drop();
  });

  it('prices a card from the snapshot loaded on first start, naming the feed, the day and the printing', async () => {
    const charizard = await value('base1-4', '');
    expect(charizard.rawEstimateCents).toBe(46_045); // Holofoil market price of 2025-10-25 (the snapshot's last day)
    expect(charizard.printing).toBe('Holofoil');
    expect(charizard.sampleData).toBe(false);
    expect(charizard.rawSource).toMatchObject({ name: 'TCGplayer market price', asOf: '2025-10-25' });
    expect(charizard.rawSource!.dataPoints).toBeGreaterThanOrEqual(20);
    expect(charizard.rawSource!.attribution).toMatch(/TCGplayer/);
  });

  it('imports a tcgcsv day: unknown products and bad rows are counted, a second run writes nothing, a changed price updates', async () => {
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      const first = await importTcgcsvDay(prisma, dayFolder);
      expect(first.unmatched).toBe(1);
      expect(first.rejected).toBe(1);
      expect(first.rejections[0]!.reason).toMatch(/productId/);
      expect(first.inserted).toBeGreaterThan(200);
      expect(first.firstDay).toBe('2025-10-26');
      const again = await importTcgcsvDay(prisma, dayFolder);
      expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: first.inserted, unmatched: 1, rejected: 1 });
      forgetDatasetLastDay();
      const charizard = await value('base1-4', '', 9);
      expect(charizard.rawEstimateCents).toBe(46_045);
      expect(charizard.rawSource?.asOf).toBe('2025-10-26');
      expect(charizard.rawLowCents).toBe(32_325);
      expect(charizard.rawHighCents).toBe(100_000);

      // The same day again with one price changed: exactly that row is updated, and the estimate follows.
      const copy = mkdtempSync(path.join(os.tmpdir(), 'tcgcsv-'));
      cpSync(dayFolder, path.join(copy, '2025-10-26'), { recursive: true });
      const file = path.join(copy, '2025-10-26', '3', '604', 'prices');
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { results: { productId: number; subTypeName: string; marketPrice: number }[] };
      doc.results.find((r) => r.productId === 42382 && r.subTypeName === 'Holofoil')!.marketPrice = 470.5;
      writeFileSync(file, JSON.stringify(doc));
      const changed = await importTcgcsvDay(prisma, path.join(copy, '2025-10-26'));
      expect(changed).toMatchObject({ inserted: 0, updated: 1 });
      expect((await value('base1-4', '')).rawEstimateCents).toBe(47_050);
    } finally {
      await close();
    }
  });

  it('imports the same day from a tcgcsv .7z archive (7-Zip in WebAssembly): only the price changed since is rewritten', async () => {
    const { default: SevenZip } = await import('7z-wasm');
    const work = mkdtempSync(path.join(os.tmpdir(), 'tcgcsv-7z-'));
    cpSync(dayFolder, path.join(work, '2025-10-26'), { recursive: true });
    const sevenZip = await SevenZip({ print: () => {}, printErr: () => {} });
    sevenZip.FS.mkdir('/work');
    sevenZip.FS.mount(sevenZip.NODEFS, { root: work }, '/work');
    sevenZip.FS.chdir('/work');
    sevenZip.callMain(['a', '-t7z', '-m0=PPMd', 'prices-2025-10-26.ppmd.7z', '2025-10-26']);
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      const fromArchive = await importTcgcsvDay(prisma, path.join(work, 'prices-2025-10-26.ppmd.7z'));
      // The previous test changed Charizard's Holofoil price to 470.50; the archive has the published 460.45.
      expect(fromArchive).toMatchObject({ inserted: 0, updated: 1, unmatched: 1, rejected: 1, firstDay: '2025-10-26' });
      expect((await value('base1-4', '')).rawEstimateCents).toBe(46_045);
    } finally {
      await close();
    }
  });

  it('the identified printing chooses the price: a reverse holo is not priced as the normal card, and an unpriced printing says so', async () => {
    const normal = await value('ex6-74', '');
    const reverse = await value('ex6-74', 'Reverse Holo');
    expect(normal.printing).toBe('Normal');
    expect(reverse.printing).toBe('Reverse Holofoil');
    expect(normal.rawEstimateCents).toBe(858);
    expect(reverse.rawEstimateCents).toBe(3967);

    const unpriced = await value('bw8-136', 'Reverse Holo');
    expect(unpriced.rawEstimateCents).toBeUndefined();
    expect(unpriced.rawEstimateUnavailableReason).toMatch(/no market price for the Reverse Holofoil printing \(priced: Holofoil\)/);
    expect(unpriced.rawSource).toBeUndefined();
  });

  it('graded values come from the card\'s own graded table where it lists the grade, interpolated between listed grades', async () => {
    const at9 = await value('base1-4', '', 9);
    expect(at9.gradedEstimateCents).toBe(140_625);
    expect(at9.gradedSource).toMatchObject({ name: 'PriceCharting graded values of this card', asOf: '2025-02-27', dataPoints: 5 });
    const at85 = await value('base1-4', '', 8.5);
    expect(at85.gradedEstimateCents).toBe(Math.round(Math.exp((Math.log(65_000) + Math.log(140_625)) / 2)));
    const spread = new Map(at9.gradedValueSpread.map((g) => [g.grade, g]));
    expect(spread.get(10)?.valueCents).toBe(900_000);
    // The table is the unlimited card's page: a 1st Edition's graded values are not taken from it.
    const first = await value('base1-4', '1st Edition', 9);
    expect(first.gradedSource?.name ?? '').not.toMatch(/of this card/);
  });

  it('the market analysis measures trend and volatility on the daily series and says where the data comes from', async () => {
    const response = await callUnary(client, 'analyzeMarket', { cardId: 'ex6-74', parallel: '', predictedGrade: 9, gradeDistribution: [] }, { deadlineMs: 10_000 });
    const market = response.market!;
    expect(market.trend?.basis).toBe('daily_market_price');
    expect(market.trend?.priceDays30d).toBe(31); // 2025-09-26..10-26, every day priced
    expect(market.trend?.change30dPercent).toEqual(expect.any(Number));
    expect(market.trend?.volatility30dPercent).toEqual(expect.any(Number));
    expect(market.context).toMatch(/TCGplayer/);
    expect(market.context).toMatch(/Normal/);
    expect(market.insights).toMatch(/Raw value about \$8\.58/);
    // A printing with 6 days of prices has a price but no trend.
    const thin = (await callUnary(client, 'analyzeMarket', { cardId: 'ex6-74', parallel: 'Reverse Holo', gradeDistribution: [] }, { deadlineMs: 10_000 })).market!;
    expect(thin.trend?.priceDays30d).toBe(6);
    expect(thin.insights).toMatch(/Raw value about \$39\.67/);
  });

  it('two days imported at once both land in the series (each series is merged with its row locked)', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'tcgcsv-days-'));
    for (const [day, dollars] of [['2025-10-27', 471], ['2025-10-28', 472]] as const) {
      cpSync(dayFolder, path.join(work, day), { recursive: true });
      const file = path.join(work, day, '3', '604', 'prices');
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { results: { productId: number; subTypeName: string; marketPrice: number }[] };
      doc.results.find((r) => r.productId === 42382 && r.subTypeName === 'Holofoil')!.marketPrice = dollars;
      writeFileSync(file, JSON.stringify(doc));
    }
    const before = await value('base1-4', '');
    const opened = await Promise.all([openPrisma(PrismaClient, database), openPrisma(PrismaClient, database)]);
    try {
      const results = await Promise.all([importTcgcsvDay(opened[0].prisma, path.join(work, '2025-10-27')), importTcgcsvDay(opened[1].prisma, path.join(work, '2025-10-28'))]);
      expect(results.map((r) => r.inserted)).toEqual([results[0].inserted, results[0].inserted]);
      expect(results[0].inserted).toBeGreaterThan(200);
    } finally {
      await Promise.all(opened.map((o) => o.close()));
    }
    forgetDatasetLastDay();
    const after = await value('base1-4', '');
    expect(after.rawEstimateCents).toBe(47_200);
    expect(after.rawSource?.asOf).toBe('2025-10-28');
    expect(after.rawSource!.dataPoints).toBe(before.rawSource!.dataPoints + 2);
  });

  it('a card with no market data falls back to recorded sales, and says there are none', async () => {
    const sports = await value('8b6e77be-cbdb-4f43-82f5-139e17f941c6', '');
    expect(sports.rawEstimateCents).toBeUndefined();
    expect(sports.rawSource).toBeUndefined();
  });
}

describe('market prices on PGlite (embedded)', () => suite('pglite'));
describeWithInfra(['postgres'], 'market prices on Postgres', () => suite('postgres'));
