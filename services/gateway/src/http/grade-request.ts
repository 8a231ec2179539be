import { AppError } from '@cardlens/errors';
import { parameters } from '../contract/operations';
import { parseRequest } from '../contract/validate';
import { positiveId } from './scan-request';

/** The pure parts of POST /v1/grades and GET /v1/grades/{id}: the key, the `modules` value and the grade id. */

/** Idempotency-Key is required on POST /v1/grades: missing_idempotency_key, or invalid_idempotency_key when malformed. */
export function requireIdempotencyKey(header: string | undefined): string {
  if (header === undefined) {
    throw new AppError('missing_idempotency_key', 'POST /v1/grades requires an Idempotency-Key header (1-64 characters of A-Z, a-z, 0-9, "_" and "-"); reuse it to retry the same grade.');
  }
  return parseRequest(parameters.IdempotencyKeyRequired.schema, header, { label: 'Idempotency-Key' });
}

export { checkGradeModules } from '../contract/modules';

/** The `{id}` of /v1/grades/{id}: a positive integer, or grade_not_found (a malformed id names no grade). */
export function parseGradeId(raw: unknown): number {
  const id = positiveId(raw);
  if (id === undefined || !parameters.GradeId.schema.safeParse(id).success) throw new AppError('grade_not_found', 'No grade with this id exists for this agent.');
  return id;
}
