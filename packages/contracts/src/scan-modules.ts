import { Module } from './gen/cardlens/scans/v1/scans';

// The API's names of the scans.v1 modules (`modules` of POST /v1/scans, pricing keys): the one table the gateway
// (parsing and presenting) and scans (storing and pricing) share. `deep` has no entry: it is never accepted.

export type ScanModuleName = 'identify' | 'grade' | 'market' | 'full';

export const SCAN_MODULES_BY_NAME: Readonly<Record<ScanModuleName, Module>> = {
  identify: Module.IDENTIFY,
  grade: Module.GRADE,
  market: Module.MARKET,
  full: Module.FULL,
};

/** The module an API name stands for, or undefined for any other string. */
export function scanModuleByName(name: string): Module | undefined {
  return Object.hasOwn(SCAN_MODULES_BY_NAME, name) ? SCAN_MODULES_BY_NAME[name as ScanModuleName] : undefined;
}

/** The API name of a module; undefined for those without one (unspecified, deep). */
export function scanModuleName(module: Module): ScanModuleName | undefined {
  return (Object.keys(SCAN_MODULES_BY_NAME) as ScanModuleName[]).find((name) => SCAN_MODULES_BY_NAME[name] === module);
}
