// Identification of real photographs: the vision engine's evidence from the committed MIT-licensed photos of the
// real-photo set (packages/vision/bench/real/fixtures) matched against the shared Pokemon catalog, as the scans
// worker does. The figures over the whole set are `npm run bench:real`'s; what holds on these photos is pinned here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { catalogDir } from '@cardlens/card-synth';
import { createCardEngine, type CardEngine } from '@cardlens/vision';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { loadRealSet, readRealImage } from '@cardlens/vision/real-set';
import { evidenceOf } from '../bench/evidence';
import { PrismaClient } from '../src/db';
import { FingerprintIndex } from '../src/identification/fingerprint-index';
import { identifyCard } from '../src/use-cases/identify-card';
import { importCatalogFile } from '../src/use-cases/import-catalog';

const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const logger = { info() {}, warn() {}, error() {}, debug() {} };

// The catalog cards among the committed photos: bare English Pokemon cards photographed on a table.
const photos = loadRealSet().filter((c) => c.front.file.startsWith('fixtures/') && c.identity?.catalogId && c.language === 'en');

let database: Database;
let prisma: PrismaClient;
let closePrisma: () => Promise<void>;
let engine: CardEngine;
const identified = new Map<string, Awaited<ReturnType<typeof identifyCard>>>();

beforeAll(async () => {
  database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
  await migrate({ ...serviceLayout(serviceDir), database, logger: logger as never });
  ({ prisma, close: closePrisma } = await openPrisma(PrismaClient, database));
  // Every Pokemon card of the shared catalog (the embedded default's), so each photo meets all its namesakes.
  await importCatalogFile(prisma, path.join(catalogDir(), 'pokemon.ndjson.gz'));
  engine = await createCardEngine();
  for (const photo of photos) {
    const analysis = await engine.analyzeCard({ front: readRealImage(photo.front)! }, { evidence: true });
    identified.set(photo.id, await identifyCard({ prisma, fingerprints: new FingerprintIndex() }, evidenceOf(analysis)));
  }
}, 600_000);

afterAll(async () => {
  await engine?.close();
  await closePrisma?.();
  await database?.close();
});

describe('real photographs against the Pokemon catalog', () => {
  it('covers the committed catalog cards: 14 recent cards from one source and the EX-era Slowbro', () => {
    expect(photos.length).toBe(15);
  });

  it.each([
    ['localvin-pikachu', 'sv02-062'],
    ['localvin-nacli', 'sv02-120'],
    ['localvin-maushold', 'sv02-168'],
    // Two Magnemites of 2023 sets lie in the catalog with the same name: the number read tells them apart.
    ['localvin-magnemite-pal', 'sv02-065'],
  ])('%s is identified as %s, its name and number read from the photo', (id, cardId) => {
    const result = identified.get(id)!;
    expect(result.cardId).toBe(cardId);
    expect(result.inCatalog).toBe(true);
    expect(result.confidence).toBeGreaterThan(0.8);
    expect(result.explain).toMatchObject({ number: 3 });
  });

  it.each([
    ['localvin-combee', 'sv02-008'],
    // Outlined from its top edge to a rule across its middle before `cardlens-vision-16`, and read sideways.
    ['localvin-glimmet', 'sv02-125'],
  ])('%s is identified as %s by its number and set total where the title line read is its flavour text', (id, cardId) => {
    const result = identified.get(id)!;
    expect(result.cardId).toBe(cardId);
    expect(result.explain).toMatchObject({ number: 3, denominator: 1.5 });
    // Without a name that agrees, the answer is weaker than one the name confirms.
    expect(result.confidence).toBeGreaterThan(0.3);
    expect(result.confidence).toBeLessThan(0.8);
  });

  it.each([
    ['localvin-honchkrow', 'sv02-132'],
    ['localvin-slakoth', 'sv02-160'],
    // The title reads `5 Paldenn Taurds`: it resembles the name (0.39) and no other candidate's more.
    ['localvin-paldean-tauros', 'sv02-028'],
  ])("%s is identified as %s by the number row read with tesseract's own layout, where the line finder joined it to the boxes beside it", (id, cardId) => {
    const result = identified.get(id)!;
    expect(result.cardId).toBe(cardId);
    expect(result.explain).toMatchObject({ number: 3, denominator: 1.5 });
  });

  it.each([
    // Outlined to the middle of its number row: the row is read on beyond the outline; its name line (`EE Skiploom`,
    // read with low confidence) lost the title to a word read in the art, and is passed on beside it.
    ['localvin-skiploom', 'sv02-002'],
    // Its dark `054/167` on the light blue of its frame reads in each pixel's brightest channel; its name line
    // (`$55 Glaceoit]`, confidence 17) is passed on beside the title `hs. cia`.
    ['localvin-glaceon', 'sv06-054'],
    // Photographed obliquely (not outlined with a card's proportions), its title line its flavour text: its dark
    // `041/197` on the orange of its frame reads in the brightest channel too.
    ['localvin-volcarona', 'sv03-041'],
  ])('%s is identified as %s by a number row read where the line finder gave none', (id, cardId) => {
    const result = identified.get(id)!;
    expect(result.cardId).toBe(cardId);
    expect(result.explain).toMatchObject({ number: 3, denominator: 1.5 });
  });

  it('localvin-letter-of-encouragement is identified as sv03-189 by its title, read by a quarter turn of a card lying sideways in its outline', () => {
    // No number was read; one catalog card carries the name.
    const result = identified.get('localvin-letter-of-encouragement')!;
    expect(result.cardId).toBe('sv03-189');
    expect(result.explain).toMatchObject({ name: 5 });
  });

  it('never names a wrong card: each photo gets its own card, or says that no card agrees with what was read', () => {
    for (const photo of photos) {
      const result = identified.get(photo.id)!;
      if (result.cardId !== null) expect([photo.id, result.cardId]).toEqual([photo.id, photo.identity!.catalogId]);
      else expect(result.confidence).toBeLessThan(0.5);
    }
  });
});
