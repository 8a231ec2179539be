// Drift detection and migration authoring; needs no database (diffs replay migrations on a throwaway PGlite).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createThrowawayPGlite, declaredSchemas, diffMigration, newMigration, serviceLayout, type PGlite } from '../src/index';
import { expectNoDrift } from '../src/testing';
import { alphaDir, betaDir, copyFixture } from './helpers';

describe('diffMigration / newMigration / expectNoDrift', () => {
  let shadow: PGlite;
  beforeAll(async () => {
    shadow = await createThrowawayPGlite();
  });
  afterAll(async () => {
    await shadow?.close();
  });

  it('finds no drift in the committed fixtures (also when a shadow is reused)', async () => {
    expect(await diffMigration({ ...serviceLayout(alphaDir), shadow })).toBe('');
    expect(await diffMigration({ ...serviceLayout(alphaDir), shadow })).toBe('');
    expect(await diffMigration({ ...serviceLayout(betaDir), shadow })).toBe('');
  });

  it('expectNoDrift passes on the fixtures with its own shadow database', async () => {
    const started = Date.now();
    await expectNoDrift(alphaDir);
    console.log(`expectNoDrift(alpha) with a new throwaway PGlite: ${Date.now() - started} ms`);
  });

  it('reports a field added to the schema, and newMigration turns it into a committed migration', async () => {
    const copy = copyFixture('alpha');
    try {
      const layout = serviceLayout(copy.dir);
      const schema = readFileSync(layout.schemaPath, 'utf8');
      writeFileSync(layout.schemaPath, schema.replace('  quantity  Int      @default(0)\n', '  quantity  Int      @default(0)\n  grade     String?\n'));
      rmSync(path.join(layout.migrationsDir, 'migration_lock.toml'));

      const sql = await diffMigration({ ...layout, shadow });
      expect(sql).toContain('ALTER TABLE "alpha"."widgets" ADD COLUMN     "grade" TEXT;');
      await expect(expectNoDrift(copy.dir, { shadow })).rejects.toThrow(/do not match[\s\S]*--service alpha[\s\S]*ADD COLUMN/);

      const existing = readdirSync(layout.migrationsDir).sort();
      const created = await newMigration({ ...layout, shadow, name: 'add grade!', now: new Date('2001-01-01T00:00:00Z') });
      if (!created.created) throw new Error('expected a migration');
      // kept after the newest existing migration even with a clock in the past
      expect(created.name).toMatch(/^\d{14}_add_grade$/);
      expect(created.name > existing.at(-1)!).toBe(true);
      expect(readFileSync(created.path, 'utf8')).toBe(sql);
      expect(readFileSync(path.join(layout.migrationsDir, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');

      expect(await diffMigration({ ...layout, shadow })).toBe('');
      await expectNoDrift(copy.dir, { shadow });
      expect(await newMigration({ ...layout, shadow, name: 'nothing' })).toEqual({
        created: false,
        message: expect.stringContaining('no schema change'),
      });
      expect(readdirSync(layout.migrationsDir).sort()).toEqual([...existing, created.name, 'migration_lock.toml'].sort());
    } finally {
      copy.remove();
    }
  });

  it('writes the first migration of a new service, with a timestamped name and lockfile', async () => {
    const copy = copyFixture('beta');
    try {
      const layout = serviceLayout(copy.dir);
      rmSync(layout.migrationsDir, { recursive: true });
      const created = await newMigration({ ...layout, shadow, name: 'init', now: new Date('2030-05-06T07:08:09Z') });
      expect(created).toMatchObject({ created: true, name: '20300506070809_init' });
      expect(existsSync(path.join(layout.migrationsDir, 'migration_lock.toml'))).toBe(true);
      if (created.created) expect(created.sql).toContain('CREATE TABLE "beta"."gadgets"');
      expect(await diffMigration({ ...layout, shadow })).toBe('');
    } finally {
      copy.remove();
    }
  });

  it('reads the schemas a datasource declares', () => {
    expect(declaredSchemas(readFileSync(serviceLayout(alphaDir).schemaPath, 'utf8'))).toEqual(['alpha']);
    expect(declaredSchemas('datasource db {\n  provider = "postgresql"\n  // schemas = ["x"]\n}')).toEqual([]);
    expect(declaredSchemas('datasource db {\n  provider = "postgresql"\n  schemas = ["a", "b"]\n}')).toEqual(['a', 'b']);
  });
});
