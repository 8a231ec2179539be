// Sales files: CSV and NDJSON readers and writers for Sale.
//
// Both formats use the same snake_case fields:
//   source, source_id, card_id, parallel, grader, grade, price_usd, sold_at, listing_type, title
// - CSV (RFC 4180: comma separated, fields with commas, quotes or line breaks in double quotes, quotes doubled)
//   with that header line; column order is free, extra columns are ignored, a missing column rejects the file.
// - NDJSON: one JSON object a line with those keys (snake_case, like the CSV header, so one field list serves
//   both; extra keys ignored). Blank lines are skipped in both formats.
// Field rules (the same for both):
//   price_usd     dollars with at most 2 decimals ("4.20", "1200"; in NDJSON also a number, 4.2), > 0; parsed
//                 by digits into integer cents, never through a float in CSV
//   sold_at       ISO 8601 date-time with a zone (2025-01-31T12:00:00Z, +01:00 offsets) or a date (midnight UTC)
//   grader        PSA, BGS, SGC or CGC (any case) or empty/null for a raw sale; grade 1-10 in half steps, given
//                 exactly when grader is
//   listing_type  auction, fixed_price or best_offer
//   parallel      '' (or null in NDJSON) for the base printing
// A bad row does not stop the file: it lands in `rejected` with its line number (1-based, the header is line 1;
// for a quoted field spanning lines, the line the record starts on) and the reasons. A repeated
// (source, source_id) is rejected after its first occurrence. Writers emit price_usd with exactly 2 decimals
// (CSV) or as a JSON number (NDJSON), sold_at as toISOString().

import { readFile, writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { GRADERS, LISTING_TYPES, type Sale } from './types';

export const SALES_FILE_FIELDS = ['source', 'source_id', 'card_id', 'parallel', 'grader', 'grade', 'price_usd', 'sold_at', 'listing_type', 'title'] as const;

export interface RejectedRow {
  line: number;
  reason: string;
}

export interface ParsedSales {
  sales: Sale[];
  rejected: RejectedRow[];
}

export type SalesFileFormat = 'csv' | 'ndjson';

/** Dollars text ("4.20", "12", "0.5") to integer cents; null when it is not a positive amount with ≤ 2 decimals. */
export function parsePriceUsd(text: string): number | null {
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return cents > 0 ? cents : null;
}

/** Integer cents to dollars text with exactly 2 decimals ("4.20"). */
export function formatPriceUsd(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`price must be a non-negative integer of cents, got ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

const PRICE_RULE = 'must be a positive dollar amount with at most 2 decimals, e.g. 4.20';

const requiredText = (max: number) => z.string({ error: 'is required' }).trim().min(1, { error: 'is empty' }).max(max, { error: `is longer than ${max} characters` });

const priceUsd = z.union([z.string(), z.number()], { error: PRICE_RULE }).transform((value, ctx) => {
  let cents: number | null = null;
  if (typeof value === 'number') {
    const scaled = value * 100;
    if (Number.isFinite(scaled) && value > 0 && Math.abs(scaled - Math.round(scaled)) < 1e-6 && scaled <= 1e12) cents = Math.round(scaled);
  } else {
    cents = parsePriceUsd(value);
  }
  if (cents === null) {
    const negative = typeof value === 'number' ? value < 0 : value.trim().startsWith('-');
    ctx.issues.push({ code: 'custom', message: negative ? 'must be positive' : PRICE_RULE, input: value });
    return z.NEVER;
  }
  return cents;
});

const soldAt = z
  .string({ error: 'is required' })
  .trim()
  .pipe(z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date-time with a zone (2025-01-31T12:00:00Z) or a date' }))
  .transform((text) => new Date(text.length === 10 ? `${text}T00:00:00Z` : text));

const grader = z
  .union([z.string(), z.null(), z.undefined()])
  .transform((value, ctx) => {
    const text = (value ?? '').trim().toUpperCase();
    if (text === '') return null;
    if (!(GRADERS as readonly string[]).includes(text)) {
      ctx.issues.push({ code: 'custom', message: `must be one of ${GRADERS.join(', ')} or empty`, input: value });
      return z.NEVER;
    }
    return text;
  });

const grade = z
  .union([z.string(), z.number(), z.null(), z.undefined()])
  .transform((value, ctx) => {
    if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null;
    const number = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
    if (!(number >= 1 && number <= 10) || !Number.isInteger(number * 2)) {
      ctx.issues.push({ code: 'custom', message: 'must be 1-10 in half grades', input: value });
      return z.NEVER;
    }
    return number;
  });

const saleRecordSchema = z
  .object({
    source: requiredText(64),
    source_id: requiredText(128),
    card_id: requiredText(128),
    parallel: z.union([z.string(), z.null(), z.undefined()]).transform((v) => (v ?? '').trim()).pipe(z.string().max(128, { error: 'is longer than 128 characters' })),
    grader,
    grade,
    price_usd: priceUsd,
    sold_at: soldAt,
    listing_type: z.enum(LISTING_TYPES, { error: `must be one of ${LISTING_TYPES.join(', ')}` }),
    title: z.union([z.string(), z.null(), z.undefined()]).transform((v) => v ?? '').pipe(z.string().max(500, { error: 'is longer than 500 characters' })),
  })
  .refine((r) => (r.grader === null) === (r.grade === null), { error: 'grader and grade must be given together (both empty for a raw sale)' })
  .transform(
    (r): Sale => ({
      source: r.source,
      sourceId: r.source_id,
      cardId: r.card_id,
      parallel: r.parallel,
      grader: r.grader,
      grade: r.grade,
      priceCents: r.price_usd,
      soldAt: r.sold_at,
      listingType: r.listing_type,
      title: r.title,
    }),
  );

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')} ${issue.message}` : issue.message)).join('; ');
}

/** Validates records in order, rejecting bad ones and repeated (source, source_id). */
function collect(records: Iterable<{ line: number; record: unknown } | RejectedRow>): ParsedSales {
  const sales: Sale[] = [];
  const rejected: RejectedRow[] = [];
  const firstLine = new Map<string, number>();
  for (const entry of records) {
    if ('reason' in entry) {
      rejected.push(entry);
      continue;
    }
    const parsed = saleRecordSchema.safeParse(entry.record);
    if (!parsed.success) {
      rejected.push({ line: entry.line, reason: describeIssues(parsed.error) });
      continue;
    }
    const key = `${parsed.data.source}\u0000${parsed.data.sourceId}`;
    const seen = firstLine.get(key);
    if (seen !== undefined) {
      rejected.push({ line: entry.line, reason: `duplicate source + source_id (first on line ${seen})` });
      continue;
    }
    firstLine.set(key, entry.line);
    sales.push(parsed.data);
  }
  return { sales, rejected };
}

/** RFC 4180 records with the line each starts on. */
export function* csvRecords(text: string): Generator<{ line: number; fields: string[] }> {
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  let fieldWasQuoted = false;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (inQuotes) {
      if (ch === '"') {
        if (body[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          inQuotes = false;
        }
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '' && !fieldWasQuoted) {
      inQuotes = true;
      fieldWasQuoted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      fieldWasQuoted = false;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      fields.push(field);
      if (!(fields.length === 1 && fields[0] === '' && !fieldWasQuoted)) yield { line: recordLine, fields };
      fields = [];
      field = '';
      fieldWasQuoted = false;
      line++;
      recordLine = line;
    } else {
      field += ch;
    }
  }
  if (field !== '' || fields.length > 0 || fieldWasQuoted) {
    fields.push(field);
    yield { line: recordLine, fields };
  }
}

/** Parses a sales CSV (see the file comment). */
export function parseSalesCsv(text: string): ParsedSales {
  const records = csvRecords(text);
  const header = records.next();
  if (header.done) return { sales: [], rejected: [] };
  const columns = header.value.fields.map((name) => name.trim().toLowerCase());
  const missing = SALES_FILE_FIELDS.filter((name) => !columns.includes(name));
  if (missing.length > 0) return { sales: [], rejected: [{ line: header.value.line, reason: `header is missing column${missing.length === 1 ? '' : 's'} ${missing.join(', ')}` }] };
  const index = Object.fromEntries(SALES_FILE_FIELDS.map((name) => [name, columns.indexOf(name)])) as Record<(typeof SALES_FILE_FIELDS)[number], number>;

  function* rows() {
    for (const { line, fields } of records) {
      if (fields.length !== columns.length) {
        yield { line, reason: `expected ${columns.length} fields, found ${fields.length}` };
        continue;
      }
      yield { line, record: Object.fromEntries(SALES_FILE_FIELDS.map((name) => [name, fields[index[name]]!])) };
    }
  }
  return collect(rows());
}

/** Parses sales NDJSON (see the file comment). */
export function parseSalesNdjson(text: string): ParsedSales {
  function* rows() {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const content = lines[i]!.trim();
      if (content === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(content);
      } catch {
        yield { line: i + 1, reason: 'invalid JSON' };
        continue;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        yield { line: i + 1, reason: 'not a JSON object' };
        continue;
      }
      yield { line: i + 1, record };
    }
  }
  return collect(rows());
}

export function parseSales(text: string, format: SalesFileFormat): ParsedSales {
  return format === 'csv' ? parseSalesCsv(text) : parseSalesNdjson(text);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

function recordOf(sale: Sale) {
  return {
    source: sale.source,
    source_id: sale.sourceId,
    card_id: sale.cardId,
    parallel: sale.parallel,
    grader: sale.grader,
    grade: sale.grade,
    price_usd: formatPriceUsd(sale.priceCents),
    sold_at: sale.soldAt.toISOString(),
    listing_type: sale.listingType,
    title: sale.title,
  };
}

/** Sales as CSV with the header line, one record a line, ending in a line break. */
export function salesToCsv(sales: readonly Sale[]): string {
  const lines = [SALES_FILE_FIELDS.join(',')];
  for (const sale of sales) {
    const record = recordOf(sale);
    lines.push(SALES_FILE_FIELDS.map((name) => csvField(record[name] === null ? '' : String(record[name]))).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Sales as NDJSON, one object a line, ending in a line break (empty string for no sales). */
export function salesToNdjson(sales: readonly Sale[]): string {
  return sales.map((sale) => `${JSON.stringify({ ...recordOf(sale), price_usd: sale.priceCents / 100 })}\n`).join('');
}

export function serialiseSales(sales: readonly Sale[], format: SalesFileFormat): string {
  return format === 'csv' ? salesToCsv(sales) : salesToNdjson(sales);
}

/** Format and compression from a file name: *.csv, *.ndjson or *.jsonl, each optionally .gz. */
export function salesFileFormat(path: string): { format: SalesFileFormat; gzip: boolean } {
  const gzip = path.toLowerCase().endsWith('.gz');
  const name = gzip ? path.slice(0, -3).toLowerCase() : path.toLowerCase();
  if (name.endsWith('.csv')) return { format: 'csv', gzip };
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return { format: 'ndjson', gzip };
  throw new Error(`unknown sales file type: ${path} (expected .csv, .ndjson or .jsonl, optionally .gz)`);
}

export async function readSalesFile(path: string): Promise<ParsedSales> {
  const { format, gzip } = salesFileFormat(path);
  const bytes = await readFile(path);
  return parseSales((gzip ? gunzipSync(bytes) : bytes).toString('utf8'), format);
}

export async function writeSalesFile(path: string, sales: readonly Sale[]): Promise<void> {
  const { format, gzip } = salesFileFormat(path);
  const text = serialiseSales(sales, format);
  await writeFile(path, gzip ? gzipSync(text) : text);
}
