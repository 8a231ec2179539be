import pg from 'pg';
import type { Database } from '@cardlens/db';

/**
 * Read-only looks (and test-only inserts) into the stack's database by plain SQL, on PGlite or Postgres, for
 * end-to-end tests that check what the services recorded (ledgers, counters) without importing their code.
 */
export interface Sql {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function openSql(database: Database): Sql {
  if (database.pglite) {
    const db = database.pglite;
    return { query: async <T>(text: string, params: unknown[] = []) => (await db.query<T>(text, params)).rows, close: async () => undefined };
  }
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  return { query: async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[], close: () => pool.end() };
}
