// PGlite: the embedded mode. One PGlite instance hosts both fixture services, as in the all-in-one process.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  closePGlite,
  createDatabase,
  createThrowawayPGlite,
  migrate,
  openPGlite,
  openPrisma,
  serviceLayout,
  type Database,
  type OpenPrisma,
  type PGlite,
} from '../src/index';
import { expectFreshMigrate } from '../src/testing';
import { PrismaClient as AlphaClient } from './fixtures/alpha/src/generated/prisma/client';
import { PrismaClient as BetaClient } from './fixtures/beta/src/generated/prisma/client';
import { alphaDir, betaDir, copyFixture, tablesByschema, USER_TABLES_SQL } from './helpers';

type Alpha = InstanceType<typeof AlphaClient>;

describe('migrations and clients on one shared PGlite', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await createThrowawayPGlite();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('migrates a fresh database; a second run is a no-op', async () => {
    const started = Date.now();
    const first = await migrate({ ...serviceLayout(alphaDir), database: { kind: 'pglite', pglite } });
    const elapsed = Date.now() - started;
    expect(first).toEqual({ applied: [expect.stringMatching(/^\d{14}_init$/)], schema: 'alpha' });
    console.log(`fresh migrate of alpha on an open PGlite: ${elapsed} ms`);
    expect((await migrate({ ...serviceLayout(alphaDir), database: { kind: 'pglite', pglite } })).applied).toEqual([]);
  });

  it("keeps each service's _prisma_migrations in its own schema and restores search_path", async () => {
    const before = (await pglite.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path;
    expect((await migrate({ ...serviceLayout(betaDir), database: { kind: 'pglite', pglite } })).applied).toHaveLength(1);
    expect(tablesByschema((await pglite.query<{ table_schema: string; table_name: string }>(USER_TABLES_SQL)).rows)).toEqual([
      'alpha._prisma_migrations',
      'alpha.outbox',
      'alpha.widgets',
      'beta._prisma_migrations',
      'beta.gadgets',
      'beta.outbox',
    ]);
    expect((await pglite.query('SELECT migration_name FROM beta._prisma_migrations')).rows).toHaveLength(1);
    expect((await pglite.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path).toBe(before);
    expect((await migrate({ ...serviceLayout(alphaDir), database: { kind: 'pglite', pglite } })).applied).toEqual([]);
    expect((await migrate({ ...serviceLayout(betaDir), database: { kind: 'pglite', pglite } })).applied).toEqual([]);
  });

  describe('generated PrismaClients sharing the instance', () => {
    let database: Database;
    let alpha: OpenPrisma<Alpha>;
    let alpha2: OpenPrisma<Alpha>;
    let beta: OpenPrisma<InstanceType<typeof BetaClient>>;
    beforeAll(async () => {
      for (const dir of [alphaDir, betaDir]) await migrate({ ...serviceLayout(dir), database: { kind: 'pglite', pglite } });
      database = await createDatabase({ kind: 'pglite', pglite });
      alpha = await openPrisma(AlphaClient, database);
      alpha2 = await openPrisma(AlphaClient, database);
      beta = await openPrisma(BetaClient, database);
    });
    afterAll(async () => {
      await alpha?.close();
      await alpha2?.close();
      await beta?.close();
      await database?.close();
      expect(pglite.closed).toBe(false); // a passed-in instance stays open
    });

    it('query their own schema', async () => {
      // openPrisma keeps the service's client type (no `any`): alpha's client has no gadget model
      const inferred = await openPrisma(AlphaClient, database);
      // @ts-expect-error -- not a model of alpha
      expect(inferred.prisma.gadget).toBeUndefined();
      const quantity: number = (await inferred.prisma.widget.findMany()).length;
      expect(quantity).toBe(0);
      await inferred.close();
      const widget = await alpha.prisma.widget.create({ data: { name: 'sleeve', quantity: 3 } });
      expect(await alpha2.prisma.widget.findUniqueOrThrow({ where: { id: widget.id } })).toMatchObject({ name: 'sleeve' });
      const gadget = await beta.prisma.gadget.create({ data: { label: 'toploader', price: '12.50', state: 'live' } });
      expect(gadget).toMatchObject({ label: 'toploader', state: 'live' });
      expect(gadget.price.toFixed(2)).toBe('12.50');
      await beta.prisma.outboxMessage.create({ data: { id: crypto.randomUUID(), topic: 't', payload: { ok: true } } });
      expect(await alpha.prisma.outboxMessage.count()).toBe(0);
      expect(await beta.prisma.outboxMessage.findFirst()).toMatchObject({ topic: 't', payload: { ok: true } });
    });

    it('serialize interactive transactions of different clients (no lost update)', async () => {
      const counter = await alpha.prisma.widget.create({ data: { name: 'counter', quantity: 0 } });
      const increment = (client: Alpha) =>
        client.$transaction(async (tx) => {
          const row = await tx.widget.findUniqueOrThrow({ where: { id: counter.id } });
          await new Promise((resolve) => setTimeout(resolve, 20));
          await tx.widget.update({ where: { id: counter.id }, data: { quantity: row.quantity + 1 } });
        });
      await Promise.all(Array.from({ length: 8 }, (_, i) => increment(i % 2 ? alpha.prisma : alpha2.prisma)));
      expect((await alpha.prisma.widget.findUniqueOrThrow({ where: { id: counter.id } })).quantity).toBe(8);
    });

    it('a transaction that gives up waiting (maxWait) leaves the connection usable', async () => {
      let started!: () => void;
      const startedP = new Promise<void>((resolve) => (started = resolve));
      const holder = alpha.prisma.$transaction(async (t) => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 400));
        return t.widget.count();
      });
      await startedP;
      await expect(alpha2.prisma.$transaction(async (t) => t.widget.count(), { maxWait: 50 })).rejects.toThrow(
        /Unable to start a transaction in the given time/,
      );
      await holder;
      // the late-started transaction was rolled back by Prisma, so PGlite's transaction lock is free again
      await expect(alpha2.prisma.$transaction(async (t) => t.widget.count(), { maxWait: 2_000 })).resolves.toEqual(expect.any(Number));
      expect(await beta.prisma.gadget.count()).toBeGreaterThanOrEqual(0);
    });

    it("never lets another client's statement into an open transaction", async () => {
      let inserted!: () => void;
      const insertedP = new Promise<void>((resolve) => (inserted = resolve));
      const tx = alpha.prisma
        .$transaction(async (t) => {
          await t.widget.create({ data: { name: 'uncommitted' } });
          inserted();
          await new Promise((resolve) => setTimeout(resolve, 200));
          throw new Error('rollback');
        })
        .catch((error: Error) => error.message);
      await insertedP;
      // issued while the transaction is open: it waits for it, and so never sees the rolled-back row
      const count = await alpha2.prisma.widget.count({ where: { name: 'uncommitted' } });
      expect(await tx).toBe('rollback');
      expect(count).toBe(0);
    });
  });

  it('runs concurrent migrations of several services one at a time', async () => {
    const other = await createThrowawayPGlite();
    try {
      const runs = await Promise.all(
        [alphaDir, betaDir, alphaDir, betaDir].map((dir) => migrate({ ...serviceLayout(dir), database: { kind: 'pglite', pglite: other } })),
      );
      expect(runs.map((r) => r.applied.length).sort()).toEqual([0, 0, 1, 1]);
    } finally {
      await other.close();
    }
  });

  it('reports a failing migration instead of recording it as applied', async () => {
    const copy = copyFixture('alpha');
    const other = await createThrowawayPGlite();
    try {
      const { migrationsDir } = serviceLayout(copy.dir);
      mkdirSync(path.join(migrationsDir, '99990101000000_broken'));
      writeFileSync(
        path.join(migrationsDir, '99990101000000_broken', 'migration.sql'),
        'CREATE TABLE "alpha"."half_done" ("id" INTEGER);\nSELECT * FROM "alpha"."no_such_table";\n',
      );
      const database = { kind: 'pglite' as const, pglite: other };
      await expect(migrate({ ...serviceLayout(copy.dir), database })).rejects.toThrow(/no_such_table/);
      const rows = (await other.query<{ migration_name: string; finished_at: Date | null }>(
        'SELECT migration_name, finished_at FROM alpha._prisma_migrations ORDER BY started_at',
      )).rows;
      expect(rows.map((r) => [r.migration_name.replace(/^\d+_/, ''), r.finished_at !== null])).toEqual([
        ['init', true],
        ['broken', false],
      ]);
      // the script ran as one implicit transaction: nothing of it stayed
      expect((await other.query(`SELECT to_regclass('alpha.half_done') AS t`)).rows).toEqual([{ t: null }]);
      // and the engine refuses to go on until someone resolves the failed migration
      await expect(migrate({ ...serviceLayout(copy.dir), database })).rejects.toThrow(/failed/i);
    } finally {
      await other.close();
      copy.remove();
    }
  });

  it('expectFreshMigrate passes on its own throwaway PGlite', async () => {
    const result = await expectFreshMigrate(betaDir);
    expect(result.applied).toHaveLength(1);
  });
});

describe('openPGlite (persistent data directory)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'cardlens-db-pglite-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('creates, shares within the process, persists, and loads pg_trgm', async () => {
    const dataDir = path.join(root, 'data', 'pglite');
    let started = Date.now();
    const first = await openPGlite(dataDir);
    const createMs = Date.now() - started;
    const same = await openPGlite(dataDir);
    expect(same).toBe(first);
    expect(existsSync(`${dataDir}.lock`)).toBe(true);

    started = Date.now();
    await migrate({ ...serviceLayout(alphaDir), database: { kind: 'pglite', dataDir } }); // same instance again
    const migrateMs = Date.now() - started;
    await first.exec(`INSERT INTO alpha.widgets (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'kept')`);
    await first.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    expect((await first.query<{ s: number }>(`SELECT similarity('charizard', 'charizrd') AS s`)).rows[0]?.s).toBeGreaterThan(0.5);

    await closePGlite(same);
    expect(first.closed).toBe(false); // still used by `first`
    await closePGlite(first);
    expect(first.closed).toBe(true);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);

    started = Date.now();
    const reopened = await openPGlite(dataDir);
    const reopenMs = Date.now() - started;
    try {
      expect((await reopened.query('SELECT name FROM alpha.widgets')).rows).toEqual([{ name: 'kept' }]);
      expect((await migrate({ ...serviceLayout(alphaDir), database: { kind: 'pglite', pglite: reopened } })).applied).toEqual([]);
    } finally {
      await closePGlite(reopened);
    }
    console.log(`PGlite data dir: create ${createMs} ms, fresh migrate (alpha) ${migrateMs} ms, reopen ${reopenMs} ms`);
  });

  it('refuses a data directory another live process holds, and takes over a stale lock', async () => {
    const dataDir = path.join(root, 'locked');
    writeFileSync(`${dataDir}.lock`, `${process.ppid}\n`);
    await expect(openPGlite(dataDir)).rejects.toThrow(/in use by process/);
    writeFileSync(`${dataDir}.lock`, '999999999\n');
    const pglite = await openPGlite(dataDir);
    await closePGlite(pglite);
  });
});
