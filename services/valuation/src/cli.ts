// Valuation's data commands (npm run catalog:import / sales:import / sales:generate at the repository root):
//   cli.ts import-catalog <file.ndjson[.gz]>...   upsert catalogs (idempotent; unchanged cards are not written)
//   cli.ts import-sales <file.csv|.ndjson[.gz]>... insert sales (duplicates by source + source_id ignored), refit
//   cli.ts generate-sales --out <file> [--share 0.05] [--seed N] [--days 365]
//                                                 write documented SAMPLE sales for the catalog of CATALOG_DIR
//   cli.ts import-prices <file|dir>...            market data (idempotent; unmatched and rejected rows counted):
//       prices-YYYY-MM-DD*.7z or a YYYY-MM-DD/ folder  a tcgcsv.com TCGplayer day (category 3, English Pokemon)
//       tcgplayer-*.csv[.gz]                          the repository's wide snapshot of that feed
//       graded-<source>.csv[.gz]                      a graded price table (card_id,grader,grade,price_usd,as_of)
// Database: DATABASE_URL (Postgres), else the embedded PGlite at <root>/.data/pglite (stop `npm start` first).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { databaseConfigFromEnv, migrate, openPrisma, serviceLayout } from '@cardlens/db';
import { createLogger } from '@cardlens/telemetry';
import { DEFAULT_CATALOG_DIR } from './config';
import { PrismaClient } from './db';
import { cardProfilesFromCatalog, type CatalogCardLike } from './domain/card-profile';
import { readSalesFile, writeSalesFile } from './domain/sales-file';
import { generateSampleSales, pickCoveredCards } from './domain/sales-generator';
import { refitGradePremium } from './use-cases/grade-premium-fit';
import { importCatalogFile } from './use-cases/import-catalog';
import { importGradedTable, importMarketSnapshot, importTcgcsvDay, tcgplayerProductIndex } from './use-cases/import-prices';
import { ingestSales } from './use-cases/ingest-sales';
import { catalogFiles } from './use-cases/seed-data';
import { valuationServiceDir } from './service';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const logger = createLogger('valuation-cli');

async function withDb<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const database = databaseConfigFromEnv(root, process.env, 4);
  await migrate({ ...serviceLayout(valuationServiceDir), database, logger });
  const { prisma, close } = await openPrisma(PrismaClient, database);
  try {
    return await fn(prisma);
  } finally {
    await close();
  }
}

function readCatalogRecords(dir: string): CatalogCardLike[] {
  return catalogFiles(dir).flatMap((file) => {
    const raw = readFileSync(file);
    const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as CatalogCardLike);
  });
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' }, share: { type: 'string' }, seed: { type: 'string' }, days: { type: 'string' }, catalog: { type: 'string' } },
  });
  const [command, ...files] = positionals;
  switch (command) {
    case 'import-catalog':
      if (files.length === 0) throw new Error('import-catalog needs at least one file');
      return withDb(async (prisma) => {
        for (const file of files) console.log(JSON.stringify(await importCatalogFile(prisma, path.resolve(file))));
        return 0;
      });
    case 'import-sales':
      if (files.length === 0) throw new Error('import-sales needs at least one file');
      return withDb(async (prisma) => {
        let inserted = 0;
        for (const file of files) {
          const parsed = await readSalesFile(path.resolve(file));
          const result = await ingestSales(prisma, parsed.sales);
          inserted += result.inserted;
          console.log(JSON.stringify({ file, ...result, rejected: result.rejected + parsed.rejected.length, parseRejections: parsed.rejected.slice(0, 20) }));
        }
        if (inserted > 0) console.log(JSON.stringify({ gradePremiumRefit: (await refitGradePremium(prisma)).salesUsed }));
        return 0;
      });
    case 'import-prices':
      if (files.length === 0) throw new Error('import-prices needs at least one file or folder');
      return withDb(async (prisma) => {
        const index = await tcgplayerProductIndex(prisma);
        let failed = 0;
        for (const input of files.map((f) => path.resolve(f))) {
          const name = path.basename(input);
          const graded = /^graded-([a-z0-9-]+)\.csv(\.gz)?$/.exec(name);
          const result = graded
            ? await importGradedTable(prisma, input, graded[1]!)
            : /\.csv(\.gz)?$/.test(name)
              ? await importMarketSnapshot(prisma, input)
              : await importTcgcsvDay(prisma, input, { index });
          if (result.read === 0) failed++;
          console.log(JSON.stringify(result));
        }
        return failed > 0 ? 1 : 0;
      });
    case 'generate-sales': {
      if (!values.out) throw new Error('generate-sales needs --out <file.csv|file.ndjson>');
      const seed = Number(values.seed ?? 20261124);
      const profiles = cardProfilesFromCatalog(readCatalogRecords(values.catalog ?? process.env.CATALOG_DIR ?? DEFAULT_CATALOG_DIR));
      const covered = pickCoveredCards(profiles, { seed, share: Number(values.share ?? 0.05) });
      const sales = generateSampleSales(covered, { seed, now: new Date(), days: Number(values.days ?? 365) });
      await writeSalesFile(path.resolve(values.out), sales);
      console.log(JSON.stringify({ out: values.out, cards: covered.length, sales: sales.length, sampleData: true }));
      return 0;
    }
    default:
      console.error('usage: cli.ts import-catalog <files...> | import-sales <files...> | import-prices <files/folders...> | generate-sales --out <file> [--share S] [--seed N] [--days D]');
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
