// The Prisma snippet services copy and the SQL documented next to it must describe the same tables:
// a service's migration (generated from the snippet) is what the bus's raw SQL queries run against.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { diffMigration } from '@cardlens/db';
import { BUS_PRISMA_MODELS, BUS_TABLES_SQL, forSchema } from '../src/index';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The body of the ```<lang> block in the doc comment of src/outbox-schema.ts, without the ` * ` margin. */
function documented(lang: string): string {
  const source = readFileSync(path.join(here, '../src/outbox-schema.ts'), 'utf8');
  const block = new RegExp(`\\* \`\`\`${lang}\\n([\\s\\S]*?) \\* \`\`\``).exec(source)?.[1];
  if (!block) throw new Error(`no ${lang} block in the doc comment`);
  return block.replace(/^ \*( |$)/gm, '');
}

describe('bus tables schema', () => {
  it('documents exactly the exported snippet and SQL', () => {
    expect(documented('prisma')).toBe(BUS_PRISMA_MODELS);
    expect(documented('sql')).toBe(BUS_TABLES_SQL);
  });

  it('is what the test schema (used to generate the test client) contains', () => {
    const schema = readFileSync(path.join(here, 'prisma/schema.prisma'), 'utf8');
    expect(schema).toContain(forSchema(BUS_PRISMA_MODELS, 'bus_test'));
  });

  it('has SQL that produces exactly the tables the Prisma snippet describes (migration diff is empty)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bus-schema-'));
    try {
      const schemaPath = path.join(dir, 'schema.prisma');
      writeFileSync(
        schemaPath,
        `datasource db {\n  provider = "postgresql"\n  schemas  = ["billing"]\n}\n\n${forSchema(BUS_PRISMA_MODELS, 'billing')}`,
      );
      const migrationDir = path.join(dir, 'migrations', '20250101000000_bus_tables');
      mkdirSync(migrationDir, { recursive: true });
      writeFileSync(path.join(migrationDir, 'migration.sql'), `CREATE SCHEMA IF NOT EXISTS "billing";\n\n${forSchema(BUS_TABLES_SQL, 'billing')}`);
      expect(await diffMigration({ schemaPath, migrationsDir: path.join(dir, 'migrations') })).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
