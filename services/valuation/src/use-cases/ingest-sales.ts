// Sales ingestion for every path (import command, ImportSales RPC, the Kafka sales feed): validate, keep only
// sales of known catalog cards, insert with (source, source_id) as the dedupe key so replays and redeliveries
// change nothing.
import type { PrismaClient } from '../db';
import type { Sale } from '../domain/types';

export interface IngestResult {
  received: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  rejections: { sourceId: string; reason: string }[];
}

const BATCH = 2000;

const INSERT_SQL = `
INSERT INTO valuation.sales (source, source_id, card_id, parallel, grader, grade, price_cents, sold_at, listing_type, title)
SELECT r.source, r."sourceId", r."cardId", r.parallel, r.grader, r.grade, r."priceCents", r."soldAt", r."listingType", r.title
FROM jsonb_to_recordset($1::jsonb) AS r(source text, "sourceId" text, "cardId" text, parallel text, grader text,
  grade numeric, "priceCents" bigint, "soldAt" timestamptz, "listingType" text, title text)
ON CONFLICT (source, source_id) DO NOTHING
RETURNING id`;

/** Why a sale cannot be stored, or null. */
export function saleProblem(sale: Sale): string | null {
  if (!sale.source || sale.source.length > 64) return 'source must be 1-64 characters';
  if (!sale.sourceId || sale.sourceId.length > 128) return 'source_id must be 1-128 characters';
  if (!Number.isSafeInteger(sale.priceCents) || sale.priceCents <= 0) return 'price must be a positive amount of cents';
  if (Number.isNaN(sale.soldAt.getTime())) return 'sold_at is not a date';
  if (sale.soldAt.getTime() > Date.now() + 86_400_000) return 'sold_at is in the future';
  if ((sale.grader === null) !== (sale.grade === null)) return 'grader and grade go together';
  if (sale.grade !== null && !(sale.grade >= 1 && sale.grade <= 10 && Number.isInteger(sale.grade * 2))) return 'grade must be 1-10 in half points';
  return null;
}

export async function ingestSales(prisma: PrismaClient, sales: readonly Sale[]): Promise<IngestResult> {
  const result: IngestResult = { received: sales.length, inserted: 0, duplicates: 0, rejected: 0, rejections: [] };
  const reject = (sourceId: string, reason: string) => {
    result.rejected++;
    if (result.rejections.length < 20) result.rejections.push({ sourceId, reason });
  };
  const valid: Sale[] = [];
  for (const sale of sales) {
    const problem = saleProblem(sale);
    if (problem) reject(sale.sourceId, problem);
    else valid.push(sale);
  }
  const ids = [...new Set(valid.map((s) => s.cardId))];
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 10_000) {
    const rows = await prisma.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM valuation.catalog_cards WHERE id = ANY($1::text[])', ids.slice(i, i + 10_000));
    for (const r of rows) known.add(r.id);
  }
  const storable = valid.filter((s) => (known.has(s.cardId) ? true : (reject(s.sourceId, `unknown card ${s.cardId}`), false)));
  for (let i = 0; i < storable.length; i += BATCH) {
    const batch = storable.slice(i, i + BATCH);
    // The same (source, source_id) twice in one statement counts once; the repeat is a duplicate.
    const unique = new Map(batch.map((s) => [`${s.source}\u0000${s.sourceId}`, s]));
    const rows = await prisma.$queryRawUnsafe<{ id: bigint }[]>(
      INSERT_SQL,
      JSON.stringify([...unique.values()].map((s) => ({ ...s, soldAt: s.soldAt.toISOString() }))),
    );
    result.inserted += rows.length;
    result.duplicates += batch.length - rows.length;
  }
  return result;
}
