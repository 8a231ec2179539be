import { describe, expect, it } from '@jest/globals';
import { cardProfilesFromCatalog } from '../src/domain/card-profile';
import { fitGradePremium } from '../src/domain/grade-premium';
import { pokemonStandardPrinting } from '../src/catalog/printings';
import { DEFAULT_SAMPLE_SOURCE, generateSampleSales, parallelMultiplier, pickCoveredCards } from '../src/domain/sales-generator';
import { median } from '../src/domain/stats';
import type { CardProfile, Sale } from '../src/domain/types';

const NOW = new Date('2025-06-30T00:00:00Z');
const DAY = 86_400_000;

function sportsCard(id: string, overrides: Partial<CardProfile> = {}): CardProfile {
  return { id, game: 'baseball', name: `Player ${id}`, year: 2021, rarity: null, attributes: [], parallels: [], variants: [], subjectCardCount: 30, ...overrides };
}

function pokemonCard(id: string, overrides: Partial<CardProfile> = {}): CardProfile {
  return { id, game: 'pokemon', name: `Mon ${id}`, year: 2022, rarity: 'Rare Holo', attributes: [], parallels: [], variants: ['holo', 'reverse'], subjectCardCount: 20, ...overrides };
}

const mixedCards: CardProfile[] = [
  ...Array.from({ length: 60 }, (_, i) => sportsCard(`s${i}`, { year: 1975 + i, attributes: i % 3 === 0 ? ['Rookie Card'] : [], parallels: [{ name: 'Gold', printRun: 50 }] })),
  ...Array.from({ length: 40 }, (_, i) => pokemonCard(`p${i}`, { year: 1999 + (i % 25) })),
];

function byPrinting(sales: readonly Sale[]): Map<string, Sale[]> {
  const map = new Map<string, Sale[]>();
  for (const sale of sales) {
    const key = `${sale.cardId}|${sale.parallel}`;
    map.set(key, [...(map.get(key) ?? []), sale]);
  }
  return map;
}

describe('generateSampleSales', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateSampleSales(mixedCards, { seed: 1, now: NOW });
    const b = generateSampleSales(mixedCards, { seed: 1, now: NOW });
    const c = generateSampleSales(mixedCards, { seed: 2, now: NOW });
    expect(a.length).toBeGreaterThan(500);
    expect(b).toEqual(a);
    expect(c.map((s) => s.priceCents)).not.toEqual(a.map((s) => s.priceCents));
  });

  it("a card's sales do not depend on the other cards passed in", () => {
    const alone = generateSampleSales([mixedCards[7]!], { seed: 3, now: NOW });
    const together = generateSampleSales(mixedCards, { seed: 3, now: NOW }).filter((s) => s.cardId === mixedCards[7]!.id);
    expect(together).toEqual(alone);
  });

  it('makes well-formed sales inside the window, with unique stable ids', () => {
    const sales = generateSampleSales(mixedCards, { seed: 4, now: NOW, days: 200 });
    const start = NOW.getTime() - 200 * DAY;
    for (const sale of sales) {
      expect(sale.source).toBe(DEFAULT_SAMPLE_SOURCE);
      expect(Number.isInteger(sale.priceCents) && sale.priceCents >= 1).toBe(true);
      expect(sale.soldAt.getTime()).toBeGreaterThanOrEqual(start);
      expect(sale.soldAt.getTime()).toBeLessThanOrEqual(NOW.getTime());
      expect(sale.grader === null).toBe(sale.grade === null);
      if (sale.grade !== null) expect(sale.grade >= 1 && sale.grade <= 10 && Number.isInteger(sale.grade * 2)).toBe(true);
      expect(['auction', 'fixed_price', 'best_offer']).toContain(sale.listingType);
      expect(sale.title.length).toBeGreaterThan(0);
      expect(sale.sourceId.startsWith(`4-${sale.cardId}-`)).toBe(true);
    }
    expect(new Set(sales.map((s) => s.sourceId)).size).toBe(sales.length);
    // Sorted by date.
    for (let i = 1; i < sales.length; i++) expect(sales[i]!.soldAt.getTime()).toBeGreaterThanOrEqual(sales[i - 1]!.soldAt.getTime());
    expect(generateSampleSales(mixedCards.slice(0, 3), { seed: 4, now: NOW, source: 'demo' }).every((s) => s.source === 'demo')).toBe(true);
  });

  it('has more recent activity than old', () => {
    const sales = generateSampleSales(mixedCards, { seed: 5, now: NOW });
    const recentHalf = sales.filter((s) => NOW.getTime() - s.soldAt.getTime() < 182.5 * DAY).length;
    expect(recentHalf / sales.length).toBeGreaterThan(0.55);
  });

  it('prices graded 10s above raw and numbered parallels above the base', () => {
    const sales = generateSampleSales(mixedCards, { seed: 6, now: NOW });
    const groups = byPrinting(sales);
    const psa10OverRaw: number[] = [];
    const goldOverBase: number[] = [];
    for (const card of mixedCards) {
      const base = groups.get(`${card.id}|`) ?? [];
      const raw = base.filter((s) => s.grader === null).map((s) => s.priceCents);
      const psa10 = base.filter((s) => s.grader === 'PSA' && s.grade === 10).map((s) => s.priceCents);
      if (raw.length > 0 && psa10.length > 0) psa10OverRaw.push(Math.log(median(psa10) / median(raw)));
      const gold = (groups.get(`${card.id}|Gold`) ?? []).filter((s) => s.grader === null).map((s) => s.priceCents);
      if (raw.length > 0 && gold.length > 0) goldOverBase.push(Math.log(median(gold) / median(raw)));
    }
    expect(psa10OverRaw.length).toBeGreaterThan(10);
    expect(median(psa10OverRaw)).toBeGreaterThan(Math.log(3));
    expect(goldOverBase.length).toBeGreaterThan(10);
    // A /50 parallel is modelled at ×4.8; comfortably above ×2 on the median card.
    expect(median(goldOverBase)).toBeGreaterThan(Math.log(2));
  });

  it('prices a /10 parallel above an unnumbered one', () => {
    expect(parallelMultiplier(10)).toBeGreaterThan(parallelMultiplier(null));
    expect(parallelMultiplier(1)).toBeGreaterThan(parallelMultiplier(10));
    expect(parallelMultiplier(999)).toBeGreaterThan(1);
    const cards = Array.from({ length: 150 }, (_, i) =>
      sportsCard(`n${i}`, { subjectCardCount: 200, parallels: [{ name: 'Gold', printRun: 10 }, { name: 'Refractor', printRun: null }] }),
    );
    const groups = byPrinting(generateSampleSales(cards, { seed: 7, now: NOW }));
    const ratios: number[] = [];
    for (const card of cards) {
      const numbered = (groups.get(`${card.id}|Gold`) ?? []).filter((s) => s.grader === null).map((s) => s.priceCents);
      const unnumbered = (groups.get(`${card.id}|Refractor`) ?? []).filter((s) => s.grader === null).map((s) => s.priceCents);
      if (numbered.length > 0 && unnumbered.length > 0) ratios.push(Math.log(median(numbered) / median(unnumbered)));
    }
    expect(ratios.length).toBeGreaterThan(10);
    expect(median(ratios)).toBeGreaterThan(Math.log(3));
  });

  it('gives a fitted premium model a realistic shape', () => {
    const cards = Array.from({ length: 400 }, (_, i) => sportsCard(`f${i}`, { subjectCardCount: 300, year: 2015 }));
    const model = fitGradePremium(generateSampleSales(cards, { seed: 8, now: NOW }));
    expect(model.multiplier(10) / model.multiplier(9)).toBeGreaterThan(2);
    expect(model.multiplier(9)).toBeGreaterThan(1.5);
    expect(model.multiplier(9)).toBeLessThan(3.5);
    expect(model.multiplier(5)).toBeLessThan(1);
  });

  it('pokemon variants become parallels beside the standard printing', () => {
    expect(pokemonStandardPrinting(['holo', 'reverse'])).toBe('holo');
    expect(pokemonStandardPrinting(['normal', 'holo', 'reverse'])).toBe('normal');
    expect(pokemonStandardPrinting(['holo', 'firstEdition'])).toBe('holo');
    const cards = Array.from({ length: 40 }, (_, i) => pokemonCard(`v${i}`, { subjectCardCount: 80 }));
    const parallels = new Set(generateSampleSales(cards, { seed: 9, now: NOW }).map((s) => s.parallel));
    expect([...parallels].sort()).toEqual(['', 'Reverse Holo']);
  });
});

describe('pickCoveredCards', () => {
  const cards = [
    ...Array.from({ length: 1000 }, (_, i) => sportsCard(`obscure${i}`, { subjectCardCount: 1 })),
    ...Array.from({ length: 1000 }, (_, i) => sportsCard(`star${i}`, { subjectCardCount: 300 })),
  ];

  it('covers the share asked for, deterministically and independent of order', () => {
    const picked = pickCoveredCards(cards, { seed: 1 });
    expect(picked).toHaveLength(300); // default 15%
    expect(pickCoveredCards(cards, { seed: 1 }).map((c) => c.id)).toEqual(picked.map((c) => c.id));
    const reversed = pickCoveredCards([...cards].reverse(), { seed: 1 });
    expect(new Set(reversed.map((c) => c.id))).toEqual(new Set(picked.map((c) => c.id)));
    expect(pickCoveredCards(cards, { seed: 2 }).map((c) => c.id)).not.toEqual(picked.map((c) => c.id));
    expect(pickCoveredCards(cards, { seed: 1, share: 0.5 })).toHaveLength(1000);
    expect(pickCoveredCards([], { seed: 1 })).toEqual([]);
  });

  it('favours popular subjects', () => {
    const picked = pickCoveredCards(cards, { seed: 1 });
    const stars = picked.filter((c) => c.id.startsWith('star')).length;
    expect(stars / picked.length).toBeGreaterThan(0.8);
  });
});

describe('cardProfilesFromCatalog', () => {
  it('counts subjects across the catalog and reads first editions from stamps', () => {
    const profiles = cardProfilesFromCatalog([
      { id: 'base1-4', game: 'pokemon', name: 'Charizard', year: 1999, rarity: 'Rare', variants: [{ type: 'holo', stamp: null }, { type: 'holo', stamp: ['1st-edition'] }] },
      { id: 'base2-4', game: 'pokemon', name: 'charizard ', year: 1999, rarity: 'Rare', variants: [{ type: 'holo' }] },
      { id: 'u1', game: 'baseball', name: 'Ken Griffey Jr.', year: 1989, attributes: ['Rookie Card'], parallels: [{ name: 'Gold', printRun: 50 }] },
      { id: 'u2', game: 'baseball', name: 'Charizard', year: 1989 },
      { id: 'x', game: 'cricket', name: 'Nobody' },
    ]);
    expect(profiles.map((p) => p.id)).toEqual(['base1-4', 'base2-4', 'u1', 'u2']);
    expect(profiles[0]).toMatchObject({ subjectCardCount: 2, variants: ['holo', 'firstEdition'], rarity: 'Rare' });
    expect(profiles[2]).toMatchObject({ subjectCardCount: 1, attributes: ['Rookie Card'], parallels: [{ name: 'Gold', printRun: 50 }], variants: [] });
    expect(profiles[3]!.subjectCardCount).toBe(1); // pokemon and sports subjects are counted apart
  });
});
