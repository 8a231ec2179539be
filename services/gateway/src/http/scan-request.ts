import { createHash } from 'node:crypto';
import { SCAN_MODULES_BY_NAME, scanModuleByName, scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';

/**
 * The pure parts of POST /v1/scans and GET /v1/scans/{id}: the `modules` value, the Idempotency-Key header,
 * the request fingerprint that tells an idempotent replay from a reused key, and the scan id path segment.
 */

/** The modules a client may request, by their API name (`deep` exists but is refused: deep_unsupported). */
const VALID_NAMES = Object.keys(SCAN_MODULES_BY_NAME).join(', ');
const MODULES_FORMAT = `an array of module names or one string listing them separated by commas or spaces (${VALID_NAMES})`;

function invalidModules(detail: string): AppError {
  return new AppError('invalid_modules', detail);
}

/**
 * Parses the `modules` value of a scan request: an array of names, or one string of names separated by commas
 * and/or whitespace. Names are lower-case `identify`, `grade`, `market`, `full`; `full` stands alone.
 * Throws AppError `deep_unsupported` when `deep` is named anywhere, otherwise `invalid_modules` for a missing,
 * empty, non-string, unknown, duplicated or `full`-combined value.
 */
export function parseModules(value: unknown): scansV1.Module[] {
  if (value === undefined || value === null) {
    throw invalidModules(`modules is required: ${MODULES_FORMAT}.`);
  }
  let names: unknown[];
  if (typeof value === 'string') {
    names = value.split(/[\s,]+/).filter((name) => name !== '');
  } else if (Array.isArray(value)) {
    names = value;
  } else {
    throw invalidModules(`modules must be ${MODULES_FORMAT}.`);
  }

  // `deep` has its own code wherever it appears, whatever else is wrong with the value.
  if (names.some((name) => typeof name === 'string' && name.trim().toLowerCase() === 'deep')) {
    throw new AppError('deep_unsupported', 'The deep module (multi-angle scan) is not available through this API. Use identify, grade, market or full.');
  }
  if (names.some((name) => typeof name !== 'string')) {
    throw invalidModules(`Every item of modules must be a string (${VALID_NAMES}).`);
  }
  if (names.length === 0) {
    throw invalidModules(`modules must name at least one module (${VALID_NAMES}).`);
  }

  const modules: scansV1.Module[] = [];
  for (const name of names as string[]) {
    const module = scanModuleByName(name);
    if (module === undefined) {
      const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name);
      const hint = scanModuleByName(name.trim().toLowerCase()) !== undefined ? ' Module names are lower-case, without spaces.' : '';
      throw invalidModules(`Unknown module ${shown}. Valid modules: ${VALID_NAMES}.${hint}`);
    }
    if (modules.includes(module)) throw invalidModules(`Module "${name}" is listed more than once.`);
    modules.push(module);
  }
  if (modules.length > 1 && modules.includes(scansV1.Module.FULL)) {
    throw invalidModules('full includes every module and cannot be combined with other modules.');
  }
  return modules;
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The Idempotency-Key header: absent gives undefined; otherwise it must be 1-64 characters of [A-Za-z0-9_-]
 * (AppError `invalid_idempotency_key`). The key itself is never echoed back.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 1-64 characters of A-Z, a-z, 0-9, "_" and "-".');
  }
  return header;
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
  if (id === undefined) throw new AppError('scan_not_found', 'No scan with this id exists for this agent.');
  return id;
}
