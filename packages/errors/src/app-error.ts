import { defaultRetryAfterSeconds, errorTable, type ErrorCode } from './table';

/** Extra problem members, e.g. creditsRemaining/purchaseUrl on insufficient_credits. JSON values only. */
export type ProblemExtras = Record<string, string | number | boolean | null | string[]>;

/**
 * A failure a client is allowed to see. `detail` is written for the client; never put internals
 * (SQL, stack traces, worker names) in it. Anything that is not an AppError is reported as internal_error.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly extras: ProblemExtras;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail?: string, options: { extras?: ProblemExtras; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(`${code}: ${detail ?? errorTable[code].title}`, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.detail = detail ?? errorTable[code].title;
    this.extras = options.extras ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds ?? defaultRetryAfterSeconds(code);
  }

  get httpStatus(): number {
    return errorTable[this.code].httpStatus;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * Whether a failure is a dependency's connection dropping or restarting, which a retry shortly after can get past:
 * a Postgres connection lost or the server shutting down or starting up, a pool that timed out waiting for a
 * connection, a refused or reset socket, a Redis connection closed. Looks through `cause` chains (Prisma's driver
 * adapters wrap the driver's error).
 */
export function isTransientDependencyFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; current = (current as { cause?: unknown }).cause, depth++) {
    if (typeof current !== 'object') return false;
    const { code, message, name } = current as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
    if (name === 'MaxRetriesPerRequestError') return true; // ioredis, while Redis is unreachable
  }
  return false;
}

const TRANSIENT_CODES = new Set([
  // Node sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  // Postgres SQLSTATE: connection exceptions, admin/crash shutdown, cannot connect now (starting up)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  // Prisma: database unreachable, timed out, server closed the connection, pool timeout
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
]);

const TRANSIENT_MESSAGES = [/Connection terminated/i, /connection is closed/i, /terminating connection due to administrator command/i, /Client has encountered a connection error/i];

/**
 * Any thrown value as the AppError a client may see: an AppError as it is; a dependency dropping its connection
 * or restarting as service_unavailable with Retry-After (a retry can succeed); anything else as internal_error,
 * revealing nothing. The original stays as `cause`, for the logs.
 */
export function toClientError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isTransientDependencyFailure(error)) {
    return new AppError('service_unavailable', 'A service this request needs is briefly unavailable. Retry after the time in Retry-After.', { cause: error });
  }
  return new AppError('internal_error', undefined, { cause: error });
}
