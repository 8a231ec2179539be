import type * as JestGlobals from '@jest/globals';
import { isCi, type InfraKind } from './env';
import { createTestDatabase, type TestDatabase } from './postgres';
import { assertInfra, warnSkipped } from './probe';
import { unreachableKindsSync } from './sync-probe';

type Globals = Pick<typeof JestGlobals, 'describe' | 'beforeAll' | 'afterAll'>;

function jestGlobals(): Globals {
  const g = globalThis as unknown as Partial<Globals>;
  if (typeof g.describe !== 'function' || typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function') {
    throw new Error('describeWithInfra must be called from a jest test file (jest injects describe/beforeAll)');
  }
  return g as Globals;
}

/**
 * `describe` for tests that need real services.
 * - Locally (CI unset): when a service's port refuses connections the block is registered with
 *   `describe.skip` and a loud warning is printed.
 * - Always: a `beforeAll` registered before the block's own hooks checks every service with a real request
 *   (SELECT 1 / PING / Kafka metadata) and throws InfraUnavailableError when one does not answer, so with
 *   CI=true a missing service makes every test in the block FAIL, never skip.
 */
export function describeWithInfra(kinds: InfraKind | readonly InfraKind[], name: string, fn: () => void): void {
  const { describe, beforeAll } = jestGlobals();
  const list: readonly InfraKind[] = typeof kinds === 'string' ? [kinds] : kinds;
  if (!isCi()) {
    const missing = unreachableKindsSync(list);
    if (missing.length > 0) {
      for (const kind of missing) warnSkipped(kind, 'connection refused or timed out', `"${name}"`);
      describe.skip(name, fn);
      return;
    }
  }
  describe(name, () => {
    beforeAll(async () => {
      for (const kind of list) await assertInfra(kind);
    });
    fn();
  });
}

/** Where describeOnPgliteAndPostgres opens a suite's client: an in-memory PGlite, or a fresh Postgres database. */
export type SuiteDatabase = { kind: 'pglite'; dataDir: 'memory://' } | { kind: 'postgres'; url: string; poolSize: number };

/** A suite's open client (a migrated Prisma client, typically) and how to close it. */
export interface OpenedSuiteDatabase<T> {
  client: T;
  close(): Promise<void>;
}

/**
 * One body of tests run twice: on an in-memory PGlite (`<name> on PGlite`), and on a database of its own on the
 * real Postgres (`<name> on Postgres`, through describeWithInfra: with CI=true a missing Postgres fails it). `open`
 * creates, migrates and opens the client for either (the caller's service knows its schema); the database is
 * closed, and the Postgres one dropped, after the block.
 */
export function describeOnPgliteAndPostgres<T>(
  name: string,
  options: { label: string; open: (database: SuiteDatabase) => Promise<OpenedSuiteDatabase<T>> },
  body: (client: () => T) => void,
): void {
  const { describe, beforeAll, afterAll } = jestGlobals();
  describe(`${name} on PGlite`, () => {
    let opened: OpenedSuiteDatabase<T> | undefined;
    beforeAll(async () => {
      opened = await options.open({ kind: 'pglite', dataDir: 'memory://' });
    });
    afterAll(async () => {
      await opened?.close();
    });
    body(() => opened!.client);
  });
  describeWithInfra('postgres', `${name} on Postgres`, () => {
    let db: TestDatabase | undefined;
    let opened: OpenedSuiteDatabase<T> | undefined;
    beforeAll(async () => {
      db = await createTestDatabase({ label: options.label });
      opened = await options.open({ kind: 'postgres', url: db.url, poolSize: 10 });
    });
    afterAll(async () => {
      await opened?.close();
      await db?.drop();
    });
    body(() => opened!.client);
  });
}
