import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  SALES_FILE_FIELDS,
  formatPriceUsd,
  parsePriceUsd,
  parseSalesCsv,
  parseSalesNdjson,
  readSalesFile,
  salesFileFormat,
  salesToCsv,
  salesToNdjson,
  writeSalesFile,
} from '../src/domain/sales-file';
import { generateSampleSales } from '../src/domain/sales-generator';
import type { Sale } from '../src/domain/types';

const HEADER = SALES_FILE_FIELDS.join(',');

const awkward: Sale[] = [
  {
    source: 'ebay',
    sourceId: 'a-1',
    cardId: 'base1-4',
    parallel: '',
    grader: null,
    grade: null,
    priceCents: 420,
    soldAt: new Date('2025-01-31T12:00:00.000Z'),
    listingType: 'auction',
    title: 'Charizard, "shadowless"\nholo',
  },
  {
    source: 'ebay',
    sourceId: 'a-2',
    cardId: 'u1',
    parallel: 'Gold, Refractor',
    grader: 'BGS',
    grade: 9.5,
    priceCents: 123_456_789,
    soldAt: new Date('2024-02-29T23:59:59.999Z'),
    listingType: 'best_offer',
    title: ' leading space',
  },
  {
    source: 'pwcc',
    sourceId: 'a-3',
    cardId: 'u2',
    parallel: '',
    grader: 'PSA',
    grade: 10,
    priceCents: 1,
    soldAt: new Date('2023-07-04T00:00:00.000Z'),
    listingType: 'fixed_price',
    title: '',
  },
];

describe('prices', () => {
  it('parses dollars into integer cents by digits', () => {
    expect(parsePriceUsd('4.20')).toBe(420);
    expect(parsePriceUsd('4.2')).toBe(420);
    expect(parsePriceUsd('12')).toBe(1200);
    expect(parsePriceUsd('0.07')).toBe(7);
    expect(parsePriceUsd('1234567.89')).toBe(123_456_789);
    for (const bad of ['0', '0.00', '-4.20', '4.205', '1e3', '$4', '4,20', '', '.5']) expect(parsePriceUsd(bad)).toBeNull();
  });

  it('formats cents with two decimals', () => {
    expect(formatPriceUsd(420)).toBe('4.20');
    expect(formatPriceUsd(7)).toBe('0.07');
    expect(formatPriceUsd(123_456_789)).toBe('1234567.89');
    expect(() => formatPriceUsd(4.5)).toThrow();
  });
});

describe('round trips', () => {
  const generated = generateSampleSales(
    [{ id: 'g1', game: 'baseball', name: 'Ken Griffey Jr.', year: 1989, rarity: null, attributes: ['Rookie Card'], parallels: [{ name: 'Gold', printRun: 50 }], variants: [], subjectCardCount: 400 }],
    { seed: 11, now: new Date('2025-06-30T00:00:00Z') },
  );
  const sales = [...awkward, ...generated];

  it('CSV', () => {
    const csv = salesToCsv(sales);
    expect(csv.startsWith(`${HEADER}\n`)).toBe(true);
    const parsed = parseSalesCsv(csv);
    expect(parsed.rejected).toEqual([]);
    expect(parsed.sales).toEqual(sales);
  });

  it('NDJSON', () => {
    const ndjson = salesToNdjson(sales);
    expect(ndjson.trimEnd().split('\n')).toHaveLength(sales.length);
    expect(JSON.parse(ndjson.split('\n')[0]!)).toMatchObject({ source_id: 'a-1', price_usd: 4.2, grader: null, sold_at: '2025-01-31T12:00:00.000Z' });
    const parsed = parseSalesNdjson(ndjson);
    expect(parsed.rejected).toEqual([]);
    expect(parsed.sales).toEqual(sales);
  });

  it('files by extension, gzipped or not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'valuation-sales-'));
    try {
      for (const name of ['s.csv', 's.ndjson', 's.csv.gz', 's.jsonl.gz']) {
        await writeSalesFile(join(dir, name), sales);
        expect((await readSalesFile(join(dir, name))).sales).toEqual(sales);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(() => salesFileFormat('sales.xlsx')).toThrow();
  });
});

describe('CSV parsing', () => {
  const good = 'ebay,1,c1,,,,4.20,2025-01-31T12:00:00Z,auction,a card';

  it('rejects bad rows with their line numbers and keeps the rest', () => {
    const csv = [
      HEADER,
      good,
      'ebay,2,c1,,,,-4.20,2025-01-31T12:00:00Z,auction,negative price',
      'ebay,3,c1,,,,4.20,2025-02-30T12:00:00Z,auction,no such day',
      'ebay,4,c1,,,,4.20,yesterday,auction,not a date',
      'ebay,5,c1,,,,4.20,2025-01-31T12:00:00Z,buy_it_now,unknown listing type',
      'ebay,6,c1,,PSA,,4.20,2025-01-31T12:00:00Z,auction,grader without grade',
      'ebay,7,c1,,TAG,9,4.20,2025-01-31T12:00:00Z,auction,unknown grader',
      'ebay,8,c1,,PSA,9.3,4.20,2025-01-31T12:00:00Z,auction,odd grade',
      'ebay,1,c1,,,,5.00,2025-01-31T12:00:00Z,auction,duplicate id',
      'ebay,9,c1,,,,4.20,2025-01-31T12:00:00Z,auction',
      ',10,c1,,,,4.20,2025-01-31T12:00:00Z,auction,no source',
      'ebay,11,c1,,,,0.00,2025-01-31T12:00:00Z,auction,free',
    ].join('\n');
    const { sales, rejected } = parseSalesCsv(csv);
    expect(sales.map((s) => s.sourceId)).toEqual(['1']);
    const reasons = new Map(rejected.map((r) => [r.line, r.reason]));
    expect([...reasons.keys()]).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(reasons.get(3)).toBe('price_usd must be positive');
    expect(reasons.get(4)).toContain('sold_at must be an ISO 8601 date-time');
    expect(reasons.get(5)).toContain('sold_at');
    expect(reasons.get(6)).toBe('listing_type must be one of auction, fixed_price, best_offer');
    expect(reasons.get(7)).toBe('grader and grade must be given together (both empty for a raw sale)');
    expect(reasons.get(8)).toBe('grader must be one of PSA, BGS, SGC, CGC or empty');
    expect(reasons.get(9)).toBe('grade must be 1-10 in half grades');
    expect(reasons.get(10)).toBe('duplicate source + source_id (first on line 2)');
    expect(reasons.get(11)).toBe('expected 10 fields, found 9');
    expect(reasons.get(12)).toBe('source is empty');
    expect(reasons.get(13)).toContain('price_usd must be a positive dollar amount');
  });

  it('accepts any column order, extra columns, CRLF, a BOM, dates, lower-case graders and quoted line breaks', () => {
    const csv =
      '\uFEFFtitle,extra,listing_type,sold_at,price_usd,grade,grader,parallel,card_id,source_id,source\r\n' +
      '"two\r\nlines",x,fixed_price,2025-03-01,10,9.5,cgc,Gold,c2,42,feed\r\n' +
      '\r\n' +
      'plain,y,auction,2025-03-02T10:00:00+02:00,1.5,,,,c2,43,feed\r\n';
    const { sales, rejected } = parseSalesCsv(csv);
    expect(rejected).toEqual([]);
    expect(sales).toEqual([
      { source: 'feed', sourceId: '42', cardId: 'c2', parallel: 'Gold', grader: 'CGC', grade: 9.5, priceCents: 1000, soldAt: new Date('2025-03-01T00:00:00Z'), listingType: 'fixed_price', title: 'two\r\nlines' },
      { source: 'feed', sourceId: '43', cardId: 'c2', parallel: '', grader: null, grade: null, priceCents: 150, soldAt: new Date('2025-03-02T08:00:00Z'), listingType: 'auction', title: 'plain' },
    ]);
  });

  it('reports the line a multi-line record starts on', () => {
    const csv = `${HEADER}\n"ebay",1,c1,,,,4.20,2025-01-31T12:00:00Z,auction,"a\nb"\nebay,2,c1,,,,-1,2025-01-31T12:00:00Z,auction,x\n`;
    expect(parseSalesCsv(csv).rejected).toEqual([{ line: 4, reason: 'price_usd must be positive' }]);
  });

  it('rejects a file whose header lacks columns', () => {
    expect(parseSalesCsv('source,source_id,card_id\nebay,1,c1\n')).toEqual({
      sales: [],
      rejected: [{ line: 1, reason: 'header is missing columns parallel, grader, grade, price_usd, sold_at, listing_type, title' }],
    });
    expect(parseSalesCsv('')).toEqual({ sales: [], rejected: [] });
  });
});

describe('NDJSON parsing', () => {
  const record = { source: 'ebay', source_id: '1', card_id: 'c1', parallel: null, grader: null, grade: null, price_usd: 4.2, sold_at: '2025-01-31T12:00:00Z', listing_type: 'auction', title: 'x' };

  it('accepts numbers or strings for price and grade, and null parallel', () => {
    const text = [
      JSON.stringify(record),
      JSON.stringify({ ...record, source_id: '2', price_usd: '19.99', grader: 'psa', grade: '10' }),
      '',
      JSON.stringify({ ...record, source_id: '3', price_usd: 0.1, grader: 'SGC', grade: 8.5, extra: true }),
    ].join('\n');
    const { sales, rejected } = parseSalesNdjson(text);
    expect(rejected).toEqual([]);
    expect(sales.map((s) => [s.priceCents, s.grader, s.grade, s.parallel])).toEqual([
      [420, null, null, ''],
      [1999, 'PSA', 10, ''],
      [10, 'SGC', 8.5, ''],
    ]);
  });

  it('rejects bad lines with their line numbers', () => {
    const text = [
      JSON.stringify({ ...record, price_usd: -3 }),
      '{not json',
      '[1,2]',
      JSON.stringify({ ...record, source_id: '2', sold_at: '31/01/2025' }),
      JSON.stringify({ ...record, source_id: '3', listing_type: 'raffle' }),
      JSON.stringify({ ...record, source_id: '4', price_usd: 4.255 }),
      JSON.stringify({ ...record, source_id: '5', card_id: undefined }),
      JSON.stringify({ ...record, source_id: '6' }),
    ].join('\n');
    const { sales, rejected } = parseSalesNdjson(text);
    expect(sales.map((s) => s.sourceId)).toEqual(['6']);
    expect(rejected).toEqual([
      { line: 1, reason: 'price_usd must be positive' },
      { line: 2, reason: 'invalid JSON' },
      { line: 3, reason: 'not a JSON object' },
      { line: 4, reason: 'sold_at must be an ISO 8601 date-time with a zone (2025-01-31T12:00:00Z) or a date' },
      { line: 5, reason: 'listing_type must be one of auction, fixed_price, best_offer' },
      { line: 6, reason: 'price_usd must be a positive dollar amount with at most 2 decimals, e.g. 4.20' },
      { line: 7, reason: 'card_id is required' },
    ]);
  });
});
