/**
 * The whole catalog (both files, 167,687 cards) for the benches: in Postgres when DATABASE_URL is set (imported
 * once), else in an in-memory PGlite loaded on every run (about a minute).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { CATALOG_DIR as REPO_CATALOG_DIR } from '@cardlens/catalog-data';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { PrismaClient } from '../src/db';
import { catalogCardCount, importCatalogFile } from '../src/use-cases/import-catalog';

const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CATALOG_DIR = process.env.CARD_CATALOG_DIR || REPO_CATALOG_DIR;

export async function openCatalog(): Promise<{ prisma: PrismaClient; close: () => Promise<void>; kind: string }> {
  const logger = { info() {}, warn() {}, error() {}, debug() {} };
  const database: Database | { kind: 'postgres'; url: string } = process.env.DATABASE_URL
    ? { kind: 'postgres', url: process.env.DATABASE_URL }
    : await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
  await migrate({ ...serviceLayout(serviceDir), database, logger: logger as never });
  const { prisma, close: closePrisma } = await openPrisma(PrismaClient, database);
  // An in-memory PGlite keeps the process alive until it is closed too.
  const close = async () => {
    await closePrisma();
    if ('close' in database) await database.close();
  };
  if ((await catalogCardCount(prisma)) < 167_000) {
    for (const f of ['pokemon.ndjson.gz', 'sports.ndjson.gz']) {
      const t = performance.now();
      const r = await importCatalogFile(prisma, path.join(CATALOG_DIR, f));
      process.stderr.write(`catalog ${f}: ${r.inserted} inserted, ${r.unchanged} unchanged in ${Math.round(performance.now() - t)} ms\n`);
    }
  }
  return { prisma, close, kind: process.env.DATABASE_URL ? 'postgres' : 'pglite' };
}
