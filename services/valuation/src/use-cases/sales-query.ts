// Reading sales rows back as domain sales.
import type { PrismaClient } from '../db';
import type { ListingType, Sale } from '../domain/types';

export const SALE_COLUMNS = 'source, source_id, card_id, parallel, grader, grade, price_cents, sold_at, listing_type, title';

export interface SaleRecordRow {
  source: string;
  source_id: string;
  card_id: string;
  parallel: string;
  grader: string | null;
  grade: unknown;
  price_cents: bigint | number;
  sold_at: Date;
  listing_type: string;
  title: string;
}

export function toSale(row: SaleRecordRow): Sale {
  return {
    source: row.source,
    sourceId: row.source_id,
    cardId: row.card_id,
    parallel: row.parallel,
    grader: row.grader,
    grade: row.grade === null || row.grade === undefined ? null : Number(row.grade),
    priceCents: Number(row.price_cents),
    soldAt: new Date(row.sold_at),
    listingType: row.listing_type as ListingType,
    title: row.title,
  };
}

/** Comps of one card and printing within the lookback window, oldest first. */
export async function salesOf(prisma: PrismaClient, cardId: string, parallel: string, lookbackDays: number, now: Date): Promise<Sale[]> {
  const rows = await prisma.$queryRawUnsafe<SaleRecordRow[]>(
    `SELECT ${SALE_COLUMNS} FROM valuation.sales
      WHERE card_id = $1 AND parallel = $2 AND sold_at > $3::timestamptz AND sold_at <= $4::timestamptz
      ORDER BY sold_at`,
    cardId,
    parallel,
    new Date(now.getTime() - lookbackDays * 86_400_000).toISOString(),
    now.toISOString(),
  );
  return rows.map(toSale);
}
