// Shapes shared by the valuation domain modules. Money is always integer US cents.

export type ListingType = 'auction' | 'fixed_price' | 'best_offer';
export const LISTING_TYPES = ['auction', 'fixed_price', 'best_offer'] as const satisfies readonly ListingType[];

/** Grading companies whose slabs the domain understands; a sale with `grader: null` is raw (ungraded). */
export const GRADERS = ['PSA', 'BGS', 'SGC', 'CGC'] as const;
export type Grader = (typeof GRADERS)[number];

export interface Sale {
  source: string;
  sourceId: string;
  cardId: string;
  /** '' = the base printing (sports) or the standard printing (pokemon: normal, else holo). */
  parallel: string;
  /** PSA, BGS, SGC, CGC; null = raw. */
  grader: string | null;
  grade: number | null;
  priceCents: number;
  soldAt: Date;
  listingType: ListingType;
  title: string;
}

export type Game = 'pokemon' | 'baseball' | 'basketball' | 'football' | 'hockey';

export interface CardProfile {
  id: string;
  game: Game;
  name: string;
  year: number | null;
  /** Pokemon rarity as printed in the catalog (Common, Rare Holo, Special illustration rare...). */
  rarity: string | null;
  /** Sports attributes, e.g. 'Rookie Card'. */
  attributes: string[];
  /** Sports parallels of the card's subset; printRun null = unnumbered. */
  parallels: { name: string; printRun: number | null }[];
  /** Pokemon variant types: normal, holo, reverse, lenticular, metal, firstEdition. */
  variants: string[];
  /** How many catalog cards share this subject name: a popularity proxy computed from the catalog. */
  subjectCardCount: number;
}

export interface GradeProbability {
  grade: number;
  probability: number;
}

export type Confidence = 'High' | 'Medium' | 'Low';

export interface GradedValue {
  grade: number;
  valueCents: number;
  confidence: Confidence;
}

/** Where an estimate's figures come from, for the caller to show beside them. */
export interface PriceSource {
  /** e.g. `TCGplayer market price`, `PriceCharting graded values`, `CardLens sample sales (generated)`. */
  name: string;
  /** Day of the newest figure used (YYYY-MM-DD). */
  asOf: string;
  /** Figures behind the estimate (days of market prices, table values, or sales). */
  dataPoints: number;
  /** What to show wherever the figure is shown. */
  attribution: string;
}

export interface ValueEstimate {
  rawEstimateCents: number | null;
  rawEstimateUnavailableReason: string | null;
  gradedEstimateCents: number | null;
  gradedEstimateUnavailableReason: string | null;
  gradedEstimateGrade: number | null;
  currency: 'USD';
  gradedValueSpread: GradedValue[];
  latestCompAt: Date | null;
  /** Comps inside the lookback window (raw and graded), before outlier rejection. */
  compCount: number;
  /** Raw comps inside the lookback window, before outlier rejection. */
  rawCompCount: number;
  /** Short words: how the raw number was computed. */
  method: string;
  /** Source of the raw / graded figures; absent where there is no estimate. */
  rawSource?: PriceSource | null;
  gradedSource?: PriceSource | null;
  /** The printing priced, as the marketplace names it (e.g. `Reverse Holofoil`); null when not known. */
  printing?: string | null;
  /** Range the printing is offered at (listing low and high of the latest day); null when not known. */
  rawLowCents?: number | null;
  rawHighCents?: number | null;
}

export type GradingRecommendation = 'grade' | 'neutral' | 'dont_grade';

/** Movement of RAW sales (graded ones are left out so a change in the grade mix is not read as a price move). */
export interface MarketTrend {
  /** Median raw price of the last 30 days vs the 30 before, in percent (one decimal); null under 3 sales in either. */
  change30dPercent: number | null;
  /** Same for 90 days vs the 90 before. */
  change90dPercent: number | null;
  /** Raw sales in the last 30 / 90 days. */
  sales30d: number;
  sales90d: number;
  medianPrice30dCents: number | null;
  /** MAD × 1.4826 of log raw prices over 90 days (0.18 ≈ ±18%); null under 4 sales. */
  volatility: number | null;
  /** `sales` (recorded sales) or `daily_market_price` (a marketplace's daily market-price series). */
  basis?: 'sales' | 'daily_market_price';
  /** daily_market_price: days with a price in the last 30, and the 30-day volatility of the daily price. */
  priceDays30d?: number;
  volatility30d?: number | null;
}

export interface MarketAnalysis {
  insights: string;
  gradingRecommendation: GradingRecommendation;
  context: string | null;
  trend: MarketTrend;
  expectedGradedValueCents: number | null;
}
