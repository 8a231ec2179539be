import { scansV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';

/** The module names of the API and the pricing table (billing's module keys). */
export type ModuleName = 'identify' | 'grade' | 'market' | 'full';

const NAMES: Partial<Record<scansV1.Module, ModuleName>> = {
  [scansV1.Module.IDENTIFY]: 'identify',
  [scansV1.Module.GRADE]: 'grade',
  [scansV1.Module.MARKET]: 'market',
  [scansV1.Module.FULL]: 'full',
};

const VALUES: Record<ModuleName, scansV1.Module> = {
  identify: scansV1.Module.IDENTIFY,
  grade: scansV1.Module.GRADE,
  market: scansV1.Module.MARKET,
  full: scansV1.Module.FULL,
};

/**
 * The module rules of the spec, enforced where the scan is priced: at least one module, no duplicates,
 * `deep` rejected, `full` only alone. The gateway parses the HTTP value; this guards every caller.
 */
export function checkModules(modules: readonly scansV1.Module[]): ModuleName[] {
  if (modules.includes(scansV1.Module.DEEP)) throw new AppError('deep_unsupported', 'Deep (multi-angle) scans are not available through this API.');
  if (modules.length === 0) throw new AppError('invalid_modules', 'At least one module is required.');
  const names = modules.map((m) => NAMES[m]);
  if (names.some((n) => n === undefined)) throw new AppError('invalid_modules', 'Unknown module.');
  if (new Set(names).size !== names.length) throw new AppError('invalid_modules', 'Each module may be given once.');
  if (names.includes('full') && names.length > 1) throw new AppError('invalid_modules', '`full` cannot be combined with other modules.');
  return names as ModuleName[];
}

export const moduleValues = (names: readonly string[]): scansV1.Module[] => names.map((n) => VALUES[n as ModuleName] ?? scansV1.Module.UNSPECIFIED);

/** Which parts of the pipeline and which result sections the paid modules call for (identification always). */
export function sectionsFor(names: readonly string[]): { grading: boolean; valuation: boolean } {
  const full = names.includes('full');
  return { grading: full || names.includes('grade'), valuation: full || names.includes('market') };
}

/** The cost in credits from the live module prices (billing's GetPricing). */
export function scanCost(names: readonly ModuleName[], prices: readonly { key: string; credits: number; available: boolean }[]): number {
  let total = 0;
  for (const name of names) {
    const price = prices.find((p) => p.key === name);
    if (!price || !price.available) throw new AppError('pricing_unavailable', `No live price for the ${name} module.`);
    total += price.credits;
  }
  return total;
}
