import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BlobStore } from '@cardlens/blob-store';
import { commonV1, gradingAssessment, REPORT_LINK_DEFAULT_TTL_DAYS, scansV1, timestampFromDate, type inferenceV1, type valuationV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { analysisFailure } from '../domain/analysis-deadline';
import type { EngineTurns } from '../domain/engine-turns';
import { sectionsFor } from '../domain/modules';
import { replaceReportLink } from './report-links';
import { refundDueScan } from './sweep-queued-scans';

export interface ProcessScanDeps {
  prisma: PrismaClient;
  blobs: BlobStore;
  downstream: Pick<Downstream, 'analyzeCard' | 'identifyCard' | 'analyzeMarket' | 'billing'>;
  logger: Logger;
  /** Lifetime of the share link issued with each completed scan (REPORT_LINK_TTL_DAYS). */
  reportLinkTtlDays?: number;
  /** The worker's turns on the engine: fair share per account, then first come (absent: no wait, as when a test runs one job). */
  turns?: EngineTurns;
}

/** One delivery of a scan job, as the bus hands it over. */
export interface ScanJob {
  scanId: number;
  attempt: number;
  lastAttempt: boolean;
  /** Aborted when the worker stops: a job waiting for its turn gives up (its message is delivered again). */
  signal?: AbortSignal;
  /** Keeps a Kafka consumer alive while the job waits for its turn. */
  heartbeat?: () => Promise<void>;
}

/** The stages a client sees while polling; progressPercent is set as each one starts. */
export const STAGES = {
  analyzing: { progress: 10, message: 'Analysing the photos' },
  identifying: { progress: 60, message: 'Identifying the card' },
  valuing: { progress: 80, message: 'Valuing the card from recent sales' },
  saving: { progress: 95, message: 'Saving the result' },
} as const;

/** The error a failed scan shows: generic on purpose; the cause goes to the logs and the trace. */
export const GENERIC_FAILURE = 'The scan could not be completed. Credits are not refunded automatically for failed scans; contact support with the scan id.';
const TOO_COMPLEX_FAILURE =
  'The photo could not be analysed within the time or memory an analysis may use, so it was not retried; its credits were refunded. Photograph the card alone, flat and filling most of the frame, on a plain background, then submit a new scan.';
const UNREADABLE_FAILURE =
  'The photo passed the upload checks but the engine could not decode it, so it was not analysed; its credits were refunded. Send a plain JPEG, PNG or WebP photo of the card.';
const NO_CARD_FAILURE =
  'No card could be found in the front photo. Photograph the card flat, filling most of the frame, on a plain background that contrasts with its border, then submit a new scan.';

/** Why a completed scan's grading part was refunded (the grading's notAssessedReasons give each aspect's reason). */
export const NO_GRADE_REFUND = 'No grade could be given: nothing on the card could be assessed from the photos (see grading.notAssessedReasons), so the grading part of the price was refunded.';

export type ScanJobOutcome = 'completed' | 'failed' | 'skipped' | 'superseded';

/**
 * Runs one delivery of a scan job: inference (grade and identification evidence), identification, and value
 * and market by the paid modules, then saves the result. Exactly once in effect: a scan that is already
 * completed, failed or abandoned is skipped; a redelivered scan (its worker died mid-job) is processed again
 * from the stored images; results are written under a key of their own run and the scan completes with a
 * conditional update, so only one run's result is ever shown. Transient failures throw (the bus redelivers
 * with backoff) until the last attempt, which marks the scan failed; a photo without a card fails at once, and
 * one the engine could not analyse (past its budget, undecodable, or an analysis call that ran out its deadline:
 * domain/analysis-deadline.ts) fails at once, refunded.
 */
export async function processScanJob(deps: ProcessScanDeps, job: ScanJob): Promise<ScanJobOutcome> {
  const waiting = await deps.prisma.scan.findUnique({
    where: { id: BigInt(job.scanId) },
    select: { status: true, createdAt: true, agentId: true, frontSha256: true, backSha256: true },
  });
  if (!waiting || (waiting.status !== 'queued' && waiting.status !== 'processing')) return 'skipped';
  // The scan stays queued until its turn on the engine: a fair share per account, then scans queued earlier first;
  // a copy of photos on the engine waits for that scan to be done (by their content hashes).
  const photoKey = waiting.frontSha256 ? `${waiting.frontSha256}:${waiting.backSha256 ?? ''}` : null;
  const turn = deps.turns
    ? await deps.turns.take({ agentId: waiting.agentId, queuedAt: waiting.createdAt, photoKey }, { signal: job.signal, heartbeat: job.heartbeat })
    : { release: () => {} };
  try {
    return await runScanJob(deps, job, turn);
  } finally {
    turn.release();
  }
}

async function runScanJob(deps: ProcessScanDeps, job: ScanJob, turn: { release(): void }): Promise<ScanJobOutcome> {
  const { prisma, blobs, downstream, logger } = deps;
  const id = BigInt(job.scanId);
  const started = await prisma.scan.updateMany({
    where: { id, status: { in: ['queued', 'processing'] } },
    data: { status: 'processing', progressPercent: STAGES.analyzing.progress, statusMessage: STAGES.analyzing.message, startedAt: new Date(), attempts: { increment: 1 } },
  });
  if (started.count === 0) return 'skipped';
  const scan = await prisma.scan.findUniqueOrThrow({ where: { id } });
  const sections = sectionsFor(scan.modules);
  const run = randomUUID();
  const progress = (stage: (typeof STAGES)[keyof typeof STAGES]) =>
    prisma.scan.updateMany({ where: { id, status: 'processing' }, data: { progressPercent: stage.progress, statusMessage: stage.message } });

  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    timings[stage] = Math.round(now - mark);
    mark = now;
  };
  try {
    const front = await readImage(blobs, scan.frontKey);
    const back = scan.backKey ? await readImage(blobs, scan.backKey) : undefined;
    // The market module values the card at its predicted grade, so it grades too (the grading section itself is
    // shown only when paid for).
    const analysis = await analyze(deps, { front, back, grading: sections.grading || sections.valuation, overlay: sections.grading });
    turn.release(); // identification and valuation do not use the engine

    lap('analyzeMs');
    await progress(STAGES.identifying);
    const identified = await downstream.identifyCard({ evidence: analysis.evidence });
    lap('identifyMs');

    let value: commonV1.ValueEstimate | undefined;
    let market: commonV1.MarketAnalysis | undefined;
    if (sections.valuation) {
      await progress(STAGES.valuing);
      ({ value, market } = await valueCard(downstream, identified, analysis.grading));
      lap('valueMs');
    }

    await progress(STAGES.saving);
    let overlayKey: string | null = null;
    if (sections.grading && analysis.overlayPng && analysis.overlayPng.length > 0) {
      overlayKey = `scans/${scan.id}/runs/${run}/overlay.png`;
      await blobs.put(overlayKey, analysis.overlayPng, 'image/png');
    }
    const completedAt = new Date();
    // A paid grade with nothing measured behind it is no grade: its part of the price goes back.
    const noGrade = sections.grading && analysis.grading !== undefined && !gradingAssessment(analysis.grading).graded;
    const creditsRefunded = noGrade ? scan.gradingCredits : 0;
    const result: scansV1.ScanCompleted = {
      identification: identified.identification,
      grading: sections.grading && analysis.grading ? { ...analysis.grading, overlayAvailable: overlayKey !== null } : undefined,
      value,
      market,
      completedAt: timestampFromDate(completedAt),
      identificationConfidence: identified.confidence,
      inCatalog: identified.inCatalog,
      ...(identified.cardId ? { cardId: identified.cardId } : {}),
      candidates: identified.candidates.map((c) => ({ identification: c.identification, confidence: c.score })),
      notInCatalogReason: identified.notInCatalogReason,
      creditsRefunded,
      refundReason: noGrade ? NO_GRADE_REFUND : '',
    };
    const resultKey = `scans/${scan.id}/runs/${run}/result.json`;
    await blobs.put(resultKey, Buffer.from(JSON.stringify(scansV1.ScanCompleted.toJSON(result))), 'application/json');
    // Completed together with its share link, so every completed scan has a report to open.
    const completed = await prisma.$transaction(async (tx) => {
      const done = await tx.scan.updateMany({
        where: { id, status: 'processing' },
        data: { status: 'completed', progressPercent: 100, statusMessage: null, resultKey, overlayKey, completedAt, ...(creditsRefunded > 0 ? { refundDue: true, creditsRefunded } : {}) },
      });
      if (done.count === 1) await replaceReportLink(tx, { id, agentId: scan.agentId }, deps.reportLinkTtlDays ?? REPORT_LINK_DEFAULT_TTL_DAYS, completedAt);
      return done;
    });
    lap('saveMs');
    logger.info({ scanId: job.scanId, attempt: job.attempt, ...timings }, completed.count === 1 ? 'scan completed' : 'scan completed by another delivery');
    if (completed.count === 0) {
      // Another delivery of this job finished first; its result stands and this run's copy goes.
      await Promise.all([blobs.delete(resultKey), overlayKey ? blobs.delete(overlayKey) : undefined]);
      return 'superseded';
    }
    // Refunded now; where billing cannot be reached, the queue sweep refunds it (once: by the debit's id).
    if (creditsRefunded > 0) await refundDueScan({ prisma, billing: downstream.billing, logger }, { ...scan, status: 'completed', creditsRefunded });
    return 'completed';
  } catch (error) {
    const noCard = error instanceof AppError && error.code === 'card_not_found';
    const tooComplex = error instanceof AppError && error.code === 'image_too_complex';
    const permanent = noCard || (error instanceof AppError && error.httpStatus < 500);
    if (!permanent && !job.lastAttempt) {
      logger.warn({ err: error, scanId: job.scanId, attempt: job.attempt }, 'scan job failed; it will be redelivered');
      throw error;
    }
    logger.error({ err: error, scanId: job.scanId, attempt: job.attempt }, 'scan failed');
    // A photo the engine could not analyse at all (past its budget, or undecodable) is not the customer's to pay
    // for: the scan is refunded in full. A photo analysed without finding a card stays charged (the engine ran and
    // answered).
    const unreadable = error instanceof AppError && error.code === 'invalid_image';
    const refund = tooComplex || unreadable;
    const failed = await prisma.scan.updateMany({
      where: { id, status: 'processing' },
      data: {
        status: 'failed',
        error: noCard ? NO_CARD_FAILURE : tooComplex ? TOO_COMPLEX_FAILURE : unreadable ? UNREADABLE_FAILURE : GENERIC_FAILURE,
        completedAt: new Date(),
        ...(refund ? { refundDue: true } : {}),
      },
    });
    // Refunded now; where billing cannot be reached, the queue sweep refunds it (once: by the debit's id).
    if (refund && failed.count === 1) await refundDueScan({ prisma, billing: downstream.billing, logger }, { ...scan, status: 'failed' });
    return 'failed';
  }
}

async function readImage(blobs: BlobStore, key: string | null): Promise<Uint8Array> {
  const blob = key ? await blobs.get(key) : null;
  if (!blob) throw new Error(`stored image ${key ?? '(none)'} is missing`);
  return blob.bytes;
}

/**
 * One inference call for everything the modules need. When the card is found on the front but not on the back
 * photo, the scan goes on with the front alone and the grading lists the back aspects as not assessed.
 */
async function analyze(
  deps: ProcessScanDeps,
  input: { front: Uint8Array; back?: Uint8Array; grading: boolean; overlay: boolean },
): Promise<inferenceV1.AnalyzeCardResponse & { evidence: commonV1.IdentificationEvidence }> {
  const request = { front: Buffer.from(input.front), wantGrading: input.grading, wantEvidence: true, wantOverlay: input.overlay };
  // A call that ran out its deadline had the photo on the engine: it fails the scan (refunded), never redelivered.
  const analyzeCard = (r: inferenceV1.AnalyzeCardRequest) => deps.downstream.analyzeCard(r).catch((error: unknown) => Promise.reject(analysisFailure(error)));
  let response: inferenceV1.AnalyzeCardResponse;
  try {
    response = await analyzeCard({ ...request, ...(input.back ? { back: Buffer.from(input.back) } : {}) });
  } catch (error) {
    if (!(input.back && error instanceof AppError && error.code === 'card_not_found')) throw error;
    response = await analyzeCard(request);
  }
  if (!response.evidence) throw new Error('inference returned no identification evidence');
  return { ...response, evidence: response.evidence };
}

/** Value and market for an identified card; for a card not in the catalog both say so, with no numbers. */
async function valueCard(
  downstream: ProcessScanDeps['downstream'],
  identified: valuationV1.IdentifyCardResponse,
  grading: commonV1.Grading | undefined,
): Promise<{ value: commonV1.ValueEstimate; market: commonV1.MarketAnalysis }> {
  if (!identified.inCatalog || !identified.cardId) {
    const reason = 'card not in catalog';
    return {
      value: {
        currency: 'USD',
        gradedValueSpread: [],
        rawEstimateUnavailableReason: reason,
        gradedEstimateUnavailableReason: reason,
        compCount: 0,
        sampleData: false,
        method: '',
        printing: '',
      },
      market: {
        insights: 'The card could not be matched to the catalog, so there are no comparable sales to estimate its value from.',
        gradingRecommendation: commonV1.GradingRecommendation.NEUTRAL,
        context: identified.notInCatalogReason || 'Not identified in the catalog.',
        trend: { sales30d: 0, sales90d: 0, basis: 'sales', priceDays30d: 0 },
      },
    };
  }
  const response = await downstream.analyzeMarket({
    cardId: identified.cardId,
    parallel: identified.identification?.parallel ?? '',
    ...(grading?.predictedGrade !== undefined ? { predictedGrade: grading.predictedGrade } : {}),
    gradeDistribution: grading?.gradeDistribution ?? [],
  });
  if (!response.value || !response.market) throw new Error('valuation returned no estimate');
  return { value: response.value, market: response.market };
}
