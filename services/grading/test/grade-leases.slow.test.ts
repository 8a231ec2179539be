// The one-grade-in-flight leases in the grading schema (PGlite here; the grades e2e suites run them on Postgres
// too, with 20 concurrent requests per account): one live lease per account, expiry judged on the database's
// clock, fencing tokens that only grow (above every token recorded before the leases moved into the database),
// and a stale holder that cannot free the newer holder's lease.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { PrismaClient } from '../src/db';
import { GradeLeases } from '../src/grade-leases';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

describe('grade leases (PGlite)', () => {
  let database: Database;
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let leases: GradeLeases;
  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(serviceDir), database });
    ({ prisma, close } = await openPrisma(PrismaClient, database));
    leases = new GradeLeases(prisma);
  });
  afterAll(async () => {
    await close();
    await database.close();
  });

  it('grants one live lease per account; other accounts are independent; a released lease is taken again with a larger token', async () => {
    const first = await leases.acquire(1, 10_000);
    expect(first).not.toBeNull();
    expect(await leases.acquire(1, 10_000)).toBeNull();
    const other = await leases.acquire(2, 10_000);
    expect(other).not.toBeNull();
    await first!.release();
    const again = await leases.acquire(1, 10_000);
    expect(again!.token).toBeGreaterThan(other!.token);
    await again!.release();
    await other!.release();
  });

  it('an expired lease is taken over with a larger token, and the old holder cannot release the new one', async () => {
    const stale = await leases.acquire(3, 50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const fresh = await leases.acquire(3, 10_000);
    expect(fresh!.token).toBeGreaterThan(stale!.token);
    await stale!.release();
    expect(await leases.acquire(3, 10_000)).toBeNull();
    await fresh!.release();
    expect(await leases.acquire(3, 10_000)).not.toBeNull();
  });

  it('of 20 concurrent attempts for one account exactly one wins', async () => {
    const taken = await Promise.all(Array.from({ length: 20 }, () => leases.acquire(5, 10_000)));
    expect(taken.filter((lease) => lease !== null)).toHaveLength(1);
  });

  it('starts its tokens above every fencing token recorded before its migration (a grade under the earlier lock cannot complete after a lease)', async () => {
    const layout = serviceLayout(serviceDir);
    const earlier = mkdtempSync(path.join(tmpdir(), 'grading-migrations-'));
    const fresh = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    try {
      // Every migration before the leases', a fence recorded under the earlier lock, then the leases' migration.
      for (const entry of readdirSync(layout.migrationsDir)) {
        if (!entry.endsWith('_grade_leases')) cpSync(path.join(layout.migrationsDir, entry), path.join(earlier, entry), { recursive: true });
      }
      await migrate({ ...layout, migrationsDir: earlier, database: fresh });
      const opened = await openPrisma(PrismaClient, fresh);
      try {
        await opened.prisma.$executeRaw`INSERT INTO "grading"."agent_fences" ("agent_id", "token", "updated_at") VALUES (9, 1000000, now())`;
        const applied = await migrate({ ...layout, database: fresh });
        expect(applied.applied).toEqual([expect.stringMatching(/_grade_leases$/)]);
        const lease = await new GradeLeases(opened.prisma).acquire(9, 10_000);
        expect(lease!.token).toBeGreaterThan(1_000_000n);
      } finally {
        await opened.close();
      }
    } finally {
      await fresh.close();
      rmSync(earlier, { recursive: true, force: true });
    }
  });
});
