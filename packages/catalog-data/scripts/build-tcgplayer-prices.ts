// Builds prices/tcgplayer-pokemon-daily.csv.gz: TCGplayer daily prices (as published by tcgcsv.com and archived
// in github.com/nikfox3/Card_Collecting_app) for the products our catalog names, one row per (productId, subTypeName).
//
//   tsx scripts/build-tcgplayer-prices.ts --source <git checkout of github.com/nikfox3/Card_Collecting_app>
//
// Each archive price_history/archives/prices-YYYY-MM-DD.ppmd.7z holds <date>/<categoryId>/<groupId>/prices
// (JSON: {success, errors, results: [{productId, lowPrice, midPrice, highPrice, marketPrice, directLowPrice,
// subTypeName}]}, in dollars). Only category 3 (English Pokemon) is extracted, in memory (7-Zip compiled to WASM),
// so nothing is written to disk but the outputs. Run scripts/build-marketplace-ids.ts first.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import SevenZip from '7z-wasm';
import { GitSource, packageRoot, sourceArg } from './lib/git-source.ts';
import { readCatalog } from './lib/catalog.ts';

export const CARD_COLLECTING_APP_COMMIT = '4dd4c197b5ab85ef2df6cc54d5e1c2dbdd1c1664';
const REPOSITORY = 'github.com/nikfox3/Card_Collecting_app';
const ARCHIVE_DIR = 'price_history/archives';
const CATEGORY = 3;

interface PriceRow {
  productId: number;
  lowPrice: number | null;
  midPrice: number | null;
  highPrice: number | null;
  marketPrice: number | null;
  directLowPrice: number | null;
  subTypeName: string | null;
}

interface Series {
  productId: number;
  subTypeName: string;
  groupId: number;
  last: { low: number | null; mid: number | null; high: number | null; directLow: number | null } | null;
  market: (number | null)[];
}

const cents = (x: number | null | undefined): number | null =>
  typeof x === 'number' && Number.isFinite(x) ? Math.round(x * 100) : null;

type SevenZipModule = Awaited<ReturnType<typeof SevenZip>>;

/** The `prices` files of one category in one archive: [groupId, JSON text]. */
async function extractCategory(archive: Buffer, category: number): Promise<[number, string][]> {
  const log: string[] = [];
  const sz: SevenZipModule = await SevenZip({ print: (s: string) => log.push(s), printErr: (s: string) => log.push(s) });
  sz.FS.writeFile('/archive.7z', archive);
  sz.FS.mkdir('/out');
  const rc = sz.callMain(['x', '/archive.7z', '-o/out', '-y', '-bd', `*/${category}/*`]) as unknown;
  if (typeof rc === 'number' && rc !== 0) throw new Error(`7-Zip exited with ${rc}: ${log.join('\n')}`);
  const files: [number, string][] = [];
  const decoder = new TextDecoder();
  for (const date of sz.FS.readdir('/out').filter((n) => !n.startsWith('.'))) {
    const catDir = `/out/${date}/${category}`;
    for (const group of sz.FS.readdir(catDir).filter((n) => !n.startsWith('.'))) {
      const file = `${catDir}/${group}/prices`;
      try {
        sz.FS.stat(file);
      } catch {
        continue;
      }
      files.push([Number(group), decoder.decode(sz.FS.readFile(file))]);
    }
  }
  return files;
}

async function main(): Promise<void> {
  const src = new GitSource(
    sourceArg('tsx scripts/build-tcgplayer-prices.ts --source <nikfox3/Card_Collecting_app checkout>'),
    CARD_COLLECTING_APP_COMMIT,
  );
  const catalog = readCatalog(path.join(packageRoot, 'catalog', 'pokemon.ndjson.gz'));
  // The products the catalog names: per printing (variant.thirdParty) or, for cards listing no printings, per card.
  const productCards = new Map<number, Set<string>>();
  let fromVariants = 0;
  for (const card of catalog) {
    const ids = new Set<number>();
    for (const v of card.variants) if (v.thirdParty?.tcgplayer !== undefined) ids.add(v.thirdParty.tcgplayer);
    if (ids.size > 0) fromVariants++;
    if (card.thirdParty?.tcgplayer !== undefined) ids.add(card.thirdParty.tcgplayer);
    for (const id of ids) {
      if (!productCards.has(id)) productCards.set(id, new Set());
      productCards.get(id)!.add(card.id);
    }
  }
  if (productCards.size === 0) throw new Error('no tcgplayer ids in the catalog: run scripts/build-marketplace-ids.ts first');

  const archives = src
    .listFiles(ARCHIVE_DIR)
    .filter((f) => /\/prices-\d{4}-\d{2}-\d{2}\.ppmd\.7z$/.test(f))
    .sort();
  const dates = archives.map((f) => /prices-(\d{4}-\d{2}-\d{2})/.exec(f)![1]!);
  const series = new Map<string, Series>();
  let rowsSeen = 0;
  for (const [day, file] of archives.entries()) {
    const t0 = Date.now();
    const files = await extractCategory(src.show(file), CATEGORY);
    let dayRows = 0;
    for (const [groupId, text] of files) {
      const parsed = JSON.parse(text) as { success?: boolean; results?: PriceRow[] };
      for (const r of parsed.results ?? []) {
        dayRows++;
        if (!productCards.has(r.productId)) continue;
        const subTypeName = r.subTypeName ?? '';
        const key = `${r.productId}\t${subTypeName}`;
        let s = series.get(key);
        if (!s) {
          s = { productId: r.productId, subTypeName, groupId, last: null, market: new Array(dates.length).fill(null) };
          series.set(key, s);
        }
        s.groupId = groupId;
        s.market[day] = cents(r.marketPrice);
        if (day === dates.length - 1) {
          s.last = { low: cents(r.lowPrice), mid: cents(r.midPrice), high: cents(r.highPrice), directLow: cents(r.directLowPrice) };
        }
      }
    }
    rowsSeen += dayRows;
    console.log(`${dates[day]}: ${files.length} groups, ${dayRows} rows (${Date.now() - t0} ms)`);
  }

  const csvField = (v: string | number | null | undefined): string => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const rows = [...series.values()].sort((a, b) =>
    a.productId !== b.productId ? a.productId - b.productId : a.subTypeName < b.subTypeName ? -1 : a.subTypeName > b.subTypeName ? 1 : 0,
  );
  const header = ['productId', 'subTypeName', 'groupId', 'lowCents', 'midCents', 'highCents', 'directLowCents', ...dates];
  const lines = [header.join(',')];
  for (const s of rows) {
    lines.push(
      [s.productId, s.subTypeName, s.groupId, s.last?.low, s.last?.mid, s.last?.high, s.last?.directLow, ...s.market]
        .map(csvField)
        .join(','),
    );
  }
  const outFile = path.join(packageRoot, 'prices', 'tcgplayer-pokemon-daily.csv.gz');
  const gz = gzipSync(Buffer.from(lines.join('\n') + '\n', 'utf8'), { level: 9 });
  writeFileSync(outFile, gz);
  const meta = {
    source: 'TCGplayer prices as published by tcgcsv.com, archived daily',
    repository: REPOSITORY,
    commit: CARD_COLLECTING_APP_COMMIT,
    archives: archives.map((f) => path.posix.basename(f)),
    firstDate: dates[0],
    lastDate: dates[dates.length - 1],
    category: CATEGORY,
    rows: rows.length,
  };
  writeFileSync(path.join(packageRoot, 'prices', 'tcgplayer-pokemon-daily.meta.json'), JSON.stringify(meta, null, 2) + '\n');

  // Coverage on the last day.
  const last = dates.length - 1;
  const pricedProducts = new Set(rows.filter((r) => r.market[last] !== null).map((r) => r.productId));
  const listedProducts = new Set(rows.filter((r) => r.last !== null).map((r) => r.productId));
  const pricedCards = new Set<string>();
  const listedCards = new Set<string>();
  for (const p of pricedProducts) for (const c of productCards.get(p)!) pricedCards.add(c);
  for (const p of listedProducts) for (const c of productCards.get(p)!) listedCards.add(c);
  const subTypes = new Map<string, number>();
  for (const r of rows) if (r.last) subTypes.set(r.subTypeName, (subTypes.get(r.subTypeName) ?? 0) + 1);
  console.log(`archives: ${archives.length} (${dates[0]}..${dates[last]}); category-${CATEGORY} rows read: ${rowsSeen}`);
  console.log(`catalog tcgplayer products: ${productCards.size} (cards with a variant id: ${fromVariants}); products found in the prices: ${new Set(rows.map((r) => r.productId)).size}`);
  console.log(`rows written: ${rows.length}; file: ${outFile} (${gz.length} bytes)`);
  console.log(`catalog cards with >=1 row on the last day: ${listedCards.size}; with >=1 market price on the last day: ${pricedCards.size}`);
  console.log(`subTypeName on the last day: ${[...subTypes].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k || '(none)'}=${v}`).join(', ')}`);
}

await main();
