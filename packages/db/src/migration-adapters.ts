// Driver adapter factories for the schema engine.
//
// Where the engine keeps `_prisma_migrations`: it takes the schema name from the adapter's
// getConnectionInfo().schemaName (default "public"), looks the table up in THAT schema, creates the schema if
// missing, but then issues an UNQUALIFIED `CREATE TABLE _prisma_migrations` and unqualified reads/writes, which
// land in the connection's search_path. So to keep each service's bookkeeping in its own Postgres schema, both
// must agree: schemaName = search_path = the service's schema. (With only the adapter's schema option the
// table is created in "public" and the next run fails with `relation "_prisma_migrations" already exists`.)
// Side effect of schemaName: the engine renders objects of that schema UNQUALIFIED in diffs, so diffs are
// computed on a separate connection without schemaName (diff.ts) and committed SQL stays schema-qualified.
import { PrismaPg } from '@prisma/adapter-pg';
import {
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import type { PGlite } from './pglite';

/** The advisory lock id Prisma's schema engine takes while applying migrations. */
export const PRISMA_MIGRATE_LOCK_ID = 72707369;

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(name: string): void {
  if (!SCHEMA_NAME.test(name)) {
    throw new Error(`schema name ${JSON.stringify(name)} must match ${SCHEMA_NAME} (lower-case, unquoted identifier)`);
  }
}

export interface MigrationConnection {
  factory: SqlMigrationAwareDriverAdapterFactory;
  close(): Promise<void>;
}

/**
 * Postgres: a one-connection pool whose search_path is the service schema. One connection matters: the engine
 * takes `pg_advisory_lock(72707369)` (session level, never unlocked) before applying, so the lock, the DDL and
 * the bookkeeping must run on the same session, and ending the pool releases the lock for the next migrator.
 */
export function postgresMigrationConnection(url: string, schema: string): MigrationConnection {
  assertSchemaName(schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    idleTimeoutMillis: 0, // never swap the session: the advisory lock lives on it
    options: `-c search_path=${schema}`,
  });
  pool.on('error', () => {}); // idle-client errors surface on the next query
  const inner = new PrismaPg(pool, { schema });
  let locked: Promise<void> | undefined;
  return {
    factory: {
      provider: 'postgres',
      adapterName: inner.adapterName,
      connect: async () => {
        // On connect the engine runs `CREATE SCHEMA "<schema>"` when it does not see the schema yet, BEFORE
        // taking its advisory lock: two migrators starting together on a fresh database race there
        // ("schema already exists"). Take the engine's lock (same id, re-entrant on this session) first.
        locked ??= (async () => {
          await pool.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK_ID})`);
          await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        })();
        await locked;
        return inner.connect();
      },
      // Applying migrations never needs a shadow database; diffs use a PGlite (see diff.ts), because
      // @prisma/adapter-pg 7.10.1's shadow database is broken (connects to the main database, drops the
      // database before closing its pool, cannot read Postgres's "char" type).
      connectToShadowDb: () => Promise.reject(new Error('no shadow database on Postgres; diffs run on PGlite')),
    },
    close: () => pool.end(),
  };
}

function toDriverError(error: unknown): unknown {
  const e = error as { code?: unknown; severity?: unknown; message?: unknown; detail?: unknown; column?: unknown; hint?: unknown };
  if (typeof e?.code === 'string' && typeof e.message === 'string') {
    return new DriverAdapterError({
      kind: 'postgres',
      code: e.code,
      severity: typeof e.severity === 'string' ? e.severity : 'ERROR',
      message: e.message,
      detail: typeof e.detail === 'string' ? e.detail : undefined,
      column: typeof e.column === 'string' ? e.column : undefined,
      hint: typeof e.hint === 'string' ? e.hint : undefined,
    });
  }
  return error;
}

/**
 * Wraps pglite-prisma-adapter 0.7.2's adapter for the engine:
 * - executeScript: the adapter calls `pglite.exec(script)` WITHOUT awaiting it, so a failing migration is
 *   recorded as applied and the error escapes as an unhandled rejection; here it is awaited and mapped.
 * - getConnectionInfo: the adapter's factory never passes its schema option, so schemaName is always
 *   undefined ("public"); here it reports the schema the caller chose (undefined for diffs).
 */
function pgliteEngineAdapter(
  pglite: PGlite,
  inner: SqlDriverAdapter,
  schema: string | undefined,
  dispose: () => Promise<void>,
): SqlDriverAdapter {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query) => inner.queryRaw(query),
    executeRaw: (query) => inner.executeRaw(query),
    startTransaction: (isolationLevel) => inner.startTransaction(isolationLevel),
    executeScript: async (script) => {
      try {
        await pglite.exec(script);
      } catch (error) {
        throw toDriverError(error);
      }
    },
    getConnectionInfo: () => ({
      ...(inner.getConnectionInfo?.() ?? { supportsRelationJoins: true }),
      schemaName: schema,
    }),
    dispose,
  };
}

/** PGlite as migration target. The caller sets search_path (PGlite is one shared session, see migrate.ts). */
export function pgliteMigrationFactory(pglite: PGlite, schema: string): SqlMigrationAwareDriverAdapterFactory {
  assertSchemaName(schema);
  const inner = new PrismaPGlite(pglite);
  return {
    provider: 'postgres',
    adapterName: inner.adapterName,
    connect: async () => pgliteEngineAdapter(pglite, await inner.connect(), schema, async () => {}),
    connectToShadowDb: () => Promise.reject(new Error('applying migrations needs no shadow database')),
  };
}

/** Drops everything a previous diff left in a shadow PGlite (all user schemas and extensions). */
export const RESET_SHADOW_SQL = `
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT nspname FROM pg_namespace
           WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
             AND nspname NOT LIKE 'pg\\_temp\\_%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', r.nspname);
  END LOOP;
  FOR r IN SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' LOOP
    EXECUTE format('DROP EXTENSION %I CASCADE', r.extname);
  END LOOP;
END $$;
CREATE SCHEMA public;
`;

/**
 * Factory for diffs on a throwaway PGlite: the engine's main connection (only used for a version query
 * during a migrations→schema diff) and its shadow database are the same instance, reset before each use.
 * No schemaName, so the generated SQL is fully schema-qualified.
 */
export function shadowDiffFactory(pglite: PGlite): SqlMigrationAwareDriverAdapterFactory {
  const inner = new PrismaPGlite(pglite);
  return {
    provider: 'postgres',
    adapterName: inner.adapterName,
    connect: async () => pgliteEngineAdapter(pglite, await inner.connect(), undefined, async () => {}),
    connectToShadowDb: async () => {
      await pglite.exec(RESET_SHADOW_SQL);
      return pgliteEngineAdapter(pglite, await inner.connect(), undefined, async () => {});
    },
  };
}
