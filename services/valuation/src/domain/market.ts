// Market analysis of one card + parallel: recent trend, volatility, and whether grading it pays.
//
// Trend (raw sales only, so a change in the graded mix does not read as a price move): the median raw price of
// the last 30 days against the 30 days before, and of the last 90 days against the 90 before. A change needs
// at least MIN_SALES_PER_WINDOW = 3 raw sales in BOTH windows, else it is null (two sales make a line, not a
// trend). Volatility: MAD × 1.4826 of log raw prices over the last 90 days (a robust log-price standard
// deviation: 0.18 ≈ ±18% typical sale-to-sale swing), null under MIN_SALES_FOR_VOLATILITY = 4 sales; described as
// low (< 0.15), moderate (< 0.35) or high.
//
// Recommendation: expected graded value (over the grade distribution, else at the predicted grade; estimate.ts
// computes it) minus the grading cost, against the raw value. Net gain = graded − cost − raw.
//   grade       net gain > margin, margin = max(15% of raw, $10): grading clearly pays after the hassle, the
//               turnaround time and the risk of a lower grade than predicted;
//   dont_grade  net gain < 0: grading loses money;
//   neutral     in between (including exactly at the margin), or when the raw or graded value is unknown (the
//               context then says why).
// `context` always states when the prices are sample data, plus the comp count and latest comp date.

import type { GradeProbability, GradingRecommendation, MarketAnalysis, MarketTrend, Sale, ValueEstimate } from './types';
import type { GradePremiumModel } from './grade-premium';
import { DEFAULT_ESTIMATE_OPTIONS, expectedGradedValueCents, type EstimateOptions } from './estimate';
import { DAY_MS, median, robustSigma } from './stats';

export const MIN_SALES_PER_WINDOW = 3;
export const MIN_SALES_FOR_VOLATILITY = 4;
export const GRADE_MARGIN_SHARE = 0.15;
export const GRADE_MARGIN_MIN_CENTS = 1000;
export const SAMPLE_DATA_NOTICE = "Sample data: prices come from CardLens's generated sample sales, not real market sales.";

export interface MarketInput {
  /** Sales of ONE card + parallel. */
  sales: readonly Sale[];
  now: Date;
  estimate: ValueEstimate;
  premium: GradePremiumModel;
  predictedGrade?: number | null;
  gradeDistribution?: readonly GradeProbability[] | null;
  gradingCostCents: number;
  isSampleData: boolean;
  /** Options the estimate was made with, so the expected graded value matches it. */
  estimateOptions?: Partial<EstimateOptions>;
}

/** Trend of raw sales ending at `now` (see the file comment). */
export function computeTrend(sales: readonly Sale[], now: Date): MarketTrend {
  const nowMs = now.getTime();
  const raw = sales.filter((s) => s.grader === null && s.priceCents > 0 && s.soldAt.getTime() <= nowMs);
  const inDays = (fromDaysAgo: number, toDaysAgo: number) =>
    raw.filter((s) => {
      const age = (nowMs - s.soldAt.getTime()) / DAY_MS;
      return age < fromDaysAgo && age >= toDaysAgo;
    });
  const last30 = inDays(30, 0);
  const last90 = inDays(90, 0);
  const change = (recent: Sale[], before: Sale[]) =>
    recent.length >= MIN_SALES_PER_WINDOW && before.length >= MIN_SALES_PER_WINDOW
      ? Math.round((median(recent.map((s) => s.priceCents)) / median(before.map((s) => s.priceCents)) - 1) * 1000) / 10
      : null;
  return {
    change30dPercent: change(last30, inDays(60, 30)),
    change90dPercent: change(last90, inDays(180, 90)),
    sales30d: last30.length,
    sales90d: last90.length,
    medianPrice30dCents: last30.length > 0 ? Math.round(median(last30.map((s) => s.priceCents))) : null,
    volatility: last90.length >= MIN_SALES_FOR_VOLATILITY ? Math.round(robustSigma(last90.map((s) => Math.log(s.priceCents))) * 1000) / 1000 : null,
  };
}

export interface GradingDecision {
  recommendation: GradingRecommendation;
  /** graded − cost − raw; null when either value is unknown. */
  netGainCents: number | null;
  marginCents: number | null;
  /** Why the recommendation is neutral for lack of data; null otherwise. */
  missing: string | null;
}

/** The grade / neutral / dont_grade rule (see the file comment). */
export function recommendGrading(rawCents: number | null, gradedCents: number | null, gradingCostCents: number): GradingDecision {
  if (!Number.isFinite(gradingCostCents) || gradingCostCents < 0) throw new RangeError(`grading cost must be a non-negative number of cents, got ${gradingCostCents}`);
  if (rawCents === null) return { recommendation: 'neutral', netGainCents: null, marginCents: null, missing: 'no raw value to compare against' };
  if (gradedCents === null) return { recommendation: 'neutral', netGainCents: null, marginCents: null, missing: 'no graded value to compare against' };
  const netGainCents = gradedCents - gradingCostCents - rawCents;
  const marginCents = Math.max(Math.round(GRADE_MARGIN_SHARE * rawCents), GRADE_MARGIN_MIN_CENTS);
  const recommendation: GradingRecommendation = netGainCents > marginCents ? 'grade' : netGainCents < 0 ? 'dont_grade' : 'neutral';
  return { recommendation, netGainCents, marginCents, missing: null };
}

export function formatUsd(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  const dollars = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}

function volatilityWords(volatility: number): string {
  const level = volatility < 0.15 ? 'low' : volatility < 0.35 ? 'moderate' : 'high';
  return `volatility ${level} (±${Math.round((Math.exp(volatility) - 1) * 100)}%)`;
}

function changeWords(percent: number): string {
  if (Math.abs(percent) < 1) return 'flat';
  return `${percent > 0 ? 'up' : 'down'} ${Math.abs(Math.round(percent))}%`;
}

function trendSentence(trend: MarketTrend): string {
  const median30 = trend.medianPrice30dCents === null ? '' : `, median ${formatUsd(trend.medianPrice30dCents)}`;
  const parts: string[] = [];
  if (trend.change30dPercent !== null) {
    parts.push(`Raw sales ${changeWords(trend.change30dPercent)} over 30 days (${trend.sales30d} sales${median30})`);
  } else if (trend.sales30d > 0) {
    parts.push(`${trend.sales30d} raw sale${trend.sales30d === 1 ? '' : 's'} in the last 30 days${median30}, too few for a 30-day trend`);
  } else {
    parts.push('No raw sales in the last 30 days');
  }
  if (trend.change90dPercent !== null) parts.push(`${changeWords(trend.change90dPercent)} over 90 days (${trend.sales90d} sales)`);
  else parts.push(`${trend.sales90d} raw sale${trend.sales90d === 1 ? '' : 's'} in 90 days`);
  if (trend.volatility !== null) parts.push(volatilityWords(trend.volatility));
  return `${parts.join('; ')}.`;
}

function gradingSentence(decision: GradingDecision, gradedCents: number | null, gradeLabel: string, costCents: number): string {
  if (decision.netGainCents === null || gradedCents === null) return `Grading: no call (${decision.missing}).`;
  const net = decision.netGainCents;
  const against = `after the ${formatUsd(costCents)} grading cost that is ${formatUsd(Math.abs(net))} ${net >= 0 ? 'more' : 'less'} than selling raw`;
  const verdict =
    decision.recommendation === 'grade'
      ? 'worth grading'
      : decision.recommendation === 'dont_grade'
        ? 'not worth grading'
        : `no clear case (a gain needs to beat ${formatUsd(decision.marginCents!)})`;
  return `Expected graded value ${formatUsd(gradedCents)}${gradeLabel}; ${against}: ${verdict}.`;
}

/** Insights, trend and a grading recommendation for one card + parallel (see the file comment). */
export function analyzeMarket(input: MarketInput): MarketAnalysis {
  const { estimate } = input;
  const trend = computeTrend(input.sales, input.now);

  const gradeGiven = (input.gradeDistribution?.length ?? 0) > 0 || (input.predictedGrade !== null && input.predictedGrade !== undefined);
  const expectedGraded = gradeGiven
    ? expectedGradedValueCents({
        sales: input.sales,
        now: input.now,
        premium: input.premium,
        predictedGrade: input.predictedGrade ?? null,
        gradeDistribution: input.gradeDistribution ?? null,
        options: input.estimateOptions ?? {},
      })
    : estimate.gradedEstimateCents;
  const decision = recommendGrading(estimate.rawEstimateCents, expectedGraded, input.gradingCostCents);

  const gradeLabel = gradeGiven
    ? input.gradeDistribution?.length
      ? ' over the predicted grade distribution'
      : ` at grade ${input.predictedGrade}`
    : estimate.gradedEstimateGrade !== null
      ? ` at grade ${estimate.gradedEstimateGrade}`
      : '';
  const valueSentence =
    estimate.rawEstimateCents !== null
      ? `Raw value about ${formatUsd(estimate.rawEstimateCents)} (${estimate.method}).`
      : `No raw value: ${estimate.rawEstimateUnavailableReason ?? 'unknown'}.`;
  const insights = [valueSentence, trendSentence(trend), gradingSentence(decision, expectedGraded, gradeLabel, input.gradingCostCents)].join(' ');

  const contextParts: string[] = [];
  if (input.isSampleData) contextParts.push(SAMPLE_DATA_NOTICE);
  if (decision.missing !== null) {
    // Raw missing: the estimate says why. Graded missing: with a grade given it can only be for lack of comps
    // (the raw reason); without one, the estimate's graded reason says no grade was given.
    const why = estimate.rawEstimateCents === null || gradeGiven ? estimate.rawEstimateUnavailableReason : estimate.gradedEstimateUnavailableReason;
    contextParts.push(`Recommendation is neutral: ${decision.missing}${why ? ` (${why})` : ''}.`);
  }
  const lookback = input.estimateOptions?.lookbackDays ?? DEFAULT_ESTIMATE_OPTIONS.lookbackDays;
  contextParts.push(
    `Based on ${estimate.compCount} comp${estimate.compCount === 1 ? '' : 's'} (${estimate.rawCompCount} raw) from the last ${lookback} days` +
      (estimate.latestCompAt ? `; latest comp ${estimate.latestCompAt.toISOString().slice(0, 10)}.` : '; no comps.'),
  );

  return {
    insights,
    gradingRecommendation: decision.recommendation,
    context: contextParts.join(' '),
    trend,
    expectedGradedValueCents: expectedGraded,
  };
}
