// Connections for a service's own generated PrismaClient (each service generates its client into
// services/<name>/src/generated/prisma, so this package takes the PrismaClient class as a parameter).
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { closePGlite, openPGlite, type PGlite } from './pglite';

export type DatabaseConfig =
  /** A Postgres server. `poolSize` is the pg pool's `max` (default 10). */
  | { kind: 'postgres'; url: string; poolSize?: number }
  /** A persistent PGlite in `dataDir` (shared within the process, see openPGlite); `memory://` for in-memory. */
  | { kind: 'pglite'; dataDir: string }
  /** An already open PGlite instance, e.g. the one the all-in-one process shares between services. */
  | { kind: 'pglite'; pglite: PGlite };

/** Transaction defaults handed to PrismaClient (same shape as Prisma's `transactionOptions`). */
export interface TransactionDefaults {
  maxWait: number;
  timeout: number;
}

/** What `new PrismaClient(...)` needs; spread it and add your own options (log, omit, ...). */
export interface PrismaClientArgs {
  adapter: SqlDriverAdapterFactory;
  transactionOptions: TransactionDefaults;
}

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /** Driver adapter factory for `new PrismaClient({ adapter })`. */
  readonly adapter: SqlDriverAdapterFactory;
  /** `{ adapter, transactionOptions }` for `new PrismaClient({ ...db.clientArgs, log: [...] })`. */
  readonly clientArgs: PrismaClientArgs;
  /** The Postgres URL (kind 'postgres'). */
  readonly url?: string;
  /** The PGlite instance (kind 'pglite'). */
  readonly pglite?: PGlite;
  /**
   * Releases what createDatabase opened: a PGlite it opened from `dataDir` (reference counted, see
   * closePGlite). A PGlite passed in is left open. Postgres pools belong to the PrismaClient
   * ($disconnect ends them).
   */
  close(): Promise<void>;
}

/**
 * PGlite is ONE connection shared by every client on it. pglite-prisma-adapter runs each interactive
 * transaction inside `pglite.transaction()`, which holds PGlite's transaction mutex, and PGlite's own
 * `query()`/`exec()` wait for that mutex too: transactions from different clients therefore run one after
 * the other and no statement of another client can slip into an open transaction. A client waiting for the
 * connection counts against Prisma's `maxWait` (default 2 s), hence the longer default here.
 * Deadlock to avoid: inside `prisma.$transaction(async (tx) => ...)` use only `tx`; a query on any other
 * client of the same PGlite waits for the transaction, which waits for it, until `timeout` expires.
 */
export const PGLITE_TRANSACTION_DEFAULTS: TransactionDefaults = { maxWait: 15_000, timeout: 10_000 };
/** Prisma's own defaults. */
export const POSTGRES_TRANSACTION_DEFAULTS: TransactionDefaults = { maxWait: 2_000, timeout: 5_000 };

export function isDatabase(value: DatabaseConfig | Database): value is Database {
  return 'adapter' in value && typeof (value as Database).close === 'function';
}

export async function createDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.kind === 'postgres') {
    const adapter = new PrismaPg({ connectionString: config.url, max: config.poolSize ?? 10 });
    return {
      kind: 'postgres',
      adapter,
      clientArgs: { adapter, transactionOptions: { ...POSTGRES_TRANSACTION_DEFAULTS } },
      url: config.url,
      close: async () => {},
    };
  }
  const owned = !('pglite' in config);
  const pglite = 'pglite' in config ? config.pglite : await openPGlite(config.dataDir);
  const adapter = new PrismaPGlite(pglite);
  let closed = false;
  return {
    kind: 'pglite',
    adapter,
    clientArgs: { adapter, transactionOptions: { ...PGLITE_TRANSACTION_DEFAULTS } },
    pglite,
    close: async () => {
      if (closed || !owned) return;
      closed = true;
      await closePGlite(pglite);
    },
  };
}

/**
 * Any generated PrismaClient class: `new (options) => client`. The generated constructor is generic in its
 * options; TypeScript instantiates it for PrismaClientArgs, so `C` is the service's own client type.
 */
export type PrismaClientClass<C> = new (options: PrismaClientArgs) => C;

/** The part of a PrismaClient this package uses. */
export interface DisconnectableClient {
  $disconnect(): Promise<void>;
}

export interface OpenPrisma<C> {
  prisma: C;
  database: Database;
  /** $disconnect(), then database.close() when openPrisma created the database from a config. */
  close(): Promise<void>;
}

/**
 * `new PrismaClient({ adapter })` on Postgres (@prisma/adapter-pg, pool of `poolSize`) or PGlite
 * (pglite-prisma-adapter). Pass a Database from createDatabase() to share it (e.g. one PGlite for all
 * services); close() then leaves that Database open.
 */
export async function openPrisma<C extends DisconnectableClient>(
  PrismaClient: PrismaClientClass<C>,
  config: DatabaseConfig | Database,
): Promise<OpenPrisma<C>> {
  const ownsDatabase = !isDatabase(config);
  const database = isDatabase(config) ? config : await createDatabase(config);
  const prisma = new PrismaClient(database.clientArgs);
  return {
    prisma,
    database,
    close: async () => {
      try {
        await prisma.$disconnect();
      } finally {
        if (ownsDatabase) await database.close();
      }
    },
  };
}
