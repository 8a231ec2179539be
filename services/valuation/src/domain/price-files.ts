// Price file formats, parsed into the rows the one ingestion path takes. A bad row never stops a file: it is
// counted with its reason.
//
// 1. tcgcsv.com's TCGplayer daily format: `<day>/<categoryId>/<groupId>/prices`, each a JSON
//    `{"success": true, "errors": [], "results": [{productId, lowPrice, midPrice, highPrice, marketPrice,
//    directLowPrice, subTypeName}]}` in dollars (null where TCGplayer has none). parseTcgcsvPrices reads one.
// 2. The repository's snapshot of that feed (packages/catalog-data/prices/tcgplayer-pokemon-daily.csv.gz): a
//    wide CSV, one row per (productId, subTypeName): `productId,subTypeName,groupId,lowCents,midCents,
//    highCents,directLowCents,<day>,<day>,...`, low/mid/high/directLow of the last day, each day column that
//    day's market price in cents (empty where missing).
// 3. Graded price tables: CSV `card_id,grader,grade,price_usd,as_of[,source_url]`; grader and grade empty for
//    the ungraded value.

import { z } from 'zod';
import type { DayPrices } from './price-series';
import { csvRecords, parsePriceUsd, type RejectedRow } from './sales-file';

/** One day's prices of one marketplace product printing (cents). */
export interface MarketObservation extends DayPrices {
  productId: number;
  /** TCGplayer subTypeName: Normal, Holofoil, Reverse Holofoil, 1st Edition Holofoil, ... */
  printing: string;
}

export interface ParsedObservations {
  observations: MarketObservation[];
  rejected: RejectedRow[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (text: string): boolean => DAY.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`));

/** Dollars (a JSON number or null) to cents; undefined when it is not a sensible price. */
function dollarsToCents(value: unknown): number | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 10_000_000) return undefined;
  const cents = Math.round(value * 100);
  return cents > 0 ? cents : null;
}

const tcgcsvRow = z.object({
  productId: z.number().int().positive(),
  subTypeName: z.string().min(1).max(48),
  lowPrice: z.unknown(),
  midPrice: z.unknown(),
  highPrice: z.unknown(),
  marketPrice: z.unknown(),
  directLowPrice: z.unknown(),
});

/** One tcgcsv `prices` file of one day (see the file comment); `line` of a rejection is the result's index + 1. */
export function parseTcgcsvPrices(text: string, day: string): ParsedObservations {
  if (!isDay(day)) return { observations: [], rejected: [{ line: 0, reason: `not a day: ${day}` }] };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { observations: [], rejected: [{ line: 0, reason: 'not valid JSON' }] };
  }
  const results = (document as { results?: unknown })?.results;
  if (!Array.isArray(results)) return { observations: [], rejected: [{ line: 0, reason: 'no results array' }] };
  const observations: MarketObservation[] = [];
  const rejected: RejectedRow[] = [];
  results.forEach((raw, index) => {
    const parsed = tcgcsvRow.safeParse(raw);
    if (!parsed.success) {
      rejected.push({ line: index + 1, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      return;
    }
    const row = parsed.data;
    const prices = [row.marketPrice, row.lowPrice, row.midPrice, row.highPrice, row.directLowPrice].map(dollarsToCents);
    if (prices.some((p) => p === undefined)) {
      rejected.push({ line: index + 1, reason: 'a price is not a non-negative number of dollars' });
      return;
    }
    const [marketCents, lowCents, midCents, highCents, directLowCents] = prices as (number | null)[];
    if (marketCents === null && lowCents === null && midCents === null) {
      rejected.push({ line: index + 1, reason: 'no market, low or mid price' });
      return;
    }
    observations.push({ productId: row.productId, printing: row.subTypeName, day, marketCents: marketCents!, lowCents: lowCents!, midCents: midCents!, highCents: highCents!, directLowCents: directLowCents! });
  });
  return { observations, rejected };
}

const centsField = (text: string): number | null | undefined => {
  if (text === '') return null;
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const cents = Number(text);
  return cents > 0 ? cents : null;
};

/** The repository's wide snapshot CSV (see the file comment): one observation per row and day with a price. */
export function parseMarketSnapshot(text: string): ParsedObservations & { days: string[] } {
  const records = csvRecords(text);
  const header = records.next();
  if (header.done) return { observations: [], rejected: [{ line: 1, reason: 'empty file' }], days: [] };
  const fields = header.value.fields;
  const fixed = ['productId', 'subTypeName', 'groupId', 'lowCents', 'midCents', 'highCents', 'directLowCents'];
  if (fixed.some((name, i) => fields[i] !== name)) {
    return { observations: [], rejected: [{ line: 1, reason: `header must start ${fixed.join(',')}` }], days: [] };
  }
  const days = fields.slice(fixed.length);
  const badDay = days.find((d) => !isDay(d));
  if (badDay !== undefined || days.length === 0) return { observations: [], rejected: [{ line: 1, reason: `not a day column: ${badDay ?? '(none)'}` }], days: [] };
  const lastDay = [...days].sort().at(-1)!;
  const observations: MarketObservation[] = [];
  const rejected: RejectedRow[] = [];
  for (const { line, fields: row } of records) {
    if (row.length !== fields.length) {
      rejected.push({ line, reason: `expected ${fields.length} fields, got ${row.length}` });
      continue;
    }
    const productId = Number(row[0]);
    const printing = row[1]!;
    const latest = row.slice(3, 7).map(centsField);
    const daily = row.slice(fixed.length).map(centsField);
    if (!Number.isInteger(productId) || productId <= 0 || printing === '' || printing.length > 48 || [...latest, ...daily].some((c) => c === undefined)) {
      rejected.push({ line, reason: 'productId, subTypeName or a price is not valid' });
      continue;
    }
    const [lowCents, midCents, highCents, directLowCents] = latest as (number | null)[];
    daily.forEach((marketCents, i) => {
      const day = days[i]!;
      const isLast = day === lastDay;
      if (marketCents === null && !(isLast && (lowCents !== null || midCents !== null))) return;
      observations.push({
        productId,
        printing,
        day,
        marketCents: marketCents as number | null,
        lowCents: isLast ? lowCents! : null,
        midCents: isLast ? midCents! : null,
        highCents: isLast ? highCents! : null,
        directLowCents: isLast ? directLowCents! : null,
      });
    });
  }
  return { observations, rejected, days };
}

/** One graded table value (grader '' and grade 0 = the ungraded value). */
export interface GradedTableRow {
  cardId: string;
  grader: string;
  grade: number;
  priceCents: number;
  asOf: string;
  sourceUrl: string;
}

export const GRADED_TABLE_FIELDS = ['card_id', 'grader', 'grade', 'price_usd', 'as_of'] as const;

/** A graded price table CSV (see the file comment). */
export function parseGradedTable(text: string): { rows: GradedTableRow[]; rejected: RejectedRow[] } {
  const records = csvRecords(text);
  const header = records.next();
  if (header.done) return { rows: [], rejected: [{ line: 1, reason: 'empty file' }] };
  const columns = header.value.fields.map((f) => f.trim());
  const missing = GRADED_TABLE_FIELDS.filter((f) => !columns.includes(f));
  if (missing.length > 0) return { rows: [], rejected: [{ line: 1, reason: `missing column(s): ${missing.join(', ')}` }] };
  const at = (row: string[], name: string): string => (row[columns.indexOf(name)] ?? '').trim();
  const rows: GradedTableRow[] = [];
  const rejected: RejectedRow[] = [];
  for (const { line, fields } of records) {
    const cardId = at(fields, 'card_id');
    const grader = at(fields, 'grader').toUpperCase();
    const gradeText = at(fields, 'grade');
    const priceCents = parsePriceUsd(at(fields, 'price_usd'));
    const asOf = at(fields, 'as_of');
    const grade = gradeText === '' ? 0 : Number(gradeText);
    const problems: string[] = [];
    if (cardId === '' || cardId.length > 64) problems.push('card_id');
    if ((grader === '') !== (gradeText === '')) problems.push('grader and grade must both be given or both be empty');
    if (grader !== '' && !(/^[A-Z]{2,8}$/.test(grader))) problems.push('grader');
    if (gradeText !== '' && !(Number.isFinite(grade) && grade >= 1 && grade <= 10 && Number.isInteger(grade * 2))) problems.push('grade (1-10 in half steps)');
    if (priceCents === null) problems.push('price_usd');
    if (!isDay(asOf)) problems.push('as_of (YYYY-MM-DD)');
    if (problems.length > 0) {
      rejected.push({ line, reason: problems.join('; ') });
      continue;
    }
    rows.push({ cardId, grader, grade, priceCents: priceCents!, asOf, sourceUrl: columns.includes('source_url') ? at(fields, 'source_url') : '' });
  }
  return { rows, rejected };
}
