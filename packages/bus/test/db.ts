// A fresh database per test file, holding the bus tables exactly as BUS_TABLES_SQL creates them
// (schema "bus_test", the one test/prisma/schema.prisma names), plus a table to count effects in.
import { createTestDatabase, type TestDatabase } from '@cardlens/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { BUS_TABLES_SQL, busTables, forSchema } from '../src/index';
import { PrismaClient } from './generated/prisma/client';

export const tables = busTables('bus_test');

/** What the service migration would create: the bus tables, plus the effects table of the test schema. */
export const TEST_SCHEMA_SQL = `CREATE SCHEMA bus_test;
${forSchema(BUS_TABLES_SQL, 'bus_test')}
CREATE TABLE bus_test.effects (id SERIAL PRIMARY KEY, message_id TEXT NOT NULL, label TEXT NOT NULL);`;

export interface BusTestDatabase {
  db: TestDatabase;
  prisma: PrismaClient;
  /** Plain connection for assertions outside Prisma. */
  sql: pg.Client;
  close(): Promise<void>;
}

export async function createBusTestDatabase(label: string): Promise<BusTestDatabase> {
  const db = await createTestDatabase({ label });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  await sql.query(TEST_SCHEMA_SQL);
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  return {
    db,
    prisma,
    sql,
    async close() {
      await prisma.$disconnect();
      await sql.end();
      await db.drop();
    },
  };
}
