// The valuation service over gRPC on PGlite (the embedded database) and on the real Postgres + Kafka (CI):
// catalog import idempotency, identification fixed cases, estimates from a hand-checked sales set,
// null-not-zero, sample-data labelling, recommendation edge cases, sales import and the sales feed.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { InProcessBus, KafkaBus, type Bus } from '@cardlens/bus';
import { commonV1, events, timestampFromDate, valuationEventsV1, valuationV1 } from '@cardlens/contracts';
import { createDatabase, openPrisma, type Database } from '@cardlens/db';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { createTestDatabase, deleteTopicsWithPrefix, describeWithInfra, infraUrls, uniqueTopicPrefix, type TestDatabase } from '@cardlens/testing';
import { loadValuationConfig } from '../src/config';
import { PrismaClient } from '../src/db';
import { readSalesFile } from '../src/domain/sales-file';
import { importCatalogFile } from '../src/use-cases/import-catalog';
import { ingestSales } from '../src/use-cases/ingest-sales';
import { startValuationService, type RunningService } from '../src/service';

const fixtures = fileURLToPath(new URL('./fixtures/catalog', import.meta.url));
const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
const DAY = 86_400_000;
const evidence = (e: Partial<commonV1.IdentificationEvidence>): commonV1.IdentificationEvidence => ({
  titleText: '', titleAlternatives: [], numberText: '', numberAlternatives: [], serialText: '', copyrightText: '', fingerprint: [], finishCues: [], otherText: [], borderColor: '', holderLabelText: [], ...e,
});

function record(i: number, cardId: string, priceCents: number, daysAgo: number, graded?: { grader: string; grade: number }, source = 'test-feed'): valuationEventsV1.SalesRecord {
  return {
    source,
    sourceId: `${cardId}-${i}`,
    cardId,
    ...(graded ? { graded } : {}),
    priceCents,
    currency: 'USD',
    soldAt: timestampFromDate(new Date(Date.now() - daysAgo * DAY)),
    listingType: valuationEventsV1.ListingType.AUCTION,
    title: 'test sale',
    parallel: '',
  };
}

function importSales(client: valuationV1.ValuationServiceClient, records: valuationEventsV1.SalesRecord[]): Promise<valuationV1.ImportSalesResponse> {
  return new Promise((resolve, reject) => {
    const call = client.importSales((error: grpc.ServiceError | null, response?: valuationV1.ImportSalesResponse) => (error ? reject(error) : resolve(response!)));
    for (const r of records) call.write({ record: r });
    call.end();
  });
}

function suite(mode: 'pglite' | 'postgres') {
  let testDb: TestDatabase | undefined;
  let database: Database;
  let bus: Bus;
  let topicPrefix: string | undefined;
  let service: RunningService;
  let client: valuationV1.ValuationServiceClient;
  const call = <M extends 'identifyCard' | 'valueCard' | 'analyzeMarket' | 'registerReference'>(method: M, request: Parameters<typeof callUnary<valuationV1.ValuationServiceClient, M>>[2]) =>
    callUnary(client, method, request, { deadlineMs: 10_000 });

  beforeAll(async () => {
    if (mode === 'postgres') {
      testDb = await createTestDatabase({ label: 'valuation' });
      database = await createDatabase({ kind: 'postgres', url: testDb.url });
      topicPrefix = uniqueTopicPrefix('valuation');
      bus = new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: 'valuation-test', topicPrefix, logger });
    } else {
      database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
      bus = new InProcessBus({ logger });
    }
    service = await startValuationService({
      config: loadValuationConfig({ VALUATION_GRPC_PORT: '0', CATALOG_DIR: fixtures, CATALOG_AUTOLOAD: 'true', SAMPLE_SALES: 'false' }),
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
    if (topicPrefix) await deleteTopicsWithPrefix(topicPrefix);
  });

  it('re-importing a catalog changes nothing; an edited line updates exactly that card', async () => {
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      const again = await importCatalogFile(prisma, path.join(fixtures, 'pokemon.ndjson'));
      expect(again.inserted).toBe(0);
      expect(again.updated).toBe(0);
      expect(again.unchanged).toBe(again.read);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
      const lines = readFileSync(path.join(fixtures, 'pokemon.ndjson'), 'utf8').trim().split('\n');
      const edited = JSON.parse(lines[0]!) as { rarity?: string };
      edited.rarity = 'Edited Rarity';
      lines[0] = JSON.stringify(edited);
      writeFileSync(path.join(dir, 'pokemon.ndjson'), `${lines.join('\n')}\nnot json\n`);
      const changed = await importCatalogFile(prisma, path.join(dir, 'pokemon.ndjson'));
      expect(changed).toMatchObject({ inserted: 0, updated: 1, unchanged: lines.length - 1, rejected: 1 });
      copyFileSync(path.join(fixtures, 'pokemon.ndjson'), path.join(dir, 'pokemon.ndjson'));
      expect((await importCatalogFile(prisma, path.join(dir, 'pokemon.ndjson'))).updated).toBe(1);
    } finally {
      await close();
    }
  });

  it('identifies Base Set Charizard from its title, number and copyright line, despite an OCR slip', async () => {
    const r = await call('identifyCard', { evidence: evidence({ titleText: 'Charizrd', numberText: '4/102', copyrightText: '©1999 Wizards', finishCues: ['holo'], otherText: ['HP 120'] }) });
    expect(r.inCatalog).toBe(true);
    expect(r.cardId).toBe('base1-4');
    expect(r.identification).toEqual({ name: 'Charizard', subject: 'Charizard', category: 'Pokemon', year: '1999', set: 'Base Set', number: '4/102', parallel: '', printRun: '' });
    expect(r.confidence).toBeGreaterThan(0.8);
    expect(r.candidates.every((c) => c.cardId !== 'base1-4')).toBe(true);
  });

  it('keeps the reading of the number that agrees with the catalog where the number row read two ways', async () => {
    const r = await call('identifyCard', { evidence: evidence({ titleText: 'Charizard', numberText: '7/702', numberAlternatives: ['4/102'], copyrightText: '©1999 Wizards' }) });
    expect(r.cardId).toBe('base1-4');
    expect(r.identification?.number).toBe('4/102');
    expect(r.confidence).toBeGreaterThan(0.8);
  });

  it('a number with its set total identifies a card whose title was misread, unless the title names another card', async () => {
    // `Gharizarb` resembles Charizard (trigram similarity 0.33) and no other candidate more.
    const misread = await call('identifyCard', { evidence: evidence({ titleText: 'Gharizarb', numberText: '4/102' }) });
    expect(misread).toMatchObject({ inCatalog: true, cardId: 'base1-4' });
    // A clean `Pikachu` over Charizard's number: the title names Pikachu, so the number alone claims nothing.
    const conflicting = await call('identifyCard', { evidence: evidence({ titleText: 'Pikachu', numberText: '4/102' }) });
    expect(conflicting.inCatalog).toBe(false);
    expect(conflicting.confidence).toBeLessThan(0.5);
  });

  it('a title alternative that resembles the name stands in for a title read elsewhere on the card, over the gRPC contract', async () => {
    // The name line read with low confidence lost the title to an attack name; it travels as a title alternative.
    const r = await call('identifyCard', { evidence: evidence({ titleText: 'Fire Spin', titleAlternatives: ['fCharizard'], numberText: '4/102' }) });
    expect(r).toMatchObject({ inCatalog: true, cardId: 'base1-4' });
    const without = await call('identifyCard', { evidence: evidence({ titleText: 'Fire Spin', numberText: '4/102' }) });
    expect(without.inCatalog).toBe(false);
  });

  it('reads a numbered parallel from the serial numbering, finish and border colour', async () => {
    const r = await call('identifyCard', {
      evidence: evidence({ titleText: 'Bobby Witt Jr.', numberText: '#1', copyrightText: '©2024 Bowman Chrome', serialText: '23/50', finishCues: ['refractor'], borderColor: 'gold' }),
    });
    expect(r.cardId).toBe('8b6e77be-cbdb-4f43-82f5-139e17f941c6');
    expect(r.identification).toMatchObject({ name: 'Bobby Witt Jr.', category: 'Baseball', year: '2024', set: '2024 Bowman Chrome Baseball', number: '1', parallel: 'Gold Refractor', printRun: '/50' });
  });

  it('a card that is not in the catalog gets what was read, a low confidence and a flag, never a made-up match', async () => {
    const r = await call('identifyCard', { evidence: evidence({ titleText: 'Zorblax the Unknown', numberText: '#999', copyrightText: '©2031 Acme Cards', serialText: '07/25', finishCues: ['refractor'] }) });
    expect(r.inCatalog).toBe(false);
    expect(r.cardId).toBeUndefined();
    expect(r.confidence).toBeLessThanOrEqual(0.3);
    expect(r.notInCatalogReason).not.toBe('');
    expect(r.identification).toMatchObject({ name: 'Zorblax the Unknown', year: '2031', number: '999', parallel: 'Refractor', printRun: '/25', set: '' });
    const empty = await call('identifyCard', { evidence: evidence({}) });
    expect(empty).toMatchObject({ inCatalog: false, notInCatalogReason: 'no title or number could be read' });
  });

  it('print-identical cards: the base subset wins with a lowered confidence, the twin is the runner-up; a reference fingerprint decides', async () => {
    const read = evidence({ titleText: 'Chris Sale', numberText: '#51', copyrightText: '©2019 Donruss', fingerprint: Array.from({ length: 112 }, (_, i) => Math.sin(i)) });
    const r = await call('identifyCard', { evidence: read });
    expect(r.cardId).toBe('bc6bbd03-d459-4ccc-8e6f-d76cbeb29d5e');
    expect(r.candidates[0]?.cardId).toBe('e062c286-7f43-4d09-b0c7-6639637b3785');
    expect(r.confidence).toBeLessThan(0.7);
    const registered = await call('registerReference', { cardId: 'e062c286-7f43-4d09-b0c7-6639637b3785', parallel: '', fingerprint: read.fingerprint, origin: 'registered' });
    expect(registered.referencesForCard).toBe(1);
    const again = await call('identifyCard', { evidence: read });
    expect(again.cardId).toBe('e062c286-7f43-4d09-b0c7-6639637b3785');
    await expect(call('registerReference', { cardId: 'nope', parallel: '', fingerprint: read.fingerprint, origin: 'render' })).rejects.toMatchObject({ code: 'invalid_body' });
    await expect(call('registerReference', { cardId: 'base1-4', parallel: '', fingerprint: [1, 2], origin: 'render' })).rejects.toMatchObject({ code: 'invalid_body' });
  });

  it('imports sales idempotently and estimates from a hand-checked set', async () => {
    // Five raw sales on the same day (equal weights) and one $5,000 mislisting: the outlier is dropped and the
    // estimate is the median of $100..$140 = $120.00.
    const raw = [10_000, 11_000, 12_000, 13_000, 14_000, 500_000].map((p, i) => record(i, 'base1-58', p, 3));
    const first = await importSales(client, [...raw, record(99, 'no-such-card', 100, 1), { ...raw[0]!, currency: 'EUR', sourceId: 'eur' }]);
    expect(first).toEqual({ received: 8, inserted: 6, duplicates: 0, rejected: 2 });
    const replay = await importSales(client, raw);
    expect(replay).toEqual({ received: 6, inserted: 0, duplicates: 6, rejected: 0 });
    const value = (await call('valueCard', { cardId: 'base1-58', parallel: '', predictedGrade: 9, gradeDistribution: [] })).value!;
    expect(value.rawEstimateCents).toBe(12_000);
    expect(value.compCount).toBe(6);
    expect(value.sampleData).toBe(false);
    expect(value.currency).toBe('USD');
    expect(value.gradedEstimateGrade).toBe(9);
    expect(value.gradedEstimateCents).toBeGreaterThan(12_000); // from the grade-premium model: PSA 9 sells above raw
    expect(value.gradedValueSpread.map((g) => g.grade)).toEqual([10, 9.5, 9, 8.5, 8, 7, 6, 5]);
    expect(value.latestCompAt).toBeDefined();
  });

  it('a long ImportSales stream is stored batch by batch with exact totals', async () => {
    const many = Array.from({ length: 4_500 }, (_, i) => ({ ...record(i, 'base1-58', 1_000 + i, 30 + (i % 200)), source: 'bulk' }));
    const response = await importSales(client, [...many, { ...many[0]!, cardId: 'no-such-card', sourceId: 'x' }]);
    expect(response).toEqual({ received: 4_501, inserted: 4_500, duplicates: 0, rejected: 1 });
    const again = await importSales(client, many.slice(0, 2_500));
    expect(again).toEqual({ received: 2_500, inserted: 0, duplicates: 2_500, rejected: 0 });
  });

  it('missing coverage is null with a reason, never zero', async () => {
    const none = (await call('valueCard', { cardId: 'base1-4', parallel: '', gradeDistribution: [] })).value!;
    expect(none.rawEstimateCents).toBeUndefined();
    expect(none.rawEstimateUnavailableReason).toMatch(/no sales/);
    expect(none.gradedEstimateCents).toBeUndefined();
    const unknown = (await call('valueCard', { cardId: '', parallel: '', gradeDistribution: [] })).value!;
    expect(unknown).toMatchObject({ rawEstimateUnavailableReason: 'card not in catalog', compCount: 0 });
    expect(unknown.rawEstimateCents).toBeUndefined();
    const market = await call('analyzeMarket', { cardId: 'base1-4', parallel: '', predictedGrade: 9, gradeDistribution: [] });
    expect(market.market!.gradingRecommendation).toBe(commonV1.GradingRecommendation.NEUTRAL);
    expect(market.market!.trend!.change30dPercent).toBeUndefined();
  });

  it('sample data is labelled; the recommendation weighs the expected graded value against the grading cost', async () => {
    const card = 'base1-4';
    // Raw ~$200; PSA 9 copies at ~$900: grading at $30 clearly pays at a predicted 9.
    const sales = [
      ...[19_000, 20_000, 21_000, 20_500, 19_500].map((p, i) => record(i, card, p, 5 + i, undefined, 'cardlens-sample')),
      ...[88_000, 90_000, 92_000, 91_000, 89_000].map((p, i) => record(10 + i, card, p, 5 + i, { grader: 'PSA', grade: 9 }, 'cardlens-sample')),
    ];
    expect((await importSales(client, sales)).inserted).toBe(10);
    const grade = await call('analyzeMarket', { cardId: card, parallel: '', predictedGrade: 9, gradeDistribution: [] });
    expect(grade.value!.sampleData).toBe(true);
    expect(grade.market!.context).toMatch(/Sample data/);
    expect(grade.market!.gradingRecommendation).toBe(commonV1.GradingRecommendation.GRADE);
    expect(grade.market!.insights).toMatch(/\$/);
    // Expected to come back as a 2: low grades sell under raw, grading loses money.
    const low = await call('analyzeMarket', { cardId: card, parallel: '', gradeDistribution: [{ grade: 2, probability: 1 }] });
    expect(low.market!.gradingRecommendation).toBe(commonV1.GradingRecommendation.DONT_GRADE);
    await expect(call('valueCard', { cardId: card, parallel: '', predictedGrade: 11, gradeDistribution: [] })).rejects.toMatchObject({ code: 'invalid_body' });
  });

  it('imports a CSV sales file as the import command does: a re-run inserts nothing, unknown cards are rejected', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sales-'));
    const file = path.join(dir, 'sales.csv');
    writeFileSync(
      file,
      [
        'source,source_id,card_id,parallel,grader,grade,price_usd,sold_at,listing_type,title',
        'csv-feed,c1,base1-58,,,,12.50,2026-11-01T10:00:00Z,auction,Pikachu raw',
        'csv-feed,c2,base1-58,,PSA,9,40.00,2026-11-02T10:00:00Z,fixed_price,Pikachu PSA 9',
        'csv-feed,c3,no-such-card,,,,3.00,2026-11-02T10:00:00Z,auction,unknown',
        'csv-feed,c4,base1-58,,,,-1,2026-11-02T10:00:00Z,auction,bad price',
      ].join('\n'),
    );
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      const parsed = await readSalesFile(file);
      expect(parsed.rejected).toHaveLength(1);
      expect(await ingestSales(prisma, parsed.sales)).toMatchObject({ received: 3, inserted: 2, duplicates: 0, rejected: 1 });
      expect(await ingestSales(prisma, (await readSalesFile(file)).sales)).toMatchObject({ inserted: 0, duplicates: 2, rejected: 1 });
      const stored = await prisma.sale.findUnique({ where: { source_sourceId: { source: 'csv-feed', sourceId: 'c2' } } });
      expect(stored).toMatchObject({ grader: 'PSA', priceCents: 4000n });
    } finally {
      await close();
    }
  });

  it('takes sales from the feed topic; a redelivered record is stored once', async () => {
    const sale = record(1, 'base1-58', 4_200, 2, undefined, 'feed');
    for (let i = 0; i < 2; i++) await bus.publish(events.salesRecord.topic, [{ key: sale.cardId, value: events.salesRecord.encode(sale) }]);
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      const deadline = Date.now() + 30_000;
      while ((await prisma.sale.count({ where: { source: 'feed' } })) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 500));
      expect(await prisma.sale.count({ where: { source: 'feed', sourceId: sale.sourceId } })).toBe(1);
    } finally {
      await close();
    }
  });
}

describe('valuation service on PGlite (embedded)', () => suite('pglite'));
describeWithInfra(['postgres', 'kafka'], 'valuation service on Postgres and Kafka', () => suite('postgres'));
