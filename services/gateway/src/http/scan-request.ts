import { createHash } from 'node:crypto';
import type { scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { parameters } from '../contract/operations';
import { parseRequest } from '../contract/validate';

/**
 * The pure parts of POST /v1/scans and GET /v1/scans/{id}: the `modules` value, the Idempotency-Key header,
 * the request fingerprint that tells an idempotent replay from a reused key, and the scan id path segment.
 */

export { parseModules } from '../contract/modules';

/**
 * The Idempotency-Key header, checked by the contract's IdempotencyKey schema: absent gives undefined; otherwise
 * it must be 1-64 characters of [A-Za-z0-9_-] (AppError `invalid_idempotency_key`). The key is never echoed back.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return parseRequest(parameters.IdempotencyKeyOptional.schema, header, { label: 'Idempotency-Key' });
}

/** An image as the fingerprint sees it: the URL as sent, or the uploaded bytes. */
export type FingerprintImage = { url: string } | { content: Uint8Array };

const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

const describeImage = (image: FingerprintImage): string => ('url' in image ? `url:${image.url}` : `sha256:${sha256Hex(image.content)}`);

/**
 * Lowercase hex SHA-256 of a canonical JSON of the request: the module enum values sorted, and per image either
 * `url:<url>` or `sha256:<hex of the bytes>` (back: null when absent). Equal requests give equal fingerprints
 * whatever the order or spelling of the module list.
 */
export function requestFingerprint(request: { modules: readonly scansV1.Module[]; front: FingerprintImage; back?: FingerprintImage | undefined }): string {
  const canonical = JSON.stringify({
    modules: [...request.modules].sort((a, b) => a - b),
    front: describeImage(request.front),
    back: request.back === undefined ? null : describeImage(request.back),
  });
  return sha256Hex(canonical);
}

const POSITIVE_ID = /^[1-9][0-9]{0,17}$/;

/** A positive integer path id, or undefined (larger ids cannot travel as int64 numbers without losing precision). */
export function positiveId(raw: unknown): number | undefined {
  const id = typeof raw === 'string' && POSITIVE_ID.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The `{id}` path segment of /v1/scans/{id}: a positive integer, or AppError `scan_not_found` (never a 400:
 * a malformed id names no scan of the caller's, like any other unknown id).
 */
export function parseScanId(raw: unknown): number {
  const id = positiveId(raw);
  if (id === undefined || !parameters.ScanId.schema.safeParse(id).success) throw new AppError('scan_not_found', 'No scan with this id exists for this agent.');
  return id;
}
