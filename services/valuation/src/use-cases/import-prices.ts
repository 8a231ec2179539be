// Market data import: every price file goes through one ingestion path per kind, idempotent, with rows that
// cannot be used counted by reason.
//
// Daily marketplace prices (ingestMarketObservations): each observation names a marketplace product and
// printing; the catalog's product ids (catalog_cards.tcgplayer_products, from TCGdex) join it to catalog cards.
// Each (source, card, product, printing) is one stored series; a day merges into it: a re-imported day rewrites
// nothing when unchanged and updates what changed, and the counts are in days. Readers: a tcgcsv day (a folder
// `<day>/<category>/<group>/prices`, or the `.7z` archive of one), and the repository's wide snapshot
// (packages/catalog-data/prices/tcgplayer-pokemon-daily.csv.gz).
//
// Graded price tables (ingestGradedTable): keyed by (source, card, grader, grade, as-of day); cards not in the
// catalog are counted as unmatched.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { PrismaClient } from '../db';
import { parseGradedTable, parseMarketSnapshot, parseTcgcsvPrices, type GradedTableRow, type MarketObservation } from '../domain/price-files';
import { mergeDays, type DayPrices, type StoredSeries } from '../domain/price-series';
import type { RejectedRow } from '../domain/sales-file';

export const TCGPLAYER_SOURCE = 'tcgplayer';
/** tcgcsv.com's category of English Pokemon cards. */
export const TCGCSV_POKEMON_CATEGORY = 3;

export interface PriceImportResult {
  file: string;
  source: string;
  /** Rows read (observations or table rows). */
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows whose product or card is not in the catalog. */
  unmatched: number;
  rejected: number;
  /** The first 20 rejections with their reasons. */
  rejections: RejectedRow[];
  /** Days (market prices) or as-of days (tables) the file covered. */
  firstDay: string | null;
  lastDay: string | null;
  ms: number;
}

const emptyResult = (file: string, source: string): PriceImportResult => ({
  file, source, read: 0, inserted: 0, updated: 0, unchanged: 0, unmatched: 0, rejected: 0, rejections: [], firstDay: null, lastDay: null, ms: 0,
});

function addRejections(result: PriceImportResult, rejected: readonly RejectedRow[]): void {
  result.rejected += rejected.length;
  for (const r of rejected) if (result.rejections.length < 20) result.rejections.push(r);
}

function noteDay(result: PriceImportResult, day: string): void {
  if (result.firstDay === null || day < result.firstDay) result.firstDay = day;
  if (result.lastDay === null || day > result.lastDay) result.lastDay = day;
}

/** Marketplace product id → catalog card ids whose variants carry it. */
export async function tcgplayerProductIndex(prisma: PrismaClient): Promise<Map<number, string[]>> {
  const rows = await prisma.$queryRawUnsafe<{ card_id: string; product: number }[]>(
    `SELECT c.id AS card_id, p AS product FROM valuation.catalog_cards c, unnest(c.tcgplayer_products) p`,
  );
  const index = new Map<number, string[]>();
  for (const row of rows) {
    const cards = index.get(Number(row.product)) ?? [];
    cards.push(row.card_id);
    index.set(Number(row.product), cards);
  }
  return index;
}

const BATCH = 2000;

interface SeriesRow {
  card_id: string;
  product_id: number;
  printing: string;
  first_day: Date | string;
  market_cents: (number | null)[] | null;
  latest_day: Date | string;
  low_cents: number | null;
  mid_cents: number | null;
  high_cents: number | null;
  direct_low_cents: number | null;
}

const dayText = (value: Date | string): string => (typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10));

export function storedSeriesOf(row: SeriesRow): StoredSeries {
  return {
    firstDay: dayText(row.first_day),
    marketCents: (row.market_cents ?? []).map((c) => (c === null ? null : Number(c))),
    latestDay: dayText(row.latest_day),
    lowCents: row.low_cents,
    midCents: row.mid_cents,
    highCents: row.high_cents,
    directLowCents: row.direct_low_cents,
  };
}

const SELECT_FOR_UPDATE_SQL = `
SELECT s.card_id, s.product_id, s.printing, s.first_day, s.market_cents, s.latest_day, s.low_cents, s.mid_cents, s.high_cents, s.direct_low_cents
  FROM valuation.market_price_series s
  JOIN unnest($2::text[], $3::int[], $4::text[]) AS k(card_id, product_id, printing)
    ON s.card_id = k.card_id AND s.product_id = k.product_id AND s.printing = k.printing
 WHERE s.source = $1
 FOR UPDATE OF s`;

const UPSERT_SQL = `
INSERT INTO valuation.market_price_series
  (source, card_id, product_id, printing, first_day, market_cents, latest_day, low_cents, mid_cents, high_cents, direct_low_cents)
SELECT $2, r.c, r.i, r.p, r.f::date, r.m, r.t::date, r.l, r.md, r.h, r.dl
FROM jsonb_to_recordset($1::jsonb) AS r(c text, i int, p text, f text, m int[], t text, l int, md int, h int, dl int)
ON CONFLICT (source, card_id, product_id, printing) DO UPDATE SET
  first_day = EXCLUDED.first_day, market_cents = EXCLUDED.market_cents, latest_day = EXCLUDED.latest_day,
  low_cents = EXCLUDED.low_cents, mid_cents = EXCLUDED.mid_cents, high_cents = EXCLUDED.high_cents,
  direct_low_cents = EXCLUDED.direct_low_cents`;

/**
 * The one ingestion path for daily marketplace prices (see the file comment). Each series is read, merged and
 * written back in one transaction with its rows locked, so two imports at once cannot lose each other's days.
 */
export async function ingestMarketObservations(
  prisma: PrismaClient,
  source: string,
  observations: readonly MarketObservation[],
  result: PriceImportResult,
  index?: Map<number, string[]>,
): Promise<PriceImportResult> {
  const products = index ?? (await tcgplayerProductIndex(prisma));
  // Days per series key; a later observation of the same day wins, as it would across files.
  const bySeries = new Map<string, { card: string; product: number; printing: string; days: Map<string, DayPrices> }>();
  for (const o of observations) {
    result.read++;
    noteDay(result, o.day);
    const cards = products.get(o.productId);
    if (!cards) {
      result.unmatched++;
      continue;
    }
    for (const card of cards) {
      const key = `${card}\u0000${o.productId}\u0000${o.printing}`;
      let entry = bySeries.get(key);
      if (!entry) bySeries.set(key, (entry = { card, product: o.productId, printing: o.printing, days: new Map() }));
      entry.days.set(o.day, { day: o.day, marketCents: o.marketCents, lowCents: o.lowCents, midCents: o.midCents, highCents: o.highCents, directLowCents: o.directLowCents });
    }
  }
  const all = [...bySeries.values()];
  for (let start = 0; start < all.length; start += BATCH) {
    const batch = all.slice(start, start + BATCH);
    await prisma.$transaction(async (tx) => {
      const existing = await tx.$queryRawUnsafe<SeriesRow[]>(
        SELECT_FOR_UPDATE_SQL,
        source,
        batch.map((b) => b.card),
        batch.map((b) => b.product),
        batch.map((b) => b.printing),
      );
      const stored = new Map(existing.map((row) => [`${row.card_id}\u0000${Number(row.product_id)}\u0000${row.printing}`, storedSeriesOf(row)]));
      const writes: object[] = [];
      for (const entry of batch) {
        const before = stored.get(`${entry.card}\u0000${entry.product}\u0000${entry.printing}`) ?? null;
        const { series, counts } = mergeDays(before, [...entry.days.values()]);
        result.inserted += counts.inserted;
        result.updated += counts.updated;
        result.unchanged += counts.unchanged;
        if (counts.inserted + counts.updated === 0) continue;
        writes.push({ c: entry.card, i: entry.product, p: entry.printing, f: series.firstDay, m: series.marketCents, t: series.latestDay, l: series.lowCents, md: series.midCents, h: series.highCents, dl: series.directLowCents });
      }
      if (writes.length > 0) await tx.$executeRawUnsafe(UPSERT_SQL, JSON.stringify(writes), source);
    }, { timeout: 120_000 });
  }
  return result;
}

async function finish(prisma: PrismaClient, result: PriceImportResult, table: string, started: number): Promise<PriceImportResult> {
  if (result.inserted + result.updated > 0) await prisma.$executeRawUnsafe(`ANALYZE valuation.${table}`);
  result.ms = Math.round(performance.now() - started);
  return result;
}

/** A price file's text (`.gz` read as gzip). */
const readText = (file: string): string => {
  const bytes = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
};

/** The repository's wide snapshot of the TCGplayer feed (`.csv` or `.csv.gz`). */
export async function importMarketSnapshot(prisma: PrismaClient, file: string, source = TCGPLAYER_SOURCE): Promise<PriceImportResult> {
  const started = performance.now();
  const result = emptyResult(path.basename(file), source);
  const parsed = parseMarketSnapshot(readText(file));
  addRejections(result, parsed.rejected);
  await ingestMarketObservations(prisma, source, parsed.observations, result);
  return finish(prisma, result, 'market_price_series', started);
}

/** `prices-2025-10-26.ppmd.7z`, `2025-10-26`: the day a tcgcsv archive or folder is for. */
function dayOf(name: string): string | null {
  return /(\d{4}-\d{2}-\d{2})/.exec(name)?.[1] ?? null;
}

/** Extracts one category of a tcgcsv day archive into a temporary folder (7-Zip compiled to wasm). */
async function extractTcgcsvArchive(archive: string, category: number): Promise<{ dir: string; cleanup: () => void }> {
  const { default: SevenZip } = await import('7z-wasm');
  const out = mkdtempSync(path.join(tmpdir(), 'cardlens-tcgcsv-'));
  const sevenZip = await SevenZip({ print: () => {}, printErr: () => {} });
  const mount = '/mnt';
  sevenZip.FS.mkdir(mount);
  sevenZip.FS.mount(sevenZip.NODEFS, { root: path.dirname(path.resolve(archive)) }, mount);
  const target = '/out';
  sevenZip.FS.mkdir(target);
  sevenZip.FS.mount(sevenZip.NODEFS, { root: out }, target);
  sevenZip.callMain(['x', '-y', `-o${target}`, `${mount}/${path.basename(archive)}`, `-ir!*/${category}/*/prices`]);
  return { dir: out, cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

/** The `<category>` folders under a tcgcsv day folder (the day folder itself, or one level down). */
function categoryFolder(dir: string, category: number): { folder: string; day: string } | null {
  const direct = path.join(dir, String(category));
  const dayHere = dayOf(path.basename(dir));
  if (dayHere && existsDir(direct)) return { folder: direct, day: dayHere };
  for (const entry of readdirSync(dir)) {
    const day = dayOf(entry);
    const nested = path.join(dir, entry, String(category));
    if (day && existsDir(nested)) return { folder: nested, day };
  }
  return null;
}

function existsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * One tcgcsv day: a `.7z` archive (`prices-YYYY-MM-DD….7z`) or a folder (`YYYY-MM-DD/<category>/<group>/prices`,
 * or the folder above it). Only `category` is read (3 = English Pokemon).
 */
export async function importTcgcsvDay(prisma: PrismaClient, input: string, options: { category?: number; source?: string; index?: Map<number, string[]> } = {}): Promise<PriceImportResult> {
  const started = performance.now();
  const category = options.category ?? TCGCSV_POKEMON_CATEGORY;
  const source = options.source ?? TCGPLAYER_SOURCE;
  const result = emptyResult(path.basename(input), source);
  const extracted = input.endsWith('.7z') ? await extractTcgcsvArchive(input, category) : null;
  try {
    const found = categoryFolder(extracted?.dir ?? input, category);
    if (!found) {
      addRejections(result, [{ line: 0, reason: `no <day>/${category}/<group>/prices files found` }]);
      return result;
    }
    const observations: MarketObservation[] = [];
    for (const group of readdirSync(found.folder).sort()) {
      const file = path.join(found.folder, group, 'prices');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // a group folder without prices
      }
      const parsed = parseTcgcsvPrices(text, found.day);
      addRejections(result, parsed.rejected.map((r) => ({ line: r.line, reason: `${group}/prices: ${r.reason}` })));
      observations.push(...parsed.observations);
    }
    await ingestMarketObservations(prisma, source, observations, result, options.index);
    return await finish(prisma, result, 'market_price_series', started);
  } finally {
    extracted?.cleanup();
  }
}

const GRADED_UPSERT_SQL = `
INSERT INTO valuation.graded_prices (source, card_id, grader, grade, price_cents, as_of, source_url)
SELECT $2, r.c, r.g, r.n, r.p, r.d::date, r.u
FROM jsonb_to_recordset($1::jsonb) AS r(c text, g text, n numeric, p int, d text, u text)
ON CONFLICT (source, card_id, grader, grade, as_of) DO UPDATE SET price_cents = EXCLUDED.price_cents, source_url = EXCLUDED.source_url
WHERE (valuation.graded_prices.price_cents, valuation.graded_prices.source_url) IS DISTINCT FROM (EXCLUDED.price_cents, EXCLUDED.source_url)
RETURNING (xmax = 0) AS inserted`;

/** The one ingestion path for graded price tables. */
export async function ingestGradedRows(prisma: PrismaClient, source: string, tableRows: readonly GradedTableRow[], result: PriceImportResult): Promise<PriceImportResult> {
  const keyed = new Map<string, { c: string; g: string; n: number; p: number; d: string; u: string }>();
  for (const row of tableRows) {
    result.read++;
    noteDay(result, row.asOf);
    keyed.set(`${row.cardId}\u0000${row.grader}\u0000${row.grade}\u0000${row.asOf}`, { c: row.cardId, g: row.grader, n: row.grade, p: row.priceCents, d: row.asOf, u: row.sourceUrl });
  }
  const all = [...keyed.values()];
  const known = new Set(
    (await prisma.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM valuation.catalog_cards WHERE id = ANY($1::text[])', [...new Set(all.map((r) => r.c))])).map((r) => r.id),
  );
  const matched = all.filter((r) => known.has(r.c));
  result.unmatched += all.length - matched.length;
  for (let start = 0; start < matched.length; start += BATCH) {
    const batch = matched.slice(start, start + BATCH);
    const written = await prisma.$queryRawUnsafe<{ inserted: boolean }[]>(GRADED_UPSERT_SQL, JSON.stringify(batch), source);
    const inserted = written.filter((w) => w.inserted).length;
    result.inserted += inserted;
    result.updated += written.length - inserted;
    result.unchanged += batch.length - written.length;
  }
  return result;
}

/** A graded price table CSV (see domain/price-files.ts); `source` names the table (e.g. `pricecharting`). */
export async function importGradedTable(prisma: PrismaClient, file: string, source: string): Promise<PriceImportResult> {
  const started = performance.now();
  const result = emptyResult(path.basename(file), source);
  const parsed = parseGradedTable(readText(file));
  addRejections(result, parsed.rejected);
  await ingestGradedRows(prisma, source, parsed.rows, result);
  return finish(prisma, result, 'graded_prices', started);
}

export async function marketPriceCount(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRawUnsafe<{ n: bigint | number }[]>('SELECT count(*) AS n FROM (SELECT 1 FROM valuation.market_price_series LIMIT 1) t');
  return Number(row?.n ?? 0);
}
