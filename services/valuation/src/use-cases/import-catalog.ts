// Catalog import: NDJSON (optionally gzipped) in the shape of packages/catalog-data/catalog, upserted by card id.
// Idempotent: each row keeps the sha256 of its source line and an unchanged line writes nothing, so a re-run
// reports every card as unchanged and an edited catalog updates only what changed.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { PrismaClient } from '../db';
import { catalogRecordSchema, toCatalogRow, type CatalogRow } from '../catalog/catalog-record';

export interface CatalogImportResult {
  catalog: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Lines that are not a valid record, with the reason (the first 20 are kept). */
  rejected: number;
  rejections: { line: number; reason: string }[];
}

const BATCH = 2000;

const UPSERT_SQL = `
INSERT INTO valuation.catalog_cards
  (id, game, name, subject, set_name, release, year, number, set_official_count, rarity, attributes, parallels,
   variants, tcgplayer_products, name_key, number_key, brand_key, catalog, record_hash, updated_at)
SELECT r.id, r.game, r.name, r.subject, r."setName", r.release, r.year, r.number, r."setOfficialCount", r.rarity,
       COALESCE(r.attributes, '{}'), r.parallels, r.variants, COALESCE(r."tcgplayerProducts", '{}'), r."nameKey", r."numberKey", r."brandKey", r.catalog,
       r."recordHash", now()
FROM jsonb_to_recordset($1::jsonb) AS r(
  id text, game text, name text, subject text, "setName" text, release text, year int, number text,
  "setOfficialCount" int, rarity text, attributes text[], parallels jsonb, variants jsonb, "tcgplayerProducts" int[], "nameKey" text,
  "numberKey" text, "brandKey" text, catalog text, "recordHash" text)
ON CONFLICT (id) DO UPDATE SET
  game = EXCLUDED.game, name = EXCLUDED.name, subject = EXCLUDED.subject, set_name = EXCLUDED.set_name,
  release = EXCLUDED.release, year = EXCLUDED.year, number = EXCLUDED.number,
  set_official_count = EXCLUDED.set_official_count, rarity = EXCLUDED.rarity, attributes = EXCLUDED.attributes,
  parallels = EXCLUDED.parallels, variants = EXCLUDED.variants, tcgplayer_products = EXCLUDED.tcgplayer_products, name_key = EXCLUDED.name_key,
  number_key = EXCLUDED.number_key, brand_key = EXCLUDED.brand_key, catalog = EXCLUDED.catalog,
  record_hash = EXCLUDED.record_hash, updated_at = now()
WHERE valuation.catalog_cards.record_hash IS DISTINCT FROM EXCLUDED.record_hash
RETURNING (xmax = 0) AS inserted`;

async function upsert(prisma: PrismaClient, rows: CatalogRow[], result: CatalogImportResult): Promise<void> {
  // A card id twice in one statement cannot be upserted; the later line wins, as it would across batches.
  const byId = new Map(rows.map((r) => [r.id, r]));
  const written = await prisma.$queryRawUnsafe<{ inserted: boolean }[]>(UPSERT_SQL, JSON.stringify([...byId.values()]));
  const inserted = written.filter((w) => w.inserted).length;
  result.inserted += inserted;
  result.updated += written.length - inserted;
  result.unchanged += rows.length - written.length;
}

/** Imports one catalog file (`.ndjson` or `.ndjson.gz`); the catalog name is the file's base name. */
export async function importCatalogFile(prisma: PrismaClient, file: string): Promise<CatalogImportResult> {
  const catalog = path.basename(file);
  const result: CatalogImportResult = { catalog, read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, rejections: [] };
  const source = createReadStream(file);
  const input = file.endsWith('.gz') ? source.pipe(createGunzip()) : source;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let batch: CatalogRow[] = [];
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const line = raw.trim();
    if (!line) continue;
    result.read++;
    let reason: string | null = null;
    try {
      const parsed = catalogRecordSchema.safeParse(JSON.parse(line));
      if (parsed.success) batch.push(toCatalogRow(parsed.data, catalog, line));
      else reason = parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
    } catch {
      reason = 'not valid JSON';
    }
    if (reason !== null) {
      result.rejected++;
      if (result.rejections.length < 20) result.rejections.push({ line: lineNo, reason });
    }
    if (batch.length >= BATCH) {
      await upsert(prisma, batch, result);
      batch = [];
    }
  }
  if (batch.length > 0) await upsert(prisma, batch, result);
  // Fresh statistics after a bulk load, or the planner guesses (and picks a seq scan over the number index).
  if (result.inserted + result.updated > 0) await prisma.$executeRawUnsafe('ANALYZE valuation.catalog_cards');
  return result;
}

export async function catalogCardCount(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRawUnsafe<{ n: bigint | number }[]>('SELECT count(*) AS n FROM valuation.catalog_cards');
  return Number(row?.n ?? 0);
}
