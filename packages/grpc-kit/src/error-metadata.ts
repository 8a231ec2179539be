import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, isErrorCode, lookupError, type ProblemExtras } from '@cardlens/errors';

/**
 * An AppError crosses a gRPC hop as a status (from the error table) plus trailing metadata carrying the
 * stable code, the client-facing detail, the extras and Retry-After. Values are percent-encoded: non -bin
 * metadata must be printable ASCII and details may not be.
 */
export const ERROR_METADATA = {
  code: 'cl-error-code',
  detail: 'cl-error-detail',
  extras: 'cl-error-extras',
  retryAfter: 'cl-error-retry-after',
} as const;

export function appErrorToStatus(error: AppError): Partial<StatusObject> & { code: status; metadata: Metadata } {
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA.code, error.code);
  metadata.set(ERROR_METADATA.detail, encodeURIComponent(error.detail));
  if (Object.keys(error.extras).length > 0) {
    metadata.set(ERROR_METADATA.extras, encodeURIComponent(JSON.stringify(error.extras)));
  }
  if (error.retryAfterSeconds !== undefined) metadata.set(ERROR_METADATA.retryAfter, String(error.retryAfterSeconds));
  return { code: lookupError(error.code).grpcStatus, details: error.detail, metadata };
}

function text(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  if (typeof value !== 'string') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function extras(metadata: Metadata): ProblemExtras | undefined {
  const raw = text(metadata, ERROR_METADATA.extras);
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ProblemExtras) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rebuilds the AppError a server sent, so the stable code survives every hop. A failure without our
 * metadata (server down, deadline, transport, a non-CardLens server) becomes service_unavailable when
 * retrying later may help and internal_error otherwise. The gRPC error stays as `cause` for logs.
 */
export function serviceErrorToAppError(error: ServiceError): AppError {
  const metadata = error.metadata ?? new Metadata();
  const code = text(metadata, ERROR_METADATA.code);
  if (isErrorCode(code)) {
    const retryAfter = Number(text(metadata, ERROR_METADATA.retryAfter));
    return new AppError(code, text(metadata, ERROR_METADATA.detail), {
      extras: extras(metadata),
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      cause: error,
    });
  }
  const transient = error.code === status.UNAVAILABLE || error.code === status.DEADLINE_EXCEEDED;
  return new AppError(transient ? 'service_unavailable' : 'internal_error', undefined, { cause: error });
}
