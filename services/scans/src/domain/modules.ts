import { scanModuleByName, scanModuleName, scansV1, type ScanModuleName } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';

/**
 * The module rules of the spec, enforced where the scan is priced: at least one module, no duplicates,
 * `deep` rejected, `full` only alone. The gateway parses the HTTP value; this guards every caller.
 */
export function checkModules(modules: readonly scansV1.Module[]): ScanModuleName[] {
  if (modules.includes(scansV1.Module.DEEP)) throw new AppError('deep_unsupported', 'Deep (multi-angle) scans are not available through this API.');
  if (modules.length === 0) throw new AppError('invalid_modules', 'At least one module is required.');
  const names = modules.map(scanModuleName);
  if (names.some((n) => n === undefined)) throw new AppError('invalid_modules', 'Unknown module.');
  if (new Set(names).size !== names.length) throw new AppError('invalid_modules', 'Each module may be given once.');
  if (names.includes('full') && names.length > 1) throw new AppError('invalid_modules', '`full` cannot be combined with other modules.');
  return names as ScanModuleName[];
}

export const moduleValues = (names: readonly string[]): scansV1.Module[] => names.map((n) => scanModuleByName(n) ?? scansV1.Module.UNSPECIFIED);

/** Which parts of the pipeline and which result sections the paid modules call for (identification always). */
export function sectionsFor(names: readonly string[]): { grading: boolean; valuation: boolean } {
  const full = names.includes('full');
  return { grading: full || names.includes('grade'), valuation: full || names.includes('market') };
}

/** The cost in credits from the live module prices (billing's GetPricing). */
export function scanCost(names: readonly ScanModuleName[], prices: readonly { key: string; credits: number; available: boolean }[]): number {
  let total = 0;
  for (const name of names) {
    const price = prices.find((p) => p.key === name);
    if (!price || !price.available) throw new AppError('pricing_unavailable', `No live price for the ${name} module.`);
    total += price.credits;
  }
  return total;
}

/**
 * The part of a scan's price that pays for its grade: refunded when no grade can be given. `grade` is charged for
 * its grade (the identification every module includes comes free then); `full` for what it costs above `market`,
 * whose value and market sections are still given. `identify` and `market` pay for no grade section.
 */
export function gradingPartCost(names: readonly ScanModuleName[], prices: readonly { key: string; credits: number; available: boolean }[]): number {
  const credits = (key: string) => prices.find((p) => p.key === key)?.credits ?? 0;
  let part = 0;
  for (const name of names) {
    if (name === 'grade') part += credits('grade');
    if (name === 'full') part += Math.max(0, credits('full') - credits('market'));
  }
  return part;
}
