import { fileURLToPath } from 'node:url';
import { describe, it } from '@jest/globals';
import { expectFreshMigrate, expectNoDrift } from '@cardlens/db/testing';
import { createTestDatabase, describeWithInfra } from '@cardlens/testing';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

describe('grading migrations', () => {
  it('committed migrations match schema.prisma (no drift)', () => expectNoDrift(serviceDir));
  it('a fresh PGlite migrates and a second run is a no-op', () => expectFreshMigrate(serviceDir));
});

describeWithInfra('postgres', 'grading migrations on Postgres', () => {
  it('a fresh database migrates and a second run is a no-op', async () => {
    const db = await createTestDatabase({ label: 'grading_migrate' });
    try {
      await expectFreshMigrate(serviceDir, { kind: 'postgres', url: db.url });
    } finally {
      await db.drop();
    }
  });
});
