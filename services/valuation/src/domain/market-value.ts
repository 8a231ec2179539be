// Value estimate and market analysis of one card printing from real market data: a marketplace's daily
// market-price series for the raw value, trend and volatility (price-series.ts), and graded values from the
// card's graded price table or the model fitted on all tables (graded-prices.ts). The grading recommendation
// is market.ts's rule on these figures.

import { SPREAD_GRADES } from './estimate';
import { gradedValue, type GradedPoint, type GradedPriceModel, type GradedTableValue } from './graded-prices';
import { formatUsd, recommendGrading } from './market';
import { rawFromSeries, seriesTrend, type DailyPrice } from './price-series';
import type { GradeProbability, GradedValue, MarketAnalysis, PriceSource, ValueEstimate } from './types';

export const TCGPLAYER_ATTRIBUTION = 'Prices: TCGplayer market prices (via tcgcsv.com)';
export const GRADED_TABLE_ATTRIBUTION = 'Graded values: PriceCharting';

export interface MarketValueInput {
  /** The printing's daily series (any order) and the marketplace's name for the printing. */
  series: readonly DailyPrice[];
  printing: string;
  /** Newest day of the whole data set: a series older than MAX_STALE_DAYS before it is not used. */
  datasetLastDay: string;
  sourceName: string;
  attribution: string;
  /** The card's graded table values and the day they are from (empty when the table does not list it). */
  gradedTable: readonly GradedTableValue[];
  gradedTableAsOf: string | null;
  gradedModel: GradedPriceModel;
  /** Cards the graded model was fitted on, for the source line. */
  gradedModelCards: number;
  predictedGrade: number | null;
  gradeDistribution: readonly GradeProbability[] | null;
}

function normalised(distribution: readonly GradeProbability[] | null): GradeProbability[] | null {
  if (!distribution) return null;
  const usable = distribution.filter((d) => Number.isFinite(d.grade) && d.probability > 0);
  const total = usable.reduce((s, d) => s + d.probability, 0);
  return total > 0 ? usable.map((d) => ({ grade: d.grade, probability: d.probability / total })) : null;
}

interface GradedTarget {
  cents: number | null;
  grade: number | null;
  reason: string | null;
  points: GradedPoint[];
}

function gradedTarget(input: MarketValueInput, rawCents: number | null): GradedTarget {
  const at = (grade: number) => gradedValue({ table: input.gradedTable, rawCents, model: input.gradedModel }, grade);
  const distribution = normalised(input.gradeDistribution);
  if (distribution) {
    const points = distribution.map((d) => at(d.grade));
    if (points.some((p) => p === null)) return { cents: null, grade: null, reason: 'no raw value or graded table for this card', points: [] };
    const cents = distribution.reduce((s, d, i) => s + d.probability * points[i]!.valueCents, 0);
    const grade = distribution.reduce((s, d) => s + d.probability * d.grade, 0);
    return { cents: Math.max(1, Math.round(cents)), grade: Math.round(grade * 10) / 10, reason: null, points: points as GradedPoint[] };
  }
  if (input.predictedGrade !== null && Number.isFinite(input.predictedGrade)) {
    const point = at(input.predictedGrade);
    if (!point) return { cents: null, grade: null, reason: 'no raw value or graded table for this card', points: [] };
    return { cents: point.valueCents, grade: point.grade, reason: null, points: [point] };
  }
  return { cents: null, grade: null, reason: 'no predicted grade or grade distribution given', points: [] };
}

function gradedSourceOf(input: MarketValueInput, points: readonly GradedPoint[], raw: PriceSource | null): PriceSource | null {
  if (points.length === 0) return null;
  const fromTable = points.every((p) => p.basis === 'table' || p.basis === 'interpolated');
  if (fromTable && input.gradedTableAsOf) {
    return { name: 'PriceCharting graded values of this card', asOf: input.gradedTableAsOf, dataPoints: input.gradedTable.length, attribution: GRADED_TABLE_ATTRIBUTION };
  }
  return {
    name: `graded-price model fitted on PriceCharting values of ${input.gradedModelCards} cards, applied to the raw market price`,
    asOf: input.gradedTableAsOf ?? raw?.asOf ?? input.datasetLastDay,
    dataPoints: input.gradedModelCards,
    attribution: `${GRADED_TABLE_ATTRIBUTION}; ${input.attribution}`,
  };
}

export interface MarketValue {
  estimate: ValueEstimate;
  market: MarketAnalysis;
}

/** The estimate and analysis of one printing from its real market data (see the file comment). */
export function marketValue(input: MarketValueInput, gradingCostCents: number): MarketValue {
  const raw = rawFromSeries(input.series, input.datasetLastDay);
  const rawSource: PriceSource | null = raw ? { name: input.sourceName, asOf: raw.asOf, dataPoints: raw.dataPoints, attribution: input.attribution } : null;
  const rawCents = raw?.estimateCents ?? null;
  const graded = gradedTarget(input, rawCents);
  const spread: GradedValue[] = [];
  for (const grade of SPREAD_GRADES) {
    const point = gradedValue({ table: input.gradedTable, rawCents, model: input.gradedModel }, grade);
    if (point) spread.push({ grade, valueCents: point.valueCents, confidence: point.confidence });
  }
  const gradedSource = gradedSourceOf(input, graded.points.length > 0 ? graded.points : [], rawSource);
  const rawReason = raw ? null : `no ${input.printing} market price in the 14 days before ${input.datasetLastDay}`;
  const estimate: ValueEstimate = {
    rawEstimateCents: rawCents,
    rawEstimateUnavailableReason: rawReason,
    gradedEstimateCents: graded.cents,
    gradedEstimateUnavailableReason: graded.cents === null ? graded.reason : null,
    gradedEstimateGrade: graded.grade,
    currency: 'USD',
    gradedValueSpread: spread,
    latestCompAt: raw ? new Date(`${raw.asOf}T00:00:00Z`) : null,
    compCount: raw?.dataPoints ?? 0,
    rawCompCount: raw?.dataPoints ?? 0,
    method: raw?.method ?? 'no recent market price',
    rawSource,
    gradedSource,
    printing: input.printing,
    rawLowCents: raw?.lowCents ?? null,
    rawHighCents: raw?.highCents ?? null,
  };

  const trend = seriesTrend(input.series);
  const decision = recommendGrading(rawCents, graded.cents, gradingCostCents);
  const gradeLabel = normalised(input.gradeDistribution) ? ' over the predicted grade distribution' : graded.grade !== null ? ` at grade ${graded.grade}` : '';
  const sentences: string[] = [];
  sentences.push(
    raw
      ? `Raw value about ${formatUsd(raw.estimateCents)} (${input.printing}, ${input.sourceName} of ${raw.asOf}` +
          (raw.lowCents !== null && raw.highCents !== null ? `; listed from ${formatUsd(raw.lowCents)} to ${formatUsd(raw.highCents)})` : ')') +
          '.'
      : `No raw value: ${rawReason}.`,
  );
  if (trend.changePercent !== null) {
    const move = Math.abs(trend.changePercent) < 1 ? 'flat' : `${trend.changePercent > 0 ? 'up' : 'down'} ${Math.abs(Math.round(trend.changePercent))}%`;
    sentences.push(
      `Market price ${move} over ${trend.windowDays} days (${trend.dataPoints} daily prices)` +
        (trend.volatility30d !== null ? `, 30-day volatility ±${Math.round((Math.exp(trend.volatility30d) - 1) * 100)}%` : '') +
        '.',
    );
  } else {
    sentences.push(`Too few daily prices (${trend.dataPoints}) for a 30-day trend.`);
  }
  if (decision.netGainCents !== null && graded.cents !== null) {
    const net = decision.netGainCents;
    const verdict =
      decision.recommendation === 'grade' ? 'worth grading' : decision.recommendation === 'dont_grade' ? 'not worth grading' : `no clear case (a gain needs to beat ${formatUsd(decision.marginCents!)})`;
    sentences.push(
      `Expected graded value ${formatUsd(graded.cents)}${gradeLabel} (${gradedSource?.name ?? 'graded values'}); after the ${formatUsd(gradingCostCents)} grading cost that is ` +
        `${formatUsd(Math.abs(net))} ${net >= 0 ? 'more' : 'less'} than selling raw: ${verdict}.`,
    );
  } else {
    sentences.push(`Grading: no call (${decision.missing}).`);
  }
  const context = [
    `Real market data: ${input.attribution}, ${input.printing}, as of ${raw?.asOf ?? input.datasetLastDay}.`,
    gradedSource ? `${gradedSource.attribution}, as of ${gradedSource.asOf}.` : null,
    decision.missing ? `Recommendation is neutral: ${decision.missing}${graded.reason ? ` (${graded.reason})` : ''}.` : null,
  ]
    .filter((s): s is string => s !== null)
    .join(' ');
  return {
    estimate,
    market: {
      insights: sentences.join(' '),
      gradingRecommendation: decision.recommendation,
      context,
      trend: {
        change30dPercent: trend.changePercent,
        change90dPercent: null,
        sales30d: 0,
        sales90d: 0,
        medianPrice30dCents: null,
        volatility: null,
        basis: 'daily_market_price',
        priceDays30d: trend.dataPoints,
        volatility30d: trend.volatility30d,
      },
      expectedGradedValueCents: graded.cents,
    },
  };
}
