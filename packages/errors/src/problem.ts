import { errorTable, type ErrorCode } from './table';
import { AppError, toClientError, type ProblemExtras } from './app-error';

/** RFC 9457 problem details as this API renders them; all five standard members are always present. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  [extra: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const GENERIC_INTERNAL_DETAIL = 'An unexpected error occurred. It is safe to retry.';

export function problemType(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl.replace(/\/+$/, '')}/api-docs/errors#${code}`;
}

export function problemFor(baseUrl: string, code: ErrorCode, detail?: string, extras: ProblemExtras = {}): Problem {
  const entry = errorTable[code];
  // Extras never override the five standard members.
  return {
    ...extras,
    type: problemType(baseUrl, code),
    title: entry.title,
    status: entry.httpStatus,
    detail: detail ?? entry.title,
    code,
  };
}

/**
 * Renders any thrown value. A dependency dropping its connection becomes 503 service_unavailable (toClientError);
 * other unknown failures a generic 500 that reveals nothing internal.
 */
export function problemFromError(baseUrl: string, error: unknown): Problem {
  const known = toClientError(error);
  if (known.code === 'internal_error' && !(error instanceof AppError)) return problemFor(baseUrl, 'internal_error', GENERIC_INTERNAL_DETAIL);
  return problemFor(baseUrl, known.code, known.detail, known.extras);
}
