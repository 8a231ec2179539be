import { performance } from 'node:perf_hooks';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { commonV1, gradingAssessment, REPORT_LINK_DEFAULT_TTL_DAYS, gradingV1 } from '@cardlens/contracts';
import { AppError, isAppError } from '@cardlens/errors';
import type { Logger } from '@cardlens/telemetry';
import { Prisma, type Grade, type PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { receiptOf, toCommercialGrade } from '../domain/grade-view';
import { photoHashes } from '../domain/photo-hashes';
import type { GradeLeases } from '../grade-leases';
import type { PhotoSpool } from '../photo-spool';
import { liveGradeReportLink, replaceGradeReportLink } from './grade-report-links';

export interface GradeCardDeps {
  prisma: PrismaClient;
  billing: Downstream['billing'];
  analyze: Downstream['analyze'];
  leases: GradeLeases;
  spool: PhotoSpool;
  logger: Logger;
  settings: {
    /** The request budget (60 s): reservation, analysis and commit all fit in it. */
    budgetMs: number;
    /** Lifetime of the share link issued with each completed grade (REPORT_LINK_TTL_DAYS). */
    reportLinkTtlDays?: number;
  };
}

export interface GradeCardRequest {
  agentId: number;
  idempotencyKey: string;
  front: Uint8Array;
  back: Uint8Array;
}

/** Kept free at the end of the budget for saving the result and committing the grade. */
const SETTLE_RESERVE_MS = 2_000;
/** The shortest analysis worth starting; with less budget left the grade is refunded as busy. */
const MIN_ANALYSIS_MS = 500;
/** The lease outlives the budget a little, so only a holder that overran it can ever lose it. */
const LOCK_MARGIN_MS = 10_000;

/**
 * POST /v1/grades: one synchronous grading-only grade, charged to the trial or the monthly allowance.
 *
 * 1. A replay (same key, identical photo bytes) of a completed grade returns it, with no charge; the same key with
 *    other photos is idempotency_key_reused, still in flight idempotency_conflict, refunded grade_refunded.
 * 2. The account's in-flight lease (one grade at a time, grade-leases.ts) is taken with a fencing token, recorded in Postgres.
 * 3. The grade row is written (processing), then billing reserves one grade for its id (402 refusals leave no
 *    trace, so the key can be used again once the account can grade).
 * 4. The photos are spooled to the temporary area, analysed within what is left of the budget, and deleted.
 * 5. The result is saved under the fencing check and the grade committed; any failure after the reservation
 *    refunds it to the period it came from and spends the key.
 *
 * The call runs to its end even when the client has gone, so every reservation is committed or refunded; one
 * that could not be told to billing (billing down) is left `pending` for the settler (settle-grades.ts).
 */
export async function gradeCard(deps: GradeCardDeps, request: GradeCardRequest): Promise<{ grade: gradingV1.CommercialGrade; replayed: boolean }> {
  const { prisma, logger } = deps;
  const started = performance.now();
  if (request.front.length === 0) throw new AppError('missing_front_image', 'The front photo is required.');
  if (request.back.length === 0) throw new AppError('missing_back_image', 'The back photo is required: a commercial grade needs both sides.');
  const hashes = photoHashes(request.front, request.back);
  const key = { agentId: request.agentId, idempotencyKey: request.idempotencyKey };

  const earlier = await prisma.grade.findUnique({ where: { agentId_idempotencyKey: key } });
  if (earlier) return answerEarlier(prisma, earlier, hashes.photoFingerprint);

  const lease = await deps.leases.acquire(request.agentId, deps.settings.budgetMs + LOCK_MARGIN_MS);
  if (!lease) {
    // The request in flight may be this key's own first attempt.
    const sameKey = await prisma.grade.findUnique({ where: { agentId_idempotencyKey: key } });
    if (sameKey) return answerEarlier(prisma, sameKey, hashes.photoFingerprint);
    throw new AppError('grade_in_flight', 'Another grade is in flight for this account; one grade runs at a time. Retry when it has finished.', { retryAfterSeconds: 1 });
  }
  try {
    let grade: Grade;
    try {
      grade = await prisma.$transaction(async (tx) => {
        const fenced = await tx.$executeRaw`
          INSERT INTO "grading"."agent_fences" ("agent_id", "token", "updated_at") VALUES (${request.agentId}, ${lease.token}, now())
          ON CONFLICT ("agent_id") DO UPDATE SET "token" = EXCLUDED."token", "updated_at" = now()
          WHERE "grading"."agent_fences"."token" < EXCLUDED."token"`;
        if (fenced === 0) throw new AppError('grade_in_flight', 'Another grade is in flight for this account. Retry when it has finished.', { retryAfterSeconds: 1 });
        return tx.grade.create({
          data: {
            ...key,
            status: 'processing',
            ...hashes,
            frontBytes: request.front.length,
            backBytes: request.back.length,
            lockToken: lease.token,
          },
        });
      });
    } catch (error) {
      if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
      // The same key was written a moment ago (its first attempt finished between our lookup and our lock).
      return answerEarlier(prisma, await prisma.grade.findUniqueOrThrow({ where: { agentId_idempotencyKey: key } }), hashes.photoFingerprint);
    }

    await reserve(deps, grade);
    const refund = (reason: string) => refundGrade(deps, grade, reason);

    let grading: commonV1.Grading;
    let inferenceMs = 0;
    try {
      const left = deps.settings.budgetMs - (performance.now() - started) - SETTLE_RESERVE_MS;
      if (left < MIN_ANALYSIS_MS) throw new AppError('grader_busy', 'The grade could not start within the request budget.');
      const analysisStarted = performance.now();
      const analysis = await deps.spool.withPhotos(`grade-${grade.id}`, { front: request.front, back: request.back }, (photos) => deps.analyze(photos, Math.floor(left)));
      inferenceMs = Math.round(performance.now() - analysisStarted);
      // Both sides are found and graded, or inference failed (card_not_found) before this point.
      if (!analysis.grading?.back) throw new Error('inference returned no grading of both sides');
      grading = analysis.grading;
      // A grade with nothing measured behind it would be a placeholder: refunded, with the engine's reasons.
      if (!gradingAssessment(grading).graded) throw nothingAssessable(grading);
    } catch (error) {
      const failure = analysisFailure(error);
      logger.warn({ err: error, gradeId: grade.id.toString(), reason: failure.code }, 'grade failed; refunding it');
      await refund(failure.code);
      throw failure;
    }

    const analysisMs = Math.round(performance.now() - started);
    // Completes only while this request's fencing token is the account's newest and no one settled the grade.
    // Completed together with its share link, so every completed grade has a report to open.
    const completed = await prisma.$transaction(async (tx) => {
      const done = await tx.$executeRaw`
        UPDATE "grading"."grades"
        SET "status" = 'completed', "grading" = ${JSON.stringify(receiptOf(grading))}::jsonb, "completed_at" = now(), "analysis_ms" = ${analysisMs}
        WHERE "id" = ${grade.id} AND "status" = 'processing'
          AND EXISTS (SELECT 1 FROM "grading"."agent_fences" f WHERE f."agent_id" = ${grade.agentId} AND f."token" = ${lease.token})`;
      if (done === 1) await replaceGradeReportLink(tx, grade, deps.settings.reportLinkTtlDays ?? REPORT_LINK_DEFAULT_TTL_DAYS);
      return done;
    });
    if (completed === 0) {
      logger.warn({ gradeId: grade.id.toString() }, 'grade overran its lease or was settled meanwhile; refunding it');
      await refund('lock_lost');
      throw new AppError('grader_busy', 'The grade did not finish within the request budget; it was refunded. Retry with a new Idempotency-Key.', { retryAfterSeconds: 2 });
    }
    await settleWithBilling(deps, grade, 'commit');
    const saved = await prisma.grade.findUniqueOrThrow({ where: { id: grade.id } });
    logger.info({ gradeId: grade.id.toString(), agentId: grade.agentId, inferenceMs, totalMs: Math.round(performance.now() - started), billingSource: saved.billingSource }, 'grade completed');
    return { grade: await withReportLink(prisma, toCommercialGrade(saved)), replayed: false };
  } finally {
    await lease.release();
  }
}

/** A completed grade as its owner sees it: with its live share link. */
async function withReportLink(prisma: PrismaClient, grade: gradingV1.CommercialGrade): Promise<gradingV1.CommercialGrade> {
  if (grade.status !== gradingV1.CommercialGradeStatus.COMPLETED) return grade;
  const reportLink = await liveGradeReportLink(prisma, BigInt(grade.gradeId));
  return reportLink ? { ...grade, reportLink } : grade;
}

/** An earlier request with the same key: its result (a replay), or why the key cannot be used now. */
async function answerEarlier(prisma: PrismaClient, grade: Grade, photoFingerprint: string): Promise<{ grade: gradingV1.CommercialGrade; replayed: boolean }> {
  if (grade.photoFingerprint !== photoFingerprint) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for other photos. Use a new key for a new grade.');
  }
  switch (grade.status) {
    case 'completed':
      return { grade: await withReportLink(prisma, toCommercialGrade(grade)), replayed: true };
    case 'processing':
      throw new AppError('idempotency_conflict', 'The grade with this Idempotency-Key is still in flight. Retry shortly with the same key.', { retryAfterSeconds: 1 });
    default:
      throw new AppError('grade_refunded', `Grade ${grade.id} with this Idempotency-Key failed and was refunded. Retry with a new Idempotency-Key.`);
  }
}

/**
 * Reserves one grade for the row. A refusal (402) removes the row: nothing happened and the key is free again.
 * Any other failure may or may not have reserved (a lost answer), so the grade is refunded by its id first.
 */
async function reserve(deps: GradeCardDeps, grade: Grade): Promise<void> {
  const { prisma } = deps;
  try {
    const reservation = await deps.billing.reserve(grade.agentId, grade.id);
    const source = reservation.billingSource === commonV1.BillingSource.SUBSCRIPTION ? 'subscription' : 'trial';
    await prisma.grade.update({
      where: { id: grade.id },
      data: { billingSource: source, gradesCharged: reservation.gradesCharged, reservationId: BigInt(reservation.reservationId), billing: 'pending' },
    });
  } catch (error) {
    if (isAppError(error) && (error.code === 'subscription_required' || error.code === 'grading_allowance_exhausted')) {
      await prisma.grade.delete({ where: { id: grade.id } });
      throw error;
    }
    deps.logger.warn({ err: error, gradeId: grade.id.toString() }, 'grade reservation failed');
    try {
      await deps.billing.refund(grade.agentId, grade.id, 'reservation_failed');
      await prisma.grade.delete({ where: { id: grade.id } });
    } catch {
      // Billing cannot say whether a grade is held: the settler refunds it later; this key is spent.
      await prisma.grade.update({ where: { id: grade.id }, data: { status: 'refunded', refundReason: 'reservation_failed', refundedAt: new Date(), billing: 'pending', gradesCharged: 0 } });
    }
    throw new AppError('billing_unavailable', 'Billing is temporarily unavailable; nothing was charged. Retry shortly.', { retryAfterSeconds: 2, cause: error });
  }
}

/** Marks the grade refunded (if still processing) and returns its reservation to the period it came from. */
async function refundGrade(deps: GradeCardDeps, grade: Grade, reason: string): Promise<void> {
  await deps.prisma.grade.updateMany({
    where: { id: grade.id, status: 'processing' },
    data: { status: 'refunded', refundReason: reason.slice(0, 64), refundedAt: new Date(), gradesCharged: 0, billing: 'pending' },
  });
  await settleWithBilling(deps, grade, 'refund', reason);
}

/**
 * Tells billing the outcome (commit or refund by grade id) and records it. When billing cannot be reached the
 * grade stays `pending` and the settler retries; the client's answer does not wait for it.
 */
export async function settleWithBilling(deps: Pick<GradeCardDeps, 'prisma' | 'billing' | 'logger'>, grade: Pick<Grade, 'id' | 'agentId'>, outcome: 'commit' | 'refund', reason = 'refunded'): Promise<boolean> {
  try {
    if (outcome === 'commit') await deps.billing.commit(grade.agentId, grade.id);
    else await deps.billing.refund(grade.agentId, grade.id, reason);
    await deps.prisma.grade.update({ where: { id: grade.id }, data: { billing: 'settled' } });
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, gradeId: grade.id.toString(), outcome }, 'grade not settled with billing yet; the settler retries');
    return false;
  }
}

function nothingAssessable(grading: commonV1.Grading): AppError {
  const reasons = [...new Set(grading.notAssessedReasons.map((r) => r.reason))].join('; ');
  return new AppError('nothing_assessable', `Nothing on the card could be assessed from these photos (${reasons || 'the photos could not support any measurement'}); the grade was refunded. Photograph each side flat and square, filling most of the frame, out of any holder, and retry with a new Idempotency-Key.`);
}

/** What the client is told about a failed analysis (the grade was refunded in every case). */
function analysisFailure(error: unknown): AppError {
  if (isAppError(error)) {
    if (error.code === 'nothing_assessable') return error;
    if (error.code === 'card_not_found') {
      return new AppError('card_not_found', 'No trading card could be found in the front or back photo; the grade was refunded. Photograph each side flat, filling most of the frame, on a plain contrasting background, and retry with a new Idempotency-Key.');
    }
    if (error.code === 'image_too_complex') {
      return new AppError('image_too_complex', 'The photos could not be analysed within the time or memory an analysis may use; the grade was refunded. Photograph each side alone, flat and filling most of the frame, on a plain background, and retry with a new Idempotency-Key.');
    }
    if (error.code === 'grader_busy') return new AppError('grader_busy', 'The grader is at capacity; the grade was refunded. Retry in a few seconds with a new Idempotency-Key.', { retryAfterSeconds: 2 });
    if (error.code === 'service_unavailable') {
      const cause = error.cause as Partial<ServiceError> | undefined;
      if (cause?.code === GrpcStatus.DEADLINE_EXCEEDED) {
        return new AppError('grader_busy', 'The grade did not finish within the request budget; it was refunded. Retry with a new Idempotency-Key.', { retryAfterSeconds: 2 });
      }
      return new AppError('grader_unavailable', 'The grading model is temporarily unavailable; the grade was refunded. Retry shortly with a new Idempotency-Key.', { retryAfterSeconds: 5 });
    }
    // A photo the engine refuses (it passed intake but cannot be decoded or graded) is the client's to fix.
    if (error.httpStatus < 500) return error;
  }
  return new AppError('grader_unavailable', 'The grading model is temporarily unavailable; the grade was refunded. Retry shortly with a new Idempotency-Key.', { retryAfterSeconds: 5 });
}
