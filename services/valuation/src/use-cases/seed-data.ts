// First-start data for the embedded mode: the catalogs of CATALOG_DIR when the catalog is empty, and the
// documented sample sales when there are no sales at all. Both are no-ops on a database that has data.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import { cardProfilesFromCatalog, type CatalogCardLike } from '../domain/card-profile';
import { generateSampleSales, pickCoveredCards } from '../domain/sales-generator';
import { catalogCardCount, importCatalogFile } from './import-catalog';
import { importGradedTable, importMarketSnapshot, marketPriceCount } from './import-prices';
import { ingestSales } from './ingest-sales';

export function catalogFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ndjson(\.gz)?$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * The catalogs of `dir` on first start; again when the stored Pokemon catalog carries no marketplace ids (a
 * database loaded before they existed), so the price snapshot can join it. The import is idempotent: only
 * changed cards are written.
 */
export async function loadCatalogIfEmpty(prisma: PrismaClient, dir: string, logger: Logger): Promise<void> {
  if ((await catalogCardCount(prisma)) > 0) {
    const [row] = await prisma.$queryRawUnsafe<{ pokemon: bigint | number; with_ids: bigint | number }[]>(
      `SELECT count(*) FILTER (WHERE game = 'pokemon') AS pokemon,
              count(*) FILTER (WHERE game = 'pokemon' AND cardinality(tcgplayer_products) > 0) AS with_ids
         FROM valuation.catalog_cards`,
    );
    if (Number(row?.pokemon ?? 0) === 0 || Number(row?.with_ids ?? 0) > 0) return;
    logger.info('stored catalog has no marketplace ids: re-importing the catalogs');
  }
  const started = performance.now();
  for (const file of catalogFiles(dir)) {
    const result = await importCatalogFile(prisma, file);
    logger.info({ catalog: result.catalog, inserted: result.inserted, rejected: result.rejected }, 'catalog imported');
  }
  logger.info({ ms: Math.round(performance.now() - started) }, 'catalog loaded on first start');
}

/**
 * The repository's dated price snapshot on first start: every `tcgplayer-*.csv(.gz)` daily market-price file and
 * every `graded-<source>.csv` table of `dir`. A no-op once any market price is stored.
 */
export async function loadPricesIfEmpty(prisma: PrismaClient, dir: string, logger: Logger): Promise<void> {
  if ((await marketPriceCount(prisma)) > 0) return;
  const started = performance.now();
  const files = readdirSync(dir).sort();
  for (const file of files.filter((f) => /^tcgplayer-.*\.csv(\.gz)?$/.test(f))) {
    const result = await importMarketSnapshot(prisma, path.join(dir, file));
    logger.info({ file, inserted: result.inserted, unmatched: result.unmatched, rejected: result.rejected, days: `${result.firstDay}..${result.lastDay}`, ms: result.ms }, 'market prices imported');
  }
  for (const file of files.filter((f) => /^graded-[a-z0-9-]+\.csv(\.gz)?$/.test(f))) {
    const source = /^graded-([a-z0-9-]+)\.csv/.exec(file)![1]!;
    const result = await importGradedTable(prisma, path.join(dir, file), source);
    logger.info({ file, inserted: result.inserted, unmatched: result.unmatched, rejected: result.rejected, ms: result.ms }, 'graded price table imported');
  }
  logger.info({ ms: Math.round(performance.now() - started) }, 'market price snapshot loaded on first start');
}

/** The whole catalog as CardProfiles (subject popularity needs every card). */
export async function catalogProfiles(prisma: PrismaClient) {
  const rows = await prisma.$queryRawUnsafe<(CatalogCardLike & { attributes: string[] })[]>(
    'SELECT id, game, name, year, rarity, attributes, parallels, variants FROM valuation.catalog_cards',
  );
  return cardProfilesFromCatalog(rows);
}

export async function generateSampleSalesIfNone(
  prisma: PrismaClient,
  options: { share: number; seed: number; now: Date; logger: Logger },
): Promise<number> {
  if ((await prisma.sale.count({ take: 1 })) > 0) return 0;
  const started = performance.now();
  const covered = pickCoveredCards(await catalogProfiles(prisma), { seed: options.seed, share: options.share });
  const sales = generateSampleSales(covered, { seed: options.seed, now: options.now });
  const result = await ingestSales(prisma, sales);
  options.logger.info({ cards: covered.length, inserted: result.inserted, ms: Math.round(performance.now() - started) }, 'sample sales generated (labelled as sample data)');
  return result.inserted;
}
