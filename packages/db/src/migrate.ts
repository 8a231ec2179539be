// Migrations without the native Prisma schema engine: apply (migrate), compare (diffMigration) and write
// (newMigration), on Postgres or PGlite, through @prisma/schema-engine-wasm.
import { mkdirSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { isDatabase, type Database, type DatabaseConfig } from './client';
import { NO_FILTERS, withSchemaEngine, type EngineLogLine } from './engine';
import {
  assertSchemaName,
  pgliteMigrationFactory,
  postgresMigrationConnection,
  shadowDiffFactory,
} from './migration-adapters';
import { closePGlite, createThrowawayPGlite, openPGlite, type PGlite } from './pglite';
import {
  bookkeepingSchema,
  LOCKFILE,
  LOCKFILE_CONTENT,
  MIGRATION_FILE,
  readMigrationsList,
  readSchemaFile,
} from './schema-files';

/** Structural subset of a pino logger (e.g. @cardlens/telemetry's createLogger()). */
export interface DbLogger {
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

function engineLog(logger: DbLogger | undefined, context: object): (line: EngineLogLine) => void {
  return (line) => {
    if (!logger) return;
    const { message, ...fields } = line.fields ?? {};
    // Applied scripts are logged by migrate() by name; the engine's copy of the whole SQL is noise.
    delete fields.script;
    logger.debug({ ...context, engine: line.target, level_: line.level, ...fields }, message ?? 'schema engine');
  };
}

// PGlite is one session shared by every service: migrations on it run one at a time (search_path is session
// state), per instance.
const pgliteQueues = new WeakMap<PGlite, Promise<unknown>>();

function serialize<T>(pglite: PGlite, fn: () => Promise<T>): Promise<T> {
  const previous = pgliteQueues.get(pglite) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  pgliteQueues.set(
    pglite,
    run.catch(() => {}),
  );
  return run;
}

export interface MigrateOptions {
  schemaPath: string;
  migrationsDir: string;
  database: DatabaseConfig | Database;
  /** The Postgres schema that keeps `_prisma_migrations`; default: the one schema the datasource declares. */
  schema?: string;
  logger?: DbLogger;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, oldest first ([] when the database was up to date). */
  applied: string[];
  /** Schema holding this service's `_prisma_migrations`. */
  schema: string;
}

/**
 * Applies the pending committed migrations (like `prisma migrate deploy`) and records them in
 * `<schema>._prisma_migrations` with the checksum the Prisma CLI writes. A second run is a no-op.
 * Fails (without recording success) when a migration fails or a failed one is already recorded.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const schemaFile = readSchemaFile(options.schemaPath);
  const schema = bookkeepingSchema(schemaFile, options.schema);
  assertSchemaName(schema);
  const migrationsList = readMigrationsList(options.migrationsDir);
  const log = engineLog(options.logger, { schema });
  const started = Date.now();

  let applied: string[];
  const resolved = await resolveTarget(options.database);
  if (resolved.kind === 'postgres') {
    const connection = postgresMigrationConnection(resolved.url, schema);
    try {
      applied = await withSchemaEngine(schemaFile, connection.factory, log, async (engine) => {
        const out = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
        return out.appliedMigrationNames;
      });
    } finally {
      await connection.close();
    }
  } else {
    const { pglite } = resolved;
    try {
      applied = await serialize(pglite, async () => {
        const before = (await pglite.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path;
        await pglite.exec(`SET search_path TO ${schema}`);
        try {
          return await withSchemaEngine(schemaFile, pgliteMigrationFactory(pglite, schema), log, async (engine) => {
            const out = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
            return out.appliedMigrationNames;
          });
        } finally {
          await pglite.query(`SELECT set_config('search_path', $1, false)`, [before ?? '"$user", public']);
          // The engine's session-level pg_advisory_lock is never unlocked; on the one PGlite session release it.
          await pglite.query('SELECT pg_advisory_unlock_all()');
        }
      });
    } finally {
      await resolved.release();
    }
  }
  options.logger?.info(
    { schema, applied, durationMs: Date.now() - started },
    applied.length ? `applied ${applied.length} migration(s) to ${schema}` : `${schema} is up to date`,
  );
  return { applied, schema };
}

type Target = { kind: 'postgres'; url: string } | { kind: 'pglite'; pglite: PGlite; release(): Promise<void> };

async function resolveTarget(database: DatabaseConfig | Database): Promise<Target> {
  if (isDatabase(database)) {
    if (database.kind === 'postgres' && database.url) return { kind: 'postgres', url: database.url };
    if (database.kind === 'pglite' && database.pglite) return { kind: 'pglite', pglite: database.pglite, release: async () => {} };
    throw new Error(`incomplete ${database.kind} Database`);
  }
  if (database.kind === 'postgres') return { kind: 'postgres', url: database.url };
  if ('pglite' in database) return { kind: 'pglite', pglite: database.pglite, release: async () => {} };
  const pglite = await openPGlite(database.dataDir);
  return { kind: 'pglite', pglite, release: () => closePGlite(pglite) };
}

export interface DiffOptions {
  schemaPath: string;
  migrationsDir: string;
  /**
   * A throwaway PGlite to use as shadow database (reset before use); reuse one across several diffs to save
   * its start-up. Default: a new one, closed afterwards.
   */
  shadow?: PGlite;
  logger?: DbLogger;
}

/**
 * The SQL that takes a database from the committed migrations to schema.prisma ('' when they match): the
 * migrations are replayed on a throwaway PGlite shadow database (no Postgres needed) and compared with the
 * schema, like `prisma migrate diff --from-migrations --to-schema`.
 */
export async function diffMigration(options: DiffOptions): Promise<string> {
  const schemaFile = readSchemaFile(options.schemaPath);
  const migrationsList = readMigrationsList(options.migrationsDir);
  const shadow = options.shadow ?? (await createThrowawayPGlite());
  try {
    return await serialize(shadow, () =>
      withSchemaEngine(schemaFile, shadowDiffFactory(shadow), engineLog(options.logger, { diff: schemaFile.path }), async (engine) => {
        const result = await engine.diff({
          from: { tag: 'migrations', ...migrationsList },
          to: { tag: 'schemaDatamodel', files: [schemaFile] },
          script: true,
          exitCode: true,
          filters: NO_FILTERS,
        });
        return result.exitCode === 2 ? (result.stdout ?? '') : '';
      }),
    );
  } finally {
    if (!options.shadow) await shadow.close();
  }
}

export interface NewMigrationOptions extends DiffOptions {
  /** Migration name; anything but letters, digits and underscores becomes `_`. */
  name: string;
  /** Clock for the directory timestamp (tests). */
  now?: Date;
}

export type NewMigrationResult =
  | { created: true; name: string; path: string; sql: string }
  | { created: false; message: string };

function timestamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  );
}

function parseTimestamp(ts: string): Date {
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((at, i) => Number(ts.slice(at, i === 0 ? 4 : at + 2)));
  return new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0));
}

/**
 * Writes `<migrationsDir>/<YYYYMMDDHHMMSS>_<name>/migration.sql` (UTC timestamp, kept after the newest
 * existing migration) with the diff from the committed migrations to the schema, and migration_lock.toml
 * when missing. Writes nothing when the schema has no change.
 */
export async function newMigration(options: NewMigrationOptions): Promise<NewMigrationResult> {
  const slug = options.name.trim().replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  if (!slug) throw new Error(`invalid migration name ${JSON.stringify(options.name)}`);
  const sql = await diffMigration(options);
  if (!sql) return { created: false, message: `no schema change in ${options.schemaPath}: no migration written` };

  const baseDir = path.resolve(options.migrationsDir);
  mkdirSync(baseDir, { recursive: true });
  const newest = readdirSync(baseDir)
    .map((entry) => /^(\d{14})_/.exec(entry)?.[1])
    .filter((ts): ts is string => ts !== undefined)
    .sort()
    .at(-1);
  let date = options.now ?? new Date();
  if (newest && timestamp(date) <= newest) date = new Date(parseTimestamp(newest).getTime() + 1000);
  const name = `${timestamp(date)}_${slug}`;
  const dir = path.join(baseDir, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, MIGRATION_FILE), sql);
  if (!existsSync(path.join(baseDir, LOCKFILE))) writeFileSync(path.join(baseDir, LOCKFILE), LOCKFILE_CONTENT);
  return { created: true, name, path: path.join(dir, MIGRATION_FILE), sql };
}

/** A throwaway PGlite to pass as `shadow` to several diffs (close it when done). */
export function openShadowDatabase(): Promise<PGlite> {
  return createThrowawayPGlite();
}
