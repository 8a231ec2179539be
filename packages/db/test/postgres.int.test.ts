// Postgres: fresh database per test file (uniquely named, dropped afterwards). With CI=true a missing
// Postgres fails these tests (describeWithInfra), locally it skips them loudly.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import pg from 'pg';
import { migrate, openPrisma, serviceLayout, type OpenPrisma } from '../src/index';
import { expectFreshMigrate } from '../src/testing';
import { PrismaClient as AlphaClient } from './fixtures/alpha/src/generated/prisma/client';
import { PrismaClient as BetaClient } from './fixtures/beta/src/generated/prisma/client';
import { alphaDir, betaDir, tablesByschema, USER_TABLES_SQL } from './helpers';

describeWithInfra('postgres', 'migrations and clients on Postgres', () => {
  let db: TestDatabase;
  let sql: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase({ label: 'db' });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('migrates a fresh database; a second run is a no-op', async () => {
    const started = Date.now();
    const first = await migrate({ ...serviceLayout(alphaDir), database: { kind: 'postgres', url: db.url } });
    const elapsed = Date.now() - started;
    expect(first).toEqual({ applied: [expect.stringMatching(/^\d{14}_init$/)], schema: 'alpha' });
    console.log(`fresh migrate of alpha on Postgres: ${elapsed} ms`);
    const second = await migrate({ ...serviceLayout(alphaDir), database: { kind: 'postgres', url: db.url } });
    expect(second.applied).toEqual([]);
  });

  it("records the CLI's checksum (sha256 of migration.sql) in the service's own schema", async () => {
    const { rows } = await sql.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM alpha._prisma_migrations',
    );
    expect(rows).toHaveLength(1);
    const file = path.join(serviceLayout(alphaDir).migrationsDir, rows[0]!.migration_name, 'migration.sql');
    expect(rows[0]!.checksum).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
    expect(rows[0]!.finished_at).not.toBeNull();
  });

  it('hosts a second service in the same database without collision', async () => {
    const beta = await migrate({ ...serviceLayout(betaDir), database: { kind: 'postgres', url: db.url } });
    expect(beta.applied).toHaveLength(1);
    expect(tablesByschema((await sql.query(USER_TABLES_SQL)).rows)).toEqual([
      'alpha._prisma_migrations',
      'alpha.outbox',
      'alpha.widgets',
      'beta._prisma_migrations',
      'beta.gadgets',
      'beta.outbox',
    ]);
    // each bookkeeping table knows only its own service's migrations
    const alphaNames = (await sql.query('SELECT migration_name FROM alpha._prisma_migrations')).rows;
    const betaNames = (await sql.query('SELECT migration_name FROM beta._prisma_migrations')).rows;
    expect(alphaNames).toEqual([{ migration_name: expect.stringMatching(/_init$/) }]);
    expect(betaNames).toEqual([{ migration_name: expect.stringMatching(/_init$/) }]);
    expect((await migrate({ ...serviceLayout(alphaDir), database: { kind: 'postgres', url: db.url } })).applied).toEqual([]);
    expect((await migrate({ ...serviceLayout(betaDir), database: { kind: 'postgres', url: db.url } })).applied).toEqual([]);
  });

  it('concurrent migrators wait for each other (advisory lock) and apply once', async () => {
    const other = await createTestDatabase({ label: 'db-concurrent' });
    try {
      const runs = await Promise.all(
        [alphaDir, betaDir, alphaDir, betaDir].map((dir) =>
          migrate({ ...serviceLayout(dir), database: { kind: 'postgres', url: other.url } }),
        ),
      );
      expect(runs.map((r) => r.applied.length).sort()).toEqual([0, 0, 1, 1]);
    } finally {
      await other.drop();
    }
  });

  describe('generated PrismaClients', () => {
    let alpha: OpenPrisma<InstanceType<typeof AlphaClient>>;
    let beta: OpenPrisma<InstanceType<typeof BetaClient>>;
    beforeAll(async () => {
      for (const dir of [alphaDir, betaDir]) await migrate({ ...serviceLayout(dir), database: { kind: 'postgres', url: db.url } });
      alpha = await openPrisma(AlphaClient, { kind: 'postgres', url: db.url, poolSize: 2 });
      beta = await openPrisma(BetaClient, { kind: 'postgres', url: db.url, poolSize: 2 });
    });
    afterAll(async () => {
      await alpha?.close();
      await beta?.close();
    });

    it('query their own schema', async () => {
      const widget = await alpha.prisma.widget.create({ data: { name: 'sleeve', quantity: 3 } });
      expect(await alpha.prisma.widget.findUniqueOrThrow({ where: { id: widget.id } })).toMatchObject({ name: 'sleeve', quantity: 3 });
      const gadget = await beta.prisma.gadget.create({ data: { label: 'toploader', price: '12.50', state: 'live' } });
      expect(gadget.state).toBe('live');
      expect(gadget.price.toString()).toBe('12.5');
      await alpha.prisma.outboxMessage.create({ data: { id: crypto.randomUUID(), topic: 'a', payload: { n: 1 } } });
      expect(await beta.prisma.outboxMessage.count()).toBe(0);
      expect(await alpha.prisma.outboxMessage.count()).toBe(1);
    });

    it('run interactive transactions', async () => {
      await expect(
        alpha.prisma.$transaction(async (tx) => {
          await tx.widget.create({ data: { name: 'rolled back' } });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await alpha.prisma.widget.count({ where: { name: 'rolled back' } })).toBe(0);
    });
  });

  it('expectFreshMigrate passes on a fresh database', async () => {
    const fresh = await createTestDatabase({ label: 'db-fresh' });
    try {
      await expectFreshMigrate(alphaDir, { kind: 'postgres', url: fresh.url });
      await expect(expectFreshMigrate(alphaDir, { kind: 'postgres', url: fresh.url })).rejects.toThrow(/fresh database/);
    } finally {
      await fresh.drop();
    }
  });
});
