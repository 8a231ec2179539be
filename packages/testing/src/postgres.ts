import pg from 'pg';
import { infraUrls } from './env';
import { randomSuffix, sanitizeLabel } from './ids';

export interface TestDatabase {
  /** Database name: cardlens_t_<base36 ms timestamp>_<random>[_<label>] */
  name: string;
  /** DATABASE_URL with the path pointing at the new database (same host, user and query options). */
  url: string;
  /** DROP DATABASE ... WITH (FORCE): ends leftover connections. Idempotent. */
  drop(): Promise<void>;
}

const PREFIX = 'cardlens_t_';
const NAME_PATTERN = /^cardlens_t_([0-9a-z]+)_[0-9a-f]+(?:_[a-z0-9_]*)?$/;
/** Databases of crashed runs older than this are dropped by the next createTestDatabase. */
export const STALE_TEST_DATABASE_MS = 6 * 60 * 60 * 1000;

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

async function withAdmin<T>(baseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export function databaseUrlFor(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** Drops test databases (cardlens_t_*) whose name says they were created more than maxAgeMs ago. */
export async function dropStaleTestDatabases(
  maxAgeMs = STALE_TEST_DATABASE_MS,
  baseUrl = infraUrls().databaseUrl,
): Promise<string[]> {
  return withAdmin(baseUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'cardlens\\_t\\_%'",
    );
    const cutoff = Date.now() - maxAgeMs;
    const dropped: string[] = [];
    for (const { datname } of rows) {
      const created = NAME_PATTERN.exec(datname)?.[1];
      if (created === undefined || parseInt(created, 36) >= cutoff) continue;
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`).catch(() => {});
      dropped.push(datname);
    }
    return dropped;
  });
}

/**
 * Creates a fresh, empty, uniquely named database on the DATABASE_URL server, for one test file or suite.
 * Call drop() in afterAll (after closing your own pools). Databases left by crashed runs are cleaned up
 * by later calls once they are STALE_TEST_DATABASE_MS old.
 */
export async function createTestDatabase(options: { label?: string; baseUrl?: string } = {}): Promise<TestDatabase> {
  const baseUrl = options.baseUrl ?? infraUrls().databaseUrl;
  const label = options.label ? sanitizeLabel(options.label, 20).replace(/-/g, '_') : '';
  const name = `${PREFIX}${Date.now().toString(36)}_${randomSuffix(5)}${label ? `_${label}` : ''}`;
  await dropStaleTestDatabases(STALE_TEST_DATABASE_MS, baseUrl).catch(() => []);
  await withAdmin(baseUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
  let dropped = false;
  return {
    name,
    url: databaseUrlFor(baseUrl, name),
    async drop() {
      if (dropped) return;
      await withAdmin(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
      dropped = true;
    },
  };
}
