import { SCAN_MODULES_BY_NAME } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { parseIdempotencyKey, positiveId } from './scan-request';

/** The pure parts of POST /v1/grades and GET /v1/grades/{id}: the key, the `modules` value and the grade id. */

/** Idempotency-Key is required on POST /v1/grades: missing_idempotency_key, or invalid_idempotency_key when malformed. */
export function requireIdempotencyKey(header: string | undefined): string {
  const key = parseIdempotencyKey(header);
  if (key === undefined) {
    throw new AppError('missing_idempotency_key', 'POST /v1/grades requires an Idempotency-Key header (1-64 characters of A-Z, a-z, 0-9, "_" and "-"); reuse it to retry the same grade.');
  }
  return key;
}

/**
 * The optional `modules` of a grade request: absent, or `grade` (a string, or an array of strings, as on scans).
 * Any other module the API knows (`identify`, `market`, `full`, `deep`) is 403 subscription_grading_only: the
 * subscription covers grading only; a name the API does not know is 400 invalid_modules.
 */
export function checkGradeModules(value: unknown): void {
  if (value === undefined || value === null) return;
  const names = typeof value === 'string' ? value.split(/[\s,]+/).filter((n) => n !== '') : Array.isArray(value) ? value : undefined;
  if (names === undefined || names.some((n) => typeof n !== 'string')) {
    throw new AppError('invalid_modules', 'modules is optional on POST /v1/grades; when given it must be "grade".');
  }
  for (const name of names as string[]) {
    const normalized = name.trim().toLowerCase();
    if (normalized === 'grade') continue;
    if (normalized === 'deep' || normalized in SCAN_MODULES_BY_NAME) {
      throw new AppError('subscription_grading_only', `The grading subscription covers grading only; "${normalized}" is available as a prepaid scan (POST /v1/scans).`);
    }
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name);
    throw new AppError('invalid_modules', `Unknown module ${shown}: POST /v1/grades accepts only "grade".`);
  }
}

/** The `{id}` of /v1/grades/{id}: a positive integer, or grade_not_found (a malformed id names no grade). */
export function parseGradeId(raw: unknown): number {
  const id = positiveId(raw);
  if (id === undefined) throw new AppError('grade_not_found', 'No grade with this id exists for this agent.');
  return id;
}
