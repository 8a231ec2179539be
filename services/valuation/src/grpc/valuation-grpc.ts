import type * as grpc from '@grpc/grpc-js';
import { commonV1, dateFromTimestamp, timestampFromDate, valuationEventsV1, valuationV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { appErrorToStatus, unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import type { GradingRecommendation, ListingType, MarketAnalysis, Sale, ValueEstimate } from '../domain/types';
import type { FingerprintIndex } from '../identification/fingerprint-index';
import { identifyCard } from '../use-cases/identify-card';
import { ingestSales, type IngestResult } from '../use-cases/ingest-sales';
import { registerReference } from '../use-cases/register-reference';
import { analyzeCardMarket, valueCard, type ValuationDeps, type ValueRequest } from '../use-cases/value-card';

export interface ValuationGrpcDeps extends ValuationDeps {
  prisma: PrismaClient;
  fingerprints: FingerprintIndex;
  fingerprintDims: number;
  /** Called after sales were inserted (refits the grade-premium model when enough changed). */
  onSalesInserted: (result: IngestResult) => void;
  logger: Logger;
}

/** Sales stored per statement while an ImportSales stream is read. */
const IMPORT_BATCH = 2000;

const CONFIDENCE: Record<'High' | 'Medium' | 'Low', commonV1.ConfidenceLevel> = {
  High: commonV1.ConfidenceLevel.HIGH,
  Medium: commonV1.ConfidenceLevel.MEDIUM,
  Low: commonV1.ConfidenceLevel.LOW,
};

const RECOMMENDATION: Record<GradingRecommendation, commonV1.GradingRecommendation> = {
  grade: commonV1.GradingRecommendation.GRADE,
  neutral: commonV1.GradingRecommendation.NEUTRAL,
  dont_grade: commonV1.GradingRecommendation.DONT_GRADE,
};

const LISTING: Partial<Record<valuationEventsV1.ListingType, ListingType>> = {
  [valuationEventsV1.ListingType.AUCTION]: 'auction',
  [valuationEventsV1.ListingType.FIXED_PRICE]: 'fixed_price',
  [valuationEventsV1.ListingType.BEST_OFFER]: 'best_offer',
};

export function valueToProto(estimate: ValueEstimate, sampleData: boolean): commonV1.ValueEstimate {
  return {
    ...(estimate.rawEstimateCents !== null ? { rawEstimateCents: estimate.rawEstimateCents } : {}),
    ...(estimate.gradedEstimateCents !== null ? { gradedEstimateCents: estimate.gradedEstimateCents } : {}),
    currency: 'USD',
    gradedValueSpread: estimate.gradedValueSpread.map((g) => ({ grade: g.grade, valueCents: g.valueCents, confidence: CONFIDENCE[g.confidence] })),
    ...(estimate.rawEstimateUnavailableReason !== null ? { rawEstimateUnavailableReason: estimate.rawEstimateUnavailableReason } : {}),
    ...(estimate.gradedEstimateUnavailableReason !== null ? { gradedEstimateUnavailableReason: estimate.gradedEstimateUnavailableReason } : {}),
    ...(estimate.gradedEstimateGrade !== null ? { gradedEstimateGrade: estimate.gradedEstimateGrade } : {}),
    latestCompAt: estimate.latestCompAt ? timestampFromDate(estimate.latestCompAt) : undefined,
    compCount: estimate.compCount,
    sampleData,
    method: estimate.method,
    rawSource: estimate.rawSource ?? undefined,
    gradedSource: estimate.gradedSource ?? undefined,
    printing: estimate.printing ?? '',
    ...(estimate.rawLowCents != null ? { rawLowCents: estimate.rawLowCents } : {}),
    ...(estimate.rawHighCents != null ? { rawHighCents: estimate.rawHighCents } : {}),
  };
}

function marketToProto(market: MarketAnalysis): commonV1.MarketAnalysis {
  const t = market.trend;
  return {
    insights: market.insights,
    gradingRecommendation: RECOMMENDATION[market.gradingRecommendation],
    ...(market.context !== null ? { context: market.context } : {}),
    trend: {
      ...(t.change30dPercent !== null ? { change30dPercent: t.change30dPercent } : {}),
      ...(t.change90dPercent !== null ? { change90dPercent: t.change90dPercent } : {}),
      sales30d: t.sales30d,
      sales90d: t.sales90d,
      ...(t.medianPrice30dCents !== null ? { medianPrice30dCents: t.medianPrice30dCents } : {}),
      ...(t.volatility !== null ? { volatilityPercent: Math.round(t.volatility * 1000) / 10 } : {}),
      basis: t.basis ?? 'sales',
      priceDays30d: t.priceDays30d ?? 0,
      ...(t.volatility30d != null ? { volatility30dPercent: Math.round(t.volatility30d * 1000) / 10 } : {}),
    },
  };
}

/** A sales record from the proto (RPC or Kafka feed) as a domain sale, or the reason it cannot be one. */
export function saleFromProto(record: valuationEventsV1.SalesRecord): Sale | string {
  if (record.currency && record.currency !== 'USD') return `currency ${record.currency} is not supported (USD only)`;
  if (!record.soldAt) return 'sold_at is missing';
  const listingType = LISTING[record.listingType];
  if (!listingType) return 'listing_type is missing';
  return {
    source: record.source,
    sourceId: record.sourceId,
    cardId: record.cardId,
    parallel: /^base$/i.test(record.parallel.trim()) ? '' : record.parallel.trim(),
    grader: record.graded ? record.graded.grader.toUpperCase() : null,
    grade: record.graded ? record.graded.grade : null,
    priceCents: Number(record.priceCents),
    soldAt: dateFromTimestamp(record.soldAt),
    listingType,
    title: record.title,
  };
}

function valueRequest(request: { cardId: string; parallel: string; predictedGrade?: number | undefined; gradeDistribution: commonV1.GradeProbability[] }): ValueRequest {
  if (request.predictedGrade !== undefined && !(request.predictedGrade >= 1 && request.predictedGrade <= 10)) {
    throw new AppError('invalid_body', 'predicted_grade must be 1-10');
  }
  return {
    cardId: request.cardId,
    parallel: request.parallel,
    predictedGrade: request.predictedGrade ?? null,
    gradeDistribution: request.gradeDistribution.filter((g) => g.probability > 0).map((g) => ({ grade: g.grade, probability: g.probability })),
  };
}

export function valuationGrpcService(deps: ValuationGrpcDeps): GrpcService {
  // Streams of any length: records are stored in batches as they arrive (the stream is paused while a batch is
  // written), so memory stays bounded by one batch.
  const importSales: grpc.handleClientStreamingCall<valuationV1.ImportSalesRequest, valuationV1.ImportSalesResponse> = (call, callback) => {
    const totals = { received: 0, inserted: 0, duplicates: 0, rejected: 0 };
    let batch: Sale[] = [];
    let writing: Promise<void> = Promise.resolve();
    let failed = false;
    const flush = (sales: Sale[]) => {
      writing = writing.then(async () => {
        if (failed || sales.length === 0) return;
        const result = await ingestSales(deps.prisma, sales);
        totals.inserted += result.inserted;
        totals.duplicates += result.duplicates;
        totals.rejected += result.rejected;
        if (result.inserted > 0) deps.onSalesInserted(result);
      });
      writing.catch((error: unknown) => {
        if (!failed) deps.logger.error({ err: error }, 'sales import failed');
        failed = true;
      });
    };
    call.on('data', (message: valuationV1.ImportSalesRequest) => {
      totals.received++;
      const sale = message.record ? saleFromProto(message.record) : 'empty message';
      if (typeof sale === 'string') totals.rejected++;
      else batch.push(sale);
      if (batch.length >= IMPORT_BATCH) {
        call.pause();
        flush(batch);
        batch = [];
        void writing.then(
          () => call.resume(),
          () => call.resume(),
        );
      }
    });
    call.on('error', () => undefined);
    call.on('end', () => {
      flush(batch);
      batch = [];
      writing.then(
        () => callback(null, totals),
        () => callback(appErrorToStatus(new AppError('internal_error'))),
      );
    });
  };

  const implementation: valuationV1.ValuationServiceServer = {
    identifyCard: unaryHandler<valuationV1.IdentifyCardRequest, valuationV1.IdentifyCardResponse>(async (request) => {
      const e = request.evidence;
      const result = await identifyCard(deps, {
        titleText: e?.titleText ?? '',
        titleAlternatives: e?.titleAlternatives ?? [],
        numberText: e?.numberText ?? '',
        numberAlternatives: e?.numberAlternatives ?? [],
        serialText: e?.serialText ?? '',
        copyrightText: e?.copyrightText ?? '',
        fingerprint: e?.fingerprint ?? [],
        finishCues: e?.finishCues ?? [],
        otherText: e?.otherText ?? [],
        borderColor: e?.borderColor ?? '',
        holderLabelText: e?.holderLabelText ?? [],
      });
      return {
        identification: result.identification,
        confidence: result.confidence,
        inCatalog: result.inCatalog,
        ...(result.cardId !== null ? { cardId: result.cardId } : {}),
        candidates: result.candidates.map((c) => ({ cardId: c.cardId, identification: c.identification, score: c.score })),
        notInCatalogReason: result.reason ?? '',
      };
    }),
    valueCard: unaryHandler<valuationV1.ValueCardRequest, valuationV1.ValueCardResponse>(async (request) => {
      const { estimate, sampleData } = await valueCard(deps, valueRequest(request));
      return { value: valueToProto(estimate, sampleData) };
    }),
    analyzeMarket: unaryHandler<valuationV1.AnalyzeMarketRequest, valuationV1.AnalyzeMarketResponse>(async (request) => {
      const { estimate, sampleData, market } = await analyzeCardMarket(deps, valueRequest(request));
      return { market: marketToProto(market), value: valueToProto(estimate, sampleData) };
    }),
    importSales,
    registerReference: unaryHandler<valuationV1.RegisterReferenceRequest, valuationV1.RegisterReferenceResponse>(async (request) =>
      registerReference(deps, { cardId: request.cardId, parallel: request.parallel, fingerprint: request.fingerprint, origin: request.origin || 'registered' }),
    ),
  };
  return { definition: valuationV1.ValuationServiceService, implementation };
}
