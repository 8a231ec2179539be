import path from 'node:path';
import type { DatabaseConfig } from './client';

/** The embedded mode's data directory, relative to the repository root (git-ignored). */
export const DEFAULT_PGLITE_DIR = '.data/pglite';

/**
 * DATABASE_URL when set (Postgres), else the embedded PGlite at `<rootDir>/.data/pglite`.
 * `poolSize` applies to Postgres only.
 */
export function databaseConfigFromEnv(
  rootDir: string,
  env: NodeJS.ProcessEnv = process.env,
  poolSize?: number,
): DatabaseConfig {
  const url = env.DATABASE_URL?.trim();
  if (url) return poolSize === undefined ? { kind: 'postgres', url } : { kind: 'postgres', url, poolSize };
  return { kind: 'pglite', dataDir: path.resolve(rootDir, DEFAULT_PGLITE_DIR) };
}
