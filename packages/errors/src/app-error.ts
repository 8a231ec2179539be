import { errorTable, type ErrorCode } from './table';

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
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get httpStatus(): number {
    return errorTable[this.code].httpStatus;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
