// Real market data, pure parts: price file parsing (tcgcsv day, the repository's wide snapshot, graded tables),
// the raw estimate / trend / volatility of a daily series, graded values from a table or the fitted model, and
// the printing a parallel is priced as.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { marketPrintingsFor, marketProductsFor } from '../src/catalog/printings';
import { GradedPriceModel, gradedFromTable, gradedValue } from '../src/domain/graded-prices';
import { marketValue } from '../src/domain/market-value';
import { parseGradedTable, parseMarketSnapshot, parseTcgcsvPrices } from '../src/domain/price-files';
import { dayNumber, dayString, mergeDays, rawFromSeries, seriesDays, seriesTrend, type DailyPrice, type DayPrices } from '../src/domain/price-series';

const day = (n: number) => dayString(20_357 + n); // 2025-09-26 + n
const series = (cents: (number | null)[], start = 0): DailyPrice[] =>
  cents.map((marketCents, i) => ({ day: day(start + i), marketCents, lowCents: null, midCents: null, highCents: null }));

describe('price files', () => {
  it('reads a tcgcsv prices file in dollars as cents, and counts rows it cannot use', () => {
    const text = JSON.stringify({
      success: true,
      errors: [],
      results: [
        { productId: 42382, lowPrice: 323.25, midPrice: 500, highPrice: 1000, marketPrice: 460.45, directLowPrice: null, subTypeName: 'Holofoil' },
        { productId: 1, lowPrice: 0.01, midPrice: 0.1, highPrice: 0.2, marketPrice: null, directLowPrice: null, subTypeName: 'Normal' },
        { productId: 2, lowPrice: null, midPrice: null, highPrice: 3, marketPrice: null, directLowPrice: null, subTypeName: 'Normal' },
        { productId: 3, lowPrice: -1, midPrice: 1, highPrice: 1, marketPrice: 1, directLowPrice: null, subTypeName: 'Normal' },
        { productId: 'x', subTypeName: 'Normal' },
      ],
    });
    const parsed = parseTcgcsvPrices(text, '2025-10-26');
    expect(parsed.observations).toEqual([
      { productId: 42382, printing: 'Holofoil', day: '2025-10-26', marketCents: 46_045, lowCents: 32_325, midCents: 50_000, highCents: 100_000, directLowCents: null },
      { productId: 1, printing: 'Normal', day: '2025-10-26', marketCents: null, lowCents: 1, midCents: 10, highCents: 20, directLowCents: null },
    ]);
    expect(parsed.rejected.map((r) => r.line)).toEqual([3, 4, 5]);
    expect(parseTcgcsvPrices('{"results": 1}', '2025-10-26').rejected[0]!.reason).toBe('no results array');
    expect(parseTcgcsvPrices('{}', '2025-13-01').rejected[0]!.reason).toMatch(/not a day/);
  });

  it('reads the wide snapshot: one observation per priced day, low/mid/high on the last day only', () => {
    const text = [
      'productId,subTypeName,groupId,lowCents,midCents,highCents,directLowCents,2025-10-25,2025-10-26',
      '42382,Holofoil,604,32325,50000,100000,,46000,46045',
      '1,Normal,1,,,,,12,',
      '2,Normal,1,abc,,,,12,13',
      '3,Normal,1,,,',
    ].join('\n');
    const parsed = parseMarketSnapshot(text);
    expect(parsed.days).toEqual(['2025-10-25', '2025-10-26']);
    expect(parsed.observations).toEqual([
      { productId: 42382, printing: 'Holofoil', day: '2025-10-25', marketCents: 46_000, lowCents: null, midCents: null, highCents: null, directLowCents: null },
      { productId: 42382, printing: 'Holofoil', day: '2025-10-26', marketCents: 46_045, lowCents: 32_325, midCents: 50_000, highCents: 100_000, directLowCents: null },
      { productId: 1, printing: 'Normal', day: '2025-10-25', marketCents: 12, lowCents: null, midCents: null, highCents: null, directLowCents: null },
    ]);
    expect(parsed.rejected.map((r) => r.line)).toEqual([4, 5]);
    expect(parseMarketSnapshot('productId,subTypeName\n1,Normal').rejected[0]!.line).toBe(1);
  });

  it('reads a graded table: the ungraded value without grader and grade, and rejects what is not a price at a grade', () => {
    const parsed = parseGradedTable(
      [
        'card_id,grader,grade,price_usd,as_of,source_url',
        'base1-4,,,224.00,2025-02-27,https://pricecharting.com/game/pokemon-base-set/charizard-4',
        'base1-4,psa,9.5,"1,547.00",2025-02-27,',
        'base1-4,PSA,9.5,1547.00,2025-02-27,',
        'base1-4,PSA,9.3,1.00,2025-02-27,',
        'base1-4,PSA,,1.00,2025-02-27,',
        'base1-4,PSA,10,1.00,27/02/2025,',
      ].join('\n'),
    );
    expect(parsed.rows).toEqual([
      { cardId: 'base1-4', grader: '', grade: 0, priceCents: 22_400, asOf: '2025-02-27', sourceUrl: 'https://pricecharting.com/game/pokemon-base-set/charizard-4' },
      { cardId: 'base1-4', grader: 'PSA', grade: 9.5, priceCents: 154_700, asOf: '2025-02-27', sourceUrl: '' },
    ]);
    expect(parsed.rejected.map((r) => r.line)).toEqual([3, 5, 6, 7]);
    expect(parseGradedTable('card_id,grade\nx,1').rejected[0]!.reason).toMatch(/missing column/);
  });
});

describe('daily series', () => {
  it('the raw estimate is the latest market price within 14 days of the feed\'s last day, with the latest listing range', () => {
    const s = series([100, 110, null, 120]);
    s[3]!.lowCents = 90;
    s[3]!.highCents = 300;
    expect(rawFromSeries(s, day(3))).toMatchObject({ estimateCents: 120, asOf: day(3), dataPoints: 3, lowCents: 90, highCents: 300 });
    expect(rawFromSeries(s, day(3 + 14))?.estimateCents).toBe(120);
    expect(rawFromSeries(s, day(3 + 15))).toBeNull();
    expect(rawFromSeries(series([null, null]), day(1))).toBeNull();
  });

  it('trend compares the medians of the first and last 3 days of the window; volatility needs 10 daily changes', () => {
    const flat = seriesTrend(series(Array.from({ length: 31 }, () => 500)));
    expect(flat).toEqual({ changePercent: 0, windowDays: 30, volatility30d: 0, dataPoints: 31 });
    const rising = seriesTrend(series(Array.from({ length: 31 }, (_, i) => 1000 + i * 10)));
    expect(rising.changePercent).toBe(Math.round(((1290 - 1010) / 1010) * 1000) / 10);
    const short = seriesTrend(series([100, 110, 120, 130, 140]));
    expect(short.changePercent).toBeNull();
    expect(short.volatility30d).toBeNull();
    // Only the last 30 days count: an old spike outside the window changes nothing.
    const withOld = seriesTrend(series([99_999, ...Array.from({ length: 31 }, () => 500)], -1));
    expect(withOld.changePercent).toBe(0);
  });
});

describe('stored series', () => {
  const dayPrices = (n: number, marketCents: number | null, low: number | null = null): DayPrices => ({ day: day(n), marketCents, lowCents: low, midCents: null, highCents: null, directLowCents: null });

  it('merging days in any order gives one series; the same days again change nothing; a changed day is an update', () => {
    const first = mergeDays(null, [dayPrices(2, 120, 100), dayPrices(0, 100)]);
    expect(first.counts).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    expect(first.series).toEqual({ firstDay: day(0), marketCents: [100, null, 120], latestDay: day(2), lowCents: 100, midCents: null, highCents: null, directLowCents: null });
    expect(mergeDays(first.series, [dayPrices(0, 100), dayPrices(2, 120, 100)]).counts).toEqual({ inserted: 0, updated: 0, unchanged: 2 });
    const changed = mergeDays(first.series, [dayPrices(2, 125, 100), dayPrices(1, 110), dayPrices(-1, 90)]);
    expect(changed.counts).toEqual({ inserted: 2, updated: 1, unchanged: 0 });
    expect(changed.series.firstDay).toBe(day(-1));
    expect(changed.series.marketCents).toEqual([90, 100, 110, 125]);
    expect(seriesDays(changed.series).map((d) => d.marketCents)).toEqual([90, 100, 110, 125]);
    expect(seriesDays(changed.series).at(-1)).toMatchObject({ day: day(2), lowCents: 100 });
  });

  it('any sequence of imports (with repeats) gives the series of the last value per day', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null })), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (entries, chunks) => {
        let stored = null as ReturnType<typeof mergeDays>['series'] | null;
        const size = Math.ceil(entries.length / chunks);
        for (let i = 0; i < entries.length; i += size) stored = mergeDays(stored, entries.slice(i, i + size).map(([n, c]) => dayPrices(n, c))).series;
        const expected = new Map<number, number | null>();
        for (const [n, c] of entries) expected.set(n, c);
        const days = seriesDays(stored!);
        for (const d of days) expect(d.marketCents).toBe(expected.get(dayNumber(d.day) - dayNumber(day(0))) ?? null);
        const again = mergeDays(stored, entries.map(([n]) => dayPrices(n, expected.get(n)!)));
        expect(again.counts.inserted + again.counts.updated).toBe(0);
      }),
    );
  });
});

describe('graded values', () => {
  const table = [
    { grader: 'PSA', grade: 8, priceCents: 65_000 },
    { grader: 'PSA', grade: 9, priceCents: 140_625 },
    { grader: 'PSA', grade: 10, priceCents: 900_000 },
  ];

  it('a listed grade is the table value (High), between two listed grades log-linear (Medium), outside them not from the table', () => {
    expect(gradedFromTable(table, 9)).toEqual({ grade: 9, valueCents: 140_625, confidence: 'High', basis: 'table' });
    expect(gradedFromTable(table, 8.5)).toMatchObject({ valueCents: Math.round(Math.sqrt(65_000 * 140_625)), confidence: 'Medium', basis: 'interpolated' });
    expect(gradedFromTable(table, 7)).toBeNull();
    // Below the lowest listed grade: the card's own lowest value, moved by the prior's shape.
    const below = gradedValue({ table, rawCents: 40_000, model: GradedPriceModel.empty() }, 7)!;
    expect(below.basis).toBe('prior');
    expect(below.valueCents).toBeLessThan(65_000);
  });

  it('the fitted lines recover log(graded) = a + b log(raw) from exact pairs, and cheap cards get a larger multiple than dear ones', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 3, noNaN: true }), fc.double({ min: 0.5, max: 1, noNaN: true }), (a, b) => {
        const pairs = Array.from({ length: 30 }, (_, i) => {
          const rawCents = Math.round(100 * Math.pow(1.3, i));
          return { rawCents, grade: 10, gradedCents: Math.exp(a + b * Math.log(rawCents)) };
        });
        const line = GradedPriceModel.fit(pairs).lines[0]!;
        expect(line.slope).toBeCloseTo(b, 6);
        expect(line.intercept).toBeCloseTo(a, 6);
      }),
    );
    const pairs = Array.from({ length: 25 }, (_, i) => ({ rawCents: 100 * 2 ** (i / 2), grade: 10, gradedCents: Math.exp(4 + 0.7 * Math.log(100 * 2 ** (i / 2))) }));
    const model = GradedPriceModel.fit(pairs);
    const cheap = model.predict(100, 10).valueCents / 100;
    const dear = model.predict(100_000, 10).valueCents / 100_000;
    expect(cheap).toBeGreaterThan(dear);
    expect(model.predict(100, 10).confidence).toBe('Medium');
    expect(model.predict(10_000_000, 10).confidence).toBe('Low');
    expect(GradedPriceModel.fit(pairs.slice(0, GradedPriceModel.MIN_CARDS - 1)).lines).toEqual([]);
  });

  it('marketValue names its sources; a grading that costs more than it adds is not recommended', () => {
    const value = marketValue(
      {
        series: series(Array.from({ length: 31 }, () => 500)),
        printing: 'Normal',
        datasetLastDay: day(30),
        sourceName: 'TCGplayer market price',
        attribution: 'Prices: TCGplayer',
        gradedTable: [],
        gradedTableAsOf: null,
        gradedModel: GradedPriceModel.fit(Array.from({ length: 25 }, (_, i) => ({ rawCents: 100 * (i + 1), grade: 9, gradedCents: 200 * (i + 1) }))),
        gradedModelCards: 25,
        predictedGrade: 9,
        gradeDistribution: null,
      },
      3000,
    );
    expect(value.estimate).toMatchObject({ rawEstimateCents: 500, gradedEstimateCents: 1000, printing: 'Normal', rawSource: { name: 'TCGplayer market price', asOf: day(30), dataPoints: 31 } });
    expect(value.estimate.gradedSource?.name).toMatch(/model fitted on PriceCharting values of 25 cards/);
    expect(value.market.gradingRecommendation).toBe('dont_grade');
    expect(value.market.insights).toMatch(/Raw value about \$5\.00 \(Normal, TCGplayer market price of /);
  });
});

describe('printings', () => {
  it('a parallel names the marketplace printings that price it, the catalog type first', () => {
    expect(marketPrintingsFor('', ['normal', 'reverse'])).toEqual(['Normal', 'Unlimited', 'Holofoil', 'Unlimited Holofoil']);
    expect(marketPrintingsFor('', ['holo', 'reverse'])).toEqual(['Holofoil', 'Unlimited Holofoil', 'Normal', 'Unlimited']);
    expect(marketPrintingsFor('Reverse Holo', ['normal', 'reverse'])).toEqual(['Reverse Holofoil']);
    expect(marketPrintingsFor('1st Edition', ['holo'])).toEqual(['1st Edition Holofoil', '1st Edition Normal', '1st Edition']);
    expect(marketPrintingsFor('Lenticular', ['lenticular'])).toEqual([]);
  });

  it('the plain variant\'s product comes before stamped or shadowless ones, then the card-level products', () => {
    const variants = [
      { type: 'holo', subtype: 'shadowless', stamp: ['1st-edition'], tcgplayer: 106999 },
      { type: 'holo', subtype: 'shadowless', stamp: [], tcgplayer: 106999 },
      { type: 'holo', subtype: 'unlimited', stamp: [], tcgplayer: 42382 },
    ];
    expect(marketProductsFor('', variants, [42382, 106999])).toEqual([42382, 106999]);
    expect(marketProductsFor('1st Edition', variants, [42382, 106999])).toEqual([106999, 42382]);
    expect(marketProductsFor('', [], [189309])).toEqual([189309]);
  });
});
