import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const alphaDir = path.join(FIXTURES, 'alpha');
export const betaDir = path.join(FIXTURES, 'beta');

/** A scratch copy of a fixture service (prisma/ only) in a temp folder; remove() when done. */
export function copyFixture(name: 'alpha' | 'beta'): { dir: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), `cardlens-db-${name}-`));
  const dir = path.join(root, name);
  cpSync(path.join(FIXTURES, name, 'prisma'), path.join(dir, 'prisma'), { recursive: true });
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export function tablesByschema(rows: { table_schema: string; table_name: string }[]): string[] {
  return rows.map((r) => `${r.table_schema}.${r.table_name}`).sort();
}

export const USER_TABLES_SQL = `SELECT table_schema, table_name FROM information_schema.tables
  WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`;
