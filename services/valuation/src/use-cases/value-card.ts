// Value estimates and market analysis of one catalog card (and printing) from its stored comps.
import type { PrismaClient } from '../db';
import { DEFAULT_ESTIMATE_OPTIONS, estimateValue, unavailableEstimate } from '../domain/estimate';
import type { GradePremiumModel } from '../domain/grade-premium';
import { analyzeMarket } from '../domain/market';
import { DEFAULT_SAMPLE_SOURCE } from '../domain/sales-generator';
import type { GradeProbability, MarketAnalysis, Sale, ValueEstimate } from '../domain/types';
import { salesOf } from './sales-query';

export interface ValuationDeps {
  prisma: PrismaClient;
  /** The current grade-premium fit. */
  premium: () => GradePremiumModel;
  gradingCostCents: number;
  now?: () => Date;
}

export interface ValueRequest {
  cardId: string;
  /** As identification names it; '' or `Base` for the base card. */
  parallel: string;
  predictedGrade: number | null;
  gradeDistribution: GradeProbability[];
}

export interface CardValue {
  estimate: ValueEstimate;
  sampleData: boolean;
}

function normaliseParallel(parallel: string): string {
  const p = parallel.trim();
  return /^base$/i.test(p) ? '' : p;
}

async function compsFor(deps: ValuationDeps, request: ValueRequest): Promise<{ comps: Sale[] | null; now: Date }> {
  const now = deps.now?.() ?? new Date();
  if (!request.cardId) return { comps: null, now };
  const card = await deps.prisma.catalogCard.findUnique({ where: { id: request.cardId }, select: { id: true } });
  if (!card) return { comps: null, now };
  return { comps: await salesOf(deps.prisma, request.cardId, normaliseParallel(request.parallel), DEFAULT_ESTIMATE_OPTIONS.lookbackDays, now), now };
}

const isSample = (comps: Sale[]): boolean => comps.length > 0 && comps.every((s) => s.source === DEFAULT_SAMPLE_SOURCE);

export async function valueCard(deps: ValuationDeps, request: ValueRequest): Promise<CardValue> {
  const { comps, now } = await compsFor(deps, request);
  if (comps === null) return { estimate: unavailableEstimate('card not in catalog'), sampleData: false };
  const estimate = estimateValue({
    sales: comps,
    now,
    premium: deps.premium(),
    predictedGrade: request.predictedGrade,
    gradeDistribution: request.gradeDistribution.length > 0 ? request.gradeDistribution : null,
  });
  return { estimate, sampleData: isSample(comps) };
}

export async function analyzeCardMarket(deps: ValuationDeps, request: ValueRequest): Promise<CardValue & { market: MarketAnalysis }> {
  const { comps, now } = await compsFor(deps, request);
  if (comps === null) {
    const estimate = unavailableEstimate('card not in catalog');
    return {
      estimate,
      sampleData: false,
      market: {
        insights: 'No market data: the card is not in the catalog.',
        gradingRecommendation: 'neutral',
        context: 'The card could not be matched to a catalog card, so no sales are known for it.',
        trend: { change30dPercent: null, change90dPercent: null, sales30d: 0, sales90d: 0, medianPrice30dCents: null, volatility: null },
        expectedGradedValueCents: null,
      },
    };
  }
  const premium = deps.premium();
  const gradeDistribution = request.gradeDistribution.length > 0 ? request.gradeDistribution : null;
  const estimate = estimateValue({ sales: comps, now, premium, predictedGrade: request.predictedGrade, gradeDistribution });
  const sampleData = isSample(comps);
  const market = analyzeMarket({
    sales: comps,
    now,
    estimate,
    premium,
    predictedGrade: request.predictedGrade,
    gradeDistribution,
    gradingCostCents: deps.gradingCostCents,
    isSampleData: sampleData,
  });
  return { estimate, sampleData, market };
}
