/**
 * Test helpers for services ('@cardlens/db/testing'). They throw a descriptive Error instead of using jest's
 * expect, so they also work from scripts. Each service's test file:
 *
 *   import { fileURLToPath } from 'node:url';
 *   import { expectFreshMigrate, expectNoDrift } from '@cardlens/db/testing';
 *   const serviceDir = fileURLToPath(new URL('..', import.meta.url));   // the folder holding prisma/
 *   it('committed migrations match schema.prisma', () => expectNoDrift(serviceDir));
 *   it('fresh db migrates, second run no-op', () => expectFreshMigrate(serviceDir));   // throwaway PGlite
 *   // or on Postgres: expectFreshMigrate(serviceDir, { kind: 'postgres', url: db.url }) with a fresh database
 */
import { readdirSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, openPrisma, type Database, type DatabaseConfig, type DisconnectableClient, type PrismaClientClass } from './client';
import { diffMigration, migrate, type MigrateResult } from './migrate';
import { createThrowawayPGlite, type PGlite } from './pglite';
import { serviceLayout } from './schema-files';

function dirOf(serviceDir: string | URL): string {
  return serviceDir instanceof URL ? fileURLToPath(serviceDir) : path.resolve(serviceDir);
}

/**
 * Fails when `<serviceDir>/prisma/migrations` does not produce `<serviceDir>/prisma/schema.prisma`, with the
 * SQL of the missing migration and the command that writes it. Needs no database (a throwaway PGlite).
 */
export async function expectNoDrift(serviceDir: string | URL, options: { shadow?: PGlite } = {}): Promise<void> {
  const dir = dirOf(serviceDir);
  const sql = await diffMigration({ ...serviceLayout(dir), ...options });
  if (sql) {
    throw new Error(
      `committed migrations of ${dir} do not match prisma/schema.prisma; create the missing migration with\n` +
        `  npm run db:migration:new -- <name> --service ${path.basename(dir)}\n` +
        `It would contain:\n${sql}`,
    );
  }
}

function committedMigrations(migrationsDir: string): string[] {
  if (!existsSync(migrationsDir)) return [];
  return readdirSync(migrationsDir)
    .filter((entry) => statSync(path.join(migrationsDir, entry)).isDirectory())
    .sort();
}

/**
 * Migrates a FRESH database (default: a throwaway in-memory PGlite) and fails unless the first run applies
 * every committed migration in order and a second run applies none. Returns the first run's result.
 */
export async function expectFreshMigrate(
  serviceDir: string | URL,
  database?: DatabaseConfig | Database,
): Promise<MigrateResult> {
  const layout = serviceLayout(dirOf(serviceDir));
  const expected = committedMigrations(layout.migrationsDir);
  const throwaway = database ? undefined : await createThrowawayPGlite();
  const target: DatabaseConfig | Database = database ?? { kind: 'pglite', pglite: throwaway as PGlite };
  try {
    const first = await migrate({ ...layout, database: target });
    if (JSON.stringify(first.applied) !== JSON.stringify(expected)) {
      throw new Error(
        `a fresh database should get every committed migration: expected ${JSON.stringify(expected)}, ` +
          `applied ${JSON.stringify(first.applied)} (was the database not fresh?)`,
      );
    }
    const second = await migrate({ ...layout, database: target });
    if (second.applied.length > 0) {
      throw new Error(`second migrate run should be a no-op, applied ${JSON.stringify(second.applied)}`);
    }
    return first;
  } finally {
    await throwaway?.close();
  }
}

/**
 * A test database (a config, as describeOnPgliteAndPostgres gives one) with the service's schema migrated, and a
 * Prisma client on it; close() disconnects the client and closes the database.
 */
export async function openMigratedPrisma<C extends DisconnectableClient>(
  PrismaClient: PrismaClientClass<C>,
  serviceDir: string,
  config: DatabaseConfig,
): Promise<{ client: C; close(): Promise<void> }> {
  const database = await createDatabase(config);
  await migrate({ ...serviceLayout(serviceDir), database });
  const open = await openPrisma(PrismaClient, database);
  return {
    client: open.prisma,
    close: async () => {
      await open.close();
      await database.close();
    },
  };
}
