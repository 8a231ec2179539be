// What a scan makes of a failed inference call: one that ran out its own deadline had its photo on the engine (the
// inference service answers everything else before the deadline), so it is not delivered again but fails at once
// as image_too_complex (refunded); an analysis never started (grader_busy) or a service not reached stays transient.
import { describe, expect, it } from '@jest/globals';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError } from '@cardlens/errors';
import { serviceErrorToAppError } from '@cardlens/grpc-kit';
import { analysisFailure, ranOutItsDeadline } from '../src/domain/analysis-deadline';

const grpcError = (code: status, metadata = new Metadata()): ServiceError =>
  Object.assign(new Error(`grpc ${code}`), { code, details: '', metadata }) as ServiceError;

describe('analysisFailure', () => {
  it('turns a bare DEADLINE_EXCEEDED (the photo was on the engine) into image_too_complex, keeping the cause', () => {
    const timedOut = serviceErrorToAppError(grpcError(status.DEADLINE_EXCEEDED));
    expect(timedOut.code).toBe('service_unavailable');
    expect(ranOutItsDeadline(timedOut)).toBe(true);
    const failure = analysisFailure(timedOut);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('image_too_complex');
    expect((failure as AppError).httpStatus).toBeLessThan(500); // permanent: the job is not redelivered
    expect((failure as AppError).cause).toBe(timedOut);
  });

  it('leaves transient failures that never reached the engine to be redelivered', () => {
    const unreachable = serviceErrorToAppError(grpcError(status.UNAVAILABLE));
    const busy = new AppError('grader_busy', 'No engine was free in time.');
    const unavailable = new AppError('grader_unavailable');
    for (const error of [unreachable, busy, unavailable]) {
      expect(ranOutItsDeadline(error)).toBe(false);
      expect(analysisFailure(error)).toBe(error);
      expect((analysisFailure(error) as AppError).httpStatus).toBeGreaterThanOrEqual(500);
    }
  });

  it('leaves the engine’s own answers and other errors as they are', () => {
    // A CardLens code sent with DEADLINE_EXCEEDED's status (request_timeout) is the server's answer, not a deadline.
    const metadata = new Metadata();
    metadata.set('cl-error-code', 'request_timeout');
    const answered = serviceErrorToAppError(grpcError(status.DEADLINE_EXCEEDED, metadata));
    const tooComplex = new AppError('image_too_complex');
    const noCard = new AppError('card_not_found');
    const plain = new Error('boom');
    for (const error of [answered, tooComplex, noCard, plain, undefined]) {
      expect(ranOutItsDeadline(error)).toBe(false);
      expect(analysisFailure(error)).toBe(error);
    }
  });
});
