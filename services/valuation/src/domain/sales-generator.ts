// SAMPLE sales generator. There is no open dataset of trading-card sales, so CardLens ships generated sales that
// behave like a marketplace feed: plausible price levels, grade premiums, trends, noise and junk. Every number
// is made up by the model below; anything built on these sales must say so (market.ts: isSampleData).
//
// Deterministic: each card draws from its own PRNG stream (mulberry32 seeded with hash(seed, card id)), so a
// card's sales depend only on the seed, `now`, the window and the card itself, not on which other cards are
// passed in or their order.
//
// Which cards get sales (pickCoveredCards): a popularity-weighted sample without replacement (Efraimidis-Spirakis
// keys from hash(seed, card id), weight = popularity²) of DEFAULT_COVERAGE_SHARE = 15% of the catalog. Real feeds
// cover the popular minority of cards, and 15% keeps the embedded demo's database small while leaving most
// lookups of a popular card with comps (about 25k of the 168k catalog cards).
//
// Price model, per card (all in log space, so factors multiply):
//   - Base raw level today. Pokemon: by rarity (Common $0.15 … Rare Holo $2.50 … Special illustration rare $40,
//     RARITY_USD) × era (1999-2000 Wizards ×4, 2001-2003 ×2.5, 2004-2010 ×1.6, later ×1). Sports: by era
//     (vintage before 1980 $2, 1980-86 $0.80, junk wax 1987-94 $0.15, 1995-2004 $0.40, 2005 on $0.60) ×
//     attributes (rookie ×3, autograph ×6, short print ×2, prospect/draft pick ×1.5, checklist ×0.6).
//   - Subject popularity: × ((1 + subjectCardCount) / 2)^0.35 (log-linear in the catalog's card count for
//     the subject: a one-card subject ×1, a 20-card star ×2.3, Frank Thomas's 545 cards ×7).
//   - Idiosyncratic desirability: × lognormal(σ 0.45); floor $0.10.
//   - Printing: sports parallels numbered /N sell at × (1 + 40 / N^0.6) (/1 ×41, /10 ×11, /25 ×6.8, /99 ×3.5,
//     /999 ×1.6), unnumbered parallels × 1.5; pokemon printings relative to the standard one (normal, else holo):
//     reverse ×1.5, holo ×2, firstEdition ×3, lenticular ×2, metal ×3.
//   - Grade premium (TRUE_PREMIUM, PSA): grade 1 ×0.35 … 6.5 ×0.96, 7 ×1.08, 8 ×1.45, 9 ×2.3, 9.5 ×3.8,
//     10 ×7 (PSA 10 ≈ 3× PSA 9); raised per card to a power premiumExponent = era tilt (vintage 1.15, junk
//     wax 1.1, modern 1) × lognormal(σ 0.15), so condition-sensitive cards spread wider. Grader factors at the
//     same grade: BGS ×0.92, SGC ×0.82, CGC ×0.78 of PSA.
//   - Trend: drift per year ~ Normal(0.02, 0.20) in log price (some cards rise, some fall), continuous in time;
//     the level above is the level at `now`.
//   - Noise: each sale is the card's value at its date × lognormal(σ), σ = per-card volatility
//     0.16 × lognormal(0.25) (median 16%, most cards 11-24%); graded sales use 0.8σ (slabs are fungible, raw
//     condition varies). Best-offer sales close at × uniform(0.80, 0.97) of value.
//   - Outliers (OUTLIER_SHARE = 3% of sales): lots of 2-5 copies sold as one (price × copies × 0.8-1.0,
//     "Lot of N" title), mislistings (wrong card or grade: × lognormal(σ 1.2)), damaged raw copies (× 0.15-0.4).
// Volume: raw sales of the standard printing ~ Poisson(activity × days/365) with activity = 4 × popularity^0.8
// × lognormal(0.5) a year; graded share = 10% + 50% × sigmoid(log(PSA 10 value / $30)) (cheap cards are rarely
// graded); each of up to 2 parallels (sports: picked at random, scarcer ones sell less: × 0.6 × min(1, N/250)^0.5;
// pokemon: the other printings, × 0.6). Dates follow a density rising linearly from the window's start to
// `now` (2.5× more activity at the end: recent sales dominate a feed). Listing types: auction 50%, fixed price
// 35%, best offer 15%. Graders: sports PSA 65 / BGS 15 / SGC 15 / CGC 5%, pokemon PSA 60 / CGC 25 / BGS 10 /
// SGC 5%; graded grades by era (vintage centred on 7-8, junk wax and modern mostly 9-10); BGS/SGC/CGC turn a
// grade into the half grade below it (10 → 9.5) 35% of the time, PSA (no 9.5) 15% of the time for grades 2-9.
// With the bench's seed this gives about 417k sales for the 25k covered cards over 365 days (76% raw, 20% on a
// parallel or variant); pass fewer cards (pickCoveredCards' `share`) or fewer `days` for a smaller demo.

import type { CardProfile, ListingType, Sale } from './types';
import { DAY_MS, Random, hashString } from './stats';
import { POKEMON_PRINTING_NAMES, pokemonStandardPrinting } from '../catalog/printings';

export const DEFAULT_SAMPLE_SOURCE = 'cardlens-sample';
export const DEFAULT_SAMPLE_DAYS = 365;
export const DEFAULT_COVERAGE_SHARE = 0.15;
export const OUTLIER_SHARE = 0.03;
export const MEDIAN_SALE_SIGMA = 0.16;

export interface SampleSalesOptions {
  seed: number;
  /** End of the window; no sale is later. */
  now: Date;
  /** Window length in days (default 365). */
  days?: number;
  /** Sale.source of every generated sale (default 'cardlens-sample'). */
  source?: string;
}

export interface CoverageOptions {
  seed: number;
  /** Share of the cards that get sales (default 0.15). */
  share?: number;
}

const RARITY_USD: Readonly<Record<string, number>> = {
  common: 0.15,
  uncommon: 0.25,
  rare: 0.75,
  'holo rare': 2.5,
  'rare holo': 2.5,
  'holo rare v': 4,
  'holo rare vmax': 6,
  'holo rare vstar': 5,
  'rare holo lv.x': 12,
  'rare prime': 8,
  legend: 10,
  'ultra rare': 6,
  'double rare': 2.5,
  'illustration rare': 8,
  'special illustration rare': 40,
  'secret rare': 18,
  'hyper rare': 20,
  'mega hyper rare': 60,
  'shiny rare': 5,
  'shiny rare v': 8,
  'shiny rare vmax': 12,
  'shiny ultra rare': 25,
  'radiant rare': 4,
  'amazing rare': 10,
  'ace spec rare': 4,
  'full art trainer': 10,
  'black white rare': 20,
  'classic collection': 5,
  promo: 3,
  // Pokemon TCG Pocket rarities.
  'one diamond': 0.15,
  'two diamond': 0.25,
  'three diamond': 0.75,
  'four diamond': 3,
  'one star': 6,
  'two star': 12,
  'three star': 25,
  'one shiny': 5,
  'two shiny': 10,
  crown: 40,
};
const UNKNOWN_RARITY_USD = 1;

const POKEMON_VARIANT_MULTIPLIER: Readonly<Record<string, number>> = {
  normal: 1,
  holo: 2,
  reverse: 1.5,
  firstEdition: 3,
  lenticular: 2,
  metal: 3,
};

/** TRUE_PREMIUM[i] is the generator's PSA multiplier over raw at grade 1 + i/2. */
export const TRUE_PREMIUM: readonly number[] = [
  0.35, 0.37, 0.42, 0.45, 0.5, 0.54, 0.6, 0.65, 0.72, 0.8, 0.88, 0.96, 1.08, 1.22, 1.45, 1.75, 2.3, 3.8, 7.0,
];
export const TRUE_GRADER_FACTOR: Readonly<Record<string, number>> = { PSA: 1, BGS: 0.92, SGC: 0.82, CGC: 0.78 };

type Era = 'vintage' | 'junkWax' | 'modern';

/** Sports: before 1980 vintage, 1987-1994 junk wax. Pokemon: Wizards of the Coast era (to 2003) vintage. */
function eraOf(card: CardProfile): Era {
  const year = card.year ?? 2020;
  if (card.game === 'pokemon') return year <= 2003 ? 'vintage' : 'modern';
  if (year < 1980) return 'vintage';
  if (year >= 1987 && year <= 1994) return 'junkWax';
  return 'modern';
}

/** Popularity factor from the subject's catalog card count: log-linear, 1 for a one-card subject. */
export function popularityFactor(subjectCardCount: number): number {
  return Math.pow((1 + Math.max(subjectCardCount, 1)) / 2, 0.35);
}

function pokemonBaseUsd(card: CardProfile): number {
  const byRarity = RARITY_USD[(card.rarity ?? '').trim().toLowerCase()] ?? UNKNOWN_RARITY_USD;
  const year = card.year ?? 2020;
  const era = year <= 2000 ? 4 : year <= 2003 ? 2.5 : year <= 2010 ? 1.6 : 1;
  return byRarity * era;
}

function sportsBaseUsd(card: CardProfile): number {
  const year = card.year;
  let usd = year === null ? 0.5 : year < 1980 ? 2 : year <= 1986 ? 0.8 : year <= 1994 ? 0.15 : year <= 2004 ? 0.4 : 0.6;
  const attributes = card.attributes.map((a) => a.toLowerCase());
  const has = (pattern: RegExp) => attributes.some((a) => pattern.test(a));
  if (has(/rookie|first year card/)) usd *= 3;
  if (has(/autograph/)) usd *= 6;
  if (has(/short print/)) usd *= 2;
  if (has(/prospect|draft pick/)) usd *= 1.5;
  if (has(/checklist/)) usd *= 0.6;
  return usd;
}

/** Price multiplier of a numbered (/printRun) or unnumbered (null) sports parallel over the base card. */
export function parallelMultiplier(printRun: number | null): number {
  return printRun === null ? 1.5 : 1 + 40 / Math.pow(Math.max(printRun, 1), 0.6);
}

interface Printing {
  /** Sale.parallel: '' for the base or standard printing. */
  parallel: string;
  titleLabel: string;
  multiplier: number;
  /** Sales activity relative to the base printing. */
  activity: number;
}

function printingsOf(card: CardProfile, random: Random): Printing[] {
  const printings: Printing[] = [{ parallel: '', titleLabel: '', multiplier: 1, activity: 1 }];
  if (card.game === 'pokemon') {
    const standard = pokemonStandardPrinting(card.variants);
    const standardMultiplier = POKEMON_VARIANT_MULTIPLIER[standard ?? 'normal'] ?? 1;
    for (const variant of card.variants.filter((v) => v !== standard).slice(0, 2)) {
      printings.push({
        // Sales name a Pokemon printing by the same display name identification reports (`Reverse Holo`).
        parallel: POKEMON_PRINTING_NAMES[variant] ?? variant,
        titleLabel: POKEMON_PRINTING_NAMES[variant] ?? variant,
        multiplier: (POKEMON_VARIANT_MULTIPLIER[variant] ?? 1.5) / standardMultiplier,
        activity: 0.6,
      });
    }
    return printings;
  }
  const candidates = [...card.parallels];
  for (let picked = 0; picked < 2 && candidates.length > 0; picked++) {
    const [parallel] = candidates.splice(random.int(0, candidates.length - 1), 1);
    printings.push({
      parallel: parallel!.name,
      titleLabel: parallel!.printRun === null ? parallel!.name : `${parallel!.name} /${parallel!.printRun}`,
      multiplier: parallelMultiplier(parallel!.printRun),
      activity: 0.6 * (parallel!.printRun === null ? 1 : Math.sqrt(Math.min(1, parallel!.printRun / 250))),
    });
  }
  return printings;
}

/** The hidden market state of one card: everything its sales are drawn from. */
interface CardMarket {
  era: Era;
  logRawUsdNow: number;
  driftPerYear: number;
  sigma: number;
  premiumExponent: number;
  activityPerYear: number;
  gradedShare: number;
  printings: Printing[];
}

function cardMarket(card: CardProfile, random: Random): CardMarket {
  const era = eraOf(card);
  const popularity = popularityFactor(card.subjectCardCount);
  const baseUsd = card.game === 'pokemon' ? pokemonBaseUsd(card) : sportsBaseUsd(card);
  const rawUsdNow = Math.max(0.1, baseUsd * popularity * Math.exp(0.45 * random.normal()));
  const eraTilt = era === 'vintage' ? 1.15 : era === 'junkWax' ? 1.1 : 1;
  const psa10Usd = rawUsdNow * TRUE_PREMIUM[TRUE_PREMIUM.length - 1]!;
  return {
    era,
    logRawUsdNow: Math.log(rawUsdNow),
    driftPerYear: 0.02 + 0.2 * random.normal(),
    sigma: MEDIAN_SALE_SIGMA * Math.exp(0.25 * random.normal()),
    premiumExponent: eraTilt * Math.exp(0.15 * random.normal()),
    activityPerYear: 4 * Math.pow(popularity, 0.8) * Math.exp(0.5 * random.normal()),
    gradedShare: 0.1 + 0.5 / (1 + Math.exp(-Math.log(psa10Usd / 30))),
    printings: printingsOf(card, random),
  };
}

const GRADE_WEIGHTS: Readonly<Record<Era, readonly number[]>> = {
  //          1  2  3  4   5   6   7   8   9  10
  vintage: [2, 3, 5, 8, 10, 14, 18, 20, 14, 6],
  junkWax: [1, 1, 1, 1, 1, 1, 4, 12, 40, 40],
  modern: [1, 1, 1, 2, 2, 3, 6, 15, 35, 34],
};
const SPORTS_GRADERS: readonly [string, number][] = [['PSA', 65], ['BGS', 15], ['SGC', 15], ['CGC', 5]];
const POKEMON_GRADERS: readonly [string, number][] = [['PSA', 60], ['CGC', 25], ['BGS', 10], ['SGC', 5]];

function drawGrade(era: Era, grader: string, random: Random): number {
  const grade = random.weightedIndex(GRADE_WEIGHTS[era]) + 1;
  const halfBelowChance = grader === 'PSA' ? (grade >= 2 && grade <= 9 ? 0.15 : 0) : grade >= 2 ? 0.35 : 0;
  return random.chance(halfBelowChance) ? grade - 0.5 : grade;
}

function drawListingType(random: Random): ListingType {
  const u = random.uniform();
  return u < 0.5 ? 'auction' : u < 0.85 ? 'fixed_price' : 'best_offer';
}

/** Fraction of the window (0 = start, 1 = now) under a density rising linearly to RECENCY_TILT + 1 at now. */
const RECENCY_TILT = 1.5;
function drawWindowFraction(random: Random): number {
  const u = random.uniform();
  const a = RECENCY_TILT;
  return (-1 + Math.sqrt(1 + 2 * a * u * (1 + a / 2))) / a;
}

function salesTitle(card: CardProfile, printing: Printing, grader: string | null, grade: number | null): string {
  const parts: string[] = [];
  if (card.year !== null) parts.push(String(card.year));
  parts.push(card.name);
  if (card.game === 'pokemon' && card.rarity) parts.push(card.rarity);
  if (card.game !== 'pokemon' && card.attributes.some((a) => /rookie/i.test(a))) parts.push('RC');
  if (printing.titleLabel) parts.push(printing.titleLabel);
  if (grader !== null && grade !== null) parts.push(`${grader} ${grade}`);
  return parts.join(' ');
}

/** Picks the cards that get sample sales: popularity-weighted, deterministic per seed (see the file comment). */
export function pickCoveredCards(cards: readonly CardProfile[], options: CoverageOptions): CardProfile[] {
  const share = options.share ?? DEFAULT_COVERAGE_SHARE;
  const count = Math.min(cards.length, Math.round(share * cards.length));
  if (count <= 0) return [];
  // Efraimidis-Spirakis: key = ln(u) / w, the `count` largest keys form a weighted sample without replacement.
  const keyed = cards.map((card, index) => {
    const u = (hashString(card.id, options.seed ^ 0x5eed) + 0.5) / 4294967296;
    const weight = Math.pow(popularityFactor(card.subjectCardCount), 2);
    return { index, key: Math.log(u) / weight };
  });
  keyed.sort((a, b) => b.key - a.key || a.index - b.index);
  const chosen = keyed.slice(0, count).map((k) => k.index).sort((a, b) => a - b);
  return chosen.map((index) => cards[index]!);
}

/** Generates sample sales for every card passed in (see the file comment for the model); sorted by date. */
export function generateSampleSales(cards: readonly CardProfile[], options: SampleSalesOptions): Sale[] {
  const days = options.days ?? DEFAULT_SAMPLE_DAYS;
  const source = options.source ?? DEFAULT_SAMPLE_SOURCE;
  const nowMs = options.now.getTime();
  const startMs = nowMs - days * DAY_MS;
  const sales: Sale[] = [];

  for (const card of cards) {
    const random = Random.forKey(options.seed, card.id);
    const market = cardMarket(card, random);
    const graders = card.game === 'pokemon' ? POKEMON_GRADERS : SPORTS_GRADERS;
    let k = 0;
    for (const printing of market.printings) {
      const expected = market.activityPerYear * printing.activity * (days / 365);
      const rawCount = random.poisson(expected * (1 - market.gradedShare));
      const gradedCount = random.poisson(expected * market.gradedShare);
      for (let i = 0; i < rawCount + gradedCount; i++) {
        const graded = i >= rawCount;
        const grader = graded ? graders[random.weightedIndex(graders.map(([, w]) => w))]![0] : null;
        const grade = grader === null ? null : drawGrade(market.era, grader, random);
        const soldAtMs = Math.min(nowMs, Math.round(startMs + drawWindowFraction(random) * (nowMs - startMs)));
        const yearsBeforeNow = (nowMs - soldAtMs) / (365.25 * DAY_MS);

        let logUsd = market.logRawUsdNow + Math.log(printing.multiplier) - market.driftPerYear * yearsBeforeNow;
        if (grader !== null && grade !== null) {
          const premium = TRUE_PREMIUM[Math.round((grade - 1) * 2)]!;
          logUsd += market.premiumExponent * Math.log(premium) + Math.log(TRUE_GRADER_FACTOR[grader] ?? 1);
        }
        logUsd += (graded ? 0.8 : 1) * market.sigma * random.normal();

        const listingType = drawListingType(random);
        if (listingType === 'best_offer') logUsd += Math.log(random.uniform(0.8, 0.97));

        let title = salesTitle(card, printing, grader, grade);
        if (random.chance(OUTLIER_SHARE)) {
          const kind = random.uniform();
          if (kind < 0.4) {
            const copies = random.int(2, 5);
            logUsd += Math.log(copies * random.uniform(0.8, 1));
            title = `Lot of ${copies}: ${title}`;
          } else if (kind < 0.8 || graded) {
            logUsd += 1.2 * random.normal();
          } else {
            logUsd += Math.log(random.uniform(0.15, 0.4));
            title = `${title} (damaged)`;
          }
        }

        sales.push({
          source,
          sourceId: `${options.seed}-${card.id}-${k++}`,
          cardId: card.id,
          parallel: printing.parallel,
          grader,
          grade,
          priceCents: Math.max(1, Math.round(Math.exp(logUsd) * 100)),
          soldAt: new Date(soldAtMs),
          listingType,
          title,
        });
      }
    }
  }
  sales.sort((a, b) => a.soldAt.getTime() - b.soldAt.getTime() || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0));
  return sales;
}
