// Raw value, trend and volatility of one card printing from a marketplace's daily market-price series
// (TCGplayer's "market price": its own figure from recent sales of that printing, published once a day).
//
// Raw estimate: the latest day's market price when it is at most MAX_STALE_DAYS old. bench:valuation
// backtests it (every card's last day, predicted from the days before it) against smoothed alternatives: a
// market price is already a rolling figure over recent sales, so the median of the last days lags a real move
// more than it removes noise. The chosen estimator and the naive "yesterday's price" both print there.
// Dispersion: the latest listing low and high (what the printing is offered at today) beside the market price.
// Trend: the market price now vs 30 days before (each end the median of 3 days, so one odd day does not make a
// trend); volatility: the standard deviation of daily log changes over the window, scaled to 30 days.

import { median } from './stats';

/** One day's published prices of one printing, integer cents (null where the marketplace gave none). */
export interface DailyPrice {
  /** YYYY-MM-DD (UTC day the prices were published for). */
  day: string;
  marketCents: number | null;
  lowCents: number | null;
  midCents: number | null;
  highCents: number | null;
}

/** The newest price must be this recent (relative to the as-of day of the whole data set) to be used. */
export const MAX_STALE_DAYS = 14;
/** Days each end of the trend window is smoothed over (median). */
export const TREND_SMOOTHING_DAYS = 3;
/** Daily changes a volatility needs. */
export const MIN_DAYS_FOR_VOLATILITY = 10;

const DAY_MS = 86_400_000;
export const dayNumber = (day: string): number => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
export const dayString = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

export interface RawFromSeries {
  estimateCents: number;
  /** Day the estimate's price is from. */
  asOf: string;
  /** Days with a market price in the series (the estimate's support). */
  dataPoints: number;
  /** Listing low and high of the latest day with them (the range the printing is offered at); null if none. */
  lowCents: number | null;
  highCents: number | null;
  method: string;
}

/** Days with a market price, oldest first. */
function marketDays(series: readonly DailyPrice[]): { day: number; cents: number }[] {
  return series
    .filter((d) => d.marketCents !== null && d.marketCents > 0)
    .map((d) => ({ day: dayNumber(d.day), cents: d.marketCents! }))
    .sort((a, b) => a.day - b.day);
}

/**
 * The raw estimate from a daily series (see the file comment); null when the series has no market price within
 * MAX_STALE_DAYS of `asOfDay` (the newest day of the data set, not the wall clock: a snapshot stays usable).
 */
export function rawFromSeries(series: readonly DailyPrice[], asOfDay: string): RawFromSeries | null {
  const days = marketDays(series);
  const latest = days[days.length - 1];
  if (!latest || dayNumber(asOfDay) - latest.day > MAX_STALE_DAYS) return null;
  const latestRow = [...series].sort((a, b) => dayNumber(b.day) - dayNumber(a.day)).find((d) => d.lowCents !== null || d.highCents !== null);
  return {
    estimateCents: latest.cents,
    asOf: dayString(latest.day),
    dataPoints: days.length,
    lowCents: latestRow?.lowCents ?? null,
    highCents: latestRow?.highCents ?? null,
    method: `latest daily market price (${dayString(latest.day)}) of ${days.length} days`,
  };
}

export interface SeriesTrend {
  /** Percent change of the smoothed market price over the window (one decimal); null under 2 × smoothing days. */
  changePercent: number | null;
  /** Days between the two ends the change was measured over. */
  windowDays: number;
  /** Standard deviation of daily log changes × √30 (0.10 ≈ a typical ±10 % move over 30 days); null when short. */
  volatility30d: number | null;
  /** Days with a market price in the window. */
  dataPoints: number;
}

/** Trend and volatility over the last `windowDays` (default 30) of the series. */
export function seriesTrend(series: readonly DailyPrice[], windowDays = 30): SeriesTrend {
  const days = marketDays(series);
  const last = days[days.length - 1];
  if (!last) return { changePercent: null, windowDays: 0, volatility30d: null, dataPoints: 0 };
  const inWindow = days.filter((d) => last.day - d.day <= windowDays);
  let changePercent: number | null = null;
  let spanDays = 0;
  if (inWindow.length >= 2 * TREND_SMOOTHING_DAYS) {
    const start = inWindow.slice(0, TREND_SMOOTHING_DAYS);
    const end = inWindow.slice(-TREND_SMOOTHING_DAYS);
    const from = median(start.map((d) => d.cents));
    const to = median(end.map((d) => d.cents));
    changePercent = Math.round(((to - from) / from) * 1000) / 10;
    spanDays = end[end.length - 1]!.day - start[0]!.day;
  }
  const changes: number[] = [];
  for (let i = 1; i < inWindow.length; i++) {
    const gap = inWindow[i]!.day - inWindow[i - 1]!.day;
    if (gap === 1) changes.push(Math.log(inWindow[i]!.cents / inWindow[i - 1]!.cents));
  }
  let volatility30d: number | null = null;
  if (changes.length >= MIN_DAYS_FOR_VOLATILITY) {
    const mean = changes.reduce((s, c) => s + c, 0) / changes.length;
    const variance = changes.reduce((s, c) => s + (c - mean) ** 2, 0) / (changes.length - 1);
    volatility30d = Math.round(Math.sqrt(variance * 30) * 1000) / 1000;
  }
  return { changePercent, windowDays: spanDays, volatility30d, dataPoints: inWindow.length };
}

/** Estimators the backtest compares; `latest` is the one rawFromSeries uses. */
export const SERIES_ESTIMATORS = {
  /** The day before's market price: the naive baseline. */
  latest: (prior: readonly number[]): number => prior[prior.length - 1]!,
  median3: (prior: readonly number[]): number => median(prior.slice(-3)),
  median7: (prior: readonly number[]): number => median(prior.slice(-7)),
  /** Exponentially weighted mean of log prices, half-life 2 days. */
  ewma2: (prior: readonly number[]): number => {
    let weight = 0;
    let sum = 0;
    prior.forEach((cents, i) => {
      const w = Math.pow(0.5, (prior.length - 1 - i) / 2);
      weight += w;
      sum += w * Math.log(cents);
    });
    return Math.round(Math.exp(sum / weight));
  },
} as const satisfies Record<string, (prior: readonly number[]) => number>;

/** A stored daily series (valuation.market_price_series): market prices from firstDay, listing prices of latestDay. */
export interface StoredSeries {
  firstDay: string;
  /** Element i: the market price of firstDay + i (null: none that day). */
  marketCents: (number | null)[];
  latestDay: string;
  lowCents: number | null;
  midCents: number | null;
  highCents: number | null;
  directLowCents: number | null;
}

/** One day's prices of one printing as a feed publishes them. */
export interface DayPrices {
  day: string;
  marketCents: number | null;
  lowCents: number | null;
  midCents: number | null;
  highCents: number | null;
  directLowCents: number | null;
}

/** The stored series as days (listing prices on the newest day only). */
export function seriesDays(stored: StoredSeries): DailyPrice[] {
  const first = dayNumber(stored.firstDay);
  const latest = dayNumber(stored.latestDay);
  const days: DailyPrice[] = stored.marketCents.map((marketCents, i) => ({ day: dayString(first + i), marketCents, lowCents: null, midCents: null, highCents: null }));
  const index = latest - first;
  if (index >= days.length) days.push({ day: stored.latestDay, marketCents: null, lowCents: null, midCents: null, highCents: null });
  const newest = days[Math.max(0, Math.min(index, days.length - 1))]!;
  if (newest.day === stored.latestDay) Object.assign(newest, { lowCents: stored.lowCents, midCents: stored.midCents, highCents: stored.highCents });
  return days;
}

export interface MergeCounts {
  /** Days (with prices) the series did not have. */
  inserted: number;
  /** Days whose prices changed. */
  updated: number;
  unchanged: number;
}

/**
 * Merges a feed's days into a stored series (null: none yet). A day already stored with the same prices is
 * unchanged, so re-importing a day writes nothing; days may arrive in any order.
 */
export function mergeDays(stored: StoredSeries | null, incoming: readonly DayPrices[]): { series: StoredSeries; counts: MergeCounts } {
  const counts: MergeCounts = { inserted: 0, updated: 0, unchanged: 0 };
  const market = new Map<number, number | null>();
  let latest: DayPrices | null = null;
  if (stored) {
    const first = dayNumber(stored.firstDay);
    stored.marketCents.forEach((cents, i) => market.set(first + i, cents));
    latest = { day: stored.latestDay, marketCents: null, lowCents: stored.lowCents, midCents: stored.midCents, highCents: stored.highCents, directLowCents: stored.directLowCents };
  }
  const storedMarket = new Map(market);
  const storedLatest = latest;
  for (const d of incoming) {
    const n = dayNumber(d.day);
    const storedCents = storedMarket.get(n) ?? null;
    const isStoredLatest = storedLatest !== null && storedLatest.day === d.day;
    const listing = [d.lowCents, d.midCents, d.highCents, d.directLowCents];
    const hasListing = listing.some((v) => v !== null);
    const sameListing = isStoredLatest ? [storedLatest.lowCents, storedLatest.midCents, storedLatest.highCents, storedLatest.directLowCents].every((v, i) => v === listing[i]) : true;
    const newNewest = hasListing && (storedLatest === null || d.day > storedLatest.day);
    if (storedCents === d.marketCents && sameListing && !newNewest) counts.unchanged++;
    else if (storedCents === null && !isStoredLatest) counts.inserted++;
    else counts.updated++;
    market.set(n, d.marketCents);
    if ((d.marketCents !== null || hasListing) && (latest === null || d.day >= latest.day)) latest = d;
  }
  if (latest === null) latest = incoming[incoming.length - 1]!;
  const numbers = [...market.keys()].sort((a, b) => a - b);
  const first = numbers[0]!;
  const last = numbers[numbers.length - 1]!;
  const marketCents: (number | null)[] = [];
  for (let n = first; n <= last; n++) marketCents.push(market.get(n) ?? null);
  // No market price at the end (a newest day with listing prices only) is not stored as a trailing null.
  while (marketCents.length > 1 && marketCents[marketCents.length - 1] === null) marketCents.pop();
  return {
    series: {
      firstDay: dayString(first),
      marketCents,
      latestDay: latest!.day,
      lowCents: latest!.lowCents,
      midCents: latest!.midCents,
      highCents: latest!.highCents,
      directLowCents: latest!.directLowCents,
    },
    counts,
  };
}
