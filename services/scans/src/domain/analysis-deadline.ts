import { status as GrpcStatus } from '@grpc/grpc-js';
import { AppError } from '@cardlens/errors';

/**
 * What a scan makes of an inference call that failed, before the job's usual rules (transient: redelivered;
 * permanent: failed) apply. The inference service answers every analysis ahead of its caller's deadline
 * (services/inference/src/analysis-window.ts): one that found no engine in time is not started and answers
 * grader_busy, one that started answers with its result or image_too_complex. So a call that runs out its own
 * deadline (a bare gRPC DEADLINE_EXCEEDED, no CardLens error code) had its photo on the engine, or met an inference
 * service too wedged to answer; delivering the job again would only hand the same photo to the engine again. It
 * becomes image_too_complex: the scan fails at once and is refunded, like a photo cut at the engine's budget.
 *
 * Everything else stays as it was: grader_busy, grader_unavailable and UNAVAILABLE (no engine reached, or no
 * service: nothing the photo did) are transient and redelivered, at most SCAN_JOB_ATTEMPTS times in all.
 */
export function analysisFailure(error: unknown): unknown {
  return ranOutItsDeadline(error)
    ? new AppError('image_too_complex', 'The analysis did not answer within its deadline, so it is not sent to the engine again.', { cause: error })
    : error;
}

/** A call that hit its own deadline: service_unavailable made from a bare DEADLINE_EXCEEDED (grpc-kit's mapping). */
export function ranOutItsDeadline(error: unknown): boolean {
  if (!(error instanceof AppError) || error.code !== 'service_unavailable') return false;
  const cause = error.cause as { code?: unknown } | undefined;
  return cause?.code === GrpcStatus.DEADLINE_EXCEEDED;
}
