// Reading real market data back: a card's daily price series per printing, its graded table values, the newest
// day of the feed, and the graded-price model fitted on every table card that also has a raw market price.
import type { PrismaClient } from '../db';
import { marketPrintingsFor, marketProductsFor, type MarketVariant } from '../catalog/printings';
import { GradedPriceModel, type GradedTableValue } from '../domain/graded-prices';
import { seriesDays, type DailyPrice } from '../domain/price-series';
import { storedSeriesOf, TCGPLAYER_SOURCE } from './import-prices';

const dayText = (value: Date | string): string => (typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10));

export interface CardMarketData {
  /** The printing chosen for the identified parallel, when the card has prices for it. */
  printing: string | null;
  series: DailyPrice[];
  /** Every printing the card has prices for. */
  pricedPrintings: string[];
  /** What the identified parallel would be priced as (for the reason when it is not priced). */
  wantedPrintings: string[];
  /** The parallel is the card's standard printing (the one graded tables list). */
  standardPrinting: boolean;
  graded: GradedTableValue[];
  gradedAsOf: string | null;
}

/** The card's variants (with their product ids) and all its product ids. */
async function catalogVariants(prisma: PrismaClient, cardId: string): Promise<{ variants: MarketVariant[]; products: number[] }> {
  const rows = await prisma.$queryRawUnsafe<{ variants: MarketVariant[] | null; tcgplayer_products: number[] | null }[]>(
    'SELECT variants, tcgplayer_products FROM valuation.catalog_cards WHERE id = $1',
    cardId,
  );
  return { variants: rows[0]?.variants ?? [], products: (rows[0]?.tcgplayer_products ?? []).map(Number) };
}

/** The card's market data for `parallel` as identification names it; null when the card has none at all. */
export async function marketDataFor(prisma: PrismaClient, cardId: string, parallel: string, source = TCGPLAYER_SOURCE): Promise<CardMarketData | null> {
  const [seriesRows, gradedRows] = await Promise.all([
    prisma.$queryRawUnsafe<Parameters<typeof storedSeriesOf>[0][]>(
      `SELECT card_id, product_id, printing, first_day, market_cents, latest_day, low_cents, mid_cents, high_cents, direct_low_cents
         FROM valuation.market_price_series WHERE source = $1 AND card_id = $2`,
      source,
      cardId,
    ),
    prisma.$queryRawUnsafe<{ grader: string; grade: unknown; price_cents: number; as_of: Date }[]>(
      `SELECT DISTINCT ON (grader, grade) grader, grade, price_cents, as_of FROM valuation.graded_prices
        WHERE card_id = $1 ORDER BY grader, grade, as_of DESC`,
      cardId,
    ),
  ]);
  if (seriesRows.length === 0 && gradedRows.length === 0) return null;
  const { variants, products } = await catalogVariants(prisma, cardId);
  const wanted = marketPrintingsFor(parallel, [...new Set(variants.map((v) => v.type))]);
  const pricedPrintings = [...new Set(seriesRows.map((r) => r.printing))].sort();
  // The first (product, printing) with prices, products in the order the parallel names them.
  const byKey = new Map(seriesRows.map((r) => [`${Number(r.product_id)}\u0000${r.printing}`, r]));
  let chosen: (typeof seriesRows)[number] | null = null;
  for (const product of marketProductsFor(parallel, variants, products)) {
    const printing = wanted.find((p) => byKey.has(`${product}\u0000${p}`));
    if (printing) {
      chosen = byKey.get(`${product}\u0000${printing}`)!;
      break;
    }
  }
  const printing = chosen?.printing ?? null;
  const series: DailyPrice[] = chosen ? seriesDays(storedSeriesOf(chosen)) : [];
  const graded = gradedRows.filter((r) => r.grader !== '').map((r) => ({ grader: r.grader, grade: Number(r.grade), priceCents: Number(r.price_cents) }));
  const gradedAsOf = gradedRows.length > 0 ? gradedRows.map((r) => dayText(r.as_of)).sort().at(-1)! : null;
  const standardPrinting = ['', 'base', 'normal'].includes(parallel.trim().toLowerCase());
  return { printing, series, pricedPrintings, wantedPrintings: wanted, standardPrinting, graded, gradedAsOf };
}

let lastDayCache: { source: string; day: string | null; at: number } | null = null;

/** The newest day of the feed (cached for a minute: it changes once a day, on import). */
export async function datasetLastDay(prisma: PrismaClient, source = TCGPLAYER_SOURCE): Promise<string | null> {
  const now = Date.now();
  if (lastDayCache && lastDayCache.source === source && now - lastDayCache.at < 60_000) return lastDayCache.day;
  const [row] = await prisma.$queryRawUnsafe<{ day: Date | null }[]>('SELECT max(latest_day) AS day FROM valuation.market_price_series WHERE source = $1', source);
  const day = row?.day ? dayText(row.day) : null;
  lastDayCache = { source, day, at: now };
  return day;
}

/** Forget the cached newest day (after an import in this process). */
export function forgetDatasetLastDay(): void {
  lastDayCache = null;
}

export interface GradedModelFit {
  model: GradedPriceModel;
  /** Table cards with a raw market price that the lines were fitted on. */
  cards: number;
}

/**
 * (raw, graded) pairs of every graded-table card that has a raw market price: raw = the latest market price of
 * the card's standard printing (the one a table's "ungraded" value refers to).
 */
export async function gradedModelPairs(prisma: PrismaClient, source = TCGPLAYER_SOURCE): Promise<{ cardId: string; rawCents: number; grade: number; gradedCents: number }[]> {
  const rows = await prisma.$queryRawUnsafe<{ card_id: string; grade: unknown; price_cents: number; variants: MarketVariant[] | null; tcgplayer_products: number[] | null }[]>(
    `SELECT g.card_id, g.grade, g.price_cents, c.variants, c.tcgplayer_products
       FROM (SELECT DISTINCT ON (card_id, grade) card_id, grade, price_cents FROM valuation.graded_prices
              WHERE grader = 'PSA' ORDER BY card_id, grade, as_of DESC) g
       JOIN valuation.catalog_cards c ON c.id = g.card_id`,
  );
  if (rows.length === 0) return [];
  // The newest market price of each series (the last non-null element of its array).
  const latest = await prisma.$queryRawUnsafe<{ card_id: string; product_id: number; printing: string; market_cents: number | null }[]>(
    `SELECT card_id, product_id, printing,
            (SELECT m FROM unnest(market_cents) WITH ORDINALITY AS u(m, i) WHERE m IS NOT NULL ORDER BY i DESC LIMIT 1) AS market_cents
       FROM valuation.market_price_series WHERE source = $1 AND card_id = ANY($2::text[])`,
    source,
    [...new Set(rows.map((r) => r.card_id))],
  );
  const rawOf = new Map<string, Map<string, number>>();
  for (const r of latest) {
    if (r.market_cents === null) continue;
    const printings = rawOf.get(r.card_id) ?? new Map<string, number>();
    printings.set(`${r.product_id}\u0000${r.printing}`, Number(r.market_cents));
    rawOf.set(r.card_id, printings);
  }
  const pairs: { cardId: string; rawCents: number; grade: number; gradedCents: number }[] = [];
  for (const row of rows) {
    const printings = rawOf.get(row.card_id);
    if (!printings) continue;
    const variants = row.variants ?? [];
    const wanted = marketPrintingsFor('', [...new Set(variants.map((v) => v.type))]);
    const key = marketProductsFor('', variants, (row.tcgplayer_products ?? []).map(Number))
      .flatMap((product) => wanted.map((p) => `${product}\u0000${p}`))
      .find((k) => printings.has(k));
    if (!key) continue;
    pairs.push({ cardId: row.card_id, rawCents: printings.get(key)!, grade: Number(row.grade), gradedCents: Number(row.price_cents) });
  }
  return pairs;
}

export async function fitGradedModel(prisma: PrismaClient): Promise<GradedModelFit> {
  const pairs = await gradedModelPairs(prisma);
  return { model: GradedPriceModel.fit(pairs), cards: new Set(pairs.map((p) => p.cardId)).size };
}
