import { ASPECTS, commonV1, gradingAssessment, isoFromTimestamp, isoOrNull, scanModuleName, scansV1, type Aspect, type ScanModuleName } from '@cardlens/contracts';
import { NotAssessedItem, type ScanAccepted } from '../contract/schemas';

/**
 * Presenter of prepaid scans: scans.v1 messages -> the JSON of the OpenAPI schemas ScanAccepted and ScanResult
 * (ScanInFlight, ScanFailed, ScanCompleted). Pure; every number is kept inside the bounds the document declares.
 */

/** API names of the modules; values with no API name (unspecified, deep) are left out. */
export function moduleNames(modules: readonly scansV1.Module[]): ScanModuleName[] {
  return modules.flatMap((module) => {
    const name = scanModuleName(module);
    return name ? [name] : [];
  });
}

export const scanPath = (scanId: number): string => `/v1/scans/${scanId}`;

/** The 202 body of POST /v1/scans: the contract's ScanAccepted (src/contract), so the builder cannot drift from the document. */
export type ScanAcceptedView = ScanAccepted;

/** The 202 body of POST /v1/scans, for a new scan and for an idempotent replay alike (`status` is always queued). */
export function presentScanAccepted(accepted: scansV1.CreateScanResponse): ScanAcceptedView {
  return {
    id: accepted.scanId,
    status: 'queued',
    modules: moduleNames(accepted.modules),
    creditsCharged: Math.max(0, accepted.creditsCharged),
    creditsRemaining: Math.max(0, accepted.creditsRemaining),
    links: { self: scanPath(accepted.scanId) },
  };
}

// ---------------------------------------------------------------------------------------------- views

export interface ScanInFlightView {
  id: number;
  status: 'queued' | 'processing';
  progressPercent: number;
  statusMessage: string | null;
}

export interface ScanFailedView {
  id: number;
  status: 'failed';
  error: string;
  progressPercent?: number;
  statusMessage?: string;
}

export interface IdentificationFields {
  name: string;
  subject: string;
  category: string;
  year: string;
  set: string;
  number: string;
  parallel: string;
  printRun: string;
}

export interface IdentificationView extends IdentificationFields {
  confidence: number;
  inCatalog: boolean;
  candidates: (IdentificationFields & { confidence: number })[];
}

export interface SubGradesView {
  centering: number;
  corners: number;
  edges: number;
  surface: number;
}

/** What produced a grading (empty strings for results stored before versions were recorded). */
export interface EngineView {
  version: string;
  rubricVersion: string;
}

export const presentEngine = (grading: commonV1.Grading): EngineView => ({ version: grading.engineVersion, rubricVersion: grading.rubricVersion });

/** Sub-grades as shown: null for an aspect that was not assessed (its reason is in notAssessedReasons). */
export type AssessedSubGradesView = Record<Aspect, number | null>;

export interface CenteringRatioView {
  leftRight: string;
  topBottom: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export type DefectKindName = 'corner_wear' | 'edge_wear' | 'scratch' | 'dent' | 'crease' | 'stain' | 'print_defect' | 'other';

export interface DefectView {
  kind: DefectKindName;
  side: 'front' | 'back';
  location: string;
  severity: 'minor' | 'moderate' | 'major';
  description: string;
}

export interface ScanGradingView {
  /** Null where nothing on the card could be assessed (then the grading part of the scan's price is refunded). */
  grade: number | null;
  predictedGrade: number | null;
  subGrades: AssessedSubGradesView;
  summary: string;
  justification: string;
  centering: { front: CenteringRatioView | null; back: CenteringRatioView | null };
  subGradeConfidence: AssessedSubGradesView;
  defects: DefectView[];
  notAssessed: NotAssessedItem[];
  notAssessedReasons: { item: NotAssessedItem; reason: string }[];
  frontBack: { front: AssessedSubGradesView; back: AssessedSubGradesView | null };
  engine: EngineView;
  /** `overlay`: while the overlay is kept (retention) and one was drawn. */
  links: { overlay?: string };
}

export interface ValueEstimateView {
  rawEstimate: number | null;
  gradedEstimate: number | null;
  currency: 'USD';
  gradedValueSpread: { grade: number; value: number; confidence: 'High' | 'Medium' | 'Low' }[];
  reasons: string[];
  freshness: { latestSaleDate: string | null; compCount: number };
  sampleData: boolean;
  /** The printing priced, as the marketplace names it; null when not known. */
  printing: string | null;
  /** Listing low and high of the latest day (market-price feeds); null when not known. */
  rawRange: { low: number; high: number } | null;
  /** Where each figure comes from, to show beside it; null where there is no such estimate. */
  sources: { raw: PriceSourceView | null; graded: PriceSourceView | null };
}

export interface PriceSourceView {
  name: string;
  asOf: string;
  dataPoints: number;
  attribution: string;
}

export interface MarketAnalysisView {
  insights: string;
  gradingRecommendation: 'grade' | 'neutral' | 'dont_grade';
  context: string | null;
  trend: {
    change30dPercent: number | null;
    change90dPercent: number | null;
    salesLast30Days: number;
    salesLast90Days: number;
    basis: 'sales' | 'daily_market_price';
    priceDaysLast30Days: number;
    volatility30dPercent: number | null;
  };
}

export interface ScanCompletedView {
  id: number;
  status: 'completed';
  modules: ScanModuleName[];
  completedAt: string | null;
  identification: IdentificationView;
  grading?: ScanGradingView;
  value?: ValueEstimateView;
  market?: MarketAnalysisView;
  /** Present where the paid grade could not be given: the credits given back and why. */
  refund?: { credits: number; reason: string };
  /** `report`: the live share link of the report page (absent once revoked or expired). */
  links: { self: string; report?: string };
  /** When the share link in links.report stops working; null without one. */
  reportExpiresAt: string | null;
}

export type ScanResultView = ScanInFlightView | ScanFailedView | ScanCompletedView;

// ---------------------------------------------------------------------------------------------- helpers

const clamp = (value: number, min: number, max: number): number => (Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min);
/** Grades and sub-grades (OpenAPI Score, 1-10). */
export const score = (value: number): number => clamp(value, 1, 10);
/** Confidences (0-1). */
const unit = (value: number): number => clamp(value, 0, 1);
const percent = (value: number): number => Math.round(clamp(value, 0, 100));
const round1 = (value: number): number => Math.round(value * 10) / 10;
const nonNegativeInt = (value: number): number => (Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0);
/** Cents -> USD; a missing or non-positive amount is no coverage (null), never a zero value. */
const usdOrNull = (cents: number | undefined): number | null => (cents !== undefined && Number.isFinite(cents) && cents > 0 ? cents / 100 : null);

const GENERIC_FAILURE = 'The scan could not be completed.';

// ---------------------------------------------------------------------------------------------- scan result

/** The report page of a share link: absolute, since it is meant to be handed to people. */
export const reportUrl = (baseUrl: string, token: string): string => `${baseUrl}/r/${token}`;

/**
 * GET /v1/scans/{id}: the scan by status. Throws for a status the API does not know (rendered as a 500).
 * `baseUrl` makes the share link absolute.
 */
export function presentScan(scan: scansV1.ScanResult, baseUrl = ''): ScanResultView {
  const id = scan.scanId;
  const state = scan.state;
  switch (scan.status) {
    case scansV1.ScanStatus.QUEUED:
    case scansV1.ScanStatus.PROCESSING: {
      const inFlight = state?.$case === 'inFlight' ? state.value : undefined;
      return {
        id,
        status: scan.status === scansV1.ScanStatus.QUEUED ? 'queued' : 'processing',
        progressPercent: percent(inFlight?.progressPercent ?? 0),
        statusMessage: inFlight?.statusMessage ?? null,
      };
    }
    case scansV1.ScanStatus.FAILED: {
      const failed = state?.$case === 'failed' ? state.value : undefined;
      return {
        id,
        status: 'failed',
        error: failed?.error || GENERIC_FAILURE,
        ...(failed?.progressPercent !== undefined ? { progressPercent: percent(failed.progressPercent) } : {}),
        ...(failed?.statusMessage !== undefined ? { statusMessage: failed.statusMessage } : {}),
      };
    }
    case scansV1.ScanStatus.COMPLETED: {
      if (state?.$case !== 'completed') throw new Error(`scan ${id} is completed without a result`);
      return presentCompleted(id, scan.modules, state.value, scan.reportLink, baseUrl);
    }
    default:
      throw new Error(`scan ${id} has unknown status ${scan.status}`);
  }
}

function presentCompleted(id: number, modules: readonly scansV1.Module[], completed: scansV1.ScanCompleted, link: commonV1.ReportLink | undefined, baseUrl: string): ScanCompletedView {
  const names = moduleNames(modules);
  // The scans service fills only the paid sections; the module list gates them too so the view always agrees
  // with `modules` (grading iff grade|full, value and market iff market|full).
  const wantsGrading = names.includes('grade') || names.includes('full');
  const wantsMarket = names.includes('market') || names.includes('full');
  const view: ScanCompletedView = {
    id,
    status: 'completed',
    modules: names,
    completedAt: isoOrNull(completed.completedAt),
    identification: presentIdentification(completed),
    links: { self: scanPath(id), ...(link ? { report: reportUrl(baseUrl, link.token) } : {}) },
    reportExpiresAt: link ? isoOrNull(link.expiresAt) : null,
  };
  if (wantsGrading && completed.grading) view.grading = presentGrading(id, completed.grading);
  if (wantsMarket && completed.value) view.value = presentValue(completed.value);
  if (wantsMarket && completed.market) view.market = presentMarket(completed.market);
  if (completed.creditsRefunded > 0) view.refund = { credits: nonNegativeInt(completed.creditsRefunded), reason: completed.refundReason };
  return view;
}

// ---------------------------------------------------------------------------------------------- identification

const PRINT_RUN = /^(\/[0-9]+)?$/;

/** `/<n>` or empty, as the document requires; `199` and `023/199` read as `/199`, anything else as unknown. */
function printRun(value: string): string {
  const trimmed = value.trim();
  if (PRINT_RUN.test(trimmed)) return trimmed;
  const match = /^(?:[0-9]*\s*\/\s*)?([0-9]+)$/.exec(trimmed);
  return match ? `/${match[1]}` : '';
}

function identificationFields(identification: commonV1.Identification | undefined): IdentificationFields {
  return {
    name: identification?.name ?? '',
    subject: identification?.subject ?? '',
    category: identification?.category ?? '',
    year: identification?.year ?? '',
    set: identification?.set ?? '',
    number: identification?.number ?? '',
    parallel: identification?.parallel ?? '',
    printRun: printRun(identification?.printRun ?? ''),
  };
}

function presentIdentification(completed: scansV1.ScanCompleted): IdentificationView {
  return {
    ...identificationFields(completed.identification),
    confidence: unit(completed.identificationConfidence),
    inCatalog: completed.inCatalog,
    candidates: completed.candidates.map((candidate) => ({
      ...identificationFields(candidate.identification),
      confidence: unit(candidate.confidence),
    })),
  };
}

// ---------------------------------------------------------------------------------------------- grading

const DEFECT_KINDS: Partial<Record<commonV1.DefectKind, DefectKindName>> = {
  [commonV1.DefectKind.CORNER_WEAR]: 'corner_wear',
  [commonV1.DefectKind.EDGE_WEAR]: 'edge_wear',
  [commonV1.DefectKind.SURFACE_SCRATCH]: 'scratch',
  [commonV1.DefectKind.SURFACE_DENT]: 'dent',
  [commonV1.DefectKind.CREASE]: 'crease',
  [commonV1.DefectKind.STAIN]: 'stain',
  [commonV1.DefectKind.PRINT_DEFECT]: 'print_defect',
};

/** The aspects a grade can leave unassessed: the contract's NotAssessedItem. */
const NOT_ASSESSED_ITEMS = new Set<string>(NotAssessedItem.options);
const isNotAssessedItem = (item: string): item is NotAssessedItem => NOT_ASSESSED_ITEMS.has(item);

/** Severity 0-1 -> bucket: minor below 0.34, moderate below 0.67, major above. */
export function severityName(severity: number): DefectView['severity'] {
  if (!(severity >= 0.34)) return 'minor';
  return severity < 0.67 ? 'moderate' : 'major';
}

/**
 * Centering of one side. `leftRight`/`topBottom` of the proto are the left/top share in percent; the view gives
 * both shares to one decimal (summing to 100) and the rounded `"<left>/<right>"` strings.
 */
export function centeringRatio(ratios: commonV1.CenteringRatios | undefined): CenteringRatioView {
  const lr = clamp(ratios?.leftRight ?? 50, 0, 100);
  const tb = clamp(ratios?.topBottom ?? 50, 0, 100);
  const left = round1(lr);
  const top = round1(tb);
  return {
    leftRight: `${Math.round(lr)}/${100 - Math.round(lr)}`,
    topBottom: `${Math.round(tb)}/${100 - Math.round(tb)}`,
    left,
    right: round1(100 - left),
    top,
    bottom: round1(100 - top),
  };
}

export const presentSubGrades = (grades: commonV1.SubGrades | commonV1.SideSubGrades | undefined): SubGradesView => ({
  centering: score(grades?.centering ?? 0),
  corners: score(grades?.corners ?? 0),
  edges: score(grades?.edges ?? 0),
  surface: score(grades?.surface ?? 0),
});

const confidences = (values: commonV1.SubGrades | undefined): SubGradesView => ({
  centering: unit(values?.centering ?? 0),
  corners: unit(values?.corners ?? 0),
  edges: unit(values?.edges ?? 0),
  surface: unit(values?.surface ?? 0),
});

/** The engine's reason for a not-assessed item; results stored before reasons were recorded get a generic one. */
function reasonOf(grading: commonV1.Grading, item: string): string {
  const given = grading.notAssessedReasons.find((r) => r.item === item)?.reason;
  if (given) return given;
  return item.startsWith('back_') && grading.back === undefined ? 'the back was not photographed' : 'the photo could not support this measurement';
}

/** The aspects the engine could not assess, each with its reason. */
export function presentNotAssessed(grading: commonV1.Grading): { notAssessed: NotAssessedItem[]; notAssessedReasons: { item: NotAssessedItem; reason: string }[] } {
  const notAssessed = [...new Set(grading.notAssessed)].filter(isNotAssessedItem);
  return { notAssessed, notAssessedReasons: notAssessed.map((item) => ({ item, reason: reasonOf(grading, item) })) };
}

/** Numbers of the aspects that were assessed; null for the others (a "nothing seen" placeholder is no reading). */
export function assessedOnly(view: SubGradesView, assessed: Record<Aspect, boolean>): AssessedSubGradesView {
  return Object.fromEntries(ASPECTS.map((aspect) => [aspect, assessed[aspect] ? view[aspect] : null])) as AssessedSubGradesView;
}

function presentGrading(scanId: number, grading: commonV1.Grading): ScanGradingView {
  const predicted = grading.predictedGrade;
  const assessed = gradingAssessment(grading);
  return {
    grade: assessed.graded ? score(grading.grade) : null,
    predictedGrade: assessed.graded && predicted !== undefined && Number.isFinite(predicted) ? score(predicted) : null,
    subGrades: assessedOnly(presentSubGrades(grading.subGrades), assessed.aspects),
    summary: grading.summary,
    justification: grading.justification,
    centering: {
      front: assessed.front.centering && grading.frontCentering ? centeringRatio(grading.frontCentering) : null,
      back: assessed.back?.centering && grading.backCentering ? centeringRatio(grading.backCentering) : null,
    },
    subGradeConfidence: assessedOnly(confidences(grading.subGradeConfidences), assessed.aspects),
    defects: grading.defects.map((defect) => ({
      kind: DEFECT_KINDS[defect.kind] ?? 'other',
      side: defect.side === commonV1.Side.BACK ? 'back' : 'front',
      location: defect.location,
      severity: severityName(defect.severity),
      description: defect.description,
    })),
    ...presentNotAssessed(grading),
    frontBack: {
      // Without per-side detail for the front, the overall sub-grades are the front's (they rest on it).
      front: assessedOnly(presentSubGrades(grading.front ?? grading.subGrades), assessed.front),
      back: grading.back && assessed.back ? assessedOnly(presentSubGrades(grading.back), assessed.back) : null,
    },
    engine: presentEngine(grading),
    links: grading.overlayAvailable ? { overlay: `${scanPath(scanId)}/overlay` } : {},
  };
}

// ---------------------------------------------------------------------------------------------- value and market

const CONFIDENCE_NAMES: Partial<Record<commonV1.ConfidenceLevel, 'High' | 'Medium' | 'Low'>> = {
  [commonV1.ConfidenceLevel.HIGH]: 'High',
  [commonV1.ConfidenceLevel.MEDIUM]: 'Medium',
  [commonV1.ConfidenceLevel.LOW]: 'Low',
};

function presentValue(value: commonV1.ValueEstimate): ValueEstimateView {
  return {
    rawEstimate: usdOrNull(value.rawEstimateCents),
    gradedEstimate: usdOrNull(value.gradedEstimateCents),
    currency: 'USD',
    gradedValueSpread: value.gradedValueSpread
      .filter((entry) => entry.valueCents > 0 && entry.grade >= 1 && entry.grade <= 10)
      .map((entry) => ({ grade: entry.grade, value: entry.valueCents / 100, confidence: CONFIDENCE_NAMES[entry.confidence] ?? 'Low' })),
    // One reason often explains both estimates ("no sales for this card"): say it once.
    reasons: [...new Set([value.rawEstimateUnavailableReason, value.gradedEstimateUnavailableReason])].filter(
      (reason): reason is string => reason !== undefined && reason !== '',
    ),
    freshness: {
      latestSaleDate: value.latestCompAt ? isoFromTimestamp(value.latestCompAt).slice(0, 10) : null,
      compCount: nonNegativeInt(value.compCount),
    },
    sampleData: value.sampleData,
    printing: value.printing || null,
    rawRange:
      value.rawLowCents !== undefined && value.rawHighCents !== undefined && value.rawLowCents > 0 && value.rawHighCents >= value.rawLowCents
        ? { low: value.rawLowCents / 100, high: value.rawHighCents / 100 }
        : null,
    sources: { raw: presentSource(value.rawSource), graded: presentSource(value.gradedSource) },
  };
}

function presentSource(source: commonV1.PriceSource | undefined): PriceSourceView | null {
  if (!source || !source.name || !/^\d{4}-\d{2}-\d{2}$/.test(source.asOf)) return null;
  return { name: source.name, asOf: source.asOf, dataPoints: nonNegativeInt(source.dataPoints), attribution: source.attribution };
}

const RECOMMENDATIONS: Partial<Record<commonV1.GradingRecommendation, MarketAnalysisView['gradingRecommendation']>> = {
  [commonV1.GradingRecommendation.GRADE]: 'grade',
  [commonV1.GradingRecommendation.NEUTRAL]: 'neutral',
  [commonV1.GradingRecommendation.SKIP]: 'dont_grade',
  [commonV1.GradingRecommendation.DONT_GRADE]: 'dont_grade',
};

const finiteOrNull = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? value : null);

function presentMarket(market: commonV1.MarketAnalysis): MarketAnalysisView {
  return {
    insights: market.insights,
    gradingRecommendation: RECOMMENDATIONS[market.gradingRecommendation] ?? 'neutral',
    context: market.context ?? null,
    trend: {
      change30dPercent: finiteOrNull(market.trend?.change30dPercent),
      change90dPercent: finiteOrNull(market.trend?.change90dPercent),
      salesLast30Days: nonNegativeInt(market.trend?.sales30d ?? 0),
      salesLast90Days: nonNegativeInt(market.trend?.sales90d ?? 0),
      basis: market.trend?.basis === 'daily_market_price' ? 'daily_market_price' : 'sales',
      priceDaysLast30Days: nonNegativeInt(market.trend?.priceDays30d ?? 0),
      volatility30dPercent: finiteOrNull(market.trend?.volatility30dPercent),
    },
  };
}
