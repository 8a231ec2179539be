// Value estimate of ONE card + parallel from its comparable sales (comps).
//
// Window: comps sold at or before `now` and within `lookbackDays` (default 730) of it; later sales are ignored.
// Weights: exponential time decay, weight = 0.5^(age / halfLifeDays) (default half-life 90 days), so a sale
// from three months ago counts half as much as one from today.
//
// Raw value: over raw comps in the window, in log price, drop outliers whose distance from the weighted median
// exceeds `outlierCutoff` (3.5) robust sigmas (MAD × 1.4826, floored at 0.05 so near-identical prices do not
// reject everything; only with 3+ comps), then take the weighted median of what is left. With no raw comps but
// graded ones, each graded comp is first divided by its grade premium (premium model, grader-aware) and the
// same robust median gives a derived raw value, marked as such in `method` and never above Low confidence.
//
// Graded value at grade g (PSA scale): the model value is raw × multiplier(g). The card's own graded comps at
// grades within ±1 of g are moved to g through the premium model (price × multiplier(g) / multiplier(grade,
// grader)), weighted by time decay × (1, 0.5, 0.25 for a grade 0, 0.5, 1 away), outlier-trimmed as above and
// reduced to a weighted median. The two are blended in log space with weight n / (n + priorStrength) on the
// own comps, n = their summed weights (priorStrength default 3): a card with many fresh comps at g speaks for
// itself, one with few leans on the model. With a grade distribution the graded estimate is Σ p·value(g)
// (probabilities normalised) and gradedEstimateGrade is the expected grade to one decimal.
//
// Spread (SPREAD_GRADES 10, 9.5, 9, 8.5, 8, 7, 6, 5: the grades slabs mostly sell at) with confidence:
//   High   — ≥ 5 own comps at exactly that grade, their dispersion (MAD × 1.4826 in log) ≤ 0.30, the latest
//            within 90 days;
//   Medium — ≥ 2 own comps at the grade, dispersion ≤ 0.50, the latest within 365 days; or a model value
//            resting on a solid raw value (≥ 5 raw comps kept, dispersion ≤ 0.35, the latest within 180 days)
//            and a premium grade fitted from ≥ 5 cards;
//   Low    — anything else.
//
// Missing coverage gives null with a reason, never 0. Estimates are integer cents (at least 1).

import type { Confidence, GradeProbability, GradedValue, Sale, ValueEstimate } from './types';
import type { GradePremiumModel } from './grade-premium';
import { DAY_MS, MAD_TO_SIGMA, decayWeight, median, weightedMedian } from './stats';

export const SPREAD_GRADES: readonly number[] = [10, 9.5, 9, 8.5, 8, 7, 6, 5];

export interface EstimateOptions {
  /** Half-life of a comp's weight in days (default 90). */
  halfLifeDays: number;
  /** Comps older than this many days are ignored (default 730). */
  lookbackDays: number;
  /** Outlier cutoff in robust sigmas of log price (default 3.5). */
  outlierCutoff: number;
  /** Robust sigma floor in log price for outlier rejection (default 0.05). */
  minRobustSigma: number;
  /** Pseudo-count of the premium model when blending a card's own graded comps (default 3). */
  priorStrength: number;
  /** Grades of gradedValueSpread (default SPREAD_GRADES). */
  spreadGrades: readonly number[];
}

export const DEFAULT_ESTIMATE_OPTIONS: Readonly<EstimateOptions> = {
  halfLifeDays: 90,
  lookbackDays: 730,
  outlierCutoff: 3.5,
  minRobustSigma: 0.05,
  priorStrength: 3,
  spreadGrades: SPREAD_GRADES,
};

export interface EstimateInput {
  /** Comps of ONE card + parallel. */
  sales: readonly Sale[];
  now: Date;
  premium: GradePremiumModel;
  predictedGrade?: number | null;
  gradeDistribution?: readonly GradeProbability[] | null;
  options?: Partial<EstimateOptions>;
}

/** A comp in log space with its time-decay weight. */
interface Comp {
  sale: Sale;
  logPrice: number;
  ageDays: number;
  decay: number;
}

export interface RobustCenter {
  /** Weighted median of the kept log prices. */
  center: number;
  kept: number;
  dropped: number;
  /** MAD × 1.4826 of the kept log prices around the center. */
  dispersion: number;
  /** Summed weight of the kept points. */
  weight: number;
}

/**
 * Weighted median of log prices after dropping points more than `cutoff` robust sigmas from the first
 * weighted median (rejection only with 3+ points).
 */
export function robustCenter(logPrices: readonly number[], weights: readonly number[], cutoff: number, minSigma: number): RobustCenter {
  let values = [...logPrices];
  let w = [...weights];
  const firstCenter = weightedMedian(values, w);
  let dropped = 0;
  if (values.length >= 3) {
    const sigma = Math.max(MAD_TO_SIGMA * median(values.map((v) => Math.abs(v - firstCenter))), minSigma);
    const keep = values.map((v) => Math.abs(v - firstCenter) <= cutoff * sigma);
    dropped = keep.filter((k) => !k).length;
    if (dropped > 0) {
      values = values.filter((_, i) => keep[i]);
      w = w.filter((_, i) => keep[i]);
    }
  }
  const center = dropped > 0 ? weightedMedian(values, w) : firstCenter;
  const dispersion = MAD_TO_SIGMA * median(values.map((v) => Math.abs(v - center)));
  return { center, kept: values.length, dropped, dispersion, weight: w.reduce((s, x) => s + x, 0) };
}

/** Age in days of the most recent comp. */
function youngestAge(comps: readonly Comp[]): number {
  return comps.reduce((youngest, c) => Math.min(youngest, c.ageDays), Infinity);
}

function toCents(logCents: number): number {
  return Math.max(1, Math.round(Math.exp(logCents)));
}

/** Raw value in log cents and how it was reached. */
interface RawBasis {
  logCents: number;
  fromGraded: boolean;
  fit: RobustCenter;
  latestAgeDays: number;
  method: string;
}

/** Everything about one card's comps that the per-grade valuations reuse. */
interface CompSet {
  raw: Comp[];
  graded: Comp[];
  premium: GradePremiumModel;
  options: EstimateOptions;
  rawBasis: RawBasis;
}

interface GradeValuation {
  logCents: number;
  confidence: Confidence;
}

function valueAtGrade(set: CompSet, grade: number): GradeValuation {
  const { premium, options, rawBasis } = set;
  const target = premium.logMultiplier(grade);
  const modelLog = rawBasis.logCents + target;

  const near = set.graded.filter((c) => Math.abs(c.sale.grade! - grade) <= 1 + 1e-9);
  let ownLog: number | null = null;
  let ownWeight = 0;
  if (near.length > 0) {
    const adjusted = near.map((c) => c.logPrice - premium.logMultiplier(c.sale.grade!, c.sale.grader) + target);
    const weights = near.map((c) => c.decay * gradeDistanceWeight(Math.abs(c.sale.grade! - grade)));
    const fit = robustCenter(adjusted, weights, options.outlierCutoff, options.minRobustSigma);
    ownLog = fit.center;
    ownWeight = fit.weight;
  }
  const share = ownLog === null ? 0 : ownWeight / (ownWeight + options.priorStrength);
  const logCents = ownLog === null ? modelLog : share * ownLog + (1 - share) * modelLog;
  return { logCents, confidence: gradeConfidence(set, grade) };
}

function gradeDistanceWeight(distance: number): number {
  return distance < 0.25 ? 1 : distance < 0.75 ? 0.5 : 0.25;
}

function gradeConfidence(set: CompSet, grade: number): Confidence {
  const exact = set.graded.filter((c) => Math.abs(c.sale.grade! - grade) < 1e-9);
  if (exact.length >= 2) {
    // Dispersion in PSA-equivalent log price, so a mix of graders is not mistaken for noise.
    const logs = exact.map((c) => c.logPrice - set.premium.graderOffset(c.sale.grader));
    const center = median(logs);
    const dispersion = MAD_TO_SIGMA * median(logs.map((v) => Math.abs(v - center)));
    const latestAge = youngestAge(exact);
    if (exact.length >= 5 && dispersion <= 0.3 && latestAge <= 90) return 'High';
    if (dispersion <= 0.5 && latestAge <= 365) return 'Medium';
  }
  const raw = set.rawBasis;
  if (!raw.fromGraded && raw.fit.kept >= 5 && raw.fit.dispersion <= 0.35 && raw.latestAgeDays <= 180 && set.premium.support(grade) >= 5) {
    return 'Medium';
  }
  return 'Low';
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function rawBasisOf(raw: Comp[], graded: Comp[], premium: GradePremiumModel, options: EstimateOptions): RawBasis | null {
  const window = `half-life ${options.halfLifeDays}d, lookback ${options.lookbackDays}d`;
  if (raw.length > 0) {
    const fit = robustCenter(raw.map((c) => c.logPrice), raw.map((c) => c.decay), options.outlierCutoff, options.minRobustSigma);
    const outliers = fit.dropped > 0 ? `; ${plural(fit.dropped, 'outlier')} dropped` : '';
    return {
      logCents: fit.center,
      fromGraded: false,
      fit,
      latestAgeDays: youngestAge(raw),
      method: `time-weighted median of ${plural(fit.kept, 'raw comp')}; ${window}${outliers}`,
    };
  }
  if (graded.length === 0) return null;
  const rawEquivalent = graded.map((c) => c.logPrice - premium.logMultiplier(c.sale.grade!, c.sale.grader));
  const fit = robustCenter(rawEquivalent, graded.map((c) => c.decay), options.outlierCutoff, options.minRobustSigma);
  return {
    logCents: fit.center,
    fromGraded: true,
    fit,
    latestAgeDays: youngestAge(graded),
    method: `no raw comps: derived from ${plural(fit.kept, 'graded comp')} through grade premiums; ${window}`,
  };
}

/** Normalised distribution over grades in [1, 10]; null when it carries no probability. */
function normaliseDistribution(distribution: readonly GradeProbability[]): GradeProbability[] | null {
  const usable = distribution.filter((d) => Number.isFinite(d.grade) && d.probability > 0);
  const total = usable.reduce((s, d) => s + d.probability, 0);
  if (!(total > 0)) return null;
  return usable.map((d) => ({ grade: Math.min(Math.max(d.grade, 1), 10), probability: d.probability / total }));
}

/** An estimate with no numbers, only the reason (never zeros). */
export function unavailableEstimate(reason: string, latestCompAt: Date | null = null, compCount = 0, rawCompCount = 0): ValueEstimate {
  return {
    rawEstimateCents: null,
    rawEstimateUnavailableReason: reason,
    gradedEstimateCents: null,
    gradedEstimateUnavailableReason: reason,
    gradedEstimateGrade: null,
    currency: 'USD',
    gradedValueSpread: [],
    latestCompAt,
    compCount,
    rawCompCount,
    method: 'none',
  };
}

interface PreparedComps {
  options: EstimateOptions;
  latestCompAt: Date | null;
  raw: Comp[];
  graded: Comp[];
}

function prepareComps(input: EstimateInput): PreparedComps {
  const options: EstimateOptions = { ...DEFAULT_ESTIMATE_OPTIONS, ...input.options };
  if (!(options.halfLifeDays > 0) || !(options.lookbackDays > 0) || !(options.priorStrength >= 0) || !(options.outlierCutoff > 0)) {
    throw new RangeError('estimate options: halfLifeDays, lookbackDays and outlierCutoff must be positive, priorStrength non-negative');
  }
  const nowMs = input.now.getTime();
  let latestMs = -Infinity;
  const raw: Comp[] = [];
  const graded: Comp[] = [];
  for (const sale of input.sales) {
    const soldMs = sale.soldAt.getTime();
    if (!(soldMs <= nowMs) || !(sale.priceCents > 0)) continue;
    if (soldMs > latestMs) latestMs = soldMs;
    const ageDays = (nowMs - soldMs) / DAY_MS;
    if (ageDays > options.lookbackDays) continue;
    const comp: Comp = { sale, logPrice: Math.log(sale.priceCents), ageDays, decay: decayWeight(ageDays, options.halfLifeDays) };
    if (sale.grader === null || sale.grade === null) raw.push(comp);
    else graded.push(comp);
  }
  return { options, latestCompAt: Number.isFinite(latestMs) ? new Date(latestMs) : null, raw, graded };
}

/** Raw and graded value of one card + parallel (see the file comment). */
export function estimateValue(input: EstimateInput): ValueEstimate {
  const { options, latestCompAt, raw, graded } = prepareComps(input);
  const compCount = raw.length + graded.length;
  if (latestCompAt === null) return unavailableEstimate('no sales for this card', null, 0, 0);
  if (compCount === 0) return unavailableEstimate(`no sales in the last ${options.lookbackDays} days`, latestCompAt, 0, 0);

  const rawBasis = rawBasisOf(raw, graded, input.premium, options)!;
  const set: CompSet = { raw, graded, premium: input.premium, options, rawBasis };
  const gradedValueSpread: GradedValue[] = options.spreadGrades.map((grade) => {
    const valuation = valueAtGrade(set, grade);
    return { grade, valueCents: toCents(valuation.logCents), confidence: valuation.confidence };
  });

  const gradedResult = gradedTarget(set, input);
  return {
    rawEstimateCents: toCents(rawBasis.logCents),
    rawEstimateUnavailableReason: null,
    gradedEstimateCents: gradedResult.cents,
    gradedEstimateUnavailableReason: gradedResult.reason,
    gradedEstimateGrade: gradedResult.grade,
    currency: 'USD',
    gradedValueSpread,
    latestCompAt,
    compCount,
    rawCompCount: raw.length,
    method: rawBasis.method,
  };
}

function gradedTarget(set: CompSet, input: Pick<EstimateInput, 'predictedGrade' | 'gradeDistribution'>): { cents: number | null; reason: string | null; grade: number | null } {
  const distribution = input.gradeDistribution ? normaliseDistribution(input.gradeDistribution) : null;
  if (distribution) {
    const cents = distribution.reduce((sum, d) => sum + d.probability * toCents(valueAtGrade(set, d.grade).logCents), 0);
    const expectedGrade = distribution.reduce((sum, d) => sum + d.probability * d.grade, 0);
    return { cents: Math.max(1, Math.round(cents)), reason: null, grade: Math.round(expectedGrade * 10) / 10 };
  }
  if (input.predictedGrade !== null && input.predictedGrade !== undefined && Number.isFinite(input.predictedGrade)) {
    const grade = Math.min(Math.max(input.predictedGrade, 1), 10);
    return { cents: toCents(valueAtGrade(set, grade).logCents), reason: null, grade };
  }
  return { cents: null, reason: 'no predicted grade or grade distribution given', grade: null };
}

/**
 * Expected graded value of one card + parallel over a grade distribution (or at one grade), exactly as
 * estimateValue computes gradedEstimateCents; null when the card has no comps in the window.
 */
export function expectedGradedValueCents(input: EstimateInput): number | null {
  const { options, raw, graded } = prepareComps(input);
  const rawBasis = rawBasisOf(raw, graded, input.premium, options);
  if (!rawBasis) return null;
  return gradedTarget({ raw, graded, premium: input.premium, options, rawBasis }, input).cents;
}
