/**
 * @cardlens/db: database plumbing every service uses.
 *
 * - createDatabase / openPrisma: a service's own generated PrismaClient on Postgres (@prisma/adapter-pg) or
 *   PGlite (pglite-prisma-adapter), e.g. `const { prisma, close } = await openPrisma(PrismaClient, config)`.
 * - migrate / diffMigration / newMigration: `prisma migrate deploy` / `migrate diff` / `migrate dev --create-only`
 *   without the native schema engine (@prisma/schema-engine-wasm). Each service keeps `_prisma_migrations` in
 *   its own Postgres schema, so all services can share one database or one PGlite.
 * - openPGlite: the embedded mode's persistent PGlite (one shared instance per data directory and process).
 * Test helpers (expectNoDrift, expectMigrationsReplay) live in '@cardlens/db/testing'.
 */
export {
  createDatabase,
  openPrisma,
  isDatabase,
  PGLITE_TRANSACTION_DEFAULTS,
  POSTGRES_TRANSACTION_DEFAULTS,
  type Database,
  type DatabaseConfig,
  type DisconnectableClient,
  type OpenPrisma,
  type PrismaClientArgs,
  type PrismaClientClass,
  type TransactionDefaults,
} from './client';
export {
  migrate,
  diffMigration,
  newMigration,
  openShadowDatabase,
  type DbLogger,
  type DiffOptions,
  type MigrateOptions,
  type MigrateResult,
  type NewMigrationOptions,
  type NewMigrationResult,
} from './migrate';
export { openPGlite, closePGlite, createThrowawayPGlite, PGLITE_EXTENSIONS, type PGlite } from './pglite';
export { serviceLayout, declaredSchemas, bookkeepingSchema, type ServiceLayout } from './schema-files';
export { databaseConfigFromEnv, DEFAULT_PGLITE_DIR } from './env';
