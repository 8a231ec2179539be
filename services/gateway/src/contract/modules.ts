// The meaning of a `modules` value (POST /v1/scans, POST /v1/grades): which module names, in which combinations.
// The contract's schemas (./schemas.ts) use these to give the exact code and detail of a refused value.
import { SCAN_MODULES_BY_NAME, scanModuleByName, scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';

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

